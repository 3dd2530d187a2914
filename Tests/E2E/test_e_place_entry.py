"""The add-location sheet's place field: type-ahead (the WAI-ARIA combobox), "Use my location"
and a doubtful answer from the geocoder that is never pre-selected."""
import json

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_e_add_location import FAKE_GEOCODE, open_sheet


def field_state(page):
    return page.js("""
        const field = document.getElementById('add-place');
        const list = document.getElementById(field.getAttribute('aria-controls'));
        return {
          role: field.getAttribute('role'), autocomplete: field.getAttribute('aria-autocomplete'),
          expanded: field.getAttribute('aria-expanded'), controls: field.getAttribute('aria-controls'),
          active: field.getAttribute('aria-activedescendant'),
          listRole: list && list.getAttribute('role'), listShown: !!list && !list.hidden,
          options: list ? [...list.querySelectorAll('[role="option"]')].map((o) => ({
            id: o.id, text: o.textContent, selected: o.getAttribute('aria-selected') })) : [],
          focused: document.activeElement === field,
          value: field.value,
        };
    """)


def near(point, other, tolerance=0.01):
    return abs(point[0] - other[0]) < tolerance and abs(point[1] - other[1]) < tolerance


@pytest.mark.geocoding
def test_type_ahead_by_keyboard_picks_berlin(page, api):
    user = api.create_user("Type", "Ahead")
    page.log_in(user)
    open_sheet(page)
    state = field_state(page)
    assert (state["role"], state["autocomplete"], state["expanded"], state["controls"]) == (
        "combobox", "list", "false", "add-place-suggestions")
    assert state["listRole"] == "listbox" and not state["listShown"] and state["active"] is None

    field = page.find("#add-place")
    field.send_keys("Berl")
    page.visible("#add-place-suggestions", 10)
    state = field_state(page)
    assert state["expanded"] == "true" and state["active"] is None
    assert state["options"] and state["options"][0]["text"].startswith("Berlin, Germany"), state["options"]
    assert all(option["id"] and option["selected"] == "false" for option in state["options"])
    # A polite live region says how many there are.
    status = page.find("#add-place-status")
    assert status.get_attribute("role") == "status"
    page.until(lambda d: f"{len(state['options'])} places found" in status.get_attribute("textContent"), 5)

    # ArrowDown: the first option is active, the focus stays in the field.
    field.send_keys(Keys.ARROW_DOWN)
    state = field_state(page)
    assert state["active"] == state["options"][0]["id"]
    assert state["options"][0]["selected"] == "true" and state["focused"]
    field.send_keys(Keys.ARROW_UP)
    assert field_state(page)["active"] == state["options"][-1]["id"], "ArrowUp wraps to the last"
    field.send_keys(Keys.ARROW_DOWN)
    assert field_state(page)["active"] == state["options"][0]["id"]
    page.screenshot("add-location-type-ahead")

    # Enter picks it: the field says its name, the list closes, nothing is sent yet.
    field.send_keys(Keys.ENTER)
    page.until(lambda d: not field_state(page)["listShown"], 5)
    picked = field_state(page)
    assert picked["value"] == "Berlin, Germany" and picked["expanded"] == "false" and picked["active"] is None
    assert not page.find("#add-preview").is_displayed()

    # Escape closes the list and not the sheet.
    field.send_keys(Keys.BACKSPACE)
    page.visible("#add-place-suggestions", 10)
    field.send_keys(Keys.ESCAPE)
    page.until(lambda d: not field_state(page)["listShown"], 5)
    assert page.find("#add-location").is_displayed()
    assert field_state(page)["expanded"] == "false"
    page.type_into("#add-place", "Berl")
    page.visible("#add-place-suggestions", 10)
    field.send_keys(Keys.ARROW_DOWN, Keys.ENTER)
    page.until(lambda d: field_state(page)["value"] == "Berlin, Germany", 5)

    # Find previews the place picked, and that is what is posted.
    field.send_keys(Keys.ENTER)
    page.visible("#add-preview", 15)
    assert page.find("#preview-name").text == "Berlin, Germany"
    center = tuple(map(float, page.find("#preview-map").get_attribute("data-center").split(",")))
    assert near(center, (52.52, 13.41), 0.05), center
    page.find("#add-finish").click()
    page.gone("#add-location")
    mine = api.locations({"uniqueKey": user.key})["results"]
    assert len(mine) == 1 and mine[0]["mapString"] == "Berlin, Germany" and mine[0]["mediaURL"] == ""
    assert near((mine[0]["latitude"], mine[0]["longitude"]), center)


