"""Installable and useful offline: a web manifest and a service worker; with the network
off and the server gone, the app reloads on the last map and list it saw, says it is
offline, refuses to post, and opens an album it downloaded before."""
import json
import os
import urllib.request

import pytest

from conftest import ServerProcess
from helpers import Api

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")), reason="stops a server of its own")


def album_settled(page):
    return page.js("const a = document.getElementById('album'); return a.dataset.settled === 'true' && a.dataset.state === 'ready'")


def shown_images(page):
    return page.js("""return Array.from(document.querySelectorAll('#album-grid img.photo-image'))
        .filter((img) => img.complete && img.naturalWidth > 0).length""")


def test_the_app_is_installable(server):
    with urllib.request.urlopen(server + "/manifest.webmanifest", timeout=10) as response:
        manifest = json.loads(response.read())
    assert manifest["display"] == "standalone" and manifest["start_url"].startswith("/")
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    assert any(icon.get("purpose") == "maskable" for icon in manifest["icons"])
    for icon in manifest["icons"]:
        with urllib.request.urlopen(server + icon["src"], timeout=10) as response:
            assert response.status == 200 and response.headers["Content-Type"].startswith("image/")


def test_offline_the_app_reopens_on_the_last_map_and_list(page, photo_stub):
    photo_stub.reset()
    own = ServerProcess(photo_stub, log_name="e2e-server-offline.log")
    try:
        page.base = own.base
        user = Api(own.base).create_user("Off", "Line")
        pin = user.create_pin(41.9, 12.5)
        page.log_in(user)
        page.until(lambda d: d.execute_script("return Boolean(navigator.serviceWorker.controller)"), 20,
                   "the service worker never took control")
        # A second visit, as a student opening the installed app again.
        page.driver.refresh()
        page.visible("#main-scene")
        page.map_ready()
        markers = page.marker_count()
        page.tab("list")
        page.until(lambda d: len(page.list_rows()) >= 100, 15)
        names = [row.text.split("\n")[0] for row in page.list_rows()[:5]]
        page.tab("travel")
        page.until(lambda d: d.execute_script(
            "return document.getElementById('travel-map').dataset.state === 'ready'"), 15)
        page.find(f'.travel-pin[data-pin-id="{pin["id"]}"]').click()
        page.until(lambda d: album_settled(page), 20, "the album never settled")
        page.until(lambda d: shown_images(page) > 0, 10)
        photos = len(page.find_all("#album-grid .photo"))
        page.find("#album-close").click()
        page.tab("map")
        assert page.find("#offline-banner").get_attribute("hidden") is not None

        # No network, and no server either.
        page.offline(True)
        own.stop()
        page.driver.refresh()
        page.visible("#main-scene", 20)
        page.map_ready()
        assert page.marker_count() == markers
        banner = page.visible("#offline-banner")
        assert "offline" in banner.text.lower() and "Posting needs a connection" in banner.text
        assert " as of " in banner.text, banner.text  # when the kept copy was fetched
        page.screenshot("offline-map")
        page.tab("list")
        page.until(lambda d: len(page.list_rows()) >= 100, 15, "the kept list did not show")
        assert [row.text.split("\n")[0] for row in page.list_rows()[:5]] == names

        # Posting is refused, saying why.
        page.find("#add-location-button").click()
        title, message = page.alert()
        assert title == "You Are Offline" and "nothing was sent" in message
        page.dismiss_alert()
        assert not page.find("#add-location").is_displayed()

        # The album downloaded before opens with its photos.
        page.tab("travel")
        page.until(lambda d: d.execute_script(
            "return document.getElementById('travel-map').dataset.state === 'ready'"), 15)
        page.find(f'.travel-pin[data-pin-id="{pin["id"]}"]').click()
        page.until(lambda d: album_settled(page), 15, "the kept album did not open")
        page.until(lambda d: shown_images(page) == photos, 10, "the kept photos did not show")
        page.screenshot("offline-album")
    finally:
        page.offline(False)
        own.stop()
