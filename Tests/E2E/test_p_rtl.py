"""Right to left (Arabic, <html dir="rtl">): the layout mirrors English's at phone and desktop
size — the first tab rightmost, Logout and the pin button on swapped sides, a row's avatar on
the right of the name, a sheet's Close button on the other side — while the map keeps left to
right (its zoom buttons stay top left), back arrows point right, addresses are typed left to
right, and a Latin name in the list keeps its own direction (isolated from the Arabic around it)."""
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from conftest import DESKTOP, PHONE, make_driver
from languages import fresh

SIZES = [pytest.param(PHONE, id="phone"), pytest.param(DESKTOP, id="desktop")]


def signed_in(driver, server, api, user):
    page = fresh(driver, server, api)
    page.log_in(user)
    return page


@pytest.fixture(scope="module")
def student(api):
    user = api.create_user("Ada", "Lovelace")
    user.post_location("London, United Kingdom", 51.5, -0.12, "https://example.com/ada")
    return user


@pytest.fixture(scope="module")
def arabic(arabic_browser, server, api, student):
    return signed_in(arabic_browser, server, api, student)


@pytest.fixture(scope="module")
def english(server, api, student):
    driver = make_driver(lang="en-US")
    yield signed_in(driver, server, api, student)
    driver.quit()


def box(page, css):
    """The element's box: left, right, centre (x) and width, in CSS pixels."""
    found = page.js("""
        const element = document.querySelector(arguments[0]);
        if (!element) return null;
        const r = element.getBoundingClientRect();
        return { left: r.left, right: r.right, x: r.left + r.width / 2, width: r.width, top: r.top };""", css)
    assert found, f"{css} is not on the page"
    return found


def on_tab(page, name, size):
    page.viewport(size)
    page.tab(name)


