"""The list tab (most recent first, infinite scroll) and the search tab."""
import uuid

from selenium.webdriver.common.by import By


def row_ids(page, css="#student-list"):
    return page.js(f"return [...document.querySelectorAll('{css} > li')].map(li => li.dataset.objectId)")


def test_list_is_most_recent_first_with_place_host_and_age(page, api):
    user = api.create_user("Lina", "Recent")
    user.post_location("Nairobi, Kenya", latitude=-1.29, longitude=36.82, media_url="https://github.com/lina")
    page.log_in(user)
    page.tab("list")
    page.until(lambda d: len(page.list_rows()) >= 100, 10, "the first page did not load")
    expected = [item["objectId"] for item in api.locations(limit=100)["results"]]
    assert row_ids(page)[:100] == expected
    first = page.list_rows()[0]
    assert first.find_element(By.CSS_SELECTOR, ".row-name").text == "Lina Recent"
    assert first.find_element(By.CSS_SELECTOR, ".row-place").text == "Nairobi, Kenya"
    assert first.find_element(By.CSS_SELECTOR, ".row-host").text == "github.com"
    assert first.find_element(By.CSS_SELECTOR, ".row-time").text in ("updated just now", "updated 1 minute ago")
    page.screenshot("list")


def test_list_loads_100_more_rows_as_you_scroll(page, api):
    user = api.create_user("Scroll", "Down")
    page.log_in(user)
    page.tab("list")
    page.until(lambda d: len(page.list_rows()) == 100, 10, "the first page should be exactly 100 rows")
    total = api.count()
    assert total > 200, "the demo data should give more than two pages"
    page.js("const v = document.getElementById('list-view'); v.scrollTop = v.scrollHeight;")
    page.until(lambda d: len(page.list_rows()) == 200, 10, "scrolling did not load the second page")
    page.js("const v = document.getElementById('list-view'); v.scrollTop = v.scrollHeight;")
    page.until(lambda d: len(page.list_rows()) == min(total, 300), 10, "scrolling did not load the third page")
    expected = [item["objectId"] for item in api.locations(limit=200)["results"]]
    assert row_ids(page)[:200] == expected
    assert len(set(row_ids(page))) == len(row_ids(page)), "duplicate rows"


def test_a_rows_link_button_opens_the_link_in_a_new_tab(page, api):
    """The row itself shows the student on the map (test_g_my_pin.py); their link is the
    row's own link button."""
    user = api.create_user("Row", "Click")
    user.post_location("Quito, Ecuador", latitude=-0.18, longitude=-78.47, media_url="https://example.com/row-click")
    page.log_in(user)
    page.tab("list")
    link = page.visible("#student-list > li:first-child a.row-link")
    assert link.get_attribute("href") == "https://example.com/row-click"
    assert link.get_attribute("target") == "_blank"
    assert "noopener" in link.get_attribute("rel").split()
    windows = len(page.driver.window_handles)
    link.click()
    page.until(lambda d: len(d.window_handles) == windows + 1, 5, "no new tab")


def test_search_filters_by_name_and_place_as_you_type(page, api):
    tag = uuid.uuid4().hex[:6]
    user = api.create_user("Zephyrine", f"Quasar{tag}")
    user.post_location(f"Reykjavik {tag}", latitude=64.1, longitude=-21.9)
    other = api.create_user("Somebody", "Else")
    other.post_location("Lima, Peru", latitude=-12.0, longitude=-77.0)
    page.log_in(user)
    page.tab("search")
    search = page.visible("#search-input")
    assert page.driver.switch_to.active_element == search
    search.send_keys(f"quasar{tag}")  # last name, any case
    page.until(lambda d: [r.text for r in page.find_all("#search-results .row-name")] == [f"Zephyrine Quasar{tag}"], 10)
    page.type_into("#search-input", f"REYKJAVIK {tag}")  # place
    page.until(lambda d: len(page.find_all("#search-results > li")) == 1
               and f"Reykjavik {tag}" in page.find("#search-results").text, 10)
    page.type_into("#search-input", f"Zephyrine Quasar{tag}")  # full name
    page.until(lambda d: len(page.find_all("#search-results > li")) == 1, 10)
    page.type_into("#search-input", "Maria")
    page.until(lambda d: len(page.find_all("#search-results > li")) > 0, 10)
    page.screenshot("search")


def test_search_escapes_regex_characters(page, api):
    tag = uuid.uuid4().hex[:6]
    user = api.create_user("Dot", f"Star{tag}")
    user.post_location(f"(a+b)* {tag}", latitude=10, longitude=10)
    page.log_in(user)
    page.tab("search")
    page.type_into("#search-input", f"(a+b)* {tag}")
    page.until(lambda d: len(page.find_all("#search-results > li")) == 1, 10, "literal text did not match")
    page.type_into("#search-input", ".*")
    page.text_in("#search-footer", "No students match")
    assert page.find_all("#search-results > li") == []


def test_search_folds_accents_and_finds_a_place_in_any_script(page, api):
    tag = uuid.uuid4().hex[:6]
    user = api.create_user("Jonas", f"Müller{tag}")
    user.post_location("Berlin, Germany", latitude=52.52, longitude=13.40)
    page.log_in(user)
    page.tab("search")
    name = f"Jonas Müller{tag}"
    page.type_into("#search-input", f"muller{tag}")  # no umlaut typed
    page.until(lambda d: [r.text for r in page.find_all("#search-results .row-name")] == [name], 10)
    for berlin in ("برلين", "柏林"):  # the place in Arabic and Chinese
        page.type_into("#search-input", f"{berlin}")
        page.until(lambda d: name in [r.text for r in page.find_all("#search-results .row-name")], 10, f"{berlin} did not find Berlin")


def test_search_is_debounced(page, api):
    user = api.create_user("Debounce", "Check")
    page.log_in(user)
    page.tab("search")
    page.js("""
        window.__searches = 0;
        window.__realFetch = window.__realFetch || window.fetch;
        window.fetch = (url, init) => {
            if (String(url).includes('/api/locations/search')) window.__searches += 1;
            return window.__realFetch(url, init);
        };
    """)
    page.find("#search-input").send_keys("Kowalski")  # 8 keystrokes, typed quickly
    page.until(lambda d: len(page.find_all("#search-results > li")) > 0, 10)
    assert page.js("return window.__searches") == 1
