"""Languages on the Travel tab and its albums: the map, its help and status line, the pins'
names, a dropped pin's announcement, an album's bar, progress, hint, button, credits and
delete confirmation in Spanish (then German and French by the page's own choice) and in
Arabic (right to left, its plural forms and digits); a failed album explained in the
language, again after the language changes. Texts are compared with the catalogues."""
import os
import re

import pytest
from selenium.webdriver.common.keys import Keys

from languages import catalogue, fresh
from conftest import make_driver

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                                reason="Travel tests need the server started here, pointed at the photo stub")

PHOTOS = 21  # the server's default album size (test_f_travel.py)
PROVIDER = "Wikimedia Commons"


def option(message, selector):
    """The text of one plural option (`other`, `many`, …) of a message's first plural."""
    start = message.index(f" {selector} {{") + len(selector) + 3
    depth, end = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(message[end], 0)
        end += 1
    return message[start:end - 1]


def fill(message, **params):
    for name, value in params.items():
        message = message.replace("{" + name + "}", str(value))
    return message


def travel_ready(page):
    page.tab("travel")
    page.until(lambda d: d.execute_script(
        "return document.getElementById('travel-map').dataset.state === 'ready'"), 15, "the travel map never became ready")


def settled_album(page, pin_id):
    page.find(f'.travel-pin[data-pin-id="{pin_id}"]').click()
    page.until(lambda d: d.execute_script(
        "const a = document.getElementById('album');"
        "return !a.hidden && a.dataset.pinId === arguments[0] && a.dataset.settled === 'true' && a.dataset.state === 'ready'",
        pin_id), 20, "the album never settled")


def in_page(page, key, params=None):
    """The message as the page formats it now (its language, its numbers)."""
    return page.js("return import('/js/i18n.js').then((m) => m.t(arguments[0], arguments[1] || undefined))", key, params)


def set_language(page, tag):
    page.js("return import('/js/i18n.js').then((m) => m.setLanguage(arguments[0]))", tag)
    page.until(lambda d: d.execute_script("return document.documentElement.lang") == tag, 5, f"the page never became {tag}")


def number(page, tag, value):
    return page.js("return new Intl.NumberFormat(arguments[0]).format(arguments[1])", tag, value)


def album_texts(page):
    return page.js("""
        const text = (id) => document.getElementById(id).textContent;
        const close = document.getElementById('album-close'), del = document.getElementById('album-delete-pin');
        const photo = document.querySelector('#album-grid .photo .photo-button');
        return {
          progress: text('album-progress'), hint: text('album-hint'),
          button: document.querySelector('#album-new .button-label').textContent,
          credits: text('album-credits-title'),
          details: document.querySelector('#album-credits-list .credit-details').textContent,
          close: [close.getAttribute('aria-label'), close.title], delete: [del.getAttribute('aria-label'), del.title],
          grid: document.getElementById('album-grid').getAttribute('aria-label'),
          photo: photo.getAttribute('aria-label'),
          status: text('travel-status'), help: text('travel-help'),
          map: document.getElementById('travel-map').getAttribute('aria-label'),
        };
    """)


def assert_album_in(page, tag, pins):
    messages = catalogue(tag)
    texts = album_texts(page)
    assert texts["close"] == [messages["album.back"]] * 2
    assert texts["delete"] == [messages["album.deletePin"]] * 2
    assert texts["grid"] == messages["album.photos"]
    assert texts["hint"] == messages["album.hint.remove"]
    assert texts["button"] == messages["album.new.label"]
    assert texts["credits"] == fill(messages["album.credits.titleProvider"], provider=PROVIDER)
    by = messages["album.photo.by"].split("{author}")
    assert texts["details"].startswith(by[0]) and by[1].split(" ")[0] in texts["details"], texts["details"]
    assert texts["photo"].startswith(messages["album.photo.removeLabel"].split("{title}")[0])
    assert texts["help"] == messages["travel.help"]
    assert texts["map"] == messages["travel.mapLabel"]
    assert texts["progress"] == in_page(page, "album.progress.ready", {"ready": PHOTOS})
    assert number(page, tag, PHOTOS) in texts["progress"]
    assert texts["status"] == in_page(page, "travel.status.count", {"count": pins})
    label = page.find(".travel-pin[data-pin-id]:not([data-pin-id=''])").get_attribute("aria-label")
    before, after = messages["travel.pin.openAlbum"].split("{place}")
    assert label.startswith(before) and label.endswith(after) and len(label) > len(before + after), label
    return texts


@pytest.fixture(scope="module")
def spanish(server, api, photo_stub):
    driver = make_driver(lang="es")
    photo_stub.reset()
    page = fresh(driver, server, api)
    user = api.create_user("Viaje", "Ro")
    paris = user.create_pin(48.8566, 2.3522)
    tokyo = user.create_pin(35.68, 139.69)
    page.log_in(user)
    travel_ready(page)
    page.user, page.paris, page.tokyo = user, paris, tokyo
    yield page
    driver.quit()


@pytest.fixture(scope="module")
def arabic(server, api, photo_stub):
    driver = make_driver(lang="ar,en")
    page = fresh(driver, server, api)
    user = api.create_user("Rahhala", "Ar")
    user.create_pin(30.04, 31.24)
    user.create_pin(24.71, 46.68)
    page.log_in(user)
    travel_ready(page)
    page.user = user
    yield page
    driver.quit()


