"""The account dialog's "Your data": downloading everything the server holds about the
account, and deleting the account (a confirmation step, the password, then signed out)."""
import json
import os
import tempfile
import time
import uuid
import zipfile
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from a11y import axe_violations, blocking, describe
from conftest import DESKTOP, PHONE
from helpers import PASSWORD, HTTPFailure, User
from test_g_account import assert_focus_visible, focused_id, open_account, press, script_errors, tab_to
# The server that offers sign-in with a provider (an OpenID Connect mock), and a browser on it.
from test_m_sign_in import provider_button, providers, signin_page  # noqa: F401 (fixtures)

DATA_FILE = "onthemap-my-data.zip"


def sign_up(page, api, first, last):
    """Signs up through the sign-up form; returns the account as the API helpers know it."""
    email = f"{first.lower()}.{uuid.uuid4().hex[:10]}@example.com"
    page.open("/#/signup")
    page.visible("#signup-first")
    page.type_into("#signup-first", first)
    page.type_into("#signup-last", last)
    page.type_into("#signup-email", email)
    page.type_into("#signup-password", PASSWORD + Keys.ENTER)
    page.visible("#main-scene", timeout=20)
    page.map_ready()
    key = page.js("return JSON.parse(localStorage.getItem('onthemap.account')).key")
    return User(api, key, email, PASSWORD, first, last)


def downloads_to(page, folder):
    """Lets the headless browser save downloads, into `folder`."""
    page.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)})


def downloaded(folder, name, timeout=15):
    path = Path(folder) / name
    deadline = time.time() + timeout
    while time.time() < deadline:
        # Chromium writes `<name>.crdownload` first and renames it when done.
        if path.exists() and path.stat().st_size > 0:
            return path
        time.sleep(0.2)
    raise AssertionError(f"{name} was not downloaded; the folder holds {[p.name for p in Path(folder).iterdir()]}")


def open_delete_step(page):
    page.find("#delete-account").location_once_scrolled_into_view
    page.clickable("#delete-account").click()
    page.visible("#delete-form")
    assert focused_id(page) == "delete-title", "the focus did not move to the confirmation"


def axe_on_delete_step(page):
    found = []
    for size in (PHONE, DESKTOP):
        page.viewport(size)
        page.js("return new Promise((resolve) => setTimeout(resolve, 350))")
        violations = blocking(axe_violations(page.driver, "#account"))
        if violations:
            found.append(f"--- delete step at {size[0]}x{size[1]}\n{describe(violations)}")
    page.viewport(DESKTOP)
    return found


