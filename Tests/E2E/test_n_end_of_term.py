"""End of term in the browser. A class's teacher (not an administrator) opens its settings:
the End of term section archives the class from the keyboard (confirmed first), says so in
its status line and leaves the focus on the button, now Reopen Class. The server says the
class is archived: a student's post is refused while the posts already there stay, and the
pin button on the class's map says the class is archived instead of opening its sheet.
Reopened, students post again. Deleting takes the class's address typed exactly (the
Delete button stays disabled until then); once deleted, the class is gone from the server
and from the teacher's classes, and the app is back on the default class's map with the
focus on the class button. The section passes axe, open and archived. The default class's
settings offer archiving only. A student whose page loaded the class before it was archived
is told the class is archived when Finish is refused; an invitation to an archived class
says it takes no new members."""
import json

import pytest
from selenium.webdriver.common.keys import Keys

from helpers import HTTPFailure, add_member
from test_e_add_location import FAKE_GEOCODE, fill, open_sheet
from test_i_keyboard import focus_is_visible, focused, press, tab_to
from test_n_classes import administrator, as_teacher, axe_check, class_locations, post_in_class, unique_slug


def refusal(call):
    with pytest.raises(HTTPFailure) as refused:
        call()
    return refused.value.status, json.loads(refused.value.body)


def button_label(page, css):
    return page.find(f"{css} .button-label").text


def test_a_teacher_archives_reopens_and_deletes_a_class(page, api):
    admin = administrator(api)
    slug = unique_slug("eot")
    name = "History 9"
    as_teacher(admin, "POST", "/api/classes", {"slug": slug, "name": name})
    teacher = api.create_user("Tess", "Teacher")
    early, late = api.create_user("Ed", "Early"), api.create_user("Liv", "Late")
    add_member(admin, slug, teacher, "teacher")
    for student in (early, late):
        add_member(admin, slug, student)
    kept = post_in_class(early, slug, "Lagos, Nigeria", 6.45, 3.39)
    found = []

    page.log_in(teacher)
    page.open(f"/#/c/{slug}/settings")
    page.visible("#end-section")
    page.text_in("#settings-title", name)
    assert page.find("#end-title").text == "End of term"
    assert button_label(page, "#archive-button") == "Archive Class"
    assert "archive the class" in page.find("#archive-state").text
    hint = page.find("#delete-class-hint").text
    for what in ("location", "membership", "report", "invite link", "for good"):
        assert what in hint, f"the delete hint does not say {what!r}: {hint}"
    assert slug in page.find("label:has(#delete-class-confirm)").text, "the label names the address to type"
    assert not page.find("#delete-class-button").is_enabled(), "Delete works only once the address is typed"
    axe_check(page, "end of term, open", found)

    # Archive from the keyboard: Enter on the button, Enter on the confirmation.
    tab_to(page, "#archive-button")
    press(page, Keys.ENTER)
    title, message = page.alert()
    assert title == f"Archive {name}?"
    assert "read-only" in message and "reopen" in message
    press(page, Keys.ENTER)
    page.text_in("#archive-done", f"{name} is archived")
    assert page.find("#archive-done").find_element("xpath", "..").get_attribute("role") == "status"
    page.until(lambda d: button_label(page, "#archive-button") == "Reopen Class", 5, "the button did not become Reopen Class")
    assert focused(page).get_attribute("id") == "archive-button", "the focus stays on the (now Reopen) button"
    assert focus_is_visible(page)
    assert "The class is archived" in page.find("#archive-state").text
    assert page.find("#settings-intro").text.startswith("This class is archived")
    axe_check(page, "end of term, archived", found)
    page.js("document.getElementById('end-section').scrollIntoView()")
    page.screenshot("class-end-of-term")

    # The server says so: no new posts, the old ones stay.
    assert as_teacher(teacher, "GET", f"/api/classes/{slug}")["archived"] is True
    status, body = refusal(lambda: post_in_class(late, slug, "Hanoi, Vietnam", 21.03, 105.85))
    assert status == 403 and "archived" in body["error"], body
    assert [item["objectId"] for item in class_locations(early, slug)] == [kept], "the posts stay"

    # On the class's map the pin button says the class is archived instead of opening its sheet.
    page.find("#class-back").click()
    page.until(lambda d: d.current_url.endswith(f"#/c/{slug}/map"), 10)
    page.map_ready()
    page.clickable("#add-location-button").click()
    title, message = page.alert()
    assert title == "This Class Is Archived"
    assert "read-only" in message
    page.dismiss_alert()
    assert not page.find("#add-location").is_displayed()

    # Reopen: no confirmation; students post again.
    page.open(f"/#/c/{slug}/settings")
    page.until(lambda d: page.find("#end-section").is_displayed()
               and button_label(page, "#archive-button") == "Reopen Class", 10, "the settings did not show the archived class")
    tab_to(page, "#archive-button")
    press(page, Keys.ENTER)
    page.text_in("#archive-done", f"{name} is open again")
    assert button_label(page, "#archive-button") == "Archive Class"
    assert focused(page).get_attribute("id") == "archive-button"
    assert as_teacher(teacher, "GET", f"/api/classes/{slug}")["archived"] is False
    post_in_class(late, slug, "Hanoi, Vietnam", 21.03, 105.85)
    assert len(class_locations(early, slug)) == 2

    # Delete: the button stays disabled until the address is typed exactly.
    button = page.find("#delete-class-button")
    tab_to(page, "#delete-class-confirm")
    press(page, "History 9")
    assert not button.is_enabled(), "the class's name is not its address"
    page.type_into("#delete-class-confirm", slug[:-1])
    assert not button.is_enabled(), "a prefix of the address is not enough"
    press(page, Keys.ENTER)
    page.text_in("#delete-class-error", slug)
    assert focused(page).get_attribute("id") == "delete-class-confirm"
    assert as_teacher(teacher, "GET", f"/api/classes/{slug}")["slug"] == slug, "nothing was deleted"
    press(page, slug[-1])
    page.until(lambda d: button.is_enabled(), 5, "the Delete button did not turn on for the typed address")
    press(page, Keys.ENTER)
    title, message = page.alert(15)
    assert title == "Class Deleted"
    assert name in message
    page.dismiss_alert()
    page.until(lambda d: d.current_url.endswith("#/map"), 10, "the app did not leave the deleted class")
    page.visible("#main-scene")
    assert focused(page).get_attribute("id") == "class-button", "the focus goes to the class button"
    page.until(lambda d: page.find("#class-name").text not in ("", name), 10, "the class button still names the deleted class")

    status, body = refusal(lambda: as_teacher(teacher, "GET", f"/api/classes/{slug}"))
    assert status == 404 and body["error"]["code"] == "unknown_class", body
    assert slug not in [item["slug"] for item in as_teacher(teacher, "GET", "/api/classes")["classes"]]
    status, _ = refusal(lambda: class_locations(early, slug))
    assert status == 404

    assert not found, "axe found serious or critical violations:\n" + "\n".join(found)


