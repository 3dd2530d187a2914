"""The offline basemap is worth dropping a pin on: as the map zooms in, region and city
names from the bundled gazetteer appear, the largest first, without tiles, network or server."""
import os

import pytest

from conftest import ServerProcess
from helpers import Api
from languages import fresh

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")), reason="stops a server of its own")


def labels(page):
    return page.js("return Array.from(document.querySelectorAll('#map .place-label')).map((l) => l.textContent)")


def test_a_named_city_is_visible_at_zoom_10_offline(page, photo_stub):
    own = ServerProcess(photo_stub, log_name="e2e-server-basemap.log")
    try:
        page.base = own.base
        check_labels(page, own, Api(own.base).create_user("Base", "Map"))
    finally:
        page.offline(False)
        own.stop()


def check_labels(page, own, user):
    page.log_in(user)
    page.until(lambda d: d.execute_script("return Boolean(navigator.serviceWorker.controller)"), 20,
               "the service worker never took control")
    page.until(lambda d: d.execute_script(
        "return caches.match('/places.json').then((r) => Boolean(r))"), 20, "the place names were not kept")
    # The whole world: no city names crowd it.
    assert labels(page) == []

    # No network (the browser's emulation) and no server (stopped).
    page.offline(True)
    own.stop()
    # Ibadan: a city of millions with no student of the demo on it (a city's pins would hide its
    # name, as they hide Lagos's).
    page.open("/#/map@7.378,3.906,10")
    page.driver.refresh()
    page.visible("#main-scene", 20)
    page.map_ready()
    page.until(lambda d: d.execute_script("return document.getElementById('map').dataset.zoom") == "10", 10)
    page.until(lambda d: "Ibadan" in labels(page), 10, "Ibadan is not named on the offline map at zoom 10")
    label = page.find_all("#map .place-label")[labels(page).index("Ibadan")]
    assert label.is_displayed()
    box, map_box = label.rect, page.find("#map").rect
    assert abs(box["x"] + box["width"] / 2 - (map_box["x"] + map_box["width"] / 2)) < 40
    assert len(labels(page)) >= 3, labels(page)
    assert page.find("#offline-banner").is_displayed()
    page.screenshot("offline-basemap-zoom-10")

    # Zoomed out to a country, regions and only the largest cities are named.
    page.open("/#/map@9.0,8.0,6")
    page.until(lambda d: d.execute_script("return document.getElementById('map').dataset.zoom") == "6", 10)
    page.until(lambda d: "Ibadan" in labels(page) and "Kano" in labels(page), 10, labels(page))
    assert page.js("return document.querySelectorAll('#map .place-region').length") > 0


def test_a_city_is_named_in_the_readers_language(german_browser, server, api):
    """Wien for a German reader, 维也纳 once the page is Chinese, Vienna in English: the label
    follows the page's language without a reload; a city German does not name its own way
    (Bratislava, next to it) keeps the gazetteer's name."""
    page = fresh(german_browser, server, api)
    page.log_in(api.create_user("Karte", "Namen"))
    page.open("/#/map@48.15,16.8,8")
    page.map_ready()
    page.until(lambda d: d.execute_script("return document.getElementById('map').dataset.placeLabelsZoom") == "8", 10)
    page.until(lambda d: "Wien" in labels(page), 10, f"Vienna is not Wien on a German map: {labels(page)}")
    assert "Vienna" not in labels(page)
    assert "Bratislava" in labels(page), labels(page)
    page.screenshot("basemap-names-de", sizes=((1280, 800),))
    for tag, name in (("zh-Hans", "维也纳"), ("en", "Vienna")):
        page.js("return import('/js/i18n.js').then((i18n) => i18n.setLanguage(arguments[0]))", tag)
        page.until(lambda d: name in labels(page), 10, f"the label did not become {name} in {tag}: {labels(page)}")
        assert "Wien" not in labels(page)