def test_download_my_data_then_delete_my_account(page, api):
    user = sign_up(page, api, "Dana", "Leaving")
    object_id = user.post_location("Accra, Ghana", 5.56, -0.2, "https://example.com/dana")
    assert api.locations(where={"uniqueKey": user.key})["results"], "the location was not posted"
    # A Travel pin whose photos (from the photo stub) are files in the zip, shown on its page.
    from test_f_travel import api_settled
    pin = user.create_pin(48.85, 2.35)
    photos = [photo for photo in api_settled(user, pin["id"])["photos"] if photo.get("state") == "ready"]

    # Download My Data saves one zip: a page to read, and the JSON naming the student and their location.
    folder = tempfile.mkdtemp(prefix="onthemap-my-data-")
    downloads_to(page, folder)
    open_account(page)
    page.find("#download-data").location_once_scrolled_into_view
    page.clickable("#download-data").click()
    page.text_in("#download-data-done", DATA_FILE)
    page.screenshot("account-my-data")
    with zipfile.ZipFile(downloaded(folder, DATA_FILE)) as archive:
        names = set(archive.namelist())
        assert {"onthemap-my-data/index.html", "onthemap-my-data/my-data.json", "onthemap-my-data/my-locations.geojson"} <= names
        page_text = archive.read("onthemap-my-data/index.html").decode()
        data = json.loads(archive.read("onthemap-my-data/my-data.json"))
    assert "Dana Leaving" in page_text and "Accra, Ghana" in page_text and "Where I am on the map" in page_text
    images = [name for name in names if name.startswith("onthemap-my-data/photos/")]
    assert len(images) == len(photos) > 0, f"the photos are not files in the zip: {sorted(names)}"
    assert all(f'src="{name.split("/", 1)[1]}"' in page_text for name in images), "the page does not show the photos"
    assert data["account"]["email"] == user.email
    assert data["account"]["key"] == user.key
    assert data["account"]["has_password"] is True
    assert [(l["objectId"], l["mapString"]) for l in data["locations"]] == [(object_id, "Accra, Ghana")]
    feature = data["locations_geojson"]["features"][0]
    assert feature["geometry"]["coordinates"] == pytest.approx([-0.2, 5.56], abs=1)
    assert not page.find("#download-data-error").is_displayed()

    # The confirmation says what goes, and that it cannot be undone.
    open_delete_step(page)
    text = page.find("#delete-form").text
    for words in ("your place on every class map", "your Travel pins and their photos", "your sign-in links",
                  "This cannot be undone"):
        assert words in text, f"the confirmation does not say {words!r}"
    assert page.find("#delete-password").accessible_name == "Your password, to confirm"
    assert page.find("#delete-password").get_attribute("autocomplete") == "current-password"
    assert not page.find(".account-body:not(#delete-form)").is_displayed()
    page.screenshot("account-delete")
    found = axe_on_delete_step(page)

    # A wrong password deletes nothing, and says so in the dialog (read out: role=alert).
    page.type_into("#delete-password", "not-my-password" + Keys.ENTER)
    page.text_in("#delete-error", "not right")
    assert "Nothing was deleted" in page.find("#delete-error").text
    assert page.find("#delete-error").get_attribute("role") == "alert"
    assert focused_id(page) == "delete-password"
    assert page.find("#delete-form").is_displayed()
    found += axe_on_delete_step(page)
    assert not found, "\n".join(found)
    assert api.locations(where={"uniqueKey": user.key})["results"], "a wrong password deleted the location"
    assert page.js("return fetch('/api/account/data').then((response) => response.status)") == 200

    # The right one deletes the account: the page is signed out and says why.
    page.type_into("#delete-password", user.password + Keys.ENTER)
    page.visible("#login-scene")
    page.text_in("#login-note", "Your account was deleted")
    page.screenshot("account-deleted")
    assert not page.find("#main-scene").is_displayed()
    assert not page.find("#account").is_displayed()
    assert page.js("return localStorage.getItem('onthemap.account')") is None
    page.until(lambda d: focused_id(page) == "login-email", 5, "the login form did not get the focus")
    assert page.find("#login-email").get_attribute("value") == "", "the login form still names the deleted account"
    assert page.js("return fetch('/api/account/data').then((response) => response.status)") == 401

    # Gone for good: the password no longer logs in, and the location left the map.
    page.type_into("#login-email", user.email)
    page.type_into("#login-password", user.password + Keys.ENTER)
    page.text_in("#login-error", "Wrong email or password")
    with pytest.raises(HTTPFailure):
        api.log_in(user.email, user.password)
    assert api.locations(where={"uniqueKey": user.key})["results"] == []
    assert object_id not in [row["objectId"] for row in api.locations(limit=1000)["results"]]
    assert script_errors(page) == []


def test_delete_step_with_the_keyboard_alone_and_keeping_the_account(page, api):
    user = api.create_user("Kay", "Stays")
    user.post_location("Lima, Peru", -12.05, -77.04, "https://example.com/kay")
    page.log_in(user)
    page.js("document.activeElement.blur()")
    tab_to(page, "account-button")
    press(page, Keys.ENTER)
    page.visible("#account")

    tab_to(page, "download-data", limit=20)
    assert_focus_visible(page)
    tab_to(page, "delete-account")
    assert_focus_visible(page)
    press(page, Keys.ENTER)
    page.visible("#delete-form")
    assert focused_id(page) == "delete-title"
    press(page, Keys.TAB)
    assert focused_id(page) == "delete-password"
    # Submitting without a password asks for it; nothing is sent.
    press(page, Keys.ENTER)
    page.text_in("#delete-error", "Enter your password")
    assert focused_id(page) == "delete-password"

    # Keep My Account goes back, the focus on the button that opened the step.
    tab_to(page, "delete-cancel")
    assert_focus_visible(page)
    press(page, Keys.ENTER)
    page.gone("#delete-form")
    assert page.find("#password-form").is_displayed()
    assert focused_id(page) == "delete-account"

    # Escape from the step closes the dialog; it opens on its first step again.
    press(page, Keys.ENTER)
    page.visible("#delete-form")
    press(page, Keys.ESCAPE)
    page.gone("#account")
    assert focused_id(page) == "account-button"
    press(page, Keys.ENTER)
    page.visible("#account")
    assert not page.find("#delete-form").is_displayed()
    assert page.find("#password-form").is_displayed()
    assert page.find("#delete-error").text == ""

    api.log_in(user.email, user.password)  # still there
    assert api.locations(where={"uniqueKey": user.key})["results"]