def test_the_default_class_can_be_archived_but_not_deleted(page, api):
    admin = administrator(api)
    main = as_teacher(admin, "GET", "/api/classes")["default_class"]
    page.log_in(admin)
    page.open(f"/#/c/{main}/settings")
    page.visible("#end-section")
    assert button_label(page, "#archive-button") == "Archive Class"
    assert not page.find("#delete-class-form").is_displayed()
    assert "cannot be deleted" in page.visible("#delete-class-default").text


def test_a_post_into_a_class_archived_meanwhile_says_so(page, api):
    """The student's page loaded the class before its teacher archived it: the pin button's
    sheet opens, and Finish says the class is archived (not "log in again")."""
    admin = administrator(api)
    slug = unique_slug("eot")
    as_teacher(admin, "POST", "/api/classes", {"slug": slug, "name": "Latin 3", "precision": "exact"})
    student = api.create_user("Mo", "Meanwhile")
    add_member(admin, slug, student)

    page.log_in(student)
    page.open(f"/#/c/{slug}/map")
    page.until(lambda d: d.current_url.endswith(f"#/c/{slug}/map"), 10)
    page.map_ready()
    page.text_in("#class-name", "Latin 3")
    as_teacher(admin, "PATCH", f"/api/classes/{slug}", {"archived": True})

    page.fake_server_error("/api/geocode", status=200, body=json.dumps(FAKE_GEOCODE))
    open_sheet(page)
    fill(page, "Lagos", "https://example.com/mo")
    page.find("#add-find").click()
    page.clickable("#add-finish", 15).click()
    title, message = page.alert(15)
    assert title == "This Class Is Archived"
    assert message.startswith("Your location was not saved.") and "read-only" in message
    assert not page.find("#add-location").is_displayed(), "the sheet closes: nothing in it can be saved"
    page.dismiss_alert()
    assert class_locations(admin, slug) == []
    # The class is known to be archived now: the pin button says so at once, and the Classes
    # sheet marks it.
    page.clickable("#add-location-button").click()
    title, _ = page.alert()
    assert title == "This Class Is Archived"
    page.dismiss_alert()
    page.clickable("#class-button").click()
    page.visible("#classes")
    page.text_in(f'#my-classes a.class-row[data-slug="{slug}"] .class-row-role', "Archived")
    press(page, Keys.ESCAPE)
    page.gone("#classes")


def test_an_invitation_to_an_archived_class_says_it_takes_nobody(page, api):
    admin = administrator(api)
    slug = unique_slug("eot")
    code = as_teacher(admin, "POST", "/api/classes", {"slug": slug, "name": "Greek 2"})["invite_code"]
    as_teacher(admin, "PATCH", f"/api/classes/{slug}", {"archived": True})
    page.log_in(api.create_user("Ines", "Invited"))
    page.open(f"/#/join/{slug}/{code}")
    page.text_in("#join-error", "archived")
    assert not page.find("#join-button").is_displayed()
