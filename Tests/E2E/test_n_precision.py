"""Location precision per class in the browser. The administrator creates a class (Town is
preselected); a student joins by its invite link and types a small place near a bigger town:
the preview says "You will appear at <the town>" with its pin on the town, the list shows the
town, and the class's Parse list holds the town's name and point, never what was typed. A
place with no town near it is refused before anything is posted. Choosing a coarser level on
the settings page asks first, then moves everyone; the control passes axe and works from the
keyboard. In an `exact` class (the default one) the preview says nothing of the kind."""
import json

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import Page, make_driver
from helpers import PARSE_HEADERS
from test_e_add_location import FAKE_GEOCODE, fill, geocoder_available, open_sheet
from test_i_keyboard import focus_is_visible, focused, press, tab_to
from test_n_classes import administrator, as_teacher, axe_check, class_locations, unique_slug

# Rochester, Illinois (about 3,000 people) lies 12 km from Springfield, the nearest town of
# 15,000 or more, where a Town class shows its students.
TYPED = "Rochester, Illinois"
TYPED_POINT = (39.749, -89.532)
TOWN = "Springfield, Illinois, United States"
TOWN_POINT = (39.802, -89.644)
REGION = "Illinois, United States"


def near(point, other, tolerance=0.01):
    return abs(point[0] - other[0]) < tolerance and abs(point[1] - other[1]) < tolerance


def checked_precision(page, fieldset):
    return page.js("const c = document.querySelector(arguments[0] + ' input:checked'); return c && c.value", fieldset)


def class_view(teacher, slug):
    return as_teacher(teacher, "GET", f"/api/classes/{slug}")


