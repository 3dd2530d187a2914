"""Browser tests for the web app: a real `onthemap serve` on a fresh SQLite file, driven
through Debian's chromium + chromedriver with Selenium.

The server binary is not built here: set ONTHEMAP_BIN (default .build/debug/onthemap).
ONTHEMAP_E2E_BASE=http://host:port runs the suite against a server already running
(started with --demo) instead.
"""
import json
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from helpers import Api
from photo_stub import PhotoStub

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "test-output"
SCREENSHOTS = OUTPUT / "screenshots"
PHONE = (390, 844)
DESKTOP = (1280, 800)


# Page.viewport: each visible map's size before a resize, then the wait for the page to settle
# at the new size. A map whose size changed is drawn again when Leaflet's canvas renderer
# updates its canvas (new attributes): that change is the event waited for.
MAP_SIZES_BEFORE_RESIZE = """
window.__mapSizes = [...document.querySelectorAll('.leaflet-container')]
  .filter((map) => map.checkVisibility())
  .map((map) => ({ map, width: map.clientWidth, height: map.clientHeight }));
"""
LAID_OUT_AT_SIZE = """
const [width, height, done] = arguments;
// A page in a tab behind another is not drawn: no frame comes, and nothing is to be seen.
if (document.visibilityState !== 'visible') return done();
// A frame, or a quarter of a second if the browser stops drawing the page meanwhile.
const frame = () => new Promise((resolve) => {
  requestAnimationFrame(() => resolve());
  setTimeout(resolve, 250);
});
(async () => {
  const deadline = performance.now() + 3000;
  while ((innerWidth !== width || innerHeight !== height) && performance.now() < deadline) await frame();
  await frame();
  const canvases = (window.__mapSizes || [])
    .filter(({ map, width, height }) => map.isConnected && (map.clientWidth !== width || map.clientHeight !== height))
    .map(({ map }) => map.querySelector('.leaflet-overlay-pane canvas'))
    .filter(Boolean);
  if (canvases.length) {
    await new Promise((resolve) => {
      const waiting = new Set(canvases);
      const observer = new MutationObserver((records) => {
        for (const record of records) waiting.delete(record.target);
        if (!waiting.size) finish();
      });
      // A safety net only: a map that never draws again shows in the screenshot.
      const timer = setTimeout(() => finish(), 3000);
      function finish() { observer.disconnect(); clearTimeout(timer); resolve(); }
      for (const canvas of canvases) observer.observe(canvas, { attributes: true });
    });
  }
  await frame();
  done();
})();
"""


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_health(base, process, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"onthemap serve exited with {process.returncode}; see its log in {OUTPUT}")
        try:
            with urllib.request.urlopen(base + "/health", timeout=2) as response:
                if json.loads(response.read()).get("status") == "ok":
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server at {base} did not become healthy in {timeout} s")


@pytest.fixture(scope="session")
def photo_stub():
    """A local Wikimedia Commons for Travel albums (the server is pointed at it)."""
    stub = PhotoStub().start()
    yield stub
    stub.stop()


class ServerProcess:
    """`onthemap serve --demo` on a free port with a fresh data directory; `stop()` ends it."""

    def __init__(self, photo_stub, extra=(), log_name="e2e-server.log", port=None, env=None, data_dir=None):
        binary = Path(os.environ.get("ONTHEMAP_BIN", ROOT / ".build" / "debug" / "onthemap"))
        if not binary.is_absolute():
            binary = ROOT / binary
        if not binary.exists():
            pytest.exit(f"server binary {binary} not found: run `swift build` first or set ONTHEMAP_BIN", returncode=2)
        OUTPUT.mkdir(exist_ok=True)
        # A data directory given is one a stopped (or killed) server left: started again on it.
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="onthemap-e2e-")
        self.base = f"http://127.0.0.1:{port or free_port()}"
        self.log = open(OUTPUT / log_name, "w")
        # --demo seeds a few hundred realistic locations (for the screenshots and for scrolling)
        # into the fresh SQLite file; every test adds its own users and locations on top.
        # Travel photos come from the local Wikimedia stub (Flickr is used only with a key).
        environment = {name: value for name, value in os.environ.items() if name != "FLICKR_API_KEY"}
        environment.update(env or {})
        self.process = subprocess.Popen(
            [str(binary), "serve", "--host", "127.0.0.1", "--port", self.base.rsplit(":", 1)[1],
             "--data-dir", self.data_dir, "--demo", "--wikimedia-api-url", photo_stub.api_url, *extra],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=self.data_dir, env=environment,
        )
        try:
            wait_for_health(self.base, self.process)
        except BaseException:
            self.stop()
            raise

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)


