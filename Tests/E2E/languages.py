"""What the language tests share: the web app's catalogues and a clean page in a browser of
a given language (conftest.py has one browser per language and test file: spanish_browser,
arabic_browser, german_browser)."""
import json
from pathlib import Path

from conftest import Page

LOCALES = Path(__file__).resolve().parents[2] / "Sources" / "WebApp" / "Public" / "locales"


def catalogue(tag):
    """The web app's messages in `tag` (locales/<tag>.json)."""
    with open(LOCALES / f"{tag}.json", encoding="utf-8") as handle:
        return json.load(handle)


def fresh(driver, server, api):
    """As conftest's `page` fixture, in a browser of its own: no cookies, nothing stored,
    online, the browser's log emptied."""
    page = Page(driver, server, api)
    page.offline(False)
    driver.get(server + "/health")
    driver.delete_all_cookies()
    driver.execute_script("localStorage.clear(); sessionStorage.clear();")
    driver.get_log("browser")
    return page