def test_the_page_is_right_to_left(arabic, english):
    assert arabic.js("return [document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
    assert english.js("return document.documentElement.dir") == "ltr"


@pytest.mark.parametrize("size", SIZES)
def test_the_first_tab_is_rightmost(arabic, english, size):
    for page in (arabic, english):
        on_tab(page, "map", size)
    tabs = ["#tab-map", "#tab-list", "#tab-search", "#tab-travel"]
    arabic_x = [box(arabic, tab)["x"] for tab in tabs]
    english_x = [box(english, tab)["x"] for tab in tabs]
    assert arabic_x == sorted(arabic_x, reverse=True), f"Arabic tabs should run right to left: {arabic_x}"
    assert english_x == sorted(english_x), f"English tabs run left to right: {english_x}"
    if size == PHONE:  # tabs of equal width: mirrored, the same distance from the other side
        assert abs(arabic_x[0] - (size[0] - english_x[0])) <= 2


@pytest.mark.parametrize("size", SIZES)
def test_logout_and_the_pin_button_swap_sides(arabic, english, size):
    for page in (arabic, english):
        on_tab(page, "map", size)
    ar_logout, ar_pin = box(arabic, "#logout-button"), box(arabic, "#add-location-button")
    en_logout, en_pin = box(english, "#logout-button"), box(english, "#add-location-button")
    assert en_logout["x"] < en_pin["x"]
    assert ar_logout["x"] > ar_pin["x"], "in Arabic Logout is on the right, the pin button on the left"
    assert ar_logout["x"] > size[0] / 2 > ar_pin["x"]
    assert abs(ar_pin["x"] - (size[0] - en_pin["x"])) <= 3, "the pin button mirrors English's"


@pytest.mark.parametrize("size", SIZES)
def test_a_rows_avatar_is_right_of_the_name(arabic, english, size, student):
    row = '#search-results > li .row'
    for page in (arabic, english):
        on_tab(page, "search", size)
        page.type_into("#search-input", "Lovelace")
        page.until(lambda d: any("Ada Lovelace" in r.text for r in page.list_rows("#search-results")), 10,
                   "the row never showed")
    ar_avatar, ar_name = box(arabic, f"{row} .avatar"), box(arabic, f"{row} .row-name")
    en_avatar, en_name = box(english, f"{row} .avatar"), box(english, f"{row} .row-name")
    assert en_avatar["right"] <= en_name["left"]
    assert ar_avatar["left"] >= ar_name["right"] - 1, "in Arabic the avatar is on the right of the name"
    # The time sits at the other end: left in Arabic.
    assert box(arabic, f"{row} .row-time")["right"] <= ar_name["left"] + 1
    # Place, then "·", then the link's host, right to left: the "·" is drawn between them.
    place, host = box(arabic, f"{row} .row-place"), box(arabic, f"{row} .row-host")
    assert host["right"] < place["left"] - 8, (place, host)
    assert arabic.js("return getComputedStyle(arguments[0], '::after').content",
                     arabic.find(f"{row} .row-meta")) == '"·"'


@pytest.mark.parametrize("size", SIZES)
def test_a_sheets_close_button_is_on_the_other_side(arabic, english, size):
    found = {}
    for name, page in (("ar", arabic), ("en", english)):
        on_tab(page, "map", size)
        page.clickable("#account-button").click()
        page.visible("#account")
        found[name] = box(page, "#account-close"), box(page, "#account-title")
        page.find("#account-close").click()
        page.gone("#account")
    (ar_close, ar_title), (en_close, en_title) = found["ar"], found["en"]
    # English puts Close at the sheet's start (left); Arabic mirrors it to the right.
    assert en_close["x"] < en_title["x"]
    assert ar_close["x"] > ar_title["x"], "in Arabic Close is at the sheet's start: on the right"


def test_the_map_keeps_left_to_right(arabic, english):
    on_tab(arabic, "map", DESKTOP)
    assert arabic.js("return getComputedStyle(document.getElementById('map')).direction") == "ltr"
    assert arabic.js("return getComputedStyle(document.querySelector('#map .leaflet-control-zoom')).direction") == "ltr"
    # Its controls stay where they are in English: zoom at the top left.
    on_tab(english, "map", DESKTOP)
    assert abs(box(arabic, "#map .leaflet-control-zoom")["left"] - box(english, "#map .leaflet-control-zoom")["left"]) <= 1
    assert box(arabic, "#map .leaflet-control-zoom")["left"] < DESKTOP[0] / 2
    # While the page around it is right to left.
    assert arabic.js("return getComputedStyle(document.getElementById('map-view')).direction") == "rtl"


def test_a_latin_name_keeps_its_own_direction(arabic):
    on_tab(arabic, "search", DESKTOP)
    arabic.type_into("#search-input", "Lovelace")
    arabic.until(lambda d: any("Ada Lovelace" in r.text for r in arabic.list_rows("#search-results")), 10)
    name = arabic.js("""
        const element = [...document.querySelectorAll('#search-results .row-name')].find((e) => e.textContent === 'Ada Lovelace');
        const style = getComputedStyle(element);
        const range = document.createRange();
        range.selectNodeContents(element);
        const text = range.getBoundingClientRect(), own = element.getBoundingClientRect();
        return { bidi: style.unicodeBidi, dir: element.getAttribute('dir'), textRight: text.right, right: own.right };""")
    assert name["bidi"] in ("isolate", "plaintext") or name["dir"] == "auto", name
    # It keeps to the row's start (the right), next to the avatar.
    assert abs(name["textRight"] - name["right"]) <= 2, name
    for css in (".row-place", ".row-host"):
        assert arabic.js(f"return getComputedStyle(document.querySelector('#search-results {css}')).unicodeBidi") in (
            "isolate", "plaintext", "isolate-override")


def test_addresses_are_typed_left_to_right(arabic):
    on_tab(arabic, "map", DESKTOP)
    arabic.clickable("#add-location-button").click()
    arabic.alert()  # replace your location?
    arabic.dismiss_alert("#alert-ok")
    arabic.visible("#add-link")
    assert arabic.js("return getComputedStyle(document.getElementById('add-link')).direction") == "ltr"
    arabic.js("document.getElementById('add-location').close()")
    assert arabic.js("return getComputedStyle(document.querySelector('input[type=email]')).direction") == "ltr"


def test_back_arrows_point_right(arabic, english, student):
    transform = "return getComputedStyle(document.querySelector(arguments[0])).transform"
    flipped = ("matrix(-1, 0, 0, 1, 0, 0)", "scaleX(-1)")
    for page in (arabic, english):  # the class scene's back link shows on a class's page
        page.open("/#/c/no-such-class/settings")
        page.visible("#class-back")
    assert arabic.js(transform, "#class-back svg") in flipped
    assert english.js(transform, "#class-back svg") == "none"
    # The album's Back to the map.
    pin = student.create_pin(48.8566, 2.3522)
    arabic.open("/#/map")
    arabic.visible("#main-scene")
    arabic.tab("travel")
    arabic.clickable(f'.travel-pin[data-pin-id="{pin["id"]}"]', 15).click()
    arabic.visible("#album-close")
    assert arabic.js(transform, "#album-close svg") in flipped


def test_an_empty_field_keeps_its_hint_on_the_right(arabic):
    on_tab(arabic, "search", DESKTOP)
    direction = "return getComputedStyle(document.getElementById('search-input')).direction"
    arabic.type_into("#search-input", "")
    assert arabic.js(direction) == "rtl", "the placeholder keeps to the right"
    arabic.type_into("#search-input", "Lovelace")
    assert arabic.js(direction) == "ltr", "what is typed takes its own direction (dir=auto)"


def test_the_arrow_toward_the_rows_end_moves_on(arabic):
    """In Arabic the tab row runs right to left: the left arrow goes to the next tab (the list,
    left of the map), the right arrow back."""
    arabic.viewport(DESKTOP)
    arabic.tab("map")
    arabic.find("#tab-map").click()
    ActionChains(arabic.driver).send_keys(Keys.ARROW_LEFT).perform()
    arabic.visible("#list-view")
    assert arabic.js("return document.activeElement.id") == "tab-list"
    ActionChains(arabic.driver).send_keys(Keys.ARROW_RIGHT).perform()
    arabic.visible("#map-view")
    assert arabic.js("return document.activeElement.id") == "tab-map"
