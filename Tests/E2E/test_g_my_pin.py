"""A student controls their own pin and account: "You" on their row and pin (never Report),
Edit, "Remove me from the map" (classmates' maps drop it live), "Show on map" from the list
and search, a new name everywhere (an old client's Parse read too), and a logout that leaves
nothing in the page for the next person, even arriving through an invite link in the same tab."""
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import PHONE, DESKTOP, Page, make_driver
from helpers import User
from languages import catalogue, fresh

ADMIN_EMAIL, ADMIN_PASSWORD = "demo@onthemap.local", "onthemap-demo"


def own_row(page, css="#student-list"):
    return page.visible(f'{css} > li[data-own="true"]')


def row_of(page, object_id, css="#student-list"):
    return page.visible(f'{css} > li[data-object-id="{object_id}"]')


def popup_name(page):
    return page.visible(".leaflet-popup .popup-name").text


def test_you_on_my_row_and_pin_never_report(page, api):
    tag = uuid.uuid4().hex[:6]
    me = api.create_user("Mia", f"Mine{tag}")
    mine = me.post_location(f"Accra {tag}", latitude=5.6, longitude=-0.19, media_url="https://example.com/mia")
    other = api.create_user("Otto", f"Other{tag}")
    theirs = other.post_location(f"Dakar {tag}", latitude=14.7, longitude=-17.4)
    page.log_in(me)

    page.tab("list")
    row = row_of(page, mine)
    assert row.get_attribute("data-own") == "true"
    assert row.find_element(By.CSS_SELECTOR, ".you-badge").text == "You"
    assert row.find_elements(By.CSS_SELECTOR, "[data-report-id]") == [], "Report on one's own post"
    assert row.find_element(By.CSS_SELECTOR, "[data-edit-own]").text == "Edit"
    assert row.find_element(By.CSS_SELECTOR, "[data-remove-own]").text == "Remove me from the map"
    # The link stays, as a button of its own.
    assert row.find_element(By.CSS_SELECTOR, "a.row-link").get_attribute("href") == "https://example.com/mia"
    theirs_row = row_of(page, theirs)
    assert theirs_row.find_elements(By.CSS_SELECTOR, ".you-badge") == []
    assert theirs_row.find_elements(By.CSS_SELECTOR, "[data-report-id]"), "a classmate's row has Report"
    assert theirs_row.find_elements(By.CSS_SELECTOR, "[data-remove-own]") == []

    # The row opens the map on the pin, whose popup says "You" and has the same actions.
    row.find_element(By.CSS_SELECTOR, "button.row").click()
    page.visible("#map-view")
    page.until(lambda d: popup_name(page) == f"Mia Mine{tag}", 10)
    popup = page.find(".leaflet-popup")
    assert popup.find_element(By.CSS_SELECTOR, ".you-badge").text == "You"
    assert popup.find_elements(By.CSS_SELECTOR, "[data-remove-own]")
    assert popup.find_elements(By.CSS_SELECTOR, "[data-report-id]") == []
    # The own pin (drawn on its own now) says so in its name.
    pin = page.visible("#map .student-pin.own")
    assert pin.get_attribute("title") == f"Mia Mine{tag} (you)"
    page.screenshot("my-pin-popup")

    # On a phone the own row's actions fit the screen.
    page.viewport(PHONE)
    page.tab("list")
    row = row_of(page, mine)
    for button in row.find_elements(By.CSS_SELECTOR, ".own-actions button"):
        assert button.is_displayed()
        box = page.js("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right];", button)
        assert box[0] >= 0 and box[1] <= PHONE[0], f"{button.text} runs off a phone's screen: {box}"
    page.screenshot("my-pin-row", sizes=(PHONE,))
    page.viewport(DESKTOP)


def test_edit_opens_the_sheet_filled_in(page, api):
    me = api.create_user("Eddie", "Editor")
    me.post_location("Nairobi, Kenya", latitude=-1.29, longitude=36.82, media_url="https://example.com/eddie")
    page.log_in(me)
    page.tab("list")
    own_row(page).find_element(By.CSS_SELECTOR, "[data-edit-own]").click()
    page.visible("#add-place")
    assert page.find_all("#alert[open]") == [], "Edit asked whether to replace first"
    assert page.find("#add-place").get_attribute("value") == "Nairobi, Kenya"
    assert page.find("#add-link").get_attribute("value") == "https://example.com/eddie"