def test_delete_step_fits_a_phone(page, api):
    user = api.create_user("Small", "Leaver")
    page.log_in(user)
    page.viewport(PHONE)
    open_account(page)
    for css in ("#download-data", "#delete-account"):
        page.find(css).location_once_scrolled_into_view
        rect = page.find(css).rect
        assert rect["x"] >= 0 and rect["x"] + rect["width"] <= PHONE[0], f"{css} does not fit 390 px"
    open_delete_step(page)
    assert page.js("const f = document.getElementById('delete-form'); return f.scrollWidth <= f.clientWidth")
    for css in ("#delete-title", "#delete-password", "#delete-confirm", "#delete-cancel"):
        page.find(css).location_once_scrolled_into_view
        assert page.find(css).is_displayed()
        rect = page.find(css).rect
        assert rect["x"] >= 0 and rect["x"] + rect["width"] <= PHONE[0], f"{css} does not fit 390 px"
        assert rect["y"] >= 0 and rect["y"] + rect["height"] <= PHONE[1], f"{css} cannot be scrolled into view"
    page.find("#delete-cancel").click()
    page.gone("#delete-form")
    page.find("#account-close").click()
    page.gone("#account")


def test_refusals_are_said_in_the_dialog(page, api):
    """An account without a password whose sign-in is too old, the last administrator and too
    many wrong passwords: each is said, and nothing is deleted. (The server's answers are
    played by the page's fetch: a real one needs a provider sign-in ten minutes old, or
    would be the demo administrator.)"""
    user = api.create_user("No", "Password")
    page.log_in(user)
    page.fake_server_error("/api/account/identities", 200, '{"has_password":false,"identities":[]}')
    open_account(page)
    page.text_in("#password-title", "Set a password")
    open_delete_step(page)
    assert not page.find("#delete-password").is_displayed()
    assert "last ten minutes" in page.find("#delete-no-password").text

    page.fake_server_error("/api/account/delete", 403,
                           '{"error":{"code":"sign_in_again","message":"Sign in again, then delete your account within ten minutes."}}')
    page.find("#delete-confirm").click()
    page.text_in("#delete-error", "sign in again first")
    assert "Nothing was deleted" in page.find("#delete-error").text
    assert not page.find("#delete-confirm").is_displayed()
    assert focused_id(page) == "delete-sign-in-again"
    assert not axe_on_delete_step(page)
    page.find("#delete-sign-in-again").click()
    page.visible("#login-scene")
    page.text_in("#login-note", "Sign in again")
    api.log_in(user.email, user.password)  # the account is still there

    page.log_in(user)
    page.fake_server_error("/api/account/delete", 409,
                           '{"error":{"code":"last_administrator","message":"This is the last enabled administrator."}}')
    open_account(page)
    open_delete_step(page)
    page.type_into("#delete-password", user.password + Keys.ENTER)
    page.text_in("#delete-error", "last administrator")
    page.fake_server_error("/api/account/delete", 429,
                           '{"error":{"code":"rate_limited","message":"Too many failed logins. For your security, try again in 60 seconds."}}')
    page.find("#delete-confirm").click()
    page.text_in("#delete-error", "try again in 60 seconds. Nothing was deleted.")
    assert page.find("#main-scene").is_displayed()
    api.log_in(user.email, user.password)


@pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                    reason="needs the server started here, pointed at the OpenID Connect mock")
def test_an_account_without_a_password_is_deleted_after_a_fresh_sign_in(signin_page, providers):
    """Made by signing in with a provider, the account has no password: a sign-in made just now
    confirms the deletion instead."""
    page, oidc = signin_page, providers["oidc"]
    sub = f"fresh-{uuid.uuid4().hex[:8]}"
    oidc.set_user(sub, {"email": f"{sub}@school.example", "email_verified": True, "given_name": "Fresh", "family_name": "Start"})
    page.open("/#/login")
    provider_button(page, "School Account").click()
    page.until(lambda d: d.current_url.startswith(oidc.issuer + "/oauth2/authorize"), 15)
    page.find("input[name=sub]").send_keys(sub)
    page.driver.find_element(By.XPATH, "//button[normalize-space()='Authorize']").click()
    page.visible("#main-scene", 20)
    page.map_ready()
    key = page.js("return JSON.parse(localStorage.getItem('onthemap.account')).key")

    open_account(page)
    page.text_in("#password-title", "Set a password")
    open_delete_step(page)
    assert not page.find("#delete-password").is_displayed()
    assert page.find("#delete-no-password").is_displayed()
    assert not axe_on_delete_step(page)
    page.find("#delete-confirm").click()
    page.visible("#login-scene")
    page.text_in("#login-note", "Your account was deleted")
    with pytest.raises(HTTPFailure) as failure:
        page.api.request("GET", f"/api/users/{key}", udacity=True)
    assert failure.value.status == 404