@contextlib.contextmanager
def server_with_email(photo_stub, name):
    """A server of its own whose emails go to a real SMTP relay (smtp_sink.py); its public URL is
    its own address. Yields {"base", "sink"}; `name` names its log and the relay's folder."""
    from smtp_sink import SMTPSink
    sink = SMTPSink(tempfile.mkdtemp(prefix=f"onthemap-e2e-{name}-")).start()
    port = free_port()
    server = None
    try:
        server = ServerProcess(photo_stub, log_name=f"e2e-{name}-server.log", port=port, extra=[
            "--smtp-url", sink.url, "--mail-from", "On the Map <map@school.example>",
            "--public-url", f"http://127.0.0.1:{port}",
        ])
        yield {"base": server.base, "sink": sink}
    finally:
        if server:
            server.stop()
        sink.stop()


@pytest.fixture(scope="session")
def server(photo_stub):
    existing = os.environ.get("ONTHEMAP_E2E_BASE")
    if existing:  # an already running server (it must have been started with --demo)
        yield existing.rstrip("/")
        return
    # Under pytest-xdist each process has a server of its own, and a log of its own.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    process = ServerProcess(photo_stub, log_name=f"e2e-server-{worker}.log" if worker else "e2e-server.log")
    try:
        with urllib.request.urlopen(process.base + "/", timeout=5) as response:
            page = response.read().decode()
        if "login-scene" not in page:
            pytest.exit("the server does not serve the web app at / (is WebApp registered?)", returncode=2)
        yield process.base
    finally:
        process.stop()


@pytest.fixture(scope="session")
def api(server):
    return Api(server)


def make_driver(lang="en-US"):
    """A headless Chromium of its own (its own cookies, storage and network conditions).
    `lang` is the browser's language (navigator.languages, Accept-Language): "es", "ar,en"."""
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars",
                     f"--window-size={DESKTOP[0]},{DESKTOP[1]}", f"--lang={lang.split(',')[0]}", "--disable-gpu"):
        options.add_argument(argument)
    if lang != "en-US":
        options.add_experimental_option("prefs", {"intl.accept_languages": lang})
    # The performance log records every request Chromium makes (test_j_own_origin.py).
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver")),
                              options=options)
    driver.set_script_timeout(30)
    driver.execute_cdp_cmd("Network.enable", {})
    return driver


@pytest.fixture(scope="session")
def browser():
    driver = make_driver()
    yield driver
    driver.quit()


def _browser_in(lang):
    driver = make_driver(lang=lang)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def spanish_browser():
    """A browser whose first language is Spanish, for one test file (languages.py's `fresh`
    gives each test a clean page in it)."""
    yield from _browser_in("es")


@pytest.fixture(scope="module")
def arabic_browser():
    """A browser whose languages are Arabic, then English."""
    yield from _browser_in("ar,en")


@pytest.fixture(scope="module")
def german_browser():
    """A browser whose first language is German (long words)."""
    yield from _browser_in("de")