def test_remove_me_from_the_map_and_a_classmate_sees_the_pin_go(page, api, server):
    tag = uuid.uuid4().hex[:6]
    me = api.create_user("Remy", f"Removed{tag}")
    mine = me.post_location(f"Lima {tag}", latitude=-12.05, longitude=-77.04)
    classmate = api.create_user("Cleo", f"Classmate{tag}")
    second = make_driver()
    try:
        other = Page(second, server, api)
        other.open("/")
        other.log_in(classmate)
        other.until(lambda d: other.find("#live-indicator").get_attribute("data-state") == "live", 10, "stream not live")
        before = other.marker_count()

        page.log_in(me)
        page.tab("list")
        row_of(page, mine).find_element(By.CSS_SELECTOR, "[data-remove-own]").click()
        title, message = page.alert()
        assert title == "Remove you from the map?"
        assert f"Lima {tag}" in message
        page.dismiss_alert("#alert-cancel")
        assert api.count(where={"objectId": mine}) == 1, "cancelled, yet removed"
        row_of(page, mine).find_element(By.CSS_SELECTOR, "[data-remove-own]").click()
        page.alert()
        page.dismiss_alert("#alert-ok")
        page.until(lambda d: not page.find_all(f'#student-list > li[data-object-id="{mine}"]'), 5, "my row stayed")
        assert api.count(where={"uniqueKey": me.key}) == 0
        other.until(lambda d: other.marker_count() == before - 1, 5, "the classmate's map kept the pin")
    finally:
        second.quit()


def test_where_i_am_on_the_map_in_the_account_menu(page, api):
    me = api.create_user("Ada", "Everywhere")
    me.post_location("Quito, Ecuador", latitude=-0.18, longitude=-78.47)
    page.log_in(me)
    page.clickable("#account-button").click()
    page.visible("#account")
    line = page.visible("#my-places-list > li .remove-place").find_element(By.XPATH, "./..")
    assert "Quito, Ecuador" in line.text
    line.find_element(By.CSS_SELECTOR, ".remove-place").click()
    page.alert()
    page.dismiss_alert("#alert-ok")
    page.until(lambda d: not page.find_all("#my-places-list .remove-place"), 5)
    assert api.count(where={"uniqueKey": me.key}) == 0


def test_show_on_map_from_the_list_and_search(page, api):
    tag = uuid.uuid4().hex[:6]
    shown = api.create_user("Sho", f"Wanted{tag}")
    object_id = shown.post_location(f"Hanoi {tag}", latitude=21.03, longitude=105.85, media_url="https://example.com/sho")
    viewer = api.create_user("Vera", "Viewer")
    page.log_in(viewer)

    page.tab("list")
    row_of(page, object_id).find_element(By.CSS_SELECTOR, "button.row").click()
    page.visible("#map-view")
    page.until(lambda d: popup_name(page) == f"Sho Wanted{tag}", 10, "the list row did not open the pin")
    assert page.driver.current_url.endswith("#/map")
    page.find(".leaflet-popup-close-button").click()

    # From search, with the keyboard: Enter on the row; the focus lands in the popup.
    page.tab("search")
    page.type_into("#search-input", f"Wanted{tag}")
    button = page.visible(f'#search-results > li[data-object-id="{object_id}"] button.row')
    button.send_keys(Keys.ENTER)
    page.visible("#map-view")
    page.until(lambda d: popup_name(page) == f"Sho Wanted{tag}", 10, "the search row did not open the pin")
    page.until(lambda d: page.js("return Boolean(document.activeElement.closest('.leaflet-popup'))"), 5,
               "the focus did not move into the popup")


