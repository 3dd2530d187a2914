"""Who is near me, and what time it is for each classmate. In a class shown by town, the List
tab's "Near you" orders classmates by great-circle distance from the student's own pin, says
"same town" for a classmate of the same town and rounds the rest to whole 5 or 10 km (never a
finer figure than the class shows); each row, and the map card it opens, says the time where
that classmate is, from their town's time zone, on a clock the test fixes (Berlin is UTC+1 and
Tokyo UTC+9 in January). In English and Arabic (right to left), at desktop and phone size,
with no serious axe violation."""
import re

import pytest
from selenium.webdriver.common.by import By

from conftest import DESKTOP, PHONE
from helpers import PARSE_HEADERS, add_member
from languages import catalogue, fresh
from test_n_classes import administrator, axe_check, make_class, post_in_class, unique_slug

# 15 January 2026, 12:00 UTC: 13:00 in Berlin, 21:00 in Tokyo.
CLOCK_MS = 1768478400000
BERLIN_TIME, TOKYO_TIME = "2026-01-15T13:00", "2026-01-15T21:00"


@pytest.fixture(scope="module")
def town_class(api):
    """A class shown by town: me and a classmate in Berlin, one in Potsdam, one in Tokyo."""
    teacher = administrator(api)
    slug = unique_slug("near")
    make_class(teacher, slug, "Near Me", precision="city")
    people = {
        "me": (api.create_user("Mina", "Mitte"), "Alexanderplatz, Berlin", 52.5219, 13.4132),
        "berlin": (api.create_user("Bea", "Brandt"), "Torstrasse, Berlin", 52.5262, 13.4151),
        "potsdam": (api.create_user("Paul", "Potsdam"), "Potsdam", 52.3906, 13.0645),
        "tokyo": (api.create_user("Taro", "Tokyo"), "Shinjuku, Tokyo", 35.6938, 139.7034),
    }
    ids = {}
    for name, (user, place, latitude, longitude) in people.items():
        add_member(teacher, slug, user)
        ids[name] = post_in_class(user, slug, place, latitude, longitude)
    return {"slug": slug, "me": people["me"][0], "ids": ids}


def open_near_me(page, slug):
    """The class's List tab on the fixed clock, once "Near you" is drawn."""
    page.js("window.onthemapTestClock = arguments[0]", CLOCK_MS)
    page.js("location.hash = arguments[0]", f"#/c/{slug}/list")
    page.visible("#list-view")
    page.until(lambda d: len(page.find_all("#near-me-list > li")) == 3, 20, "Near you never listed the three classmates")


def rows(page):
    return page.js("""
        return [...document.querySelectorAll('#near-me-list > li')].map((li) => ({
          id: li.dataset.objectId, km: Number(li.dataset.km),
          distance: li.querySelector('.near-distance').textContent,
          time: li.querySelector('.near-time') && li.querySelector('.near-time').textContent,
          datetime: li.querySelector('.near-time') && li.querySelector('.near-time').getAttribute('datetime'),
        }));""")


