"""A shared computer: what the app keeps for offline use belongs to a session. Alice uses the
app and leaves without logging out; her sessions end elsewhere (logging out of all devices
from her phone). The next person then sees the login screen, online or offline, and none of
her data: not her name, her pins or the list, and nothing of hers is left in the browser's
storage. A session that expires while the computer is offline is not shown either."""
import json
import os

import pytest

from conftest import ServerProcess
from helpers import Api
from test_f_travel import drop_pin

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")), reason="stops a server of its own")

DATA_CACHE = "onthemap-data-v1"
OFFLINE_LOGIN = "You are offline: log in when the connection is back."
ENDED = "Your session has ended"


def kept_answers(page):
    """The paths kept in the account's data cache, or None when there is no such cache."""
    return page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => {
          if (!(await caches.has(arguments[0]))) return null;
          const cache = await caches.open(arguments[0]);
          return (await cache.keys()).map((request) => new URL(request.url).pathname);
        })().then(done, (error) => done(`failed: ${error}`));
    """, DATA_CACHE)


def offline_answer(page, path):
    """What the page gets for `path` with no network: the service worker's kept copy, or null."""
    return page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(arguments[0]).then((response) => response.text(), () => null).then(done);
    """, path)


def alice_uses_the_app(page, own):
    """Alice logs in, looks at the map and the list, drops a pin and opens the Travel tab
    again after a reload, so the service worker and the page keep her answers."""
    alice = Api(own.base).create_user("Alice", "Sharedpc")
    alice.post_location("Lisbon, Portugal", latitude=38.72, longitude=-9.14)
    page.base = own.base
    page.log_in(alice)
    page.until(lambda d: d.execute_script("return Boolean(navigator.serviceWorker.controller)"), 20,
               "the service worker never took control")
    page.driver.refresh()
    page.visible("#main-scene")
    page.map_ready()
    page.tab("list")
    page.until(lambda d: any("Alice Sharedpc" in row.text for row in page.list_rows()), 15, "Alice is not in the list")
    page.tab("travel")
    page.until(lambda d: d.execute_script("return document.getElementById('travel-map').dataset.state === 'ready'"), 15)
    pin = drop_pin(page, x=-120, y=10)
    page.tab("map")
    page.until(lambda d: {"/api/pins", "/parse/classes/StudentLocation", "/api/locations/snapshot/map.bin"}
               <= set(kept_answers(page) or []), 15, "Alice's answers were not kept")
    return alice, pin


def end_every_session(alice):
    """Alice, on her phone, logs out of all devices (the browser's session too)."""
    alice.api.request("DELETE", "/api/session?all=1", headers={"X-Parse-Session-Token": alice.session}, udacity=True)


def assert_nothing_of(page, alice, pin):
    assert page.find("#login-scene").is_displayed() and not page.find("#main-scene").is_displayed()
    assert page.js("return localStorage.getItem('onthemap.account')") is None
    assert not kept_answers(page), kept_answers(page)
    assert "Sharedpc" not in page.find("body").text
    assert page.find_all("#student-list > li") == []
    assert page.find_all(f'.travel-pin[data-pin-id="{pin}"]') == []


def test_offline_the_next_person_sees_the_login_screen_and_nothing_of_alice(page, photo_stub):
    own = ServerProcess(photo_stub, log_name="e2e-server-shared-offline.log")
    try:
        alice, pin = alice_uses_the_app(page, own)
        end_every_session(alice)

        # The next person brings the app's window back to the front while the computer is
        # online: the app asks the server, learns the session is gone and forgets Alice.
        alice_tab = page.driver.current_window_handle
        page.driver.switch_to.new_window("tab")
        page.driver.close()
        page.driver.switch_to.window(alice_tab)
        page.visible("#login-scene", 15)
        page.text_in("#login-error", ENDED)

        # Then the network goes (and the server with it), and the app is opened again.
        page.offline(True)
        own.stop()
        page.open("/#/map")
        page.driver.refresh()
        page.visible("#login-scene", 20)
        banner = page.visible("#offline-banner")
        assert banner.text == OFFLINE_LOGIN
        assert_nothing_of(page, alice, pin)
        for path in ("/api/pins", "/parse/classes/StudentLocation?limit=100&order=-updatedAt"):
            assert offline_answer(page, path) is None, f"{path} still answered from a kept copy"
        page.screenshot("shared-computer-offline-login")

        # Logging in says why it cannot work now.
        page.type_into("#login-email", alice.email)
        page.type_into("#login-password", alice.password)
        page.find("#login-button").click()
        page.text_in("#login-error", "Cannot reach the server")
        assert not page.find("#main-scene").is_displayed()
    finally:
        page.offline(False)
        own.stop()


def test_online_a_reload_after_the_sessions_ended_drops_everything_kept(page, photo_stub):
    own = ServerProcess(photo_stub, log_name="e2e-server-shared-online.log")
    try:
        alice, pin = alice_uses_the_app(page, own)
        end_every_session(alice)
        assert page.driver.get_cookie("onthemap_session")  # the browser still holds the dead cookie

        page.driver.refresh()
        page.visible("#login-scene", 20)
        page.text_in("#login-error", ENDED)
        page.until(lambda d: not kept_answers(page), 10, "the kept answers were not deleted")
        assert_nothing_of(page, alice, pin)
        assert page.find("#offline-banner").get_attribute("hidden") is not None

        # The next student's session keeps answers of its own again.
        bob = Api(own.base).create_user("Bob", "Nextinline")
        page.log_in(bob)
        page.tab("list")
        page.until(lambda d: "/parse/classes/StudentLocation" in (kept_answers(page) or []), 15,
                   "the next student's answers are not kept")
        assert json.loads(page.js("return localStorage.getItem('onthemap.account')"))["key"] == bob.key
    finally:
        page.offline(False)
        own.stop()


def expire_the_session(page):
    """What the browser holds once the session's time is up, without waiting for it: the clock
    is past the expiration the login answer gave (kept with the account), and the browser has
    dropped the session cookie and the XSRF-TOKEN cookie that expires with it (an expired
    cookie is simply gone)."""
    record = json.loads(page.js("return localStorage.getItem('onthemap.account')"))
    assert record["expiresAt"], "a password login keeps the session's expiration"
    assert page.driver.get_cookie("XSRF-TOKEN") and page.driver.get_cookie("onthemap_session")
    record["expiresAt"] = "2000-01-01T00:00:00.000Z"
    page.js("localStorage.setItem('onthemap.account', arguments[0])", json.dumps(record))
    page.driver.delete_cookie("onthemap_session")
    page.driver.delete_cookie("XSRF-TOKEN")
    assert page.driver.get_cookie("XSRF-TOKEN") is None and page.driver.get_cookie("onthemap_session") is None


def test_a_session_that_expired_offline_shows_nothing(page, photo_stub):
    own = ServerProcess(photo_stub, log_name="e2e-server-shared-expiry.log")
    try:
        alice, pin = alice_uses_the_app(page, own)
        page.offline(True)
        own.stop()
        # Alice's session expires while the computer is offline.
        expire_the_session(page)
        page.open("/#/map")
        page.driver.refresh()
        page.visible("#login-scene", 20)
        assert page.visible("#offline-banner").text == OFFLINE_LOGIN
        assert_nothing_of(page, alice, pin)
    finally:
        page.offline(False)
        own.stop()


def test_this_is_a_shared_computer_keeps_nothing_of_alice(page, photo_stub):
    """Alice ticks "This is a shared computer": her session's cookies end with the browser and
    nothing of hers is kept while she uses the map and Travel. Her sessions end elsewhere, the
    server goes away, and the next person to open the app sees the login card and nothing of
    hers; the box stays ticked for them (only the choice is remembered)."""
    own = ServerProcess(photo_stub, log_name="e2e-server-shared-choice.log")
    try:
        alice = Api(own.base).create_user("Alice", "Sharedpc")
        alice.post_location("Lisbon, Portugal", latitude=38.72, longitude=-9.14)
        page.base = own.base
        page.open("/#/login")
        box = page.visible("#shared-computer")
        assert not box.is_selected()
        assert "logged out when the browser closes" in page.find("#shared-computer-hint").text
        page.find("#shared-computer-choice label").click()
        assert box.is_selected()
        page.type_into("#login-email", alice.email)
        page.type_into("#login-password", alice.password)
        page.find("#login-button").click()
        page.visible("#main-scene")
        page.map_ready()
        for name in ("onthemap_session", "XSRF-TOKEN"):
            cookie = page.driver.get_cookie(name)
            assert cookie and "expiry" not in cookie, f"{name} outlives the browser: {cookie}"

        # She uses the app through the service worker: the map, the list, Travel.
        page.until(lambda d: d.execute_script("return Boolean(navigator.serviceWorker.controller)"), 20,
                   "the service worker never took control")
        page.driver.refresh()
        page.visible("#main-scene")
        page.map_ready()
        page.tab("list")
        page.until(lambda d: any("Alice Sharedpc" in row.text for row in page.list_rows()), 15, "Alice is not in the list")
        page.tab("travel")
        page.until(lambda d: d.execute_script("return document.getElementById('travel-map').dataset.state === 'ready'"), 15)
        pin = drop_pin(page, x=-120, y=10)
        page.tab("map")
        page.map_ready()
        assert kept_answers(page) is None, "a shared computer kept Alice's answers"
        assert page.js("return localStorage.getItem('onthemap.account')") is None
        assert page.js("return Object.keys(localStorage).filter((key) => key.includes(arguments[0]))", alice.key) == []

        # Her sessions end elsewhere; the server goes away; she had closed her tab, and the
        # next person opens the app in a new one.
        end_every_session(alice)
        own.stop()
        alice_tab = page.driver.current_window_handle
        page.driver.switch_to.new_window("tab")
        next_tab = page.driver.current_window_handle
        page.driver.switch_to.window(alice_tab)
        page.driver.close()
        page.driver.switch_to.window(next_tab)
        page.open("/#/map")
        page.visible("#login-scene", 20)
        assert_nothing_of(page, alice, pin)
        assert page.js("return sessionStorage.getItem('onthemap.account')") is None
        for path in ("/api/pins", "/parse/classes/StudentLocation?limit=100&order=-updatedAt"):
            assert offline_answer(page, path) is None, f"{path} answered from a kept copy"
        assert page.find("#shared-computer").is_selected(), "the choice was not remembered"
        page.screenshot("shared-computer-choice-next-person")
    finally:
        own.stop()
