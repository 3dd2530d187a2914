"""The add-location sheet: validation, geocoding, preview, finish, update, cancel."""
import json

import pytest
from selenium.webdriver.common.by import By

FAKE_GEOCODE = {"results": [
    {"name": "Lagos", "latitude": 6.45, "longitude": 3.39, "kind": "city", "country": "Nigeria",
     "region": "Lagos", "span": {"latitudeDelta": 0.3, "longitudeDelta": 0.3}},
    {"name": "Lagos", "latitude": 37.1, "longitude": -8.67, "kind": "city", "country": "Portugal",
     "region": "Faro", "span": {"latitudeDelta": 0.1, "longitudeDelta": 0.1}},
]}


def open_sheet(page, expect_confirm=False):
    page.clickable("#add-location-button").click()
    if expect_confirm:
        title, message = page.alert()
        assert title == "Replace Your Location?"
        assert "overwrite" in message
        page.dismiss_alert("#alert-ok")
    page.visible("#add-location")
    page.visible("#add-place")


def fill(page, place, link):
    page.type_into("#add-place", place)
    page.type_into("#add-link", link)


def geocoder_available(page):
    status = page.js("return fetch('/api/geocode?q=Lagos&limit=1').then(r => r.status)")
    return status == 200


def test_question_optional_link_and_invalid_link_alerts(page, api):
    user = api.create_user("Valid", "Ation")
    page.log_in(user)
    open_sheet(page)
    assert "Where are you" in page.find(".add-question").text and "studying" in page.find(".add-question").text
    # The link is optional, and says so; a link that is typed must still be a web address.
    assert page.find("#add-link").get_attribute("required") is None
    assert "(optional)" in page.js("return document.querySelectorAll('#add-form .field-label')[1].textContent")
    page.screenshot("add-location")
    page.type_into("#add-place", "Lagos, Nigeria")
    for bad in ("javascript:alert(1)", "not a link", "ftp://example.com/file"):
        page.type_into("#add-link", bad)
        page.find("#add-find").click()
        title, message = page.alert()
        assert title == "Invalid Link", bad
        page.dismiss_alert()
    page.type_into("#add-place", "")
    page.type_into("#add-link", "https://example.com")
    page.find("#add-find").click()
    title, _ = page.alert()
    assert title == "Location Needed"
    page.dismiss_alert()
    assert api.count({"uniqueKey": user.key}) == 0


def test_open_link_button_opens_the_link_first(page, api):
    user = api.create_user("Open", "Link")
    page.log_in(user)
    open_sheet(page)
    fill(page, "Lagos", "https://example.com/check-me")
    windows = len(page.driver.window_handles)
    page.find("#add-open-link").click()
    page.until(lambda d: len(d.window_handles) == windows + 1, 5, "the link did not open")
    page.driver.switch_to.window(page.driver.window_handles[0])
    assert page.find("#add-location").is_displayed()


def test_geocoding_unavailable_is_said_clearly(page, api):
    user = api.create_user("No", "Geocoder")
    page.log_in(user)
    page.fake_server_error("/api/geocode", status=404, body='{"error":{"code":"not_found","message":"Not found."}}')
    open_sheet(page)
    fill(page, "Lagos, Nigeria", "https://example.com/me")
    page.find("#add-find").click()
    title, message = page.alert()
    assert title == "Geocoding Unavailable"
    page.dismiss_alert()
    assert page.find("#add-place").get_attribute("value") == "Lagos, Nigeria"


def test_geocoding_network_failure_alerts_and_keeps_input(page, api):
    user = api.create_user("Geo", "Offline")
    page.log_in(user)
    open_sheet(page)
    fill(page, "Lagos, Nigeria", "https://example.com/me")
    page.offline(True)
    page.find("#add-find").click()
    title, message = page.alert()
    assert title == "Network Error" and "Cannot reach the server" in message
    page.dismiss_alert()
    page.offline(False)
    assert page.find("#add-place").get_attribute("value") == "Lagos, Nigeria"
    assert page.find("#add-link").get_attribute("value") == "https://example.com/me"
    assert page.find("#add-place").is_enabled()


