"""Approval in the browser. The administrator creates a class whose every post and move waits
for a moderator ("Posts wait for approval": Every post and move). A student joins by its
invite link and posts from the pin button: the sheet says a moderator approves it first, the
confirmation says it is waiting (not that it is on the map), and a banner, the pin button's
name and the student's own list row keep saying so. A classmate sees nothing of it. The
administrator finds it under Moderate (its count on the button and on the Waiting tab, which
opens first), approves it from the keyboard, and the classmate's map and list get it live
while the student's banner goes and the moderators' notice says it was approved. The student
then moves it: the move waits again, and the administrator rejects it with a reason the
student reads. The Waiting list passes axe at phone and desktop size."""
import json

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import PHONE, DESKTOP, Page, make_driver
from test_e_add_location import FAKE_GEOCODE, fill
from test_i_keyboard import focus_is_visible, press, tab_to
from test_m_moderation import answer_reason
from test_n_classes import administrator, as_teacher, axe_check, class_locations, live, unique_slug

WAITING = "Your post is waiting for a moderator’s approval; classmates will see it once it is approved."
ACCRA = {"results": [{"name": "Accra", "latitude": 5.6, "longitude": -0.19, "kind": "city", "country": "Ghana",
                      "region": "Greater Accra", "span": {"latitudeDelta": 0.3, "longitudeDelta": 0.3}}]}


def checked(page, fieldset):
    return page.js("const c = document.querySelector(arguments[0] + ' input:checked'); return c && c.value", fieldset)


def post_from_the_pin_button(page, geocode, place, link, replacing=False):
    """The pin button's sheet with a fixed geocoder answer; returns the sheet's first note."""
    page.js("if (window.__realFetch) window.fetch = window.__realFetch")
    page.fake_server_error("/api/geocode", status=200, body=json.dumps(geocode))
    page.clickable("#add-location-button").click()
    if replacing:
        title, _ = page.alert()
        assert title == "Replace Your Location?"
        page.dismiss_alert("#alert-ok")
    page.visible("#add-place")
    note = page.find("#add-replace-note").text if page.find("#add-replace-note").is_displayed() else ""
    fill(page, place, link)
    page.find("#add-find").click()
    page.clickable("#add-finish", 15).click()
    page.gone("#add-location")
    return note


def banner_text(page):
    banner = page.find("#waiting-banner")
    return page.find("#waiting-text").text if banner.is_displayed() else ""