def test_type_ahead_pick_by_pointer_is_what_is_previewed(page, api):
    """Works from the documented response shape (fake answers): a click on the second
    suggestion fills the field with its name and Find previews that very place."""
    user = api.create_user("Point", "Er")
    page.log_in(user)
    page.fake_server_error("/api/geocode", status=200, body=json.dumps(FAKE_GEOCODE))
    open_sheet(page)
    page.find("#add-place").send_keys("Lag")
    page.visible("#add-place-suggestions", 10)
    options = page.find_all("#add-place-suggestions [role=option]")
    assert [option.text for option in options] == ["Lagos, Nigeria", "Lagos, Faro, Portugal"]
    ActionChains(page.driver).move_to_element(options[1]).click().perform()
    page.until(lambda d: not field_state(page)["listShown"], 5)
    state = field_state(page)
    assert state["value"] == "Lagos, Faro, Portugal" and state["focused"], "the focus stays in the field"
    page.find("#add-find").click()
    page.visible("#add-preview")
    assert page.find("#preview-name").text == "Lagos" and "Portugal" in page.find("#preview-detail").text
    page.find("#add-finish").click()
    page.gone("#add-location")
    mine = api.locations({"uniqueKey": user.key})["results"]
    assert (mine[0]["mapString"], mine[0]["latitude"], mine[0]["longitude"]) == ("Lagos, Faro, Portugal", 37.1, -8.67)


def test_type_ahead_waits_for_an_input_method_to_finish(page, api):
    """No question while a CJK input method composes; the composed text is asked about."""
    user = api.create_user("Ime", "Input")
    page.log_in(user)
    open_sheet(page)
    asked = page.js("""
        window.__asked = [];
        window.__realFetch = window.__realFetch || window.fetch;
        window.fetch = (url, init) => {
          if (String(url).includes('/api/geocode/suggest')) window.__asked.push(new URL(url, location.href).searchParams.get('q'));
          return window.__realFetch(url, init);
        };
        const field = document.getElementById('add-place');
        field.focus();
        field.dispatchEvent(new CompositionEvent('compositionstart', { data: '' }));
        for (const text of ['b', 'bei', 'beij', '北京']) {
          field.value = text;
          field.dispatchEvent(new InputEvent('input', { data: text, isComposing: true, inputType: 'insertCompositionText' }));
        }
        return new Promise((resolve) => setTimeout(() => resolve(window.__asked.slice()), 500));
    """)
    assert asked == []
    page.js("""
        const field = document.getElementById('add-place');
        field.dispatchEvent(new CompositionEvent('compositionend', { data: '北京' }));
    """)
    page.until(lambda d: page.js("return window.__asked.slice()") == ["北京"], 5)


# ---- Use my location ------------------------------------------------------------

RAW_POINT = (52.5163, 13.3777)  # a point in Berlin, as the device gives it


def allow_location(page, point=RAW_POINT):
    page.driver.execute_cdp_cmd("Browser.setPermission", {
        "origin": page.base, "permission": {"name": "geolocation"}, "setting": "granted"})
    if point is None:  # the device cannot say where it is
        page.driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {})
    else:
        page.driver.execute_cdp_cmd("Emulation.setGeolocationOverride",
                                    {"latitude": point[0], "longitude": point[1], "accuracy": 5})


def forget_location(page):
    page.driver.execute_cdp_cmd("Emulation.clearGeolocationOverride", {})
    page.driver.execute_cdp_cmd("Browser.resetPermissions", {})


def record_requests(page):
    page.js("""
        window.__urls = [];
        window.__realFetch = window.__realFetch || window.fetch;
        window.fetch = (url, init) => {
          window.__urls.push(String(url) + ' ' + ((init && typeof init.body === 'string') ? init.body : ''));
          return window.__realFetch(url, init);
        };
    """)


@pytest.mark.geocoding
def test_use_my_location_posts_the_town_never_the_point(page, api):
    user = api.create_user("Geo", "Located")
    page.log_in(user)
    try:
        allow_location(page)
        record_requests(page)
        open_sheet(page)
        button = page.find("#add-locate")
        assert button.is_displayed() and button.get_attribute("aria-label") == "Use my location"
        assert "never your exact position" in button.get_attribute("title")
        button.click()
        page.until(lambda d: page.find("#add-preview").is_displayed() or page.find("#alert").is_displayed(), 15)
        assert page.find("#add-preview").is_displayed(), page.find("#alert").text
        page.until(lambda d: page.find("#preview-name").text != "", 5)
        shown = page.find(".preview-place").text
        page.find("#add-finish").click()
        page.gone("#add-location")
        mine = api.locations({"uniqueKey": user.key})["results"]
        assert len(mine) == 1 and mine[0]["mediaURL"] == ""
        # The town the server names for the (rounded) point is posted, at the town's point.
        _, town = api.request("GET", "/api/geocode/reverse?lat=52.52&lon=13.38")
        town = town["results"][0]
        assert shown.startswith(mine[0]["mapString"]) and mine[0]["mapString"] == town["name"]
        assert (mine[0]["latitude"], mine[0]["longitude"]) == (town["latitude"], town["longitude"])
        assert (mine[0]["latitude"], mine[0]["longitude"]) != RAW_POINT
        # The device's own point never left the page.
        urls = page.js("return window.__urls")
        assert urls and not any("52.5163" in url or "13.3777" in url for url in urls), urls
    finally:
        forget_location(page)