def test_geocoding_shows_activity_and_dims_the_form_and_cancel_stays_reachable(page, api):
    user = api.create_user("Busy", "Form")
    page.log_in(user)
    open_sheet(page)
    fill(page, "Lagos, Nigeria", "https://example.com/me")
    page.slow(3000)
    page.find("#add-find").click()
    page.visible("#add-busy", 3)
    assert "working" in page.find("#add-form").get_attribute("class")
    assert not page.find("#add-place").is_enabled() and not page.find("#add-link").is_enabled()
    page.screenshot("add-location-finding")
    page.find("#add-cancel").click()  # Cancel works while it waits
    page.gone("#add-location")
    page.slow(0)
    assert api.count({"uniqueKey": user.key}) == 0


def test_preview_with_fake_results_then_cancel(page, api):
    """The preview works from the documented response shape, even before the geocoder lands."""
    user = api.create_user("Pre", "View")
    page.log_in(user)
    page.fake_server_error("/api/geocode", status=200, body=json.dumps(FAKE_GEOCODE))
    open_sheet(page)
    fill(page, "Lagos", "https://example.com/pre")
    page.find("#add-find").click()
    page.visible("#add-preview")
    assert page.find("#preview-name").text == "Lagos"
    assert "Nigeria" in page.find("#preview-detail").text
    assert page.find_all("#preview-map .student-pin")
    preview = page.find("#preview-map")
    assert float(preview.get_attribute("data-zoom")) >= 5, "the preview is not zoomed to the place"
    lat, lng = map(float, preview.get_attribute("data-center").split(","))
    assert abs(lat - 6.45) < 0.2 and abs(lng - 3.39) < 0.2
    chips = page.find_all("#preview-alternatives .chip")
    assert len(chips) == 1 and "Portugal" in chips[0].text
    chips[0].click()
    page.text_in("#preview-detail", "Portugal")
    page.find("#add-back").click()
    page.visible("#add-form")
    assert page.find("#add-place").get_attribute("value") == "Lagos"
    page.find("#add-find").click()
    page.visible("#add-preview")
    page.find("#add-cancel").click()
    page.gone("#add-location")
    assert api.count({"uniqueKey": user.key}) == 0


def test_failed_post_says_why_and_keeps_the_input(page, api):
    user = api.create_user("Post", "Fails")
    page.log_in(user)
    page.fake_server_error("/api/geocode", status=200, body=json.dumps(FAKE_GEOCODE))
    open_sheet(page)
    fill(page, "Lagos", "https://example.com/post-fails")
    page.find("#add-find").click()
    page.visible("#add-finish")
    # Offline, the post is refused before anything is sent (never queued).
    page.offline(True)
    page.find("#add-finish").click()
    title, message = page.alert()
    assert title == "You Are Offline" and "nothing was sent" in message
    page.dismiss_alert()
    page.offline(False)
    # Online but the request gets no answer: a network error, said as such.
    page.js("""
        window.__realFetch = window.__realFetch || window.fetch;
        window.fetch = (url, init) => init && init.method === 'POST'
            ? Promise.reject(new TypeError('Failed to fetch')) : window.__realFetch(url, init);
    """)
    page.find("#add-finish").click()
    title, message = page.alert()
    assert title == "Network Error" and "saving your location" in message
    page.dismiss_alert()
    assert page.find("#add-preview").is_displayed()
    page.find("#add-back").click()
    assert page.find("#add-place").get_attribute("value") == "Lagos"
    assert page.find("#add-link").get_attribute("value") == "https://example.com/post-fails"
    page.find("#add-cancel").click()
    assert api.count({"uniqueKey": user.key}) == 0