def test_a_town_class_shows_students_at_their_town(page, api, server):
    if not geocoder_available(page):
        pytest.skip("this server has no geocoder")
    teacher = administrator(api)
    slug = unique_slug("town")
    found = []

    # Create the class from the Classes sheet: "Where students appear" starts on Town.
    page.log_in(teacher)
    page.clickable("#class-button").click()
    page.clickable("#create-class-link").click()
    page.visible("#create-view")
    assert checked_precision(page, "#create-precision") == "city", "a new class shows students by town"
    legend = page.find("#create-precision legend").text
    assert legend == "Where students appear"
    labels = [label.text.split("\n")[0] for label in page.find_all("#create-precision .choice")]
    assert labels == ["Exact point", "Town", "Region", "Country"]
    page.type_into("#create-name", "Field Trips")
    page.type_into("#create-slug", slug)
    page.find("#create-button").click()
    page.visible("#settings-view")
    page.text_in("#settings-title", "Field Trips")
    assert class_view(teacher, slug)["precision"] == "city"
    page.visible("#class-precision")
    assert checked_precision(page, "#class-precision") == "city"
    assert "nearest town" in page.find("#settings-intro").text
    axe_check(page, "class settings with where students appear", found)
    assert not found, "axe found serious or critical violations:\n" + "\n".join(found)
    page.find("#class-precision").location_once_scrolled_into_view
    page.screenshot("class-precision")
    link = page.find("#invite-link").get_attribute("value")

    # A student joins by the invite link in a browser of their own.
    student = api.create_user("Rosa", "Reyes")
    second = make_driver()
    try:
        student_page = Page(second, server, api)
        student_page.log_in(student)
        second.get(link)
        student_page.clickable("#join-button").click()
        student_page.until(lambda d: d.current_url.endswith(f"#/c/{slug}/map"), 10, "joining did not open the class map")
        student_page.map_ready()

        # The preview names the town, and its pin is on the town, not on what was typed.
        open_sheet(student_page)
        fill(student_page, TYPED, "https://example.com/rosa")
        student_page.find("#add-find").click()
        student_page.visible("#add-preview", 15)
        assert "Rochester" in student_page.find("#preview-name").text
        student_page.text_in("#preview-placement", f"You will appear at {TOWN}.")
        status = student_page.find("#preview-placement")
        assert status.get_attribute("role") == "status", "screen readers hear where the student will appear"
        center = tuple(map(float, student_page.find("#preview-map").get_attribute("data-center").split(",")))
        assert near(center, TOWN_POINT), f"the preview's pin is at {center}, not on {TOWN}"
        assert not near(center, TYPED_POINT, 0.05)
        assert TOWN in student_page.find("#preview-map").get_attribute("aria-label")
        assert focused(student_page).get_attribute("id") == "add-finish"
        student_page.screenshot("add-location-placed")
        student_page.find("#add-finish").click()
        student_page.gone("#add-location")

        # The list shows the town; so does the class's Parse list, with the town's point.
        student_page.tab("list")
        student_page.until(lambda d: any(row.find_element(By.CSS_SELECTOR, ".row-place").text == TOWN
                                         for row in student_page.list_rows()), 10, "the list does not show the town")
        mine = [item for item in class_locations(student, slug) if item["uniqueKey"] == student.key]
        assert len(mine) == 1
        assert mine[0]["mapString"] == TOWN, f"the class keeps {mine[0]['mapString']!r}"
        assert near((mine[0]["latitude"], mine[0]["longitude"]), TOWN_POINT)
        assert "Rochester" not in json.dumps(mine[0])

        # Another of the places found (a "Not it? Try" chip) is placed too before it shows.
        student_page.tab("map")
        student_page.fake_server_error("/api/geocode", status=200, body=json.dumps(FAKE_GEOCODE))
        open_sheet(student_page, expect_confirm=True)
        fill(student_page, "Lagos", "https://example.com/rosa-2")
        student_page.find("#add-find").click()
        student_page.text_in("#preview-placement", "You will appear at Lagos, Nigeria.")
        student_page.find("#preview-alternatives .chip").click()
        student_page.text_in("#preview-placement", "You will appear at Lagos, Faro, Portugal.")
        student_page.text_in("#preview-detail", "Portugal")
        center = tuple(map(float, student_page.find("#preview-map").get_attribute("data-center").split(",")))
        assert near(center, (37.102, -8.674))
        student_page.find("#add-cancel").click()
        student_page.gone("#add-location")

        # No town near the place: said, and nothing is posted.
        student_page.js("window.fetch = window.__realFetch")
        student_page.fake_server_error("/api/locations/placement", status=422, body=json.dumps({"error": {
            "code": "no_place_nearby",
            "message": "This class shows where students are by the nearest town, and there is none near this point: choose a place on land."}}))
        open_sheet(student_page, expect_confirm=True)
        fill(student_page, "Nairobi, Kenya", "https://example.com/rosa-2")
        student_page.find("#add-find").click()
        title, message = student_page.alert(15)
        assert title == "No Town Nearby" and "choose a place on land" in message
        student_page.dismiss_alert()
        assert student_page.find("#add-form").is_displayed(), "the form stays, with what was typed"
        assert student_page.find("#add-place").get_attribute("value") == "Nairobi, Kenya"
        student_page.find("#add-cancel").click()
        student_page.gone("#add-location")
        again = [item for item in class_locations(student, slug) if item["uniqueKey"] == student.key]
        assert again == mine, "nothing was posted"
    finally:
        second.quit()

    # A coarser level asks first; cancelled, nothing changes. From the keyboard: the arrow keys
    # choose Region, Enter on Save.
    page.open(f"/#/c/{slug}/settings")
    page.visible("#class-form")
    page.until(lambda d: checked_precision(page, "#class-precision") == "city", 10)
    tab_to(page, "#class-precision input:checked")
    press(page, Keys.ARROW_DOWN)
    assert focused(page).get_attribute("value") == "region" and focus_is_visible(page)
    assert checked_precision(page, "#class-precision") == "region"
    tab_to(page, "#class-save")
    press(page, Keys.ENTER)
    title, message = page.alert()
    assert title == "Show Students by Region?"
    assert message == "Everyone already on this map moves to their region. This cannot be undone."
    page.dismiss_alert("#alert-cancel")
    assert class_view(teacher, slug)["precision"] == "city"
    assert class_locations(student, slug)[0]["mapString"] == TOWN

    page.find("#class-save").click()
    page.alert()
    page.dismiss_alert("#alert-ok")
    page.text_in("#class-form-done", "Everyone on this map has moved to their region")
    assert class_view(teacher, slug)["precision"] == "region"
    assert class_locations(student, slug)[0]["mapString"] == REGION
    assert "region" in page.find("#settings-intro").text

    # A finer level is no move: saved without asking.
    page.find("#class-precision input[value='city']").click()
    page.find("#class-save").click()
    page.text_in("#class-form-done", "Saved.")
    assert not page.find("#alert").is_displayed()
    assert class_view(teacher, slug)["precision"] == "city"
    assert class_locations(student, slug)[0]["mapString"] == REGION, "a finer level cannot bring the town back"

    # The Classes sheet names each class's level.
    page.find("#class-back").click()
    page.visible("#main-scene")
    page.clickable("#class-button").click()
    page.visible("#classes")
    page.until(lambda d: "By town" in page.find(f'#my-classes a.class-row[data-slug="{slug}"] .class-row-role').text, 10)
    # The sheet may be drawn again meanwhile: read the row afresh each time.
    page.until(lambda d: "Exact points" in page.find('#my-classes a.class-row[data-slug="main"] .class-row-role').text, 10,
               "the main class's row does not say Exact points")


def test_an_exact_class_previews_the_place_found(page, api):
    """The default class shows exact points: no sentence, the pin where the place was found,
    and the point posted as found."""
    user = api.create_user("Exa", "Ct")
    page.log_in(user)
    page.fake_server_error("/api/geocode", status=200, body=json.dumps(FAKE_GEOCODE))
    open_sheet(page)
    fill(page, "Lagos", "https://example.com/exact")
    page.find("#add-find").click()
    page.visible("#add-preview")
    assert page.find("#preview-placement").text == ""
    center = tuple(map(float, page.find("#preview-map").get_attribute("data-center").split(",")))
    assert near(center, (6.45, 3.39))
    page.find("#add-finish").click()
    page.gone("#add-location")
    mine = api.locations({"uniqueKey": user.key})["results"]
    assert (mine[0]["mapString"], mine[0]["latitude"], mine[0]["longitude"]) == ("Lagos, Nigeria", 6.45, 3.39)
