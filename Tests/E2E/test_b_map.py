import json

"""The map tab: one clustered marker per location, popups with name and link."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

MARKER_SUM_JS = """
// Every marker is either drawn as a pin or counted inside a drawn cluster.
let total = document.querySelectorAll('#map .student-pin').length;
for (const cluster of document.querySelectorAll('#map .cluster span')) {
  const text = cluster.textContent.trim();
  total += text.endsWith('k') ? NaN : Number(text);
}
return total;
"""


def test_marker_count_equals_locations(page, api):
    user = api.create_user("Map", "Counter")
    for index in range(5):
        user.post_location(f"Place {index}", latitude=-20 + index * 7, longitude=-60 + index * 25,
                           unique_key=f"{user.key}-{index}")
    page.log_in(user)
    expected = api.count()
    assert page.marker_count() == expected
    # What is drawn adds up to the same number (the whole world is in view).
    assert page.js(MARKER_SUM_JS) == expected
    assert page.find("#map-status").text == f"{expected:,} students"
    page.screenshot("map")


def test_popup_shows_name_and_link_opening_in_new_tab(page, api):
    user = api.create_user("Ada", "Lovelace")
    # Far out in the South Atlantic, so it is drawn as a pin of its own.
    user.post_location("Tristan da Cunha", latitude=-37.07, longitude=-12.31,
                       media_url="https://example.com/ada")
    page.log_in(user)
    # The student's own pin: its name says so (test_g_my_pin.py).
    pin = page.clickable('#map .student-pin[title="Ada Lovelace (you)"]')
    pin.click()
    card = page.visible(".leaflet-popup a.popup-card")
    assert card.find_element(By.CSS_SELECTOR, ".popup-name").text == "Ada Lovelace"
    assert card.find_element(By.CSS_SELECTOR, ".popup-link").text == "https://example.com/ada"
    assert card.get_attribute("href") == "https://example.com/ada"
    assert card.get_attribute("target") == "_blank"
    assert "noopener" in card.get_attribute("rel").split()
    page.screenshot("map-popup")
    windows = len(page.driver.window_handles)
    card.click()
    page.until(lambda d: len(d.window_handles) == windows + 1, 5, "the link did not open a new tab")
    page.driver.switch_to.window(page.driver.window_handles[-1])
    page.driver.close()
    page.driver.switch_to.window(page.driver.window_handles[0])


def test_user_text_is_text_and_only_http_links_are_clickable(page, api):
    user = api.create_user("Mallory", "Hacker")
    user.post_location('<img src=x onerror="window.__pwned=1">', latitude=-48.0, longitude=-120.0,
                       media_url="https://example.com/mallory", first='<b id="bold">Mal</b>', last="Hacker")
    page.log_in(user)
    name = '<b id="bold">Mal</b> Hacker'
    page.clickable(f"#map .student-pin[title='{name} (you)']").click()
    card = page.visible(".leaflet-popup .popup-card")
    assert card.find_element(By.CSS_SELECTOR, ".popup-name").text == name
    assert page.find_all("#bold") == []
    page.tab("list")
    row = page.visible("#student-list > li:first-child")
    assert '<img src=x onerror="window.__pwned=1">' in row.text
    assert page.js("return window.__pwned") is None

    # The server refuses non-http links, but older data or another server may hold them:
    # such a link is never made clickable.
    record = {"objectId": "evil000001", "uniqueKey": "evil", "firstName": "Eve", "lastName": "Script",
              "mapString": "Nowhere", "mediaURL": "javascript:window.__pwned=2", "latitude": -48.0,
              "longitude": -120.0, "createdAt": "2024-01-01T00:00:00.000Z", "updatedAt": "2024-01-01T00:00:00.000Z"}
    # The map loads from the live snapshot, the list from the Parse list: both answer it.
    _, snapshot = api.request("GET", "/api/locations/snapshot", headers={"X-Parse-Session-Token": api.reader_session})
    page.js("""
        const [list, snapshot] = arguments;
        const real = window.fetch;
        const answer = (body) => Promise.resolve(new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } }));
        window.fetch = (url, init) => String(url).includes('/parse/classes/StudentLocation') ? answer(list)
            : String(url).includes('/api/locations/snapshot') ? answer(snapshot) : real(url, init);
    """, json.dumps({"results": [record]}),
        json.dumps({"version": snapshot["version"], "count": 1, "locations": [record]}))
    page.clickable("#refresh-button").click()
    page.until(lambda d: page.marker_count() == 1, 10)
    row = page.visible("#student-list > li:first-child")
    assert "Eve Script" in row.text
    assert row.find_elements(By.CSS_SELECTOR, "a") == []
    assert "no link" in row.text
    page.tab("map")
    page.clickable("#map .student-pin[title='Eve Script']").click()
    card = page.visible(".leaflet-popup .popup-card")
    assert card.tag_name == "div"
    assert page.find_all(".leaflet-popup-content a") == []
    card.click()
    assert page.js("return window.__pwned") is None


def test_bare_host_link_is_shown_as_https(page, api):
    user = api.create_user("Bare", "Host")
    user.post_location("Nuku'alofa", latitude=-21.1, longitude=-175.2 + 10, media_url="www.linkedin.com/in/bare-host")
    page.log_in(user)
    page.clickable('#map .student-pin[title="Bare Host (you)"]').click()
    card = page.visible(".leaflet-popup a.popup-card")
    assert card.get_attribute("href") == "https://www.linkedin.com/in/bare-host"


def test_map_zooms_by_keyboard_and_buttons(page, api):
    user = api.create_user("Key", "Board")
    page.log_in(user)
    zoom = lambda: float(page.js("return document.getElementById('map').dataset.zoom"))
    start = zoom()
    page.find("#map").send_keys("+")  # Leaflet's keyboard handler: + zooms in
    page.until(lambda d: zoom() > start, 5, "keyboard + did not zoom in")
    after_key = zoom()
    page.find(".leaflet-control-zoom-in").click()
    page.until(lambda d: zoom() > after_key, 5, "the zoom button did not zoom in")
    page.find("#map").send_keys(Keys.ARROW_LEFT)  # and the arrows pan
    assert page.find_all("#map .cluster, #map .student-pin"), "markers disappeared after zooming"


CLUSTER_INDEX_JS = """
const done = arguments[arguments.length - 1];
import('/js/clusterIndex.js').then(({ ClusterIndex, mercatorX, mercatorY }) => {
  // Crowds (many at one spot), towns (spread a little) and loners, seeded so a failure repeats.
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const points = [];
  const add = (lat, lng) => points.push({ x: mercatorX(lng), y: mercatorY(lat), lat, lng });
  for (let i = 0; i < 40; i++) add(42.3736, -71.1097);            // everyone who typed "Cambridge, MA"
  for (let i = 0; i < 3000; i++) add(6.5 + random() * 0.4, 3.3 + random() * 0.4);
  for (let i = 0; i < 500; i++) add(-80 + random() * 160, -179 + random() * 358);
  const index = new ClusterIndex(60);
  index.add(points);
  const problems = [];
  for (let zoom = 1; zoom <= 12; zoom += 0.5) {
    const level = index.level(zoom);
    let total = 0;
    for (let c = 0; c < level.size; c++) total += level.count[c];
    if (total !== points.length) problems.push(`zoom ${zoom}: clusters hold ${total} of ${points.length}`);
    points.forEach((p, i) => {
      const c = level.clusterOf[i];
      if (p.x < level.minX[c] || p.x > level.maxX[c] || p.y < level.minY[c] || p.y > level.maxY[c]) problems.push(`zoom ${zoom}: point ${i} outside its cluster`);
    });
  }
  const top = index.level(12);
  const crowd = top.clusterOf[0];
  const lonersAlone = points.slice(3040).filter((p, i) => top.count[top.clusterOf[3040 + i]] === 1).length;
  // A removal is seen by the next level built.
  index.remove(points[5]);
  const after = index.level(1);
  let left = 0;
  for (let c = 0; c < after.size; c++) left += after.count[c];
  done({ problems: problems.slice(0, 5), crowd: top.count[crowd], lonersAlone, world: index.level(1).size, left });
});
"""


def test_cluster_index_accounts_for_every_student_at_every_zoom(page, api):
    page.open("/#/login")
    result = page.driver.execute_async_script(CLUSTER_INDEX_JS)
    assert result["problems"] == []
    assert result["crowd"] == 40, "students at one spot stay one cluster even at the last zoom (the map fans them out)"
    assert result["lonersAlone"] > 450, "students far from everyone stand alone at the last zoom"
    assert result["world"] < 120, "the whole world at zoom 1 is a handful of clusters, not thousands"
    assert result["left"] == 3539