def test_use_my_location_says_why_it_cannot(page, api):
    user = api.create_user("Geo", "Refused")
    page.log_in(user)
    try:
        open_sheet(page)
        # Permission denied.
        page.driver.execute_cdp_cmd("Browser.setPermission", {
            "origin": page.base, "permission": {"name": "geolocation"}, "setting": "denied"})
        page.find("#add-locate").click()
        title, message = page.alert(15)
        assert title == "Location Access Denied" and "type the place" in message
        page.dismiss_alert()
        # The device cannot say where it is.
        allow_location(page, None)
        page.find("#add-locate").click()
        title, _ = page.alert(30)
        assert title == "Location Unavailable"
        page.dismiss_alert()
        # No town near where it is.
        allow_location(page, (0.5, -30.0))
        page.fake_server_error("/api/geocode/reverse", status=200, body='{"results": []}')
        page.find("#add-locate").click()
        title, _ = page.alert(15)
        assert title == "No Town Near You"
        page.dismiss_alert()
        assert page.find("#add-form").is_displayed()
        page.find("#add-cancel").click()
        assert api.count({"uniqueKey": user.key}) == 0
    finally:
        forget_location(page)


def test_use_my_location_is_hidden_without_geolocation(page, api):
    user = api.create_user("Geo", "Less")
    page.log_in(user)
    script = page.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {
        "source": "Object.defineProperty(Navigator.prototype, 'geolocation', { get: () => undefined, configurable: true });"})
    try:
        page.driver.refresh()
        page.visible("#main-scene", 20)
        page.map_ready()
        open_sheet(page)
        assert not page.find("#add-locate").is_displayed()
    finally:
        page.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})


# ---- a doubtful answer ----------------------------------------------------------

DOUBTFUL = {"results": [
    {"name": "Louisville, Kentucky, United States", "latitude": 38.254, "longitude": -85.759, "kind": "city",
     "country": "United States", "countryCode": "US", "region": "Kentucky", "confidence": 0.7,
     "span": {"latitudeDelta": 0.24, "longitudeDelta": 0.31}},
    {"name": "Astrakhan, Russia", "latitude": 46.35, "longitude": 48.041, "kind": "city",
     "country": "Russia", "countryCode": "RU", "region": "Astrakhan", "confidence": 0.7,
     "span": {"latitudeDelta": 0.24, "longitudeDelta": 0.34}},
]}


def test_a_doubtful_answer_is_not_chosen_for_the_student(page, api):
    user = api.create_user("Asdf", "Typist")
    page.log_in(user)
    page.fake_server_error("/api/geocode", status=200, body=json.dumps(DOUBTFUL))
    open_sheet(page)
    page.type_into("#add-place", "asdf" + Keys.ENTER)  # Enter with no suggestion active: Find
    page.visible("#preview-doubt")
    assert page.find("#preview-doubt-question").text == "Did you mean…?"
    choices = page.find_all("#preview-doubt-choices button")
    assert [choice.text for choice in choices] == ["Louisville, Kentucky, United States", "Astrakhan, Russia"]
    assert not page.find("#add-finish").is_enabled(), "nothing is chosen: Finish waits"
    assert not page.find("#preview-map").is_displayed() and not page.find(".preview-place").is_displayed()
    assert page.driver.switch_to.active_element == choices[0]
    page.screenshot("add-location-did-you-mean")
    # "None of these": back to the entry step, the text kept.
    page.find("#preview-doubt-none").click()
    page.visible("#add-form")
    assert page.find("#add-place").get_attribute("value") == "asdf"
    assert page.driver.switch_to.active_element == page.find("#add-place")
    assert api.count({"uniqueKey": user.key}) == 0
    # Again, and this time one is chosen: then it is previewed and can be posted.
    page.find("#add-place").send_keys(Keys.ENTER)
    page.visible("#preview-doubt")
    page.find_all("#preview-doubt-choices button")[1].click()
    page.visible("#preview-map")
    assert not page.find("#preview-doubt").is_displayed()
    assert page.find("#preview-name").text == "Astrakhan, Russia"
    assert [chip.text for chip in page.find_all("#preview-alternatives .chip")] == ["Louisville, Kentucky, United States"]
    page.clickable("#add-finish").click()
    page.gone("#add-location")
    mine = api.locations({"uniqueKey": user.key})["results"]
    assert (mine[0]["mapString"], mine[0]["latitude"]) == ("Astrakhan, Russia", 46.35)


def test_a_confident_answer_is_previewed_at_once(page, api):
    user = api.create_user("Sure", "Enough")
    page.log_in(user)
    sure = {"results": [dict(DOUBTFUL["results"][0], confidence=0.8), dict(DOUBTFUL["results"][1], confidence=0.5)]}
    page.fake_server_error("/api/geocode", status=200, body=json.dumps(sure))
    open_sheet(page)
    page.type_into("#add-place", "Louisville" + Keys.ENTER)
    page.visible("#preview-map")
    assert not page.find("#preview-doubt").is_displayed()
    assert page.find("#preview-name").text == "Louisville, Kentucky, United States"
    assert page.find("#add-finish").is_enabled()
    page.find("#add-cancel").click()
