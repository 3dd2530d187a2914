"""The Travel tab: press and hold drops a pin (dragged until released), a pin opens its
photo album (placeholders, then images as they arrive), photos are removed, New Collection
replaces the album, a kept album reopens at once, pins are deleted, provider failures are
explained. Photos come from the local Wikimedia Commons stub (photo_stub.py)."""
import os
import threading
import time

import pytest
from selenium.webdriver.common.action_chains import ActionChains

from conftest import DESKTOP, PHONE

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                                reason="Travel tests need the server started here, pointed at the photo stub")

PHOTOS = 21  # the server's default album size; the stub has two pages of it near any point


@pytest.fixture
def travel(page, api, photo_stub):
    """A new user on the Travel tab, the stub answering quickly and well."""
    photo_stub.reset()
    user = api.create_user("Tra", "Veller")
    page.log_in(user)
    page.tab("travel")
    page.until(lambda d: d.execute_script(
        "const m = document.getElementById('travel-map');"
        "return m.dataset.state === 'ready' && m.dataset.basemap === 'ready'"), 15, "the travel map never became ready")
    page.user = user
    page.stub = photo_stub
    yield page
    photo_stub.reset()


def marker_count(page):
    return len(page.find_all(".travel-pin[data-pin-id]:not([data-pin-id=''])"))