def test_spanish_travel_tab_and_album(spanish):
    page, es = spanish, catalogue("es")
    assert page.js("return document.documentElement.lang") == "es"
    page.until(lambda d: page.find("#travel-status").text.strip() != "", 10, "no status line")
    status = page.find("#travel-status").text
    assert status == option(es["travel.status.count"], "other").replace("#", "2") + " " + es["travel.status.count"].split("}} ", 1)[1]

    settled_album(page, page.paris["id"])
    texts = assert_album_in(page, "es", pins=2)
    assert texts["progress"] == option(es["album.progress.ready"], "other").replace("#", str(PHOTOS))
    assert page.js("return document.getElementById('album-title').dir") == "auto"

    # The delete confirmation: one message with its plural, the buttons in Spanish.
    page.find("#album-delete-pin").click()
    title, message = page.alert()
    assert title == es["album.delete.title"]
    place = page.find("#album-title").text
    assert message == fill(option(es["album.delete.message"], "other"), place=place).replace("#", str(PHOTOS))
    assert page.find("#alert-ok").text == es["album.delete.confirm"]
    assert page.find("#alert-cancel").text == es["common.cancel"]
    page.dismiss_alert("#alert-cancel")


def test_switching_language_retranslates_the_album(spanish):
    page = spanish
    if page.find("#album").get_attribute("hidden") is not None:
        settled_album(page, page.paris["id"])
    for tag in ("de", "fr"):
        set_language(page, tag)
        page.until(lambda d: page.find("#album-hint").text == catalogue(tag)["album.hint.remove"], 5,
                   f"the album hint stayed untranslated in {tag}")
        assert_album_in(page, tag, pins=2)
    german = catalogue("de")
    set_language(page, "de")
    assert page.find("#album-progress").text == option(german["album.progress.ready"], "other").replace("#", str(PHOTOS))
    assert page.find("#travel-status").text.startswith("2 Pins")
    set_language(page, "es")
    page.find("#album-close").click()
    page.gone("#album")
    assert not [entry for entry in page.driver.get_log("browser") if "i18n:" in entry["message"]]


def test_spanish_pin_drop_is_announced(spanish):
    page, es = spanish, catalogue("es")
    page.js("document.getElementById('travel-map').focus()")
    page.find("#travel-map").send_keys(Keys.ENTER)
    page.until(lambda d: len(page.user.pins()) == 3, 10, "Enter on the map dropped no pin")
    prefix = es["travel.toast.dropped"].split("{place}")[0]
    page.until(lambda d: page.find("#travel-toast").text.startswith(prefix), 10, "the drop was not announced in Spanish")
    assert page.find("#travel-toast").text.endswith(es["travel.toast.dropped"].split("{place}")[1])
    page.until(lambda d: page.find("#travel-status").text == in_page(page, "travel.status.count", {"count": 3}), 5,
               "the status line missed the new pin")


def test_a_failed_album_is_explained_in_the_language(spanish):
    page, es, fr = spanish, catalogue("es"), catalogue("fr")
    page.fake_server_error("/photos", status=500)
    page.find(f'.travel-pin[data-pin-id="{page.tokyo["id"]}"]').click()
    page.until(lambda d: page.find("#album-empty-title").text == es["album.empty.loadFailed"], 10, "no failure shown")
    text = page.find("#album-empty-text").text
    assert es["album.failure.loading"] in text and text.startswith(es["failure.server.message"].split("{what}")[0])
    assert page.find("#album-progress").text == es["album.progress.failed"]
    set_language(page, "fr")
    page.until(lambda d: page.find("#album-empty-title").text == fr["album.empty.loadFailed"], 5, "the failure stayed Spanish")
    assert fr["album.failure.loading"] in page.find("#album-empty-text").text
    set_language(page, "es")
    page.js("window.fetch = window.__realFetch")
    page.find("#album-close").click()
    page.gone("#album")


def test_arabic_travel_tab_and_album(arabic):
    page, ar = arabic, catalogue("ar")
    assert page.js("return [document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
    # Two pins: Arabic's dual.
    page.until(lambda d: page.find("#travel-status").text.startswith(option(ar["travel.status.count"], "two")), 10,
               "the status line is not in Arabic's dual")
    assert page.find("#travel-map").get_attribute("aria-label") == ar["travel.mapLabel"]
    pin_id = page.user.pins()[0]["id"]
    settled_album(page, pin_id)
    texts = assert_album_in(page, "ar", pins=2)
    # 21 is Arabic's "many", written in the language's digits.
    assert texts["progress"] == option(ar["album.progress.ready"], "many").replace("#", number(page, "ar", PHOTOS))
    assert not re.search(r"[A-Za-z]{3,}", texts["progress"] + texts["hint"] + texts["button"])
    page.find("#album-delete-pin").click()
    title, message = page.alert()
    assert title == ar["album.delete.title"]
    assert number(page, "ar", PHOTOS) in message and option(ar["album.delete.message"], "many").split("{place}")[0] in message
    page.dismiss_alert("#alert-cancel")
    assert not [entry for entry in page.driver.get_log("browser") if "i18n:" in entry["message"]]