def test_near_me_orders_classmates_by_distance_in_the_class_precision(page, api, town_class):
    ids = town_class["ids"]
    page.log_in(town_class["me"])
    open_near_me(page, town_class["slug"])
    found = rows(page)
    assert [row["id"] for row in found] == [ids["berlin"], ids["potsdam"], ids["tokyo"]]
    assert [row["km"] for row in found] == sorted(row["km"] for row in found)
    assert found[0]["distance"] == "same town", "a town class puts Berlin's students on one point"
    for row in found[1:]:
        match = re.fullmatch(r"about ([\d,]+) km", row["distance"])
        assert match, row["distance"]
        figure = int(match.group(1).replace(",", ""))
        assert figure % 5 == 0 and figure > 0, f"finer than the class shows: {row['distance']}"
        assert abs(figure - row["km"]) <= 5, row
    # The time where each is, from their town's zone, on the test's clock.
    assert [row["datetime"] for row in found] == [BERLIN_TIME, BERLIN_TIME, TOKYO_TIME]
    assert re.fullmatch(r"9:00\s?PM there", found[2]["time"]), found[2]["time"]
    assert re.fullmatch(r"1:00\s?PM there", found[0]["time"]), found[0]["time"]
    # The everyone list's rows say it too (from the same snapshot).
    page.until(lambda d: page.js(
        "const t = document.querySelector(`#student-list li[data-object-id='${arguments[0]}'] .row-local-time`);"
        "return t && t.getAttribute('datetime')", ids["tokyo"]) == TOKYO_TIME, 10, "the list row has no local time")

    found_axe = []
    axe_check(page, "near you", found_axe)
    assert not found_axe, "axe found serious or critical violations:\n" + "\n".join(found_axe)

    # On a phone the rows fit the screen.
    page.viewport(PHONE)
    for element in page.find_all("#near-me-list .near-show"):
        box = page.js("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right];", element)
        assert box[0] >= 0 and box[1] <= PHONE[0] + 1, box
    page.screenshot("near-me", sizes=(PHONE, DESKTOP))
    page.viewport(DESKTOP)

    # From the keyboard: Tokyo's row opens the map on Taro, whose card says the time there.
    tokyo = page.find(f"#near-me-list > li[data-object-id='{ids['tokyo']}'] .near-show")
    page.js("arguments[0].focus()", tokyo)
    page.js("document.activeElement.click()")
    page.visible("#map-view")
    page.until(lambda d: page.js(
        "const t = document.querySelector('.leaflet-popup .popup-time'); return t && t.getAttribute('datetime')") == TOKYO_TIME,
        10, "Taro's card says no local time")
    assert re.fullmatch(r"9:00\s?PM there", page.find(".leaflet-popup .popup-time").text)

    # A classmate who posts while the list is open: their row says the time there at once (the
    # live change carries the place's zone), São Paulo's being UTC-3 in January.
    page.js("location.hash = arguments[0]", f"#/c/{town_class['slug']}/list")
    page.visible("#list-view")
    newcomer = api.create_user("Sofia", "Sampa")
    add_member(administrator(api), town_class["slug"], newcomer)
    new_id = post_in_class(newcomer, town_class["slug"], "São Paulo", -23.5505, -46.6333)
    try:
        page.until(lambda d: page.js(
            "const t = document.querySelector(`#near-me-list > li[data-object-id='${arguments[0]}'] .near-time`);"
            "return t && t.getAttribute('datetime')", new_id) == "2026-01-15T09:00", 20,
            "a classmate's live post had no local time until a reload")
    finally:
        # The module's other test expects the three first classmates.
        newcomer.api.request("DELETE", f"/c/{town_class['slug']}/parse/classes/StudentLocation/{new_id}",
                             headers={**PARSE_HEADERS, "X-Parse-Session-Token": newcomer.session})


def test_near_me_in_arabic_right_to_left(arabic_browser, server, api, town_class):
    ids = town_class["ids"]
    words = catalogue("ar")
    page = fresh(arabic_browser, server, api)
    page.log_in(town_class["me"])
    for size in (DESKTOP, PHONE):
        page.viewport(size)
        open_near_me(page, town_class["slug"])
        assert page.find("#near-me-title").text == words["nearMe.title"]
        found = rows(page)
        assert [row["id"] for row in found] == [ids["berlin"], ids["potsdam"], ids["tokyo"]]
        assert found[0]["distance"] == words["nearMe.sameTown"]
        assert [row["datetime"] for row in found] == [BERLIN_TIME, BERLIN_TIME, TOKYO_TIME]
        expected = page.js("""return arguments[1].replace('{time}', new Intl.DateTimeFormat('ar',
            { hour: 'numeric', minute: '2-digit', timeZone: 'Asia/Tokyo' }).format(arguments[0]))""",
                           CLOCK_MS, words["time.there"])
        assert found[2]["time"] == expected
        # Right to left: the name on the right, the distance and time on the left.
        boxes = page.js("""
            const li = document.querySelector('#near-me-list > li:last-child');
            const box = (css) => li.querySelector(css).getBoundingClientRect();
            return [box('.near-name').right, box('.near-facts').left, box('.near-facts').right, box('.near-name').left];""")
        assert boxes[0] > boxes[2], f"in Arabic the name is right of the facts: {boxes}"
    found_axe = []
    axe_check(page, "near you in Arabic", found_axe)
    assert not found_axe, "axe found serious or critical violations:\n" + "\n".join(found_axe)
    page.screenshot("near-me-ar", sizes=(PHONE, DESKTOP))
    page.viewport(DESKTOP)
