"""The map names people: initials on every pin, one named list for students too close to tell
apart at the zoom shown (separate pins close up), and place names never under a bubble or a pin.
English on a desktop window, Arabic on a phone-sized one."""
import uuid

import pytest

from a11y import axe_violations, blocking, describe
from conftest import PHONE, clean_page
from test_b_map_fit import class_request, fitted, post_in_class
from test_n_classes import administrator

# Five students in Lyon, about 600 m from each other (first, last, latitude, longitude, initials).
STUDENTS = [
    ("Jonas", "Weber", 45.760, 4.835, "JW"),
    ("lena", "Zimmer", 45.760, 4.843, "LZ"),
    ("Émile", "Roux", 45.760, 4.851, "ÉR"),
    ("سارة", "أحمد", 45.766, 4.835, "س\u200cأ"),
    ("Wei", "李", 45.766, 4.851, "W李"),
]

# Every place name drawn, and every marker it shares pixels with (there must be none).
COVERED_LABELS_JS = """
const labels = [...document.querySelectorAll('#map .place-label')].map((node) => [node.textContent, node.getBoundingClientRect()]);
const markers = [...document.querySelectorAll('#map .leaflet-marker-icon')].map((node) => node.getBoundingClientRect());
const covered = labels.filter(([, a]) => markers.some((b) => a.left < b.right && a.right > b.left && a.top < b.bottom && a.bottom > b.top))
  .map(([name]) => name);
return { labels: labels.length, markers: markers.length, covered };
"""


@pytest.fixture(scope="module")
def town(api):
    """A class (exact points) with five students a few hundred metres apart in one town."""
    slug = "town-" + uuid.uuid4().hex[:6]
    teacher = administrator(api)
    class_request(teacher, "POST", "/api/classes", {"slug": slug, "name": "Town class", "join": "open", "precision": "exact"})
    for first, last, latitude, longitude, _ in STUDENTS:
        student = api.create_user(first, last)
        class_request(student, "POST", f"/api/classes/{slug}/join", {})
        post_in_class(student, slug, "Lyon, France", latitude, longitude)
    return slug, teacher


def settle(page):
    """Waits for open popups to finish fading in: axe measures colours as they are drawn, and
    half-faded text is paler than the popup will be."""
    page.until(lambda d: page.js(
        "return [...document.querySelectorAll('.leaflet-popup')].every((p) => getComputedStyle(p).opacity === '1')"),
        5, "a popup did not finish fading in")


def zoom(page):
    return float(page.js("return document.getElementById('map').dataset.zoom"))


def labels_clear(page):
    """Waits until the place names are drawn after the markers; none under a marker."""
    drawn = """
        const map = document.getElementById('map').dataset;
        return map.placeLabelsZoom === map.zoom && Number(map.placeLabels || 0) > 0;
    """
    page.until(lambda d: page.js(drawn), 10, "no place names drawn for the zoom shown")
    result = page.js(COVERED_LABELS_JS)
    assert result["markers"] > 0 and result["covered"] == [], result


def zoom_in_to(page, target):
    while zoom(page) < target:
        before = zoom(page)
        page.find(".leaflet-control-zoom-in").click()
        page.until(lambda d: zoom(page) > before, 10, "the map did not zoom in")


def open_town(page, slug, teacher):
    page.log_in(teacher)
    page.open(f"/c/{slug}/")
    page.visible("#main-scene")
    fitted(page)
    page.until(lambda d: zoom(page) == 9, 10, "the class did not open on its town")