def drop_pin(page, x=0, y=0, drag=(0, 0), hold=0.8):
    """Long-presses the map `x, y` px from its centre, drags by `drag`, releases; returns the new pin id."""
    before = {element.get_attribute("data-pin-id") for element in page.find_all(".travel-pin[data-pin-id]")}
    actions = ActionChains(page.driver)
    actions.move_to_element_with_offset(page.find("#travel-map"), x, y).click_and_hold().pause(hold)
    if drag != (0, 0):
        # In steps, as a finger or mouse moves.
        steps = 4
        for _ in range(steps):
            actions.move_by_offset(drag[0] // steps, drag[1] // steps).pause(0.05)
    actions.release().perform()

    def new_pin(driver):
        ids = {element.get_attribute("data-pin-id") for element in page.find_all(".travel-pin[data-pin-id]")}
        fresh = [pin for pin in ids - before if pin]
        return fresh[0] if fresh else False
    return page.until(new_pin, 10, "no pin was dropped")


def pin_marker(page, pin_id):
    return page.find(f'.travel-pin[data-pin-id="{pin_id}"]')


def open_album(page, pin_id):
    pin_marker(page, pin_id).click()
    page.until(lambda d: d.execute_script(
        "const a = document.getElementById('album'); return !a.hidden && a.dataset.pinId === arguments[0]", pin_id),
        5, "the album did not open")


def wait_settled(page, timeout=20):
    page.until(lambda d: d.execute_script(
        "const a = document.getElementById('album'); return a.dataset.settled === 'true' && a.dataset.state === 'ready'"),
        timeout, "the album never settled")


def photo_ids(page):
    return [tile.get_attribute("data-id") for tile in page.find_all("#album-grid .photo")]


def loaded_images(page):
    return page.js("""
        return Array.from(document.querySelectorAll('#album-grid .photo[data-state="ready"] img.photo-image'))
            .filter((img) => img.complete && img.naturalWidth > 0).length""")


def api_settled(user, pin_id, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        album = user.album(pin_id)
        if album["album"]["settled"]:
            return album
        time.sleep(0.1)
    raise AssertionError(f"the server's album for {pin_id} never settled")


def test_long_press_drops_a_pin_that_follows_the_drag(travel, api):
    page, user = travel, travel.user
    page.visible("#travel-empty")
    assert "press and hold" in page.find("#travel-empty").text.lower()

    # A click, and a quick pan, drop nothing.
    page.find("#travel-map").click()
    ActionChains(page.driver).move_to_element(page.find("#travel-map")).click_and_hold().move_by_offset(80, 0) \
        .pause(0.7).release().perform()
    time.sleep(0.8)
    assert user.pins() == [] and marker_count(page) == 0

    # Hold, then drag 120 px to the right before letting go: the pin lands where released.
    dragged = drop_pin(page, x=-150, y=20, drag=(120, 0))
    marker = pin_marker(page, dragged)
    map_box = page.find("#travel-map").rect
    icon = marker.rect
    release_x = map_box["x"] + map_box["width"] / 2 - 150 + 120
    release_y = map_box["y"] + map_box["height"] / 2 + 20
    assert abs(icon["x"] + icon["width"] / 2 - release_x) <= 4, (icon, release_x)
    assert abs(icon["y"] + icon["height"] - release_y) <= 4, (icon, release_y)
    page.text_in("#travel-toast", "Pin dropped")

    # A second pin held where the first was pressed, without dragging, is 120 px further west.
    still = drop_pin(page, x=-150, y=20)
    pins = {pin["id"]: pin for pin in user.pins()}
    assert set(pins) == {dragged, still}
    assert pins[dragged]["longitude"] - pins[still]["longitude"] > 20  # 120 px at zoom 2 is ~42°
    assert abs(pins[dragged]["latitude"] - pins[still]["latitude"]) < 1
    assert all(pin["placeName"] for pin in pins.values())
    assert page.find("#travel-empty").is_displayed() is False
    page.text_in("#travel-status", "2 pins")
    assert page.console_errors() == []


def test_holding_a_pin_moves_it_and_its_album_follows(travel):
    page, user = travel, travel.user
    pin_id = drop_pin(page, x=-100, y=0)
    first = api_settled(user, pin_id)
    open_album(page, pin_id)
    wait_settled(page)
    old_ids = set(photo_ids(page))
    before = user.pins()[0]

    # A plain click opens the album; a hold on the pin picks it up, then it follows the pointer.
    ActionChains(page.driver).move_to_element(pin_marker(page, pin_id)).click_and_hold().pause(0.8) \
        .move_by_offset(40, 0).pause(0.05).move_by_offset(40, 0).pause(0.05).release().perform()
    page.until(lambda d: user.pins()[0]["longitude"] > before["longitude"] + 15, 10, "the pin did not move")
    after = user.pins()[0]
    assert after["id"] == pin_id and len(user.pins()) == 1
    assert abs(after["latitude"] - before["latitude"]) < 1
    page.text_in("#travel-toast", "Pin moved")
    # The open album is fetched again for the new place, live.
    page.until(lambda d: page.find("#album").get_attribute("data-collection") == str(first["album"]["collection"] + 1),
               10, "the album was not fetched again")
    wait_settled(page)
    page.until(lambda d: loaded_images(page) == len(photo_ids(page)) > 0, 10, "new images missing")
    assert not set(photo_ids(page)) & old_ids
    assert page.find("#album-title").text == after["placeName"]


def test_album_shows_placeholders_then_images_live(travel):
    page, user, stub = travel, travel.user, travel.stub
    # Images are held back until the test lets them through, so "some but not all arrived"
    # is a state the test creates instead of one it hopes to catch in passing.
    stub.image_gate = threading.Semaphore(0)
    page.js("window.__samePage = true")
    pin_id = drop_pin(page, x=60, y=-40)
    open_album(page, pin_id)

    # Placeholders first, with the place name and the progress in the header.
    page.until(lambda d: len(page.find_all('#album-grid .photo[data-state="pending"] .photo-placeholder')) > 0, 10,
               "no placeholders")
    page.text_in("#album-progress", "Downloading photos")
    assert page.find("#album-title").text == user.pins()[0]["placeName"]
    assert not page.find("#album-new").is_enabled(), "New Collection must wait while photos download"
    page.screenshot("travel-album-loading", sizes=(PHONE,))
    page.viewport(DESKTOP)

    # Clicking a photo that is still downloading does not remove it.
    first = photo_ids(page)[0]
    page.find("#album-grid .photo .photo-button").click()
    time.sleep(0.3)
    assert first in photo_ids(page)

    # Images replace placeholders one by one as they arrive, without reloading the page.
    assert loaded_images(page) == 0
    stub.image_gate.release(5)
    page.until(lambda d: loaded_images(page) == 5, 15, "the first five images did not appear")
    assert len(page.find_all('#album-grid .photo[data-state="pending"]')) == PHOTOS - 5
    stub.image_gate.release(PHOTOS)
    page.until(lambda d: loaded_images(page) == PHOTOS, 20, "not every image arrived")
    wait_settled(page)
    assert page.js("return window.__samePage") is True
    assert page.find_all('#album-grid .photo[data-state="pending"]') == []
    page.text_in("#album-progress", f"{PHOTOS} photos")
    assert page.find("#album-new").is_enabled()
    # The live stream is closed once the album is complete (no reconnecting).
    assert page.js("return document.getElementById('album').dataset.live === undefined") is True

    # Credits: author, license and a link to the photo's page.
    credits = page.find_all("#album-credits-list .credit")
    assert len(credits) == PHOTOS
    assert "Photographer" in credits[0].text and "CC BY-SA 4.0" in credits[0].text
    link = credits[0].find_element("css selector", "a")
    assert link.get_attribute("href").startswith("https://commons.wikimedia.org/wiki/File:")
    assert link.get_attribute("target") == "_blank" and "noopener" in link.get_attribute("rel")
    assert page.console_errors() == []


def test_album_screenshots_and_travel_map(travel):
    page, user = travel, travel.user
    for latitude, longitude in ((48.8566, 2.3522), (35.68, 139.69), (-33.87, 151.21), (40.71, -74.0)):
        user.create_pin(latitude, longitude)
    page.clickable("#refresh-button").click()
    page.until(lambda d: marker_count(page) == 4, 10, "pins did not load")
    pin_id = drop_pin(page, x=-200, y=-60)
    page.screenshot("travel-map")
    api_settled(user, pin_id)
    open_album(page, pin_id)
    wait_settled(page)
    page.until(lambda d: loaded_images(page) == PHOTOS, 10, "images missing")
    page.gone("#travel-toast", 8)
    page.screenshot("travel-album")


def test_clicking_a_photo_removes_it(travel):
    page, user = travel, travel.user
    pin_id = drop_pin(page)
    api_settled(user, pin_id)
    open_album(page, pin_id)
    wait_settled(page)
    ids = photo_ids(page)
    assert len(ids) == PHOTOS
    victim = ids[4]
    page.find(f'#album-grid .photo[data-id="{victim}"] .photo-button').click()
    page.until(lambda d: len(photo_ids(page)) == PHOTOS - 1, 5, "the photo stayed")
    assert victim not in photo_ids(page)
    assert victim not in [credit.get_attribute("data-id") for credit in page.find_all("#album-credits-list .credit")]
    page.text_in("#album-progress", f"{PHOTOS - 1} photos")
    kept = user.album(pin_id)["photos"]
    assert len(kept) == PHOTOS - 1 and victim not in [photo["id"] for photo in kept]


def test_new_collection_replaces_the_album(travel):
    page, user = travel, travel.user
    pin_id = drop_pin(page, x=100, y=80)
    api_settled(user, pin_id)
    open_album(page, pin_id)
    wait_settled(page)
    before = set(photo_ids(page))
    before_remote = {photo["remoteId"] for photo in user.album(pin_id)["photos"]}
    page.stub.image_delay = 0.5
    page.find("#album-new").click()
    page.until(lambda d: page.find("#album").get_attribute("data-collection") == "2", 10, "no new collection")
    page.until(lambda d: not set(photo_ids(page)) & before, 5, "old photos still shown")
    wait_settled(page)
    page.until(lambda d: loaded_images(page) == len(photo_ids(page)), 10, "new images missing")
    after = user.album(pin_id)
    assert after["album"]["collection"] == 2
    assert {photo["id"] for photo in after["photos"]} == set(photo_ids(page))
    assert not {photo["remoteId"] for photo in after["photos"]} & before_remote, "New Collection brought the same photos"


def test_reopened_album_shows_kept_photos_at_once(travel):
    page, user, stub = travel, travel.user, travel.stub
    pin_id = drop_pin(page, x=-80, y=60)
    api_settled(user, pin_id)
    open_album(page, pin_id)
    wait_settled(page)
    page.until(lambda d: loaded_images(page) == PHOTOS, 10, "images missing")
    ids = photo_ids(page)
    page.find("#album-close").click()
    page.gone("#album")

    # Nothing is asked of the provider again, in this page or after a reload.
    requests_before = len(stub.image_requests), len(stub.searches)
    stub.image_delay = 5  # a download now would show as placeholders
    for reload in (False, True):
        if reload:
            page.driver.refresh()
            page.visible("#travel-view")
            page.until(lambda d: marker_count(page) == 1, 10, "pins did not load after a reload")
        started = time.time()
        open_album(page, pin_id)
        page.until(lambda d: loaded_images(page) == PHOTOS, 3, "kept photos did not show at once")
        assert time.time() - started < 3
        assert photo_ids(page) == ids
        assert page.find("#album").get_attribute("data-settled") == "true"
        assert page.find_all('#album-grid .photo[data-state="pending"]') == []
        page.find("#album-close").click()
        page.gone("#album")
    assert (len(stub.image_requests), len(stub.searches)) == requests_before


def test_deleting_a_pin(travel):
    page, user = travel, travel.user
    keep = drop_pin(page, x=-120)
    doomed = drop_pin(page, x=120)
    api_settled(user, doomed)
    open_album(page, doomed)
    wait_settled(page)
    page.find("#album-delete-pin").click()
    title, message = page.alert()
    assert title == "Delete This Pin?" and "photos" in message
    page.dismiss_alert("#alert-cancel")
    assert len(user.pins()) == 2
    page.find("#album-delete-pin").click()
    page.alert()
    page.dismiss_alert("#alert-ok")
    page.gone("#album")
    page.until(lambda d: marker_count(page) == 1, 5, "the marker stayed")
    assert [pin["id"] for pin in user.pins()] == [keep]
    page.text_in("#travel-toast", "Pin deleted")


def test_provider_failures_are_explained_and_keep_the_photos(travel):
    page, user, stub = travel, travel.user, travel.stub
    pin_id = drop_pin(page, x=40, y=40)
    api_settled(user, pin_id)
    open_album(page, pin_id)
    wait_settled(page)
    ids = photo_ids(page)

    # Rate limited: the server's message, the album unchanged.
    stub.search_failure = "429"
    page.find("#album-new").click()
    title, message = page.alert()
    assert title == "Photos Unavailable"
    assert "Wikimedia Commons is limiting how often" in message and "kept" in message
    page.dismiss_alert()
    assert photo_ids(page) == ids and loaded_images(page) == PHOTOS
    page.visible("#album-banner")
    assert "Wikimedia Commons is limiting" in page.find("#album-banner").text
    assert page.find("#album-new").is_enabled()
    assert [photo["id"] for photo in user.album(pin_id)["photos"]] == ids

    # A new pin whose first search fails says why, and Try Again fetches the album.
    page.find("#album-close").click()
    stub.search_failure = "api-error"
    fresh = drop_pin(page, x=-160, y=-90)
    open_album(page, fresh)
    page.until(lambda d: page.find("#album-empty").is_displayed() and
               "geosearch backend is unavailable" in page.find("#album-empty").text, 10, "no failure message")
    assert "refused the photo search" in page.find("#album-empty").text
    page.screenshot("travel-album-error", sizes=(PHONE,))
    page.viewport(DESKTOP)
    stub.search_failure = None
    button = page.clickable("#album-new")
    assert button.text == "Try Again"
    button.click()
    page.until(lambda d: loaded_images(page) == PHOTOS, 15, "Try Again brought no photos")
    page.gone("#album-empty")


def test_logout_forgets_the_travel_tab(travel, api):
    page = travel
    pin_id = drop_pin(page)
    open_album(page, pin_id)
    page.find("#logout-button").click()
    page.visible("#login-scene")
    other = api.create_user("Other", "Person")
    page.log_in(other)
    page.tab("travel")
    page.until(lambda d: d.execute_script("return document.getElementById('travel-map').dataset.pinCount === '0'"),
               10, "the other account's pins did not load")
    assert marker_count(page) == 0
    assert page.find("#album").is_displayed() is False
    page.visible("#travel-empty")
