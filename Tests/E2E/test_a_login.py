"""Login and sign-up scenes."""
import time
import uuid

from selenium.webdriver.common.keys import Keys

from helpers import PASSWORD


def test_login_scene_and_security_headers(page, server):
    page.open("/")
    page.visible("#login-email")
    assert page.find("#login-button").text == "Log In"
    assert page.find("#show-signup").text == "Sign Up"
    assert page.driver.switch_to.active_element.get_attribute("id") == "login-email"
    page.screenshot("login")
    # The policy forbids inline script; the page runs with no console errors under it.
    import urllib.request
    with urllib.request.urlopen(server + "/") as response:
        csp = response.headers["Content-Security-Policy"]
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Referrer-Policy"]
    script_src = next(part for part in csp.split(";") if part.strip().startswith("script-src"))
    assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src
    assert page.console_errors() == []


def test_sign_up_creates_account_then_logs_in(page, api):
    email = f"grace.{uuid.uuid4().hex[:8]}@example.com"
    page.open("/")
    page.visible("#show-signup").click()
    page.visible("#signup-form")
    page.type_into("#signup-first", "Grace")
    page.type_into("#signup-last", "Hopper")
    page.type_into("#signup-email", email)
    page.type_into("#signup-password", PASSWORD)
    page.screenshot("signup")
    page.find("#signup-button").click()
    page.visible("#main-scene", timeout=20)
    page.map_ready()
    # The account exists on the server and the stored names came back from /api/users.
    key, _ = api.log_in(email, PASSWORD)
    account = page.js("return JSON.parse(localStorage.getItem('onthemap.account'))")
    assert account["key"] == key
    assert (account["firstName"], account["lastName"]) == ("Grace", "Hopper")


def test_sign_up_with_taken_email_says_so(page, api):
    user = api.create_user("Taken", "Email")
    page.open("/#/signup")
    page.visible("#signup-first")
    page.type_into("#signup-first", "Other")
    page.type_into("#signup-last", "Person")
    page.type_into("#signup-email", user.email)
    page.type_into("#signup-password", PASSWORD + Keys.ENTER)
    page.text_in("#signup-error", "already exists")
    assert page.find("#signup-form").is_displayed()


def test_wrong_password_says_wrong_email_or_password(page, api):
    user = api.create_user("Wrong", "Password")
    page.open("/")
    page.visible("#login-email")
    page.type_into("#login-email", user.email)
    page.type_into("#login-password", "not-the-password" + Keys.ENTER)
    page.text_in("#login-error", "Wrong email or password")
    assert "Cannot reach" not in page.find("#login-error").text
    assert page.find("#login-button").is_enabled()
    assert not page.find("#main-scene").is_displayed()
    page.screenshot("login-wrong-password")


def test_unreachable_server_says_cannot_reach(page, api):
    user = api.create_user("No", "Network")
    page.open("/")
    page.visible("#login-email")
    page.type_into("#login-email", user.email)
    page.type_into("#login-password", user.password)
    page.offline(True)
    page.find("#login-button").click()
    page.text_in("#login-error", "Cannot reach the server")
    assert "Wrong email" not in page.find("#login-error").text
    page.screenshot("login-unreachable")
    page.offline(False)


def test_login_button_shows_progress_and_enter_submits(page, api):
    user = api.create_user("Slow", "Network")
    page.open("/")
    page.visible("#login-email")
    page.type_into("#login-email", user.email)
    page.slow(1500)
    page.type_into("#login-password", user.password + Keys.ENTER)  # Enter submits
    button = page.find("#login-button")
    page.until(lambda d: "busy" in button.get_attribute("class"), 3, "button never showed progress")
    assert not button.is_enabled()
    assert button.find_element("css selector", ".spinner").is_displayed()
    assert "Logging In" in button.text
    page.slow(0)
    page.visible("#main-scene", timeout=20)
    page.map_ready()


def test_empty_fields_are_caught_before_asking_the_server(page):
    page.open("/")
    page.visible("#login-email")
    page.find("#login-button").click()
    page.text_in("#login-error", "Enter your email and password")


def test_login_is_remembered_across_reloads(page, api):
    user = api.create_user("Stays", "LoggedIn")
    page.log_in(user, via_enter=False)
    page.driver.refresh()
    page.visible("#main-scene")
    page.map_ready()
    assert not page.find("#login-scene").is_displayed()
    time.sleep(0.2)