def test_finish_posts_with_fake_geocoder_and_shows_the_new_marker(page, api):
    user = api.create_user("Fresh", "Poster")
    page.log_in(user)
    before = page.marker_count()
    page.fake_server_error("/api/geocode", status=200, body=json.dumps(FAKE_GEOCODE))
    open_sheet(page)
    fill(page, "Lagos", "https://example.com/fresh")
    page.find("#add-find").click()
    page.clickable("#add-finish").click()
    page.gone("#add-location")
    page.until(lambda d: page.marker_count() == before + 1, 10, "no new marker")
    page.visible(".leaflet-popup a.popup-card")  # the new marker is revealed
    assert page.find(".leaflet-popup .popup-name").text == "Fresh Poster"
    mine = api.locations({"uniqueKey": user.key})["results"]
    assert len(mine) == 1
    # The place found, as the preview named it ("Lagos" and ", Nigeria"), not the "Lagos" typed.
    assert (mine[0]["mapString"], mine[0]["mediaURL"]) == ("Lagos, Nigeria", "https://example.com/fresh")
    assert (mine[0]["latitude"], mine[0]["longitude"]) == (6.45, 3.39)
    assert (mine[0]["firstName"], mine[0]["lastName"]) == ("Fresh", "Poster")
    page.tab("list")
    page.until(lambda d: page.list_rows()[0].get_attribute("data-object-id") == mine[0]["objectId"], 10)


def test_posting_without_a_link_keeps_it_empty_and_shows_no_link(page, api):
    """The link is optional: the record keeps mediaURL "", the preview shows no link, and the
    list and the popup show the student without a link (no anchor, no "Open link")."""
    user = api.create_user("No", "Linker")
    page.log_in(user)
    page.fake_server_error("/api/geocode", status=200, body=json.dumps(FAKE_GEOCODE))
    open_sheet(page)
    fill(page, "Lagos", "")
    page.find("#add-find").click()
    page.visible("#add-preview")
    assert not page.find("#preview-link").is_displayed()
    page.clickable("#add-finish").click()
    page.gone("#add-location")
    page.visible(".leaflet-popup .popup-card")
    popup = page.find(".leaflet-popup .popup-card")
    assert popup.tag_name == "div" and "no-link" in popup.get_attribute("class")
    assert page.find_all(".leaflet-popup-content a") == []
    mine = api.locations({"uniqueKey": user.key})["results"]
    assert len(mine) == 1 and mine[0]["mediaURL"] == ""
    page.tab("list")
    page.until(lambda d: page.list_rows() and page.list_rows()[0].get_attribute("data-object-id") == mine[0]["objectId"], 10)
    row = page.list_rows()[0]
    assert row.find_elements(By.CSS_SELECTOR, "a") == []
    assert row.find_element(By.CSS_SELECTOR, ".row-host").text == "no link"


def test_update_existing_location_warns_then_replaces_it(page, api):
    user = api.create_user("Up", "Dater")
    object_id = user.post_location("Accra, Ghana", latitude=5.6, longitude=-0.19, media_url="https://example.com/old")
    page.log_in(user)
    before = page.marker_count()
    page.fake_server_error("/api/geocode", status=200, body=json.dumps(FAKE_GEOCODE))
    open_sheet(page, expect_confirm=True)
    note = page.find("#add-replace-note")
    assert note.is_displayed() and "Accra, Ghana" in note.text
    assert page.find("#add-place").get_attribute("value") == "Accra, Ghana"  # prefilled
    fill(page, "Lagos", "https://example.com/new")
    page.find("#add-find").click()
    page.visible("#add-preview")
    assert page.find("#add-finish").text == "Replace Location"
    page.find("#add-finish").click()
    page.gone("#add-location")
    page.until(lambda d: page.find_all(".leaflet-popup .popup-name"), 10)
    assert page.marker_count() == before  # replaced, not added
    mine = api.locations({"uniqueKey": user.key})["results"]
    assert len(mine) == 1 and mine[0]["objectId"] == object_id
    assert (mine[0]["mapString"], mine[0]["mediaURL"], mine[0]["latitude"]) == ("Lagos, Nigeria", "https://example.com/new", 6.45)