def test_a_town_opens_as_one_named_list_and_close_up_as_lettered_pins(page, api, town):
    slug, teacher = town
    open_town(page, slug, teacher)
    # At the town's zoom the five are one bubble, which covers no place name.
    bubble = page.visible("#map .cluster", 15)
    assert bubble.text == "5"
    assert page.find_all("#map .student-pin") == []
    labels_clear(page)
    bubble.click()
    page.visible(".popup-group")
    assert page.find(".popup-group .group-title").text == "Lyon, France · 5 students"
    names = [button.text for button in page.find_all(".popup-group .group-name")]
    assert sorted(names) == sorted(f"{first} {last}" for first, last, *_ in STUDENTS), names
    # A name opens that student's card; no fan of pins was drawn.
    page.find_all(".popup-group .group-name")[0].click()
    page.text_in(".popup-in-group .popup-name", names[0])
    assert page.find_all("#map .spider-leg") == []
    settle(page)
    violations = blocking(axe_violations(page.driver, "#map"))
    assert violations == [], describe(violations)

    # Close up (the last zoom) they stand apart: five pins, each with the student's initials.
    page.find(".popup-in-group .group-back").click()
    page.js("const close = document.querySelector('.leaflet-popup-close-button'); if (close) close.click();")
    zoom_in_to(page, 12)
    page.until(lambda d: len(page.find_all("#map .student-pin")) == 5, 10, "the students did not stand apart")
    assert page.find_all("#map .cluster") == []
    written = {pin.get_attribute("title"): pin.find_element("css selector", ".pin-initials").get_attribute("textContent")
               for pin in page.find_all("#map .student-pin")}
    assert written == {f"{first} {last}": letters for first, last, _, _, letters in STUDENTS}, written
    labels_clear(page)
    settle(page)
    violations = blocking(axe_violations(page.driver, "#map"))
    assert violations == [], describe(violations)
    page.screenshot("map-initials")


def test_in_arabic_on_a_phone_the_list_opens_and_initials_read_right_to_left(arabic_browser, server, api, town):
    slug, teacher = town
    page = clean_page(arabic_browser, server, api)
    page.viewport(PHONE)
    open_town(page, slug, teacher)
    bubble = page.visible("#map .cluster", 15)
    labels_clear(page)
    bubble.click()
    page.visible(".popup-group")
    assert len(page.find_all(".popup-group .group-name")) == 5
    arabic = next(button for button in page.find_all(".popup-group .group-name") if button.text == "سارة أحمد")
    arabic.click()
    page.text_in(".popup-in-group .popup-name", "سارة أحمد")
    page.find(".popup-in-group .group-back").click()
    page.js("const close = document.querySelector('.leaflet-popup-close-button'); if (close) close.click();")
    zoom_in_to(page, 12)
    page.until(lambda d: len(page.find_all("#map .student-pin")) == 5, 10, "the students did not stand apart")
    # Sara's initials: her first name's letter on the right, her last name's on the left.
    order = page.js("""
        const pin = document.querySelector('#map .student-pin[title="سارة أحمد"] .pin-initials');
        const text = pin.firstChild;
        const at = (i) => { const range = document.createRange(); range.setStart(text, i); range.setEnd(text, i + 1);
                            return range.getBoundingClientRect().left; };
        return { dir: pin.getAttribute('dir'), first: at(0), last: at(text.length - 1) };
    """)
    assert order["dir"] == "auto" and order["first"] > order["last"], order
    labels_clear(page)
    settle(page)
    violations = blocking(axe_violations(page.driver, "#map"))
    assert violations == [], describe(violations)


def test_a_teachers_pin_is_marked_and_named(page, api, town):
    # Runs last: the teacher's post joins the town class here.
    slug, teacher = town
    post_in_class(teacher, slug, "Villeurbanne, France", 45.7719, 4.8902)
    viewer = api.create_user("Noor", "Viewer")
    class_request(viewer, "POST", f"/api/classes/{slug}/join", {})
    page.log_in(viewer)
    page.open(f"/#/c/{slug}/map@45.7719,4.8902,12")
    pin = page.visible("#map .student-pin.teacher", 15)
    assert pin.get_attribute("title") == f"{teacher.first} {teacher.last} (teacher)"
    assert pin.find_element("css selector", ".pin-initials").get_attribute("textContent") == teacher.first[0] + teacher.last[0]
    # The students' pins carry no such mark.
    page.until(lambda d: len(page.find_all("#map .student-pin")) == 6, 10, "not every pin drawn")
    assert len(page.find_all("#map .student-pin.teacher")) == 1
    settle(page)
    violations = blocking(axe_violations(page.driver, "#map"))
    assert violations == [], describe(violations)
