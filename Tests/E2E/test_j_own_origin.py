"""Every byte from our own server: Chromium records every request of a full session and
none goes to another origin; the Content-Security-Policy names no other origin; Leaflet
comes from a folder on the server (Debian's packages, or --leaflet-dir with npm's names)."""
import json
import os
import shutil
import subprocess
import tempfile
import urllib.parse
import urllib.request

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from conftest import ROOT, ServerProcess
from helpers import PASSWORD

DEBIAN_LEAFLET = "/usr/share/javascript/leaflet"
KEYWORDS = {"'self'", "'none'", "data:"}


def origin(url):
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def requested_urls(driver):
    """Every URL Chromium asked for since the log was last read (pages, workers, sockets)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
        elif message["method"] == "Network.webSocketCreated":
            urls.append(message["params"]["url"])
    return urls


def csp_sources(base):
    with urllib.request.urlopen(base + "/", timeout=10) as response:
        policy = response.headers["Content-Security-Policy"]
    sources = {}
    for directive in filter(None, (part.strip() for part in policy.split(";"))):
        name, *values = directive.split()
        sources[name] = values
    return sources


def test_the_policy_names_no_other_origin(server):
    sources = csp_sources(server)
    for directive, values in sources.items():
        assert set(values) <= KEYWORDS, f"{directive} allows {values}"
    assert sources["script-src"] == ["'self'"] and sources["connect-src"] == ["'self'"]
    with urllib.request.urlopen(server + "/vendor/leaflet/leaflet.min.js", timeout=10) as response:
        assert response.status == 200 and response.geturl() == server + "/vendor/leaflet/leaflet.min.js"
        assert "javascript" in response.headers["Content-Type"]
        assert response.read() == open(os.path.join(DEBIAN_LEAFLET, "leaflet.min.js"), "rb").read()


def press(page, *keys):
    ActionChains(page.driver).send_keys(*keys).perform()


def test_a_full_session_asks_nothing_of_another_origin(page, api, photo_stub):
    photo_stub.reset()
    requested_urls(page.driver)  # start the record here
    email = f"own.origin.{os.getpid()}@example.com"

    page.open("/#/signup")
    page.visible("#signup-first")
    page.type_into("#signup-first", "Own")
    page.type_into("#signup-last", "Origin")
    page.type_into("#signup-email", email)
    page.type_into("#signup-password", PASSWORD + Keys.ENTER)
    page.visible("#main-scene")
    page.map_ready()
    page.js("document.querySelector('#map .cluster, #map .student-pin').click()")

    page.tab("list")
    page.until(lambda d: len(page.list_rows()) > 50, 10)
    page.js("document.getElementById('list-view').scrollTop = 1e6")
    page.until(lambda d: len(page.list_rows()) > 100, 10, "the list never loaded a second page")
    page.tab("search")
    page.type_into("#search-input", "Maria")
    page.until(lambda d: len(page.list_rows("#search-results")) > 0, 10)

    page.tab("map")
    page.clickable("#add-location-button").click()
    page.visible("#add-place")
    page.type_into("#add-place", "Lagos, Nigeria")
    page.type_into("#add-link", "https://example.com/own-origin")
    page.find("#add-find").click()
    page.clickable("#add-finish", 15).click()
    page.gone("#add-location", 15)

    page.tab("travel")
    page.until(lambda d: d.execute_script(
        "return document.getElementById('travel-map').dataset.state === 'ready'"), 15)
    page.find("#travel-map").send_keys(Keys.ENTER)  # drops a pin at the centre
    page.until(lambda d: d.execute_script(
        "return document.querySelectorAll('.travel-pin[data-pin-id]:not([data-pin-id=\"\"])').length === 1"), 10)
    page.find(".travel-pin[data-pin-id]").click()
    page.until(lambda d: d.execute_script(
        "const a = document.getElementById('album'); return a.dataset.settled === 'true' && a.dataset.state === 'ready'"),
        20, "the album never settled")
    page.until(lambda d: d.execute_script(
        "return document.querySelectorAll('#album-grid img.photo-image').length > 0"), 10)
    page.find("#album-close").click()

    page.find("#account-button").click()
    page.visible("#account")
    page.find("#account-close").click()
    page.find("#logout-button").click()
    page.visible("#login-email")

    urls = requested_urls(page.driver)
    web = [url for url in urls if url.startswith(("http:", "https:", "ws:", "wss:"))]
    assert len(web) > 40, f"the performance log recorded too little: {len(web)} requests"
    foreign = sorted({url for url in web if origin(url) != page.base})
    assert not foreign, f"requests to another origin: {foreign}"
    paths = {urllib.parse.urlsplit(url).path for url in web}
    assert "/vendor/leaflet/leaflet.min.js" in paths and "/api/pins" in paths


@pytest.fixture
def npm_leaflet():
    """Leaflet as npm's dist folders name it (leaflet.js is the minified build)."""
    folder = tempfile.mkdtemp(prefix="onthemap-leaflet-")
    shutil.copy(os.path.join(DEBIAN_LEAFLET, "leaflet.css"), folder)
    shutil.copy(os.path.join(DEBIAN_LEAFLET, "leaflet.min.js"), os.path.join(folder, "leaflet.js"))
    shutil.copytree(os.path.join(DEBIAN_LEAFLET, "images"), os.path.join(folder, "images"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")), reason="starts servers of its own")
def test_leaflet_from_a_folder_the_host_names(page, photo_stub, npm_leaflet):
    server = ServerProcess(photo_stub, ["--leaflet-dir", npm_leaflet], log_name="e2e-server-leaflet-dir.log")
    try:
        with urllib.request.urlopen(server.base + "/vendor/leaflet/leaflet.min.js", timeout=10) as response:
            assert response.read() == open(os.path.join(npm_leaflet, "leaflet.js"), "rb").read()
        with urllib.request.urlopen(server.base + "/vendor/leaflet/leaflet.css", timeout=10) as response:
            assert response.status == 200
        assert all(set(values) <= KEYWORDS for values in csp_sources(server.base).values())
        user = page.api.__class__(server.base).create_user("Folder", "Leaflet")
        page.base = server.base
        page.log_in(user)  # waits for the map's markers and basemap
        assert page.marker_count() > 0
    finally:
        server.stop()

    # A folder without Leaflet stops `serve` at once, saying what is missing.
    empty = tempfile.mkdtemp(prefix="onthemap-no-leaflet-")
    try:
        binary = str(ROOT / os.environ.get("ONTHEMAP_BIN", ".build/debug/onthemap"))  # a relative path is the repository's
        result = subprocess.run([binary, "serve", "--port", "0", "--data-dir", empty, "--leaflet-dir", empty],
                                capture_output=True, text=True, timeout=60, cwd=empty)
        assert result.returncode != 0
        assert "leaflet.min.js (or leaflet.js)" in result.stderr + result.stdout
    finally:
        shutil.rmtree(empty, ignore_errors=True)