def test_existing_location_cancel_in_the_warning_keeps_it(page, api):
    user = api.create_user("Keep", "Mine")
    user.post_location("Accra, Ghana", latitude=5.6, longitude=-0.19)
    page.log_in(user)
    page.clickable("#add-location-button").click()
    title, message = page.alert()
    assert title == "Replace Your Location?" and "Accra, Ghana" in message
    page.screenshot("add-location-replace-warning")
    page.dismiss_alert("#alert-cancel")
    assert not page.find("#add-location").is_displayed()


# ---- with the real geocoder ------------------------------------------------------


@pytest.mark.geocoding
def test_real_geocoding_failure_for_an_unknown_place(page, api):
    user = api.create_user("Nowhere", "Land")
    page.log_in(user)
    open_sheet(page)
    fill(page, "Qxzzvy Plorkton Wubb", "https://example.com/nowhere")
    page.find("#add-find").click()
    title, message = page.alert(15)
    assert title == "Location Not Found", f"{title}: {message} (has /api/geocode landed?)"
    page.dismiss_alert()
    assert page.find("#add-form").is_displayed()


@pytest.mark.geocoding
def test_real_geocoding_preview_and_finish_then_update(page, api):
    user = api.create_user("Real", "Geocoder")
    page.log_in(user)
    before = page.marker_count()
    open_sheet(page)
    fill(page, "Lagos, Nigeria", "https://example.com/real")
    page.find("#add-find").click()
    page.visible("#add-preview", 15)
    page.until(lambda d: page.find("#preview-name").text != "", 5)
    assert "Lagos" in page.find("#preview-name").text
    zoom = page.js("return document.querySelector('#preview-map .leaflet-map-pane') !== null")
    assert zoom
    page.screenshot("add-location-preview")
    page.find("#add-finish").click()
    page.gone("#add-location")
    page.until(lambda d: page.marker_count() == before + 1, 10)
    first = api.locations({"uniqueKey": user.key})["results"]
    assert len(first) == 1
    assert abs(first[0]["latitude"] - 6.45) < 1 and abs(first[0]["longitude"] - 3.4) < 1

    # Again: the app warns first, then replaces (PUT) the same record.
    open_sheet(page, expect_confirm=True)
    assert "replace" in page.find("#add-replace-note").text
    fill(page, "nairobi kenya", "https://example.com/real-2")
    page.find("#add-find").click()
    page.visible("#add-preview", 15)
    page.until(lambda d: page.find("#preview-name").text != "", 5)
    shown = page.find(".preview-place").text  # the name, then the region, country or kind it does not say
    assert page.find("#add-finish").text == "Replace Location"
    page.find("#add-finish").click()
    page.gone("#add-location")
    page.until(lambda d: page.marker_count() == before + 1, 10)
    mine = api.locations({"uniqueKey": user.key})["results"]
    assert len(mine) == 1 and mine[0]["objectId"] == first[0]["objectId"]
    # What the preview named, not what was typed ("Nairobi, Nairobi Area, Kenya").
    assert shown.startswith(mine[0]["mapString"]), (mine[0]["mapString"], shown)
    assert mine[0]["mapString"].startswith("Nairobi, ") and mine[0]["mapString"].endswith(", Kenya")
    assert abs(mine[0]["latitude"] - -1.29) < 1
    page.tab("list")
    page.until(lambda d: page.list_rows()[0].get_attribute("data-object-id") == mine[0]["objectId"], 10)
    assert page.list_rows()[0].find_element(By.CSS_SELECTOR, ".row-place").text == mine[0]["mapString"]
