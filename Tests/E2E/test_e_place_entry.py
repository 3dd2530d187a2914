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
