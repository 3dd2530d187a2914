"""Putting yourself on the map in Arabic and Chinese, the place written natively ("city،
country" with the language's own comma): found, previewed and posted as the place found."""
import pytest
from selenium.webdriver.common.keys import Keys

from conftest import _browser_in
from languages import catalogue, fresh


@pytest.fixture(scope="module")
def chinese_browser():
    """A browser whose first language is Simplified Chinese."""
    yield from _browser_in("zh-Hans")


def post_natively(page, api, user, typed, point, language):
    messages = catalogue(language)
    page.log_in(user)
    assert page.js("return document.documentElement.lang") == language
    page.clickable("#add-location-button").click()
    page.visible("#add-place")
    assert page.find("#add-link").get_attribute("required") is None
    page.type_into("#add-place", typed + Keys.ENTER)  # Enter with no suggestion active: Find
    page.until(lambda d: page.find("#add-preview").is_displayed() or page.find("#alert").is_displayed(), 15)
    assert page.find("#add-preview").is_displayed(), page.find("#alert").text
    assert not page.find("#preview-doubt").is_displayed(), "a real place is previewed at once"
    assert page.find("#add-finish").text == messages["add.finish"]
    shown = page.find(".preview-place").text
    page.find("#add-finish").click()
    page.gone("#add-location", 15)
    mine = api.locations({"uniqueKey": user.key})["results"]
    assert len(mine) == 1 and mine[0]["mediaURL"] == ""
    # The place as found and previewed (the geocoder may name it in the reader's language).
    assert shown.startswith(mine[0]["mapString"]), (mine[0]["mapString"], shown)
    assert abs(mine[0]["latitude"] - point[0]) < 0.5 and abs(mine[0]["longitude"] - point[1]) < 0.5, mine[0]


@pytest.mark.geocoding
def test_cairo_written_in_arabic(arabic_browser, server, api):
    page = fresh(arabic_browser, server, api)
    post_natively(page, api, api.create_user("سلمى", "حسن"), "القاهرة، مصر", (30.04, 31.24), "ar")


@pytest.mark.geocoding
def test_beijing_written_in_chinese(chinese_browser, server, api):
    page = fresh(chinese_browser, server, api)
    post_natively(page, api, api.create_user("明", "李"), "北京，中国", (39.9, 116.4), "zh-Hans")
