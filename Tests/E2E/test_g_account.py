"""The account dialog: who is signed in, changing the password, logging out of every device."""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from conftest import PHONE

NEW_PASSWORD = "a-brand-new-pass-phrase"


def open_account(page):
    page.clickable("#account-button").click()
    page.visible("#account")


def press(page, *keys):
    ActionChains(page.driver).send_keys(*keys).perform()


def focused_id(page):
    return page.js("return document.activeElement && document.activeElement.id")


def tab_to(page, element_id, limit=12):
    """Presses Tab until `element_id` has the focus, as a keyboard user would."""
    for _ in range(limit):
        if focused_id(page) == element_id:
            return
        press(page, Keys.TAB)
    assert focused_id(page) == element_id, f"Tab never reached #{element_id}"


def script_errors(page):
    """Console errors other than the refused requests these tests make on purpose."""
    return [entry for entry in page.console_errors() if entry["source"] != "network"]


def assert_focus_visible(page):
    assert page.js("return document.activeElement.matches(':focus-visible')"), \
        f"#{focused_id(page)} has the focus but shows no focus ring"


def test_account_dialog_changes_the_password_and_ends_other_sessions(page, api):
    user = api.create_user("Ada", "Keys")
    _, other_device = api.log_in(user.email, user.password)
    page.log_in(user)
    open_account(page)
    assert page.find("#account-name").text == "Ada Keys"
    assert page.find("#account-email").text == user.email
    assert page.find("#current-password").get_attribute("autocomplete") == "current-password"
    assert page.find("#new-password").get_attribute("autocomplete") == "new-password"
    page.screenshot("account")

    # A wrong current password is refused and said so, next to the form.
    page.type_into("#current-password", "not-my-password")
    page.type_into("#new-password", NEW_PASSWORD)
    page.find("#password-button").click()
    page.text_in("#password-error", "current password is not right")
    assert page.find("#password-error").get_attribute("role") == "alert"
    assert not page.find("#password-done").is_displayed()
    assert focused_id(page) == "current-password"
    assert api.session_alive(other_device)

    # The server's rules for a new password reach the student as written.
    page.type_into("#current-password", user.password)
    page.type_into("#new-password", "short")
    page.find("#password-button").click()
    page.text_in("#password-error", "at least 8 characters")

    page.type_into("#current-password", user.password)
    page.type_into("#new-password", NEW_PASSWORD + Keys.ENTER)
    page.text_in("#password-done", "1 other device was signed out")
    assert not page.find("#password-error").is_displayed()
    assert page.find("#current-password").get_attribute("value") == ""
    page.screenshot("account-password-changed")
    assert not api.session_alive(other_device)

    # This browser stays logged in; afterwards only the new password logs in.
    page.find("#account-close").click()
    page.gone("#account")
    assert page.js("return fetch('/api/pins').then((response) => response.status)") == 200
    page.find("#logout-button").click()
    page.visible("#login-email")
    page.type_into("#login-email", user.email)
    page.type_into("#login-password", user.password + Keys.ENTER)
    page.text_in("#login-error", "Wrong email or password")
    user.password = NEW_PASSWORD
    page.log_in(user)
    assert script_errors(page) == []


def test_log_out_of_all_devices(page, api):
    user = api.create_user("Lost", "Phone")
    _, other_device = api.log_in(user.email, user.password)
    page.log_in(user)
    open_account(page)

    # Cancelling the confirmation changes nothing.
    page.find("#logout-everywhere").click()
    title, message = page.alert()
    assert title == "Log Out of All Devices?"
    assert "this one included" in message
    page.dismiss_alert("#alert-cancel")
    assert page.find("#account").is_displayed()
    assert api.session_alive(other_device)

    page.find("#logout-everywhere").click()
    page.alert()
    page.dismiss_alert()
    page.visible("#login-email")
    assert not page.find("#main-scene").is_displayed()
    assert not page.find("#account").is_displayed()
    assert page.js("return localStorage.getItem('onthemap.account')") is None
    assert not api.session_alive(other_device)
    # The password still works: logging out everywhere is not a lock-out.
    page.log_in(user)
    assert script_errors(page) == []


def test_logout_after_the_session_ended_elsewhere_still_returns_to_login(page, api):
    user = api.create_user("Ended", "Elsewhere")
    page.log_in(user)
    api.request("DELETE", "/api/session?all=1", headers={"X-Parse-Session-Token": user.session}, udacity=True)
    page.find("#logout-button").click()
    page.visible("#login-email")
    assert not page.find_all("#alert[open]")


def test_account_dialog_with_the_keyboard_alone(page, api):
    user = api.create_user("Kay", "Board")
    page.log_in(user)
    page.js("document.activeElement.blur()")
    account_button = page.find("#account-button")
    assert account_button.accessible_name == "Account"
    tab_to(page, "account-button")
    assert_focus_visible(page)
    press(page, Keys.ENTER)
    page.visible("#account")
    assert page.js("return document.activeElement.closest('#account') !== null"), "focus did not move into the dialog"

    for field in page.find_all("#account input:not([hidden])"):
        assert field.accessible_name, f"#{field.get_attribute('id')} has no label"
    assert page.find("#current-password").accessible_name == "Current password"
    assert page.find("#new-password").accessible_name == "New password"

    tab_to(page, "current-password")
    press(page, user.password)
    press(page, Keys.TAB)
    assert focused_id(page) == "new-password"
    press(page, NEW_PASSWORD, Keys.ENTER)
    page.text_in("#password-done", "Password changed")
    user.password = NEW_PASSWORD

    # Escape closes the dialog and gives the focus back to the Account button.
    press(page, Keys.ESCAPE)
    page.gone("#account")
    assert focused_id(page) == "account-button"
    press(page, Keys.ENTER)
    page.visible("#account")

    tab_to(page, "password-button")
    assert_focus_visible(page)
    tab_to(page, "logout-everywhere")
    assert_focus_visible(page)
    press(page, Keys.ENTER)
    page.alert()
    assert focused_id(page) == "alert-ok"
    press(page, Keys.ESCAPE)  # Escape answers Cancel, and leaves the account dialog open
    page.gone("#alert")
    assert page.find("#account").is_displayed()
    press(page, Keys.ENTER)
    page.alert()
    press(page, Keys.ENTER)
    page.visible("#login-email")
    page.until(lambda d: focused_id(page) == "login-email", 5, "the login form did not get the focus")


def test_account_dialog_fits_a_phone(page, api):
    user = api.create_user("Small", "Screen")
    page.log_in(user)
    page.viewport(PHONE)
    open_account(page)
    assert page.js("const d = document.getElementById('account'); return d.scrollWidth <= d.clientWidth")
    for css in ("#account-close", "#current-password", "#new-password", "#password-button", "#logout-everywhere"):
        page.find(css).location_once_scrolled_into_view
        assert page.find(css).is_displayed()
        rect = page.find(css).rect
        assert rect["x"] >= 0 and rect["x"] + rect["width"] <= PHONE[0], f"{css} does not fit 390 px"
    page.find("#account-close").click()
    page.gone("#account")
