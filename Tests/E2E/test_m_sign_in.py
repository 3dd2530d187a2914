"""Sign-in with other accounts, end to end.

A real OpenID Connect provider process, PyPI `oidc-provider-mock` (discovery, JWKS, a login
form, RP-initiated logout; started here with nonces required and this server registered as
a client with its exact redirect URI), and a local stub of Facebook's dialog and Graph API
(facebook_stub.py, which checks appsecret_proof). The server under test is its own process,
configured with both.
"""
import http.cookiejar
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from a11y import axe_violations, blocking, describe
from conftest import DESKTOP, OUTPUT, PHONE, ServerProcess, clean_page, free_port
from facebook_stub import APP_ID, APP_SECRET, FacebookStub
from helpers import Api, HTTPFailure

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                                reason="needs the server started here, pointed at the provider processes")


class OIDCProviderMock:
    """`python -m oidc_provider_mock` on a free port; `stop()` ends it."""

    def __init__(self):
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.log = open(OUTPUT / "e2e-oidc-provider.log", "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "oidc_provider_mock", "--port", str(self.port),
             "--require-registration", "--require-nonce"],
            stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 30
        while True:
            try:
                with urllib.request.urlopen(self.issuer + "/.well-known/openid-configuration", timeout=2):
                    return
            except OSError:
                if self.process.poll() is not None or time.time() > deadline:
                    self.stop()
                    raise RuntimeError(f"oidc-provider-mock did not start; see {OUTPUT / 'e2e-oidc-provider.log'}")
                time.sleep(0.2)

    def call(self, method, path, body):
        request = urllib.request.Request(self.issuer + path, data=json.dumps(body).encode(), method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            return json.loads(text) if text else None

    def register(self, redirect_uri):
        return self.call("POST", "/oauth2/clients", {"redirect_uris": [redirect_uri],
                                                     "token_endpoint_auth_method": "client_secret_basic"})

    def set_user(self, sub, claims):
        self.call("PUT", f"/users/{urllib.parse.quote(sub)}", claims)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.log.close()


@pytest.fixture(scope="module")
def providers(photo_stub):
    oidc = OIDCProviderMock()
    facebook = FacebookStub().start()
    port = free_port()
    client = oidc.register(f"http://127.0.0.1:{port}/auth/school/callback")
    server = None
    try:
        server = ServerProcess(photo_stub, log_name="e2e-signin-server.log", port=port, extra=[
            "--oidc-provider", f"id=school,name=School Account,issuer={oidc.issuer},client-id={client['client_id']},"
                               "client-secret-env=E2E_SCHOOL_SECRET",
            "--facebook-app-id", APP_ID, "--facebook-dialog-url", facebook.dialog_url, "--facebook-graph-url", facebook.graph_url,
        ], env={"E2E_SCHOOL_SECRET": client["client_secret"], "FACEBOOK_APP_SECRET": APP_SECRET})
        yield {"oidc": oidc, "facebook": facebook, "base": server.base, "client": client, "server": server}
    finally:
        if server:
            server.stop()
        facebook.stop()
        oidc.stop()


@pytest.fixture
def signin_page(browser, providers):
    """A clean browser on the server that offers providers."""
    return clean_page(browser, providers["base"], Api(providers["base"]))


def provider_button(page, name):
    page.visible("#provider-buttons")
    for link in page.find_all("#provider-list a"):
        if link.text == f"Continue with {name}":
            return link
    raise AssertionError(f"no 'Continue with {name}' button in {[a.text for a in page.find_all('#provider-list a')]}")


def test_no_buttons_when_no_provider_is_configured(page):
    page.open("/#/login")
    page.visible("#login-email")
    page.until(lambda d: page.js("return document.getElementById('provider-buttons').dataset.loaded === 'true'"))
    assert not page.find("#provider-buttons").is_displayed()
    assert page.find_all("#provider-list a") == []


def test_openid_connect_sign_in_post_and_log_out_of_both(signin_page, providers):
    page, oidc = signin_page, providers["oidc"]
    sub = f"ada-{uuid.uuid4().hex[:8]}"
    email = f"{sub}@school.example"
    oidc.set_user(sub, {"email": email, "email_verified": True, "given_name": "Ada", "family_name": "Lovelace"})

    page.open("/#/login")
    button = provider_button(page, "School Account")
    assert page.find_all("#provider-list a")[-1].text == "Continue with Facebook"
    page.screenshot("login-providers")
    button.click()
    # The provider's own login form.
    page.until(lambda d: d.current_url.startswith(oidc.issuer + "/oauth2/authorize"), 15)
    page.find("input[name=sub]").send_keys(sub)
    page.driver.find_element(By.XPATH, "//button[normalize-space()='Authorize']").click()

    page.visible("#main-scene", 20)
    page.map_ready()
    assert page.js("return JSON.parse(localStorage.getItem('onthemap.account')).provider") == "school"
    key = page.js("return JSON.parse(localStorage.getItem('onthemap.account')).key")
    # The first sign-in made the account with the provider's names.
    page.find("#account-button").click()
    page.text_in("#account-name", "Ada Lovelace")
    page.text_in("#identities-list", "School Account: linked")
    assert page.find("#password-title").text == "Set a password"
    page.find("#account-close").click()

    # The same session a password login gives: posting works.
    status = page.js("""
        return fetch('/parse/classes/StudentLocation', {method: 'POST', credentials: 'same-origin',
          headers: {'Content-Type': 'application/json',
                    'X-Parse-Application-Id': 'QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr',
                    'X-Parse-REST-API-Key': 'QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY'},
          body: JSON.stringify({uniqueKey: arguments[0], firstName: 'Ada', lastName: 'Lovelace',
                                mapString: 'Lagos, Nigeria', mediaURL: 'https://example.com/ada',
                                latitude: 6.45, longitude: 3.39})}).then(r => r.status)""", key)
    assert status == 201
    assert page.api.count({"uniqueKey": key}) == 1

    # Logout ends our session and offers the provider's.
    page.find("#logout-button").click()
    title, message = page.alert()
    assert title == "Logged Out of On the Map"
    assert "School Account" in message
    page.visible("#login-scene")
    page.find("#alert-ok").click()
    page.until(lambda d: d.current_url.startswith(oidc.issuer + "/oauth2/end_session"), 15)
    assert "id_token_hint=" in page.driver.current_url
    page.driver.find_element(By.XPATH, "//button[normalize-space()='End session']").click()
    page.until(lambda d: d.current_url.startswith(providers["base"]), 15)
    page.visible("#login-email")
    assert page.js("return localStorage.getItem('onthemap.account')") is None

    # Signing in again finds the same account.
    page.open("/#/login")
    provider_button(page, "School Account").click()
    page.until(lambda d: d.current_url.startswith(oidc.issuer + "/oauth2/authorize"), 15)
    page.find("input[name=sub]").send_keys(sub)
    page.driver.find_element(By.XPATH, "//button[normalize-space()='Authorize']").click()
    page.visible("#main-scene", 20)
    assert page.js("return JSON.parse(localStorage.getItem('onthemap.account')).key") == key
    # The provider's pages load a stylesheet from a CDN this machine cannot reach: not ours.
    ours = [e for e in page.console_errors() if oidc.issuer not in e["message"] and "cdn.jsdelivr.net" not in e["message"]]
    assert ours == []


def test_denying_consent_says_so_and_signs_nobody_in(signin_page, providers):
    page, oidc = signin_page, providers["oidc"]
    page.open("/#/login")
    provider_button(page, "School Account").click()
    page.until(lambda d: d.current_url.startswith(oidc.issuer + "/oauth2/authorize"), 15)
    page.driver.find_element(By.XPATH, "//button[normalize-space()='Deny']").click()
    page.text_in("h1", "Sign-in cancelled", 15)
    assert "nothing changed" in page.find("#signin-problem").text
    assert page.driver.get_cookie("onthemap_session") is None
    page.driver.find_element(By.LINK_TEXT, "Back to the login page").click()
    page.visible("#login-email")


def test_facebook_web_sign_in_and_logout_revokes_the_token(signin_page, providers):
    page, facebook = signin_page, providers["facebook"]
    user_id = str(uuid.uuid4().int)[:15]
    facebook.add_user(user_id, "Mark", "Fbuser", f"mark.{user_id}@facebook.example")
    page.open("/#/login")
    provider_button(page, "Facebook").click()
    page.until(lambda d: d.current_url.startswith(facebook.dialog_url), 15)
    page.find(f"a.continue[data-user='{user_id}']").click()
    page.visible("#main-scene", 20)
    assert page.js("return JSON.parse(localStorage.getItem('onthemap.account')).firstName") == "Mark"
    revoked_before = len(facebook.revoked)
    page.find("#logout-button").click()
    title, message = page.alert()
    assert title == "Logged Out"
    assert "no longer holds your Facebook sign-in" in message
    page.dismiss_alert()
    assert len(facebook.revoked) == revoked_before + 1
    assert facebook.proof_failures == 0


def plain_http_browser():
    """A cookie jar, an opener that does not follow redirects, and `location(url, data=None)`
    that requests a URL and returns where it redirects (failing if it does not)."""
    jar = http.cookiejar.CookieJar()

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)

    def location(url, data=None):
        try:
            opener.open(url, data=data, timeout=10)
        except urllib.error.HTTPError as error:
            assert error.code in (302, 303), error.code
            return error.headers["Location"]
        raise AssertionError(f"{url} did not redirect")

    return jar, opener, location