def test_a_new_name_shows_in_the_list_and_an_old_clients_read(page, api):
    tag = uuid.uuid4().hex[:6]
    me = api.create_user("Jonas", f"Misspelt{tag}")
    object_id = me.post_location("Lagos, Nigeria")
    page.log_in(me)
    page.clickable("#account-button").click()
    page.visible("#account")
    assert page.find("#account-first-name").get_attribute("value") == "Jonas"
    page.type_into("#account-last-name", f"Spelt{tag}")
    page.find("#name-button").click()
    page.text_in("#name-done", "Your name was changed.")
    assert page.find("#account-name").text == f"Jonas Spelt{tag}"
    page.find("#account-close").click()
    # An old client reads the Parse list: the new name.
    record = api.locations({"objectId": object_id})["results"][0]
    assert (record["firstName"], record["lastName"]) == ("Jonas", f"Spelt{tag}")
    page.tab("list")
    page.until(lambda d: row_of(page, object_id).find_element(By.CSS_SELECTOR, ".row-name").text == f"Jonas Spelt{tag}", 10)

    # A name outside the rules is refused with the server's words, and nothing changes.
    page.clickable("#account-button").click()
    page.js("document.getElementById('account-first-name').value = 'Jo\u202Enas'")
    page.find("#name-button").click()
    page.visible("#name-error")
    assert api.locations({"objectId": object_id})["results"][0]["firstName"] == "Jonas"


def test_logout_then_an_invite_link_in_the_same_tab_shows_empty_fields(page, api):
    admin = User(api, "1000000001", ADMIN_EMAIL, ADMIN_PASSWORD, "Demo", "Student")
    slug = f"lab-{uuid.uuid4().hex[:6]}"
    _, created = api.request("POST", "/api/classes", {"slug": slug, "name": "Lab", "visibility": "members", "join": "invite"},
                             headers={"X-Parse-Session-Token": admin.session})
    invite = created["invite_path"]
    assert invite.startswith("/#/join/")

    # The first student signs up in this tab, searches, and logs out.
    email = f"jonas-{uuid.uuid4().hex[:6]}@school.test"
    page.open("/#/signup")
    page.visible("#signup-first")
    page.type_into("#signup-first", "Jonas")
    page.type_into("#signup-last", "Lab")
    page.type_into("#signup-email", email)
    page.type_into("#signup-password", "correct horse battery")
    page.find("#signup-button").click()
    page.visible("#main-scene")
    page.map_ready()
    page.tab("search")
    page.type_into("#search-input", "Lagos")
    page.find("#logout-button").click()
    page.visible("#login-scene")

    # The next student arrives through an invite link, without a reload.
    page.js("window.__sameTab = true; location.hash = arguments[0].slice(1);", invite)
    # An invite link opens on Sign up: invited students are nearly all new.
    page.visible("#signup-first")
    assert page.js("return window.__sameTab") is True, "the page was reloaded"
    values = page.js("""
        return Array.from(document.querySelectorAll('input, textarea'))
          .filter((field) => !['checkbox', 'radio', 'hidden', 'submit', 'button'].includes(field.type) && field.value)
          .map((field) => `${field.id}=${field.value}`);""")
    assert values == [], f"fields still hold the last student's data: {values}"
    assert page.js("return localStorage.getItem('onthemap.account')") is None
    page.visible("#signup-form")
    page.type_into("#signup-first", "Lena", clear=False)
    page.type_into("#signup-email", "lena@school.test", clear=False)
    assert page.find("#signup-first").get_attribute("value") == "Lena"
    assert page.find("#signup-email").get_attribute("value") == "lena@school.test"


def test_you_and_remove_in_arabic_on_a_phone(arabic_browser, server, api):
    ar = catalogue("ar")
    page = fresh(arabic_browser, server, api)
    me = api.create_user("ليلى", "حداد")
    mine = me.post_location("القاهرة", latitude=30.04, longitude=31.24)
    page.open("/")
    page.log_in(me)
    page.viewport(PHONE)
    page.tab("list")
    row = row_of(page, mine)
    assert row.find_element(By.CSS_SELECTOR, ".you-badge").text == ar["mine.you"]
    assert row.find_element(By.CSS_SELECTOR, "[data-edit-own]").text == ar["mine.edit"]
    remove = row.find_element(By.CSS_SELECTOR, "[data-remove-own]")
    assert remove.text == ar["mine.removeMe"]
    assert row.find_elements(By.CSS_SELECTOR, "[data-report-id]") == []
    page.screenshot("my-pin-row-ar", sizes=(PHONE,))
    remove.click()
    title, _ = page.alert()
    assert title == ar["mine.remove.title"]
    page.dismiss_alert("#alert-ok")
    page.until(lambda d: not page.find_all(f'#student-list > li[data-object-id="{mine}"]'), 5)
    page.viewport(DESKTOP)
