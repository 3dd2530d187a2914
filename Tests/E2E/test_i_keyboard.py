"""Every flow from the keyboard alone, with the focus visible at each step: log in, switch
tabs, open a student's link, post a location, drop a Travel pin, delete a photo, ask for a
new collection. No mouse event is sent."""
import os

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from test_e_add_location import geocoder_available

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                                reason="the album needs the server started here, pointed at the photo stub")


def press(page, *keys):
    ActionChains(page.driver).send_keys(*keys).perform()


def focused(page):
    return page.js("return document.activeElement")


def focus_is_visible(page):
    """The focused element matches :focus-visible and draws an outline or a ring."""
    return page.js("""
        const element = document.activeElement;
        if (!element || element === document.body || !element.matches(':focus-visible')) return false;
        const drawn = (node) => {
            const style = getComputedStyle(node);
            return (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
        };
        return drawn(element) || Array.from(element.querySelectorAll('*')).some(drawn);
    """)


def tab_to(page, css, limit=40, backwards=False):
    """Presses Tab (or Shift+Tab) until an element matching `css` has the focus."""
    for _ in range(limit):
        if page.js("return document.activeElement && document.activeElement.matches(arguments[0])", css):
            assert focus_is_visible(page), f"{css} has the focus but shows no focus indicator"
            return focused(page)
        if backwards:
            ActionChains(page.driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        else:
            press(page, Keys.TAB)
    raise AssertionError(f"the keyboard never reached {css}; focus is on "
                         + page.js("return document.activeElement.outerHTML.slice(0, 200)"))


def test_every_flow_works_from_the_keyboard(page, api, photo_stub):
    photo_stub.reset()
    user = api.create_user("Kay", "Board")

    # Log in: the email field has the focus; Tab to the password, Enter submits.
    page.open("/#/login")
    page.visible("#login-email")
    assert focused(page).get_attribute("id") == "login-email"
    press(page, user.email, Keys.TAB, user.password, Keys.ENTER)
    page.visible("#main-scene")
    page.map_ready()

    # Switch tabs: Tab reaches the selected tab; the arrow keys move between tabs.
    tab_to(page, "#tab-map")
    press(page, Keys.ARROW_RIGHT)
    page.visible("#list-view")
    assert focused(page).get_attribute("id") == "tab-list"
    assert focus_is_visible(page)
    page.until(lambda d: len(page.list_rows()) > 0, 10, "the list never filled")

    # Open a student's link: Tab into the list to a row's link button, Enter opens it in a new tab.
    windows = len(page.driver.window_handles)
    row = tab_to(page, "#student-list a.row-link")
    href = row.get_attribute("href")
    press(page, Keys.ENTER)
    page.until(lambda d: len(d.window_handles) == windows + 1, 5, "Enter on a row opened nothing")
    page.driver.switch_to.window(page.driver.window_handles[-1])
    page.until(lambda d: d.current_url.rstrip("/") == href.rstrip("/") or d.current_url.startswith(href[:20]), 5)
    page.driver.close()
    page.driver.switch_to.window(page.driver.window_handles[0])

    # Post a location: the pin button opens the sheet with the focus on the place field.
    if geocoder_available(page):
        tab_to(page, "#add-location-button", backwards=True)
        press(page, Keys.ENTER)
        page.visible("#add-place")
        assert focused(page).get_attribute("id") == "add-place"
        # Tab: past "Use my location" to the link.
        press(page, "Lagos, Nigeria", Keys.TAB, Keys.TAB, "https://example.com/kay")
        assert focused(page).get_attribute("id") == "add-link"
        press(page, Keys.ENTER)
        page.visible("#add-finish", 15)
        assert focused(page).get_attribute("id") == "add-finish"
        press(page, Keys.ENTER)
        page.gone("#add-location", 15)
        page.until(lambda d: api.count({"uniqueKey": user.key}) == 1, 10, "the location was not posted")

    # Drop a Travel pin: focus the map, Enter drops one at its centre.
    tab_to(page, "#tabs [aria-selected='true']")
    for _ in range(4):
        if focused(page).get_attribute("id") == "tab-travel":
            break
        press(page, Keys.ARROW_RIGHT)
    assert focused(page).get_attribute("id") == "tab-travel", "the arrow keys never reached the Travel tab"
    page.visible("#travel-view")
    page.until(lambda d: d.execute_script(
        "return document.getElementById('travel-map').dataset.state === 'ready'"), 15, "the travel map never became ready")
    tab_to(page, "#travel-map")
    help_id = page.find("#travel-map").get_attribute("aria-describedby")
    assert "press Enter" in page.js("return document.getElementById(arguments[0]).textContent", help_id)
    press(page, Keys.ENTER)
    page.until(lambda d: len(user.pins()) == 1, 10, "Enter on the map dropped no pin")
    page.until(lambda d: "Pin dropped" in d.execute_script("return document.getElementById('travel-toast').textContent"),
               10, "dropping the pin was not announced")
    pin_id = user.pins()[0]["id"]

    # Open the album from the keyboard: Tab to the pin, Enter.
    tab_to(page, f'.travel-pin[data-pin-id="{pin_id}"]')
    press(page, Keys.ENTER)
    page.until(lambda d: d.execute_script(
        "const a = document.getElementById('album'); return a.dataset.settled === 'true' && a.dataset.state === 'ready'"),
        20, "the album never settled")
    assert focused(page).get_attribute("id") == "album-close"

    # Delete a photo: Tab to the first one, Enter; the focus moves to the next photo.
    before = len(user.album(pin_id)["photos"])
    first = tab_to(page, "#album-grid .photo-button")
    removed = first.find_element("xpath", "..").get_attribute("data-id")
    press(page, Keys.ENTER)
    page.until(lambda d: len(user.album(pin_id)["photos"]) == before - 1, 10, "Enter on a photo removed nothing")
    page.until(lambda d: not page.find_all(f'#album-grid .photo[data-id="{removed}"]'), 5)
    assert page.js("return document.activeElement.matches('#album-grid .photo-button')"), \
        "after removing a photo the focus should move to the next one"
    assert focus_is_visible(page)

    # New collection: Tab to the button, Enter.
    collection = user.album(pin_id)["album"]["collection"]
    tab_to(page, "#album-new", limit=80)
    press(page, Keys.ENTER)
    page.until(lambda d: user.album(pin_id)["album"]["collection"] > collection, 10, "no new collection was asked for")

    # Escape closes the album and gives the focus back to the pin.
    page.until(lambda d: d.execute_script("return document.getElementById('album').dataset.settled === 'true'"), 20)
    press(page, Keys.ESCAPE)
    page.gone("#album")
    assert page.js("return document.activeElement.matches('.travel-pin')"), "the focus should return to the pin"


def test_arrow_keys_pressed_faster_than_the_address_changes_keep_moving_along_the_tabs(page, api):
    """Two arrow presses before the address has changed once: the second moves on from the tab
    the first focused, and passing over Search leaves the focus on the tabs, not in its field."""
    user = api.create_user("Quick", "Keys")
    page.log_in(user)
    page.map_ready()
    page.js("document.getElementById('tab-list').click()")
    page.visible("#list-view")
    # Both presses in one script: the hashchange of the first cannot run between them.
    page.js("""
        const list = document.getElementById('tab-list');
        list.focus();
        for (let i = 0; i < 2; i++) {
          document.activeElement.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
        }
    """)
    page.visible("#travel-view")
    page.until(lambda d: page.js("return document.getElementById('tab-travel').getAttribute('aria-selected')") == "true",
               5, "the Travel tab is not the selected one")
    assert focused(page).get_attribute("id") == "tab-travel"
    assert page.js("return document.getElementById('search-view').hidden")
