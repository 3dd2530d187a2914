#!/usr/bin/env python3
"""Regenerates the docs' screenshots from what a newcomer sees: a fresh `serve --demo`,
logged in as the demo account, at desktop and phone size. The browser suite's own
screenshots (test-output/) show test data; these show the demo.

    swift build && python3 Scripts/readme-screenshots.py   # needs Tests/E2E/run.sh's packages
"""
import os
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
SIZES = [(1280, 800), (390, 844)]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    binary = os.environ.get("ONTHEMAP_BIN", str(ROOT / ".build" / "debug" / "onthemap"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="onthemap-readme-") as data:
        server = subprocess.Popen([binary, "serve", "--demo", "--port", str(port), "--data-dir", data],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(f"{base}/health", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            options = webdriver.ChromeOptions()
            options.binary_location = "/usr/bin/chromium"
            for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars"):
                options.add_argument(argument)
            driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
            try:
                shoot(driver, base)
            finally:
                driver.quit()
        finally:
            server.kill()
            server.wait()


def shoot(driver, base):
    wait = WebDriverWait(driver, 20)
    driver.set_window_size(*SIZES[0])
    driver.get(f"{base}/#/login")
    wait.until(lambda d: d.find_element("css selector", "#login-email").is_displayed())
    driver.find_element("css selector", "#login-email").send_keys("demo@onthemap.local")
    driver.find_element("css selector", "#login-password").send_keys("onthemap-demo" + Keys.ENTER)
    wait.until(lambda d: d.execute_script("return document.getElementById('map').dataset.state === 'ready'"))
    OUT.mkdir(parents=True, exist_ok=True)
    for scene in ("map", "list"):
        for width, height in SIZES:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
            driver.get(f"{base}/#/{scene}")
            if scene == "list":
                wait.until(lambda d: len(d.find_elements("css selector", "#student-list > li")) > 10)
            else:
                wait.until(lambda d: d.execute_script("return document.getElementById('map').dataset.state === 'ready'"))
            time.sleep(0.8)  # let tiles of the basemap and cluster animations settle
            path = OUT / f"{scene}-{width}x{height}.png"
            driver.save_screenshot(str(path))
            print("wrote", path.relative_to(ROOT))
    languages(driver, base, wait)
    installed_offline(driver, base, wait)


def languages(driver, base, wait):
    """The list in Arabic on a phone (right to left) and the map in Hindi on a desktop: the
    language as a student would choose it on the login card (kept on the device)."""
    for tag, scene, (width, height) in (("ar", "list", SIZES[1]), ("hi", "map", SIZES[0])):
        driver.execute_script("localStorage.setItem('onthemap.language', arguments[0])", tag)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
        driver.get(f"{base}/#/{scene}")
        driver.refresh()
        wait.until(lambda d: d.execute_script("return document.documentElement.lang") == tag)
        if scene == "list":
            wait.until(lambda d: len(d.find_elements("css selector", "#student-list > li")) > 10)
        else:
            wait.until(lambda d: d.execute_script("return document.getElementById('map').dataset.state === 'ready'"))
        time.sleep(0.8)
        path = OUT / f"{scene}-{tag}-{width}x{height}.png"
        driver.save_screenshot(str(path))
        print("wrote", path.relative_to(ROOT))
    driver.execute_script("localStorage.removeItem('onthemap.language')")


def installed_offline(driver, base, wait):
    """The app as installed on a phone (display-mode standalone: no browser bar), opened
    with no connection on Lagos at zoom 9, from what its service worker kept."""
    width, height = SIZES[1]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "display-mode", "value": "standalone"}]})
    wait.until(lambda d: d.execute_script("return Boolean(navigator.serviceWorker.controller)"))
    wait.until(lambda d: d.execute_script("return caches.match('/places.json').then((r) => Boolean(r))"))
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    driver.get(f"{base}/#/map@6.55,3.35,9")
    driver.refresh()
    wait.until(lambda d: d.execute_script("return document.getElementById('map').dataset.state === 'ready'"))
    wait.until(lambda d: d.find_element("css selector", "#offline-banner").is_displayed())
    time.sleep(0.8)
    path = OUT / f"installed-offline-{width}x{height}.png"
    driver.save_screenshot(str(path))
    print("wrote", path.relative_to(ROOT))


if __name__ == "__main__":
    main()
