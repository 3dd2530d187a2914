"""The server stopped and started again, for real (no request interception): the banner says
"the server can't be reached" as soon as the live stream fails, without the student doing
anything, and "you are offline" only when the device has no network; what the student changed
in this session (Travel pins dropped, moved and deleted) shows after a reload with the server
away; search runs over what was last loaded, saying so in one line and with no error dialog;
and the server's return is noticed within 5 seconds, on a desktop and on a phone, the banner
clearing and the data loaded again without pressing Refresh."""
import os
import signal
import shutil

import pytest
from selenium.webdriver.common.action_chains import ActionChains

from conftest import DESKTOP, PHONE, ServerProcess, free_port
from helpers import Api
from test_f_travel import drop_pin, open_album, pin_marker

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")), reason="stops a server of its own")

SERVER_AWAY = "The server can't be reached"
DEVICE_OFFLINE = "You are offline"
RETURN_NOTICED_S = 5


def halt(server):
    """Stops the server process (as a host does) and keeps its data for the next start."""
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGINT)
        # A minute: a graceful stop waits for the album downloads under way (a moved pin
        # fetches a new album just before), which took over 15 s once on a loaded machine.
        server.process.wait(timeout=60)
    server.log.close()


def kept_pins(page):
    """The `/api/pins` answer the device kept, or None."""
    return page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => {
          const kept = await caches.match('/api/pins', { cacheName: 'onthemap-data-v1', ignoreVary: true });
          return kept ? (await kept.json()).results : null;
        })().then(done, () => done(null));
    """)


def travel_ready(page):
    page.until(lambda d: d.execute_script(
        "return document.getElementById('travel-map').dataset.state === 'ready'"), 15, "the travel map never became ready")


def shown_pins(page):
    return {element.get_attribute("data-pin-id") for element in page.find_all(".travel-pin[data-pin-id]")}


def banner_says(page, text, state):
    def check(driver):
        banner = page.find("#offline-banner")
        return banner.get_attribute("hidden") is None and banner.get_attribute("data-state") == state and text in banner.text
    page.until(check, 10, f"the banner did not say {text!r}")


def returns_within_5_s(page, photo_stub, port, data_dir, name):
    server = ServerProcess(photo_stub, log_name=f"e2e-server-away-{name}.log", port=port, data_dir=data_dir)
    page.gone("#offline-banner", RETURN_NOTICED_S)
    return server


def test_the_server_away_is_said_kept_changes_show_search_works_and_its_return_is_noticed(page, photo_stub):
    photo_stub.reset()
    port = free_port()
    first = ServerProcess(photo_stub, log_name="e2e-server-away-1.log", port=port)
    data_dir = first.data_dir
    servers = [first]
    try:
        page.base = first.base
        user = Api(first.base).create_user("Away", "Serverside")
        user.post_location("Lisbon, Portugal", latitude=38.72, longitude=-9.14)
        kept = user.create_pin(41.9, 12.5)["id"]
        page.log_in(user)
        page.until(lambda d: d.execute_script("return Boolean(navigator.serviceWorker.controller)"), 20,
                   "the service worker never took control")
        page.driver.refresh()
        page.visible("#main-scene")
        page.map_ready()
        page.until(lambda d: page.find("#live-indicator").get_attribute("data-state") == "live", 10, "stream not live")

        # The server stops mid-session: the banner says so by itself, and not that the device
        # is offline; it clears within 5 s of the server starting again.
        halt(first)
        banner_says(page, SERVER_AWAY, "server")
        assert DEVICE_OFFLINE not in page.find("#offline-banner").text
        servers.append(returns_within_5_s(page, photo_stub, port, data_dir, "2"))
        page.until(lambda d: page.find("#live-indicator").get_attribute("data-state") == "live", 10, "stream not live again")

        # This session's Travel changes: one pin dropped, the kept one moved, one deleted.
        page.tab("travel")
        travel_ready(page)
        dropped = drop_pin(page, x=-120, y=40)
        doomed = drop_pin(page, x=120, y=40)
        open_album(page, doomed)
        page.find("#album-delete-pin").click()
        page.alert()
        page.dismiss_alert("#alert-ok")
        page.gone("#album")
        before = user.pins()
        longitude = next(pin["longitude"] for pin in before if pin["id"] == kept)
        ActionChains(page.driver).move_to_element(pin_marker(page, kept)).click_and_hold().pause(0.8) \
            .move_by_offset(40, 0).pause(0.05).move_by_offset(40, 0).pause(0.05).release().perform()
        page.text_in("#travel-toast", "Pin moved")
        pins = {pin["id"]: pin for pin in user.pins()}
        assert set(pins) == {kept, dropped} and pins[kept]["longitude"] > longitude + 1
        page.until(lambda d: {pin["id"]: pin["longitude"] for pin in kept_pins(page) or []}
                   == {id: pin["longitude"] for id, pin in pins.items()}, 10, "the kept pins did not follow")

        # The server stops again, and the app is opened again, on a phone.
        halt(servers[-1])
        page.viewport(PHONE)
        page.driver.refresh()
        page.visible("#main-scene", 20)
        page.map_ready()
        banner_says(page, SERVER_AWAY, "server")
        page.tab("travel")
        travel_ready(page)
        page.until(lambda d: shown_pins(page) == {kept, dropped}, 10, "this session's pins are not shown")
        assert page.find("#travel-empty").get_attribute("hidden") is not None

        # Search runs over what was last loaded: one line says so, no error dialog.
        page.tab("search")
        page.type_into("#search-input", "serverside")
        page.until(lambda d: any("Away Serverside" in row.text for row in page.list_rows("#search-results")), 10,
                   "the kept list was not searched")
        assert page.find("#search-kept").is_displayed()
        assert "last loaded" in page.find("#search-kept").text
        assert not page.find("#alert").is_displayed()
        assert "Could not" not in page.find("#search-footer").text

        # The device's own network goes: now the banner says the device is offline; back on
        # the network, the server is still away.
        page.offline(True)
        banner_says(page, DEVICE_OFFLINE, "device")
        page.offline(False)
        banner_says(page, SERVER_AWAY, "server")

        # The server returns: noticed within 5 s on the phone; the search and the pins load again.
        servers.append(returns_within_5_s(page, photo_stub, port, data_dir, "3"))
        page.gone("#search-kept", 10)
        page.tab("travel")
        travel_ready(page)
        assert shown_pins(page) == {kept, dropped}
        assert not page.find("#alert").is_displayed()
    finally:
        page.offline(False)
        page.viewport(DESKTOP)
        for server in servers:
            halt(server)
        shutil.rmtree(data_dir, ignore_errors=True)
