"""What the language tests share: the web app's catalogues and a clean page in a browser of
a given language (conftest.py has one browser per language and test file: spanish_browser,
arabic_browser, german_browser)."""
import json
from pathlib import Path

from conftest import Page

PUBLIC = Path(__file__).resolve().parents[2] / "Sources" / "WebApp" / "Public"
LOCALES = PUBLIC / "locales"
# The app's languages, its one list of them (languages.json): [{"tag", "name", "dir", "plurals"}].
with open(PUBLIC / "languages.json", encoding="utf-8") as _handle:
    LANGUAGES = json.load(_handle)
TAGS = [language["tag"] for language in LANGUAGES]
# Every language but English, the fallback.
OTHER_TAGS = [tag for tag in TAGS if tag != "en"]
# CLDR's plural categories of each language ({"ar": {"zero", …}}), as Intl.PluralRules has them.
PLURAL_CATEGORIES = {language["tag"]: set(language["plurals"]) for language in LANGUAGES}


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


def shown_texts(page, scopes):
    """What the page shows for its data-i18n attributes under a CSS selector (or a list of
    them): {"texts": {key: text}, "attributes": [[key, value], …]}."""
    return page.js("""
        const texts = {}, attributes = [];
        for (const scope of arguments[0].map((css) => document.querySelector(css))) {
          for (const element of scope.querySelectorAll('[data-i18n]')) texts[element.dataset.i18n] = element.textContent;
          for (const element of scope.querySelectorAll('[data-i18n-attr]')) {
            for (const pair of element.dataset.i18nAttr.split(';')) {
              const [name, key] = pair.split(':');
              attributes.push([key, element.getAttribute(name)]);
            }
          }
        }
        return { texts, attributes };
    """, [scopes] if isinstance(scopes, str) else list(scopes))
