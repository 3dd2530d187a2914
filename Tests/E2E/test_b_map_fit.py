"""A class's map opens fitted to its students, and the Fit button brings them back."""
import uuid

from helpers import PARSE_HEADERS, User
from test_n_classes import administrator


def class_request(user, method, path, body=None):
    _, answer = user.api.request(method, path, body, headers={"X-Parse-Session-Token": user.session})
    return answer


def post_in_class(user, slug, place, latitude, longitude):
    body = {"uniqueKey": user.key, "firstName": user.first, "lastName": user.last, "mapString": place,
            "mediaURL": "", "latitude": latitude, "longitude": longitude}
    user.api.request("POST", f"/c/{slug}/parse/classes/StudentLocation", body,
                     headers={**PARSE_HEADERS, "X-Parse-Session-Token": user.session})


def fitted(page):
    page.until(lambda d: page.js("return document.getElementById('map').dataset.fitted || ''"), 15, "the map never fitted")
    return page.js("return document.getElementById('map').dataset.fitted")


def test_a_class_in_two_continents_opens_fitted_to_both(page, api):
    slug = "fit-" + uuid.uuid4().hex[:6]
    teacher = administrator(api)
    class_request(teacher, "POST", "/api/classes", {"slug": slug, "name": "Fit class", "join": "open"})
    berlin = api.create_user("Jonas", "Berlin")
    tokyo = api.create_user("Aiko", "Tokyo")
    for student in (berlin, tokyo):
        class_request(student, "POST", f"/api/classes/{slug}/join", {})
    post_in_class(berlin, slug, "Berlin, Germany", 52.52, 13.40)
    post_in_class(tokyo, slug, "Tokyo, Japan", 35.68, 139.69)

    page.log_in(teacher)
    page.open(f"/c/{slug}/")
    page.visible("#main-scene")
    assert not page.find("#map-empty").is_displayed()
    # The class shows towns (its precision), so the box is around Berlin's and Tokyo's points.
    box = [float(x) for x in fitted(page).split(",")]
    assert all(abs(a - b) < 0.5 for a, b in zip(box, (35.68, 13.40, 52.52, 139.69))), box
    # Both students' pins are drawn inside the map's box.
    inside = """
        const box = document.getElementById('map').getBoundingClientRect();
        return [...document.querySelectorAll('#map .leaflet-marker-icon[title]')]
          .filter((pin) => { const r = pin.getBoundingClientRect();
                             return r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom; })
          .map((pin) => pin.title);
    """
    page.until(lambda d: {"Jonas Berlin", "Aiko Tokyo"} <= set(page.js(inside)), 10, "a student is out of view")

    # Wander off, then the Fit button brings both back.
    page.js("document.getElementById('map').dataset.fitted = ''")
    page.find("#map-fit").click()
    assert [float(x) for x in fitted(page).split(",")] == box
    assert page.find("#map-fit").get_attribute("aria-label") == "Show every student"


def test_an_empty_class_shows_the_world(page, api):
    slug = "empty-" + uuid.uuid4().hex[:6]
    teacher = administrator(api)
    class_request(teacher, "POST", "/api/classes", {"slug": slug, "name": "Empty class"})
    page.log_in(teacher)
    page.open(f"/c/{slug}/")
    page.visible("#main-scene")
    assert fitted(page) == "world"
    # Nobody here yet: the map invites the teacher to be the first, and the button opens the sheet.
    page.visible("#map-empty")
    assert page.find("#map-empty-text").text == "Nobody is on this map yet."
    page.clickable("#map-empty-add").click()
    page.visible("#add-location")


def test_students_at_one_place_open_as_a_named_list(page, api):
    slug = "group-" + uuid.uuid4().hex[:6]
    teacher = administrator(api)
    class_request(teacher, "POST", "/api/classes", {"slug": slug, "name": "Group class", "join": "open"})
    names = []
    for first in ("Jonas", "Lena", "Mia", "Paul", "Sara"):
        student = api.create_user(first, "Weber")
        class_request(student, "POST", f"/api/classes/{slug}/join", {})
        post_in_class(student, slug, "Berlin, Germany", 52.52, 13.40)
        names.append(student.name)

    page.log_in(teacher)
    page.open(f"/c/{slug}/")
    page.visible("#main-scene")
    fitted(page)
    cluster = page.visible("#map .cluster", 15)
    cluster.click()
    page.visible(".popup-group")
    title = page.find(".popup-group .group-title").text
    assert "Berlin" in title and "5 students" in title, title
    listed = [button.text for button in page.find_all(".popup-group .group-name")]
    assert listed == sorted(names), listed
    # The focus is in the list; a name opens that student's card, which leads back.
    assert page.js("return document.activeElement.className") == "group-name"
    page.find_all(".popup-group .group-name")[1].click()
    page.text_in(".popup-in-group .popup-name", sorted(names)[1])
    assert page.find(".popup-in-group .group-back").text == "All 5 students here"
    page.find(".popup-in-group .group-back").click()
    page.visible(".popup-group")
    # No fan of identical pins was drawn.
    assert page.find_all("#map .spider-leg") == []