def test_a_post_waits_for_approval_then_shows(page, api, server):
    teacher = administrator(api)
    slug = unique_slug("appr")
    found = []

    # Create a Class: "Posts wait for approval" starts on Off; choose Every post and move.
    page.log_in(teacher)
    page.clickable("#class-button").click()
    page.clickable("#create-class-link").click()
    page.visible("#create-view")
    assert checked(page, "#create-approval") == "off", "a new class's posts wait for nobody"
    assert page.find("#create-approval legend").text == "Posts wait for approval"
    labels = [label.text.split("\n")[0] for label in page.find_all("#create-approval .choice")]
    assert labels == ["Off", "New members’ first post", "Every post and move"]
    assert all(len(label.text.split("\n")) == 2 for label in page.find_all("#create-approval .choice")), "one plain line each"
    page.type_into("#create-name", "Approved Posts")
    page.type_into("#create-slug", slug)
    page.find("#create-precision input[value='exact']").click()
    page.find("#create-approval input[value='all']").click()
    page.find("#create-button").click()
    page.visible("#settings-view")
    page.text_in("#settings-title", "Approved Posts")
    assert as_teacher(teacher, "GET", f"/api/classes/{slug}")["approval"] == "all"
    page.visible("#class-approval")
    assert checked(page, "#class-approval") == "all"
    assert "Every post and move waits for a moderator’s approval." in page.find("#settings-intro").text
    link = page.find("#invite-link").get_attribute("value")
    invite_code = link.rsplit("/", 1)[1]

    student = api.create_user("Ada", "Waiting")
    classmate = api.create_user("Cy", "Classmate")
    as_teacher(classmate, "POST", f"/api/classes/{slug}/join", {"code": invite_code})
    author_driver, classmate_driver = make_driver(), make_driver()
    try:
        # The student joins by the invite link and posts: the sheet says it waits first, and
        # the confirmation says it is waiting.
        author = Page(author_driver, server, api)
        author.log_in(student)
        author_driver.get(link)
        author.clickable("#join-button").click()
        author.until(lambda d: d.current_url.endswith(f"#/c/{slug}/map"), 10, "joining did not open the class map")
        author.map_ready()
        assert banner_text(author) == "", "nothing waits yet"
        note = post_from_the_pin_button(author, FAKE_GEOCODE, "Lagos", "https://example.com/ada")
        assert note == "In this class a moderator approves each post before classmates see it."
        title, message = author.alert(15)
        assert title == "Waiting for Approval"
        assert "waiting for a moderator’s approval" in message and "once it is approved" in message
        author.dismiss_alert()
        author.until(lambda d: banner_text(author) == WAITING, 10, "the banner does not say the post waits")
        assert author.find("#waiting-text").get_attribute("role") == "status"
        button = author.find("#add-location-button")
        assert "waiting for a moderator’s approval" in button.get_attribute("aria-label")
        mine = [item for item in class_locations(student, slug) if item["uniqueKey"] == student.key]
        assert len(mine) == 1, "the author's own list holds the waiting post"
        post = mine[0]["objectId"]
        # The own row in the List tab says so, below the banner (also on a phone).
        author.tab("list")
        row = author.visible(f'#student-list > li[data-object-id="{post}"]')
        author.until(lambda d: "Waiting for approval" in row.text, 10, "the own row has no waiting badge")
        author.viewport(PHONE)
        banner_bottom = author.js("return document.getElementById('waiting-banner').getBoundingClientRect().bottom")
        row_top = author.js("return document.querySelector('#student-list > li').getBoundingClientRect().top")
        assert row_top >= banner_bottom - 1, "the banner covers the list"
        author.screenshot("approval-waiting-author", sizes=(PHONE,))
        author.viewport(DESKTOP)
        author.tab("map")
        assert author.marker_count() == 0, "the waiting post is on nobody's map, its author's included"
        author.screenshot("approval-waiting-map")
        live(author)

        # The classmate sees nothing of it: not in the list, not on the map, not from the API.
        other = Page(classmate_driver, server, api)
        other.log_in(classmate)
        other.open(f"/#/c/{slug}/list")
        other.visible("#list-view")
        other.text_in("#list-footer", "No students yet")
        assert other.list_rows() == []
        assert class_locations(classmate, slug) == []
        assert banner_text(other) == ""
        other.tab("map")
        other.until(lambda d: other.marker_count() == 0, 15)
        live(other)

        # The administrator: the Moderate button counts it; the dialog opens on Waiting.
        page.open(f"/#/c/{slug}/map")
        page.map_ready()
        moderate = page.visible("#moderation-button")
        page.until(lambda d: moderate.find_elements(By.CSS_SELECTOR, ".moderation-count"), 10, "no count on Moderate")
        assert "1" in moderate.find_element(By.CSS_SELECTOR, ".moderation-count").get_attribute("textContent")
        moderate.click()
        page.visible("#moderation")
        row_css = f'#moderation-list > li[data-object-id="{post}"]'
        row = page.visible(row_css)
        assert page.find("#moderation-tab-waiting").get_attribute("aria-selected") == "true", "Waiting opens first"
        assert page.find("#moderation-tab-waiting .tab-count").get_attribute("textContent").strip(", ").startswith("1")
        assert "Waiting for approval" in row.text and "Ada Waiting" in row.text and "Lagos" in row.text
        assert [b.text for b in row.find_elements(By.CSS_SELECTOR, ".moderation-actions button")][:2] == ["Approve", "Reject"]
        axe_check(page, "the Waiting list", found)
        page.screenshot("approval-waiting-list")
        # Approve from the keyboard: Tab reaches the button, Enter approves.
        tab_to(page, f'{row_css} [data-action="approve"]')
        assert focus_is_visible(page)
        press(page, Keys.ENTER)
        page.text_in("#moderation-done", "Approved Ada Waiting’s post")
        page.text_in("#moderation-status", "No posts are waiting for approval.")
        assert not page.find_all("#moderation-tab-waiting .tab-count")
        assert page.js("return document.getElementById('moderation').contains(document.activeElement)"), \
            "the focus stays in the dialog"
        press(page, Keys.ESCAPE)
        page.gone("#moderation")
        page.until(lambda d: not page.find_all("#moderation-button .moderation-count"), 10)

        # The classmate gets it live; the student's banner goes, and the notice says why.
        other.until(lambda d: other.marker_count() == 1, 10, "the classmate's map did not get the approved post")
        other.tab("list")
        other.until(lambda d: [r.get_attribute("data-object-id") for r in other.list_rows()] == [post], 10)
        title, message = author.alert(15)
        assert title == "From the Moderators"
        assert message == "A moderator approved your post at Lagos, Nigeria: classmates see it on the map now."
        # The notice offers to show the post; OK just closes it.
        assert author.find("#alert-ok").text == "Show on map"
        assert author.find("#alert-cancel").text == "OK"
        author.dismiss_alert("#alert-cancel")
        author.until(lambda d: banner_text(author) == "", 10, "the banner stays after the approval")
        assert author.find("#add-location-button").get_attribute("aria-label") == "Add your location"
        author.until(lambda d: author.marker_count() == 1, 10)

        # The student moves it: in this class a move waits too, and classmates lose it meanwhile.
        note = post_from_the_pin_button(author, ACCRA, "Accra", "https://example.com/ada", replacing=True)
        assert "a moderator approves every move" in note
        title, _ = author.alert(15)
        assert title == "Waiting for Approval"
        author.dismiss_alert()
        author.until(lambda d: banner_text(author) == WAITING, 10)
        other.until(lambda d: other.list_rows() == [], 10, "the moved post still shows to the classmate")

        # Rejected with a reason: the post is gone, and the student reads why.
        page.clickable("#moderation-button").click()
        row = page.visible(row_css)
        assert "Accra" in row.text
        row.find_element(By.CSS_SELECTOR, '[data-action="reject"]').click()
        assert page.find(".reason-dialog h2").text == "Reject this post"
        answer_reason(page, "Please post where you study")
        page.text_in("#moderation-done", "Rejected Ada Waiting’s post")
        page.text_in("#moderation-status", "No posts are waiting for approval.")
        page.find("#moderation-close").click()
        title, message = author.alert(15)
        assert title == "From the Moderators"
        assert message == ("A moderator rejected your post at Accra, Greater Accra, Ghana: Please post where you study. "
                           "It was removed; you can post your location again.")
        author.dismiss_alert()
        author.until(lambda d: banner_text(author) == "", 10)
        assert [item for item in class_locations(student, slug) if item["uniqueKey"] == student.key] == []
    finally:
        author_driver.quit()
        classmate_driver.quit()

    # The settings page changes the rule; Off again says nothing in the introduction.
    page.open(f"/#/c/{slug}/settings")
    page.visible("#class-approval")
    page.until(lambda d: checked(page, "#class-approval") == "all", 10)
    page.find("#class-approval input[value='new-members']").click()
    page.find("#class-save").click()
    page.text_in("#class-form-done", "Saved.")
    assert as_teacher(teacher, "GET", f"/api/classes/{slug}")["approval"] == "new-members"
    assert "A member’s first post waits" in page.find("#settings-intro").text

    assert not found, "axe found serious or critical violations:\n" + "\n".join(found)