class Page:
    """The browser pointed at the server, with waits and helpers the tests share."""

    def __init__(self, driver, base, api):
        self.driver, self.base, self.api = driver, base, api

    # ---- navigation and waiting ----

    def open(self, path="/"):
        self.driver.get(self.base + path)

    def wait(self, timeout=10):
        # A list re-rendered between finding a row and reading it is not a failure: look again.
        return WebDriverWait(self.driver, timeout, ignored_exceptions=[StaleElementReferenceException])

    def until(self, condition, timeout=10, message=""):
        return self.wait(timeout).until(condition, message)

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def find_all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def visible(self, css, timeout=10):
        return self.until(EC.visibility_of_element_located((By.CSS_SELECTOR, css)), timeout, f"{css} not visible")

    def gone(self, css, timeout=10):
        return self.until(EC.invisibility_of_element_located((By.CSS_SELECTOR, css)), timeout, f"{css} still visible")

    def clickable(self, css, timeout=10):
        return self.until(EC.element_to_be_clickable((By.CSS_SELECTOR, css)), timeout, f"{css} not clickable")

    def text_in(self, css, text, timeout=10):
        return self.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, css), text), timeout,
                          f"{text!r} not in {css}")

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def type_into(self, css, text, clear=True):
        field = self.find(css)
        if clear:
            field.send_keys(Keys.CONTROL, "a")
            field.send_keys(Keys.DELETE)
        field.send_keys(text)
        return field

    # ---- scenes ----

    def log_in(self, user, via_enter=True):
        self.open("/#/login")
        self.visible("#login-email")
        self.type_into("#login-email", user.email)
        self.type_into("#login-password", user.password + (Keys.ENTER if via_enter else ""))
        if not via_enter:
            self.find("#login-button").click()
        self.visible("#main-scene")
        self.map_ready()

    def map_ready(self, timeout=20):
        self.until(lambda d: d.execute_script(
            "return document.getElementById('map').dataset.state === 'ready' && "
            "performance.getEntriesByName('onthemap:basemap-drawn').length > 0"),
            timeout, "map markers and basemap never became ready")

    def marker_count(self):
        value = self.js("return document.getElementById('map').dataset.markerCount")
        return int(value) if value is not None else None

    def alert(self, timeout=10):
        """Waits for the alert dialog; returns (title, message)."""
        self.visible("#alert", timeout)
        return self.find("#alert-title").text, self.find("#alert-message").text

    def dismiss_alert(self, button="#alert-ok"):
        self.find(button).click()
        self.gone("#alert")

    def tab(self, name):
        self.find(f"#tab-{name}").click()
        self.visible(f"#{name}-view")

    def list_rows(self, css="#student-list"):
        return self.find_all(f"{css} > li")

    # ---- network conditions ----

    def offline(self, offline=True):
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1,
        })

    def slow(self, latency_ms):
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": latency_ms, "downloadThroughput": -1, "uploadThroughput": -1,
        })

    def fake_server_error(self, path_part, status=500, body='{"code":1,"error":"Internal server error."}'):
        """Makes the page's fetch answer `status` for URLs containing path_part (a server failure)."""
        self.js("""
            const [part, status, body] = arguments;
            window.__realFetch = window.__realFetch || window.fetch;
            window.fetch = (url, init) => String(url).includes(part)
                ? Promise.resolve(new Response(body, { status, headers: { 'Content-Type': 'application/json' } }))
                : window.__realFetch(url, init);
        """, path_part, status, body)

    # ---- screenshots ----

    def viewport(self, size):
        """Emulates a screen of `size`; returns once the page has laid itself out at it: the
        window has the size, its resize handlers have run, and each map whose size changed has
        drawn itself again (Leaflet does that on its moveend, a moment after the resize)."""
        width, height = size
        self.js(MAP_SIZES_BEFORE_RESIZE)
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600,
        })
        self.js("window.dispatchEvent(new Event('resize'))")
        self.driver.execute_async_script(LAID_OUT_AT_SIZE, width, height)

    def screenshot(self, name, sizes=(PHONE, DESKTOP)):
        """Saves `<name>-390x844.png` and `<name>-1280x800.png`, then returns to desktop size."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for size in sizes:
            self.viewport(size)
            path = SCREENSHOTS / f"{name}-{size[0]}x{size[1]}.png"
            self.driver.save_screenshot(str(path))
        self.viewport(DESKTOP)

    def console_errors(self):
        return [entry for entry in self.driver.get_log("browser")
                if entry["level"] == "SEVERE" and "favicon" not in entry["message"]]


@pytest.fixture
def page(browser, server, api):
    """A clean browser: no cookies, no stored account, online, desktop size."""
    yield clean_page(browser, server, api)


def clean_page(driver, base, api):
    """The shared browser made clean for a test on the server at `base`: one tab, no cookies,
    no stored account, online, desktop size, earlier log messages dropped."""
    page = Page(driver, base, api)
    # Close any tabs a test opened, first: what follows acts on the tab left, in front.
    for handle in driver.window_handles[1:]:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(driver.window_handles[0])
    driver.execute_cdp_cmd("Page.bringToFront", {})
    page.offline(False)
    page.viewport(DESKTOP)
    driver.get(base + "/health")
    driver.delete_all_cookies()
    driver.execute_script("localStorage.clear(); sessionStorage.clear();")
    driver.get_log("browser")  # drop earlier messages
    driver.get_log("performance")
    return page
    page.offline(False)
