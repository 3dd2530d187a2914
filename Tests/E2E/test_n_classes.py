"""Classes in the browser: the server's administrator (the demo account, its first) creates a
class and copies its invite link from the settings page; a student opens the link in a browser
of their own, signs up and joins; both post a location in the class and see each other's pin
arrive live; an account that has not joined cannot read the class's map. The settings and
invitation pages pass axe, and the settings page works from the keyboard alone. Adding by email
invites the address (the same words whether an account has it or not); an invitation can be
withdrawn, and the invited student joins from the Classes sheet, where the class is marked
Invited."""
import json
import urllib.parse
import uuid

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from a11y import axe_violations, blocking, describe
from conftest import DESKTOP, PHONE, Page, make_driver
from helpers import PARSE_HEADERS, HTTPFailure, User, add_member
from test_e_add_location import geocoder_available
from test_i_keyboard import focus_is_visible, focused, press, tab_to
from test_m_moderation import sign_out

ADMIN_EMAIL, ADMIN_PASSWORD = "demo@onthemap.local", "onthemap-demo"


def administrator(api):
    return User(api, "1000000001", ADMIN_EMAIL, ADMIN_PASSWORD, "Demo", "Student")


def unique_slug(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def post_in_class(user, slug, map_string, latitude, longitude):
    """Posts `user`'s location in class `slug` through the Parse API under the class prefix."""
    _, created = user.api.request("POST", f"/c/{slug}/parse/classes/StudentLocation", {
        "uniqueKey": user.key, "firstName": user.first, "lastName": user.last,
        "mapString": map_string, "mediaURL": "https://example.com/" + user.first.lower(),
        "latitude": latitude, "longitude": longitude,
    }, headers={**PARSE_HEADERS, "X-Parse-Session-Token": user.session})
    return created["objectId"]


def class_locations(user, slug):
    _, body = user.api.request("GET", f"/c/{slug}/parse/classes/StudentLocation?limit=100",
                               headers={**PARSE_HEADERS, "X-Parse-Session-Token": user.session})
    return body["results"]


def default_locations(user, where):
    _, body = user.api.request("GET", "/parse/classes/StudentLocation?limit=100&where=" + urllib.parse.quote(json.dumps(where)),
                               headers={**PARSE_HEADERS, "X-Parse-Session-Token": user.session})
    return body["results"]


def axe_check(page, screen, found):
    """Runs axe at phone and desktop size; adds what it finds to `found`."""
    for size in (PHONE, DESKTOP):
        page.viewport(size)
        page.js("return new Promise((resolve) => setTimeout(resolve, 350))")
        violations = blocking(axe_violations(page.driver))
        if violations:
            found.append(f"--- {screen} at {size[0]}x{size[1]}\n{describe(violations)}")
    page.viewport(DESKTOP)


def live(page):
    page.until(lambda d: page.find("#live-indicator").get_attribute("data-state") == "live", 15, "the stream never went live")


def create_class(page, name, slug, visibility="members", join="invite", found=None):
    """From the map: the class button, Create a Class, the form; waits for the new class's settings."""
    page.clickable("#class-button").click()
    page.visible("#classes")
    page.clickable("#create-class-link").click()
    page.visible("#create-view")
    assert page.js("return document.activeElement.id") == "create-name", "the name field should have the focus"
    if found is not None:
        axe_check(page, "new class", found)
    page.type_into("#create-name", name)
    assert page.find("#create-slug").get_attribute("value"), "the address follows the name"
    page.type_into("#create-slug", slug)
    Select(page.find("#create-visibility")).select_by_value(visibility)
    Select(page.find("#create-join")).select_by_value(join)
    page.find("#create-button").click()
    page.visible("#settings-view")
    page.text_in("#settings-title", name)
    assert page.driver.current_url.endswith(f"#/c/{slug}/settings")


def copy_invite_link(page):
    """Copy on the settings page: says it was copied; returns what the clipboard holds."""
    page.driver.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": page.base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    page.clickable("#invite-copy").click()
    page.text_in("#invite-done", "Invite link copied")
    assert page.find("#invite-copy").text == "Copied"
    copied = page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        navigator.clipboard.readText().then(done, (error) => done('unreadable: ' + error));""")
    shown = page.find("#invite-link").get_attribute("value")
    assert copied == shown, f"the clipboard holds {copied!r}, the page shows {shown!r}"
    return copied


def test_a_class_from_invitation_to_live_map(page, api, server):
    teacher = administrator(api)
    slug = unique_slug("bio")
    found = []

    page.log_in(teacher)
    create_class(page, "Biology 101", slug, found=found)
    # The creator is its teacher: every part of the settings page shows.
    for section in ("#class-form", "#invite-section", "#members-section", "#member-form", "#leave-section"):
        page.visible(section)
    page.until(lambda d: len(page.find_all("#members-list > li")) == 1, 10, "the roster never showed the teacher")
    assert "Teacher" in page.find("#members-list > li select").get_attribute("value").title()
    link = copy_invite_link(page)
    assert f"/#/join/{slug}/" in link
    axe_check(page, "class settings", found)
    page.screenshot("class-settings")

    # The student opens the link in a browser of their own, signs up, and lands on the invitation.
    second = make_driver()
    try:
        student_page = Page(second, server, api)
        student_page.open("/health")
        second.get(link)
        student_page.visible("#login-scene")
        # The link opens on Sign up, the card naming the class (not its slug).
        student_page.text_in("#login-note", "Biology 101")
        axe_check(student_page, "invitation, signed out", found)
        student_page.visible("#signup-first")
        email = f"ana.{uuid.uuid4().hex[:8]}@example.com"
        student_page.type_into("#signup-first", "Ana")
        student_page.type_into("#signup-last", "Lima")
        student_page.type_into("#signup-email", email)
        student_page.type_into("#signup-password", "correct-horse-battery\n")
        student_page.visible("#join-view", 15)
        student_page.text_in("#join-title", "Biology 101")
        student_page.visible("#join-button")
        assert "Biology 101" in student_page.find("#join-button").text
        axe_check(student_page, "invitation", found)
        student_page.screenshot("class-join")
        student_page.find("#join-button").click()
        student_page.until(lambda d: d.current_url.endswith(f"#/c/{slug}/map"), 10, "joining did not open the class map")
        student_page.visible("#main-scene")
        student_page.map_ready()
        student_page.text_in("#class-name", "Biology 101")
        assert student_page.marker_count() == 0, "the new class's map is empty"
        assert "Biology 101" in second.title
        live(student_page)
        key, _ = api.log_in(email, "correct-horse-battery")
        student = User(api, key, email, "correct-horse-battery", "Ana", "Lima")

        # The teacher goes from the settings to the class's map (no reload), live as well.
        page.find("#class-back").click()
        page.until(lambda d: d.current_url.endswith(f"#/c/{slug}/map"), 10)
        page.visible("#main-scene")
        page.until(lambda d: page.marker_count() == 0, 15, "the teacher's class map never loaded")
        live(page)
        assert page.find("#class-name").text == "Biology 101"

        # The student posts through the pin button (or the API without a geocoder); the
        # teacher's map gets the pin without a reload.
        if geocoder_available(student_page):
            student_page.clickable("#add-location-button").click()
            student_page.visible("#add-place")
            student_page.type_into("#add-place", "Lagos, Nigeria")
            student_page.type_into("#add-link", "https://example.com/ana")
            student_page.find("#add-find").click()
            student_page.clickable("#add-finish", 20).click()
            student_page.gone("#add-location")
        else:
            post_in_class(student, slug, "Lagos, Nigeria", 6.45, 3.39)
        mine = [item for item in class_locations(student, slug) if item["uniqueKey"] == student.key]
        assert len(mine) == 1, "the student's location is in the class"
        assert not default_locations(student, {"uniqueKey": student.key}), "it went to the class, not the default map"
        page.until(lambda d: page.marker_count() == 1, 5, "the teacher's map did not get the student's pin")
        student_page.until(lambda d: student_page.marker_count() == 1, 5)

        # The teacher posts; the student's map gets it, and so does their list.
        teacher_post = post_in_class(teacher, slug, "Hanoi, Vietnam", 21.03, 105.85)
        student_page.until(lambda d: student_page.marker_count() == 2, 5, "the student's map did not get the teacher's pin")
        student_page.tab("list")
        student_page.until(lambda d: student_page.list_rows()[0].get_attribute("data-object-id") == teacher_post, 5,
                           "the student's list did not get the teacher's row")
        assert second.current_url.endswith(f"#/c/{slug}/list"), "the tabs stay in the class"
        page.tab("list")
        page.until(lambda d: len(page.list_rows()) == 2, 10)
        page.screenshot("class-list")
    finally:
        second.quit()

    # An account that has not joined cannot read the class's map.
    outsider = api.create_user("Out", "Sider")
    with pytest.raises(HTTPFailure) as refused:
        class_locations(outsider, slug)
    assert refused.value.status == 403
    assert json.loads(refused.value.body)["code"] == 119

    assert not found, "axe found serious or critical violations:\n" + "\n".join(found)


def make_class(teacher, slug, name, **settings):
    """A class made through the API, `teacher` its teacher; returns its view (with the invite)."""
    _, view = teacher.api.request("POST", "/api/classes", {"slug": slug, "name": name, **settings},
                                  headers={"X-Parse-Session-Token": teacher.session})
    return view


def as_teacher(teacher, method, path, body=None):
    _, answer = teacher.api.request(method, path, body, headers={"X-Parse-Session-Token": teacher.session})
    return answer


def test_the_settings_page_works_from_the_keyboard(page, api):
    teacher = administrator(api)
    slug = unique_slug("chem")
    make_class(teacher, slug, "Chemistry")
    kept, leaving, returning = api.create_user("Kim", "Kept"), api.create_user("Lee", "Leaving"), api.create_user("Ray", "Returning")
    for member in (kept, leaving):
        add_member(teacher, slug, member)

    page.log_in(teacher)
    page.open(f"/#/c/{slug}/settings")
    page.visible("#settings-view")
    page.until(lambda d: len(page.find_all("#members-list > li")) == 3, 10, "the roster never showed")
    assert focused(page).get_attribute("id") == "settings-title", "the page's heading should have the focus"

    # Rename: Tab to the name, type, Enter saves.
    tab_to(page, "#class-name-input")
    ActionChains(page.driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
    press(page, "Chemistry 201", Keys.ENTER)
    page.text_in("#class-form-done", "Saved")
    page.text_in("#settings-title", "Chemistry 201")
    assert as_teacher(teacher, "GET", f"/api/classes/{slug}")["name"] == "Chemistry 201"

    # Copy the invite link, then replace it (confirmed from the keyboard too).
    page.driver.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": page.base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    tab_to(page, "#invite-copy")
    press(page, Keys.ENTER)
    page.text_in("#invite-done", "Invite link copied")
    old_link = page.find("#invite-link").get_attribute("value")
    tab_to(page, "#invite-new")
    press(page, Keys.ENTER)
    page.alert()
    assert focused(page).get_attribute("id") == "alert-ok"
    press(page, Keys.ENTER)
    page.text_in("#invite-done", "New invite link made")
    assert page.find("#invite-link").get_attribute("value") != old_link

    # A member's role: the arrow keys on the select; it is saved when they stop.
    tab_to(page, f'select[data-key="{kept.key}"]')
    press(page, Keys.ARROW_UP)
    page.text_in("#members-done", "Kim Kept is now a moderator")
    roles = {member["key"]: member["role"] for member in as_teacher(teacher, "GET", f"/api/classes/{slug}/members")["members"]}
    assert roles[kept.key] == "moderator"

    # Remove a member: Enter on Remove, Enter on the confirmation; the focus stays in the roster.
    tab_to(page, f'[data-remove="{leaving.key}"]')
    press(page, Keys.ENTER)
    title, _ = page.alert()
    assert title == "Remove Lee Leaving?"
    press(page, Keys.ENTER)
    page.text_in("#members-done", "Lee Leaving was removed")
    assert not page.find_all(f'#members-list > li[data-key="{leaving.key}"]')
    assert page.js("return document.getElementById('members-section').contains(document.activeElement)")
    assert focus_is_visible(page)

    # Add a member by email: type, Tab to the role, Tab to the button, Enter. The address is
    # invited; its row has a Withdraw button, which Enter takes back with no confirmation.
    tab_to(page, "#member-email")
    press(page, returning.email, Keys.TAB)
    assert focused(page).get_attribute("id") == "member-role"
    press(page, Keys.TAB, Keys.ENTER)
    page.text_in("#members-done", f"{returning.email} is invited")
    row = page.visible(f'#invitations-list > li[data-email="{returning.email}"]')
    assert row.find_element(By.CSS_SELECTOR, ".member-role").text == "Student"
    assert not page.find_all(f'#members-list > li[data-key="{returning.key}"]'), "an invitation is not a membership"
    assert focused(page).get_attribute("id") == "member-email"
    found = []
    axe_check(page, "settings with an invitation", found)
    assert not found, "axe found serious or critical violations:\n" + "\n".join(found)
    tab_to(page, f'#invitations-list [data-withdraw="{returning.email}"]', backwards=True)
    assert focused(page).get_attribute("aria-label") == f"Withdraw the invitation of {returning.email}"
    press(page, Keys.ENTER)
    page.text_in("#members-done", f"The invitation of {returning.email} is withdrawn.")
    page.gone("#invitations-box")
    assert focused(page).get_attribute("id") == "member-email", "with no invitation left the focus goes to the email field"
    assert focus_is_visible(page)
    assert as_teacher(teacher, "GET", f"/api/classes/{slug}/members")["invitations"] == []

    # Back to the class's map; the focus goes to the class button, which names the class.
    tab_to(page, "#class-back", backwards=True)
    press(page, Keys.ENTER)
    page.visible("#main-scene")
    page.until(lambda d: d.current_url.endswith(f"#/c/{slug}/map"), 10)
    assert focused(page).get_attribute("id") == "class-button"
    page.text_in("#class-name", "Chemistry 201")
    # The class button opens the Classes sheet; Escape closes it.
    press(page, Keys.ENTER)
    page.visible("#classes")
    page.until(lambda d: page.find_all(f'#my-classes a.class-row[data-slug="{slug}"][aria-current="true"]'), 10)
    found = []
    axe_check(page, "classes sheet", found)
    assert not found, "axe found serious or critical violations:\n" + "\n".join(found)
    page.screenshot("classes-sheet")
    press(page, Keys.ESCAPE)
    page.gone("#classes")


def members_done(page):
    """The members section's status line, once it says something."""
    page.until(lambda d: page.find("#members-done").text, 10, "the members section said nothing")
    return page.find("#members-done").text


def add_by_email(page, email, role):
    """The settings page's Add a member form, by mouse; returns what it says."""
    page.js("document.getElementById('members-done').textContent = ''")
    page.type_into("#member-email", email)
    Select(page.find("#member-role")).select_by_value(role)
    page.find("#member-add").click()
    message = members_done(page)
    assert not page.find("#members-error").is_displayed(), page.find("#members-error").text
    return message


def test_adding_by_email_invites_and_the_student_joins_from_the_classes_sheet(page, api):
    """A closed class: adding an address invites it, in the same words whether an account has
    it or not; a withdrawn invitation goes; the invited student finds the class marked Invited
    in the Classes sheet, joins with the role invited, and is on the teacher's roster."""
    teacher = administrator(api)
    slug = unique_slug("astro")
    make_class(teacher, slug, "Astronomy", join="closed")
    invitee = api.create_user("Ines", "Invitee")
    stranger = f"nobody.{uuid.uuid4().hex[:8]}@example.com"

    page.log_in(teacher)
    page.open(f"/#/c/{slug}/settings")
    page.visible("#member-form")
    page.until(lambda d: len(page.find_all("#members-list > li")) == 1, 10, "the roster never showed")
    assert page.find("#member-form .class-hint").text == (
        "They find the class under “Classes you can join” when they sign in with this address, and join it there. "
        "Someone who signs up after being invited needs a new invitation, or the invite link.")
    assert not page.find("#invitations-box").is_displayed(), "no invitation, no list"

    # An address no account has, then an account's: the same sentence, only the address differs.
    said_stranger = add_by_email(page, stranger, "moderator")
    said_invitee = add_by_email(page, invitee.email, "moderator")
    assert said_invitee == (f"{invitee.email} is invited: the class waits for them under “Classes you can join” "
                            "once they sign in with this address.")
    assert said_stranger.replace(stranger, "{email}") == said_invitee.replace(invitee.email, "{email}")
    page.text_in("#invitations-title", "Invited, not joined yet")
    rows = {row.get_attribute("data-email"): row for row in page.find_all("#invitations-list > li")}
    assert set(rows) == {stranger, invitee.email}
    for email, row in rows.items():
        assert row.find_element(By.CSS_SELECTOR, ".member-email").text == email
        assert row.find_element(By.CSS_SELECTOR, ".member-email").get_attribute("dir") == "auto"
        assert row.find_element(By.CSS_SELECTOR, ".member-role").text == "Moderator"
    assert len(page.find_all("#members-list > li")) == 1, "nobody joined yet"
    page.js("document.getElementById('invitations-box').scrollIntoView({ block: 'center' })")
    page.screenshot("class-invitations")

    # Withdrawn: the row goes, the other stays, and the focus goes to its Withdraw button.
    page.find(f'#invitations-list [data-withdraw="{stranger}"]').click()
    page.text_in("#members-done", f"The invitation of {stranger} is withdrawn.")
    page.until(lambda d: [r.get_attribute("data-email") for r in page.find_all("#invitations-list > li")] == [invitee.email],
               10, "the withdrawn invitation's row stayed")
    assert focused(page).get_attribute("data-withdraw") == invitee.email
    invited = as_teacher(teacher, "GET", f"/api/classes/{slug}/members")["invitations"]
    assert [(item["email"].lower(), item["role"]) for item in invited] == [(invitee.email.lower(), "moderator")]

    # The student signs in: the Classes sheet offers the closed class, marked Invited; Join.
    sign_out(page)
    page.log_in(invitee)
    page.clickable("#class-button").click()
    page.visible("#classes")
    page.visible("#joinable-section")
    assert page.find("#joinable-title").get_attribute("textContent") == "Classes you can join"
    button = page.visible(f'#joinable-classes [data-join="{slug}"]')
    row = button.find_element(By.XPATH, "./ancestor::li[1]")
    assert row.find_element(By.CSS_SELECTOR, ".class-row-name").text == "Astronomy"
    about = row.find_element(By.CSS_SELECTOR, ".class-row-role").text
    assert about.split(" · ")[0] == "Invited", about
    button.click()
    page.until(lambda d: d.current_url.endswith(f"#/c/{slug}/map"), 10, "joining did not open the class map")
    page.text_in("#class-name", "Astronomy")
    assert as_teacher(invitee, "GET", f"/api/classes/{slug}")["role"] == "moderator"

    # The teacher's roster has them, with the role invited, and no invitation is left.
    sign_out(page)
    page.log_in(teacher)
    page.open(f"/#/c/{slug}/settings")
    row = page.visible(f'#members-list > li[data-key="{invitee.key}"]')
    assert row.find_element(By.CSS_SELECTOR, ".member-email").text == invitee.email
    assert Select(row.find_element(By.CSS_SELECTOR, "select")).first_selected_option.get_attribute("value") == "moderator"
    assert not page.find("#invitations-box").is_displayed()


def test_invitations_that_do_not_work_say_why(page, api):
    teacher = administrator(api)
    slug = unique_slug("geo")
    old_code = make_class(teacher, slug, "Geography")["invite_code"]
    new_code = as_teacher(teacher, "POST", f"/api/classes/{slug}/invite")["invite_code"]
    student = api.create_user("Inez", "Invited")
    page.log_in(student)

    # A class named in the address that this student is not in: said, and back to the default map.
    page.open(f"/#/c/{slug}/map")
    title, message = page.alert()
    assert title == "Not a Member" and "invite link" in message
    page.dismiss_alert()
    page.until(lambda d: d.current_url.endswith("#/map"), 10)

    # A replaced link, an unknown class, a closed class.
    page.open(f"/#/join/{slug}/{old_code}")
    page.text_in("#join-error", "does not work any more")
    assert not page.find("#join-button").is_displayed()
    page.open(f"/#/join/no-such-class-here/{new_code}")
    page.text_in("#join-error", "no class")
    as_teacher(teacher, "PATCH", f"/api/classes/{slug}", {"join": "closed"})
    page.open(f"/#/join/{slug}/{new_code}")
    page.text_in("#join-error", "closed the class")

    # Open again: the current link works, and joining opens the class's map. (The same address
    # again would not even change the page: it is opened afresh.)
    as_teacher(teacher, "PATCH", f"/api/classes/{slug}", {"join": "invite"})
    page.driver.get("about:blank")
    page.open(f"/#/join/{slug}/{new_code}")
    page.clickable("#join-button").click()
    page.until(lambda d: d.current_url.endswith(f"#/c/{slug}/map"), 10)
    page.map_ready()
    page.text_in("#class-name", "Geography")

    # Leaving: from the settings page, confirmed; back on the default map, the class is gone.
    page.open(f"/#/c/{slug}/settings")
    page.clickable("#leave-button").click()
    title, _ = page.alert()
    assert title == "Leave Geography?"
    page.find("#alert-ok").click()
    page.text_in("#alert-title", "You Left the Class")
    page.dismiss_alert()
    page.until(lambda d: d.current_url.endswith("#/map"), 10)
    members = as_teacher(teacher, "GET", f"/api/classes/{slug}/members")["members"]
    assert student.key not in {member["key"] for member in members}