def plain_http_facebook_sign_in(base, facebook, user_id):
    """The web flow without a browser: start, the dialog's approval, the callback."""
    _, _, location = plain_http_browser()

    dialog = location(base + "/auth/facebook/start")
    assert dialog.startswith(facebook.dialog_url)
    assert location(facebook.approve(dialog, user_id)) == "/"


def udacity_login(base, body):
    try:
        status, answer = Api(base).request("POST", "/api/session", body, udacity=True)
        return status, answer
    except HTTPFailure as failure:
        return failure.status, json.loads(failure.body)


def test_old_clients_facebook_mobile_login(providers):
    base, facebook = providers["base"], providers["facebook"]
    linked = str(uuid.uuid4().int)[:15]
    facebook.add_user(linked, "Old", "Client", f"old.{linked}@facebook.example")
    plain_http_facebook_sign_in(base, facebook, linked)

    # A token of the linked user, with and without the stray ';' some clients append.
    for token in (facebook.issue_token(linked), facebook.issue_token(linked) + ";"):
        request = urllib.request.Request(base + "/api/session", method="POST",
                                         data=json.dumps({"facebook_mobile": {"access_token": token}}).encode(),
                                         headers={"Content-Type": "application/json", "Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            raw = response.read().decode()
            cookies = response.headers.get_all("Set-Cookie")
        assert raw.startswith(")]}'\n")
        body = json.loads(raw[5:])
        assert body["account"]["registered"] is True and body["account"]["key"]
        assert set(body["session"]) == {"id", "expiration"}
        assert any(c.startswith("onthemap_session=") for c in cookies)
        assert any(c.startswith("XSRF-TOKEN=") for c in cookies)
        assert Api(base).session_alive(body["session"]["id"])

    refused = {"status": 403, "error": "Account not found or invalid credentials."}
    unlinked = str(uuid.uuid4().int)[:15]
    facebook.add_user(unlinked, "Never", "Linked")
    assert udacity_login(base, {"facebook_mobile": {"access_token": facebook.issue_token(unlinked)}}) == (403, refused)
    assert udacity_login(base, {"facebook_mobile": {"access_token": "EAAnotatoken"}}) == (403, refused)
    other_app = facebook.issue_token(linked, app_id="999999")
    assert udacity_login(base, {"facebook_mobile": {"access_token": other_app}}) == (403, refused)
    status, body = udacity_login(base, {"facebook_mobile": {"access_token": "x"}, "udacity": {"username": "a@b.c", "password": "p"}})
    assert status == 400 and "exactly one credential" in body["error"]

    facebook.down = True
    try:
        status, body = udacity_login(base, {"facebook_mobile": {"access_token": facebook.issue_token(linked)}})
    finally:
        facebook.down = False
    assert status >= 500 and body["status"] == status and "Facebook" in body["error"]
    assert facebook.proof_failures == 0


def test_account_menu_link_unlink_and_screens_pass_axe(signin_page, providers):
    page, oidc = signin_page, providers["oidc"]
    user = page.api.create_user("Link", "Later")
    page.log_in(user)
    page.find("#account-button").click()
    page.text_in("#identities-list", "School Account: not linked")
    found = []
    for size in (PHONE, DESKTOP):
        page.viewport(size)
        page.js("return new Promise((resolve) => setTimeout(resolve, 350))")
        violations = blocking(axe_violations(page.driver))
        if violations:
            found.append(f"account dialog at {size}: {describe(violations)}")
    page.find("#identities-list button[data-provider='school']").click()

    sub = f"linker-{uuid.uuid4().hex[:8]}"
    # An unverified email that differs from the account's: linking needs only the signed-in user.
    oidc.set_user(sub, {"email": f"{sub}@elsewhere.example", "email_verified": False, "given_name": "Someone"})
    page.until(lambda d: d.current_url.startswith(oidc.issuer + "/oauth2/authorize"), 15)
    page.find("input[name=sub]").send_keys(sub)
    page.driver.find_element(By.XPATH, "//button[normalize-space()='Authorize']").click()
    page.visible("#main-scene", 20)
    page.find("#account-button").click()
    page.text_in("#identities-list", "School Account: linked")
    page.find("#identities-list button[data-provider='school']").click()
    page.text_in("#identities-done", "no longer linked")
    page.text_in("#identities-list", "School Account: not linked")
    page.find("#account-close").click()

    page.find("#logout-button").click()
    page.visible("#login-email")
    for size in (PHONE, DESKTOP):
        page.viewport(size)
        page.js("return new Promise((resolve) => setTimeout(resolve, 350))")
        violations = blocking(axe_violations(page.driver))
        if violations:
            found.append(f"login with providers at {size}: {describe(violations)}")
    page.viewport(DESKTOP)
    assert not found, "\n".join(found)


def test_cli_login_with_a_provider_through_a_loopback_redirect(providers, tmp_path):
    """`onthemap login --provider school --no-browser` prints the address; this test is the
    browser: it signs in on the provider's form and follows the redirects to the CLI's port."""
    from conftest import ROOT
    base, oidc = providers["base"], providers["oidc"]
    sub = f"cli-{uuid.uuid4().hex[:8]}"
    oidc.set_user(sub, {"email": f"{sub}@school.example", "email_verified": True, "given_name": "Cli", "family_name": "User"})
    binary = Path(os.environ.get("ONTHEMAP_BIN", ROOT / ".build" / "debug" / "onthemap"))
    binary = binary if binary.is_absolute() else ROOT / binary
    environment = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}
    cli = subprocess.Popen([str(binary), "login", "--server", base, "--provider", "school", "--no-browser"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    try:
        address = cli.stdout.readline().strip()
        assert address.startswith(base + "/auth/school/start?client_redirect=http%3A%2F%2F127.0.0.1%3A")
        jar, opener, location = plain_http_browser()

        authorize = location(address)
        assert authorize.startswith(oidc.issuer + "/oauth2/authorize")
        callback = location(authorize, urllib.parse.urlencode({"sub": sub}).encode())
        loopback = location(callback)
        assert loopback.startswith("http://127.0.0.1:") and "code=" in loopback
        with urllib.request.urlopen(loopback, timeout=10) as response:
            assert "close this tab" in response.read().decode()
        out, err = cli.communicate(timeout=30)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == 0, err
    assert "Logged in to" in out and "Cli User" in out
    whoami = subprocess.run([str(binary), "whoami"], capture_output=True, text=True, env=environment, timeout=30)
    assert whoami.returncode == 0 and "Cli User" in whoami.stdout
    # Nothing a browser could replay: the code was spent.
    assert not jar or all(cookie.name != "onthemap_session" for cookie in jar)


def test_an_account_set_up_in_a_students_name_is_theirs_when_the_school_vouches(providers):
    """The pre-registration takeover, as an attacker would try it: sign up with the email of a
    student who has not arrived, wait for them to sign in with the school's provider, then log
    in with the password and read what they posted. The account becomes the student's instead."""
    base, oidc = providers["base"], providers["oidc"]
    api = Api(base)
    email = f"new.{uuid.uuid4().hex[:8]}@school.example"
    attacker = api.create_user("Not", "Them", email=email, password="the attacker's password")
    attacker_session = attacker.session

    sub = f"student-{uuid.uuid4().hex[:8]}"
    oidc.set_user(sub, {"email": email, "email_verified": True, "given_name": "Real", "family_name": "Student"})
    jar, opener, location = plain_http_browser()

    authorize = location(base + "/auth/school/start?return=%2F%23%2Ftravel")
    assert authorize.startswith(oidc.issuer + "/oauth2/authorize")
    callback = location(authorize, urllib.parse.urlencode({"sub": sub}).encode())
    with opener.open(callback, timeout=10) as response:
        page = response.read().decode()
    # Told on arrival, with the way on to where they were going.
    assert "already existed" in page and "password was removed" in page and 'href="/#/travel"' in page
    session = next(cookie.value for cookie in jar if cookie.name == "onthemap_session")

    # The student uses the account: it is theirs, named as the school names them.
    student = {"X-Parse-Session-Token": session}
    _, me = api.request("GET", "/api/auth/me", headers=student)
    assert me["key"] == attacker.key and (me["first_name"], me["last_name"]) == ("Real", "Student")
    api.request("POST", "/api/pins", {"latitude": 48.85, "longitude": 2.35}, headers=student)

    # The attacker's session ended and the password is gone: nothing to read the pins with.
    assert not api.session_alive(attacker_session)
    with pytest.raises(HTTPFailure) as refused:
        api.log_in(email, "the attacker's password")
    assert refused.value.status == 403
    _, pins = api.request("GET", "/api/pins", headers=student)
    assert len(pins["results"]) == 1


def test_no_secret_or_token_reaches_the_server_log(providers):
    """Runs last in this file: everything above went through this server."""
    log = (OUTPUT / "e2e-signin-server.log").read_text()
    assert "sign-in started" in log
    for secret in (providers["client"]["client_secret"], APP_SECRET, *providers["facebook"].tokens):
        assert secret not in log
    for marker in ("code=", "state=", "id_token", "access_token=", "appsecret_proof"):
        assert marker not in log, marker
