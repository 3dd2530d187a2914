"""Live map: another client's writes reach an open map and list without a refresh."""
import time

from helpers import PARSE_HEADERS

# What "live" promises: a change shows within a second of the write's answer.
LIVE_SECONDS = 1.0


def _edit(user, object_id, method, body=None):
    user.api.request(method, f"/parse/classes/StudentLocation/{object_id}", body,
                     headers={**PARSE_HEADERS, "X-Parse-Session-Token": user.session})


def _row_names(page):
    return [row.text.split("\n")[1] for row in page.list_rows()[:3]]


def test_other_clients_writes_appear_without_refresh(page, api):
    viewer = api.create_user("Live", "Viewer")
    page.log_in(viewer)
    page.tab("list")
    page.until(lambda d: len(page.list_rows()) > 0, 10)
    page.until(lambda d: page.find("#live-indicator").get_attribute("data-state") == "live", 10, "stream not live")
    assert page.find("#live-indicator").get_attribute("aria-label") == "Live updates on"
    # The student has scrolled down the list: a new row above must not move what they read.
    page.js("document.getElementById('list-view').scrollTop = 400")
    reading = page.js("""
        const view = document.getElementById('list-view');
        const row = [...document.querySelectorAll('#student-list > li')].find((r) => r.offsetTop + r.offsetHeight > view.scrollTop + 1);
        return row.dataset.objectId;""")
    offset = lambda: page.js(f"""
        const view = document.getElementById('list-view');
        return document.querySelector('#student-list > li[data-object-id="{reading}"]').getBoundingClientRect().top
            - view.getBoundingClientRect().top;""")
    before_offset = offset()
    markers = page.marker_count()

    poster = api.create_user("Newly", "Live")
    assert poster.session  # logged in beforehand, so the timing below is the write's alone
    object_id = poster.post_location("Hanoi, Vietnam", latitude=21.03, longitude=105.85)
    page.until(lambda d: page.list_rows()[0].get_attribute("data-object-id") == object_id, LIVE_SECONDS,
               "the new row was not at the top within a second")
    page.until(lambda d: page.marker_count() == markers + 1, LIVE_SECONDS, "the new pin was not on the map")
    assert abs(offset() - before_offset) < 2, "the row being read moved"
    assert "Newly Live" in page.list_rows()[0].text

    # Moved: the row shows the new place, still once, and the pin count is unchanged.
    _edit(poster, object_id, "PUT", {"mapString": "Lima, Peru", "latitude": -12.05, "longitude": -77.04})
    page.until(lambda d: "Lima, Peru" in page.list_rows()[0].text, LIVE_SECONDS, "the move did not show")
    assert len(page.find_all(f'#student-list > li[data-object-id="{object_id}"]')) == 1
    assert page.marker_count() == markers + 1

    # Removed: row and pin go.
    _edit(poster, object_id, "DELETE")
    page.until(lambda d: not page.find_all(f'#student-list > li[data-object-id="{object_id}"]'), LIVE_SECONDS,
               "the removed row stayed")
    page.until(lambda d: page.marker_count() == markers, LIVE_SECONDS, "the removed pin stayed")

    # The map tab shows a new pin too, highlighted for a moment.
    page.tab("map")
    second = poster.post_location("Nairobi, Kenya", latitude=-1.29, longitude=36.82)
    page.until(lambda d: page.find_all("#map path.live-pulse"), LIVE_SECONDS, "no highlight on the map")
    page.until(lambda d: page.marker_count() == markers + 1, LIVE_SECONDS)
    page.screenshot("live-map")
    _edit(poster, second, "DELETE")


def test_live_resumes_after_a_network_drop(page, api):
    viewer = api.create_user("Live", "Reconnect")
    page.log_in(viewer)
    page.until(lambda d: page.find("#live-indicator").get_attribute("data-state") == "live", 10, "stream not live")
    markers = page.marker_count()
    page.offline(True)
    poster = api.create_user("While", "Offline")
    object_id = poster.post_location("Oslo, Norway", latitude=59.91, longitude=10.75)
    page.offline(False)
    # EventSource reconnects by itself with Last-Event-ID: the missed change arrives.
    page.until(lambda d: page.marker_count() == markers + 1, 15, "the change made while offline never arrived")
    page.until(lambda d: page.find("#live-indicator").get_attribute("data-state") == "live", 15)
    _edit(poster, object_id, "DELETE")


def test_two_windows_one_posts_the_other_sees_it(page, api, server):
    """Two browsers, two students: one posts through the add-location sheet, the other's map
    and list show the new pin and row without a refresh."""
    from conftest import Page, make_driver

    viewer = api.create_user("Window", "Viewer")
    page.log_in(viewer)
    page.until(lambda d: page.find("#live-indicator").get_attribute("data-state") == "live", 10, "stream not live")
    markers = page.marker_count()

    second = make_driver()
    try:
        poster_page = Page(second, server, api)
        poster = api.create_user("Window", "Poster")
        poster_page.open("/")
        poster_page.log_in(poster)
        poster_page.clickable("#add-location-button").click()
        poster_page.visible("#add-place")
        poster_page.type_into("#add-place", "Hanoi, Vietnam")
        poster_page.type_into("#add-link", "https://example.com/window")
        poster_page.find("#add-find").click()
        poster_page.clickable("#add-finish", 20).click()
        poster_page.gone("#add-location")
        # The poster's own map has it (its own write), and so, within a second, has the viewer's.
        mine = api.locations({"uniqueKey": poster.key})["results"]
        assert len(mine) == 1
        object_id = mine[0]["objectId"]
        page.until(lambda d: page.marker_count() == markers + 1, LIVE_SECONDS, "the viewer's map did not get the pin")
        page.tab("list")
        page.until(lambda d: page.list_rows()[0].get_attribute("data-object-id") == object_id, LIVE_SECONDS,
                   "the viewer's list did not get the row")
        assert "Window Poster" in page.list_rows()[0].text
        assert "Hanoi" in page.list_rows()[0].text
        page.screenshot("live-two-windows")
    finally:
        second.quit()


def test_an_open_live_map_does_not_keep_the_server_from_stopping(photo_stub):
    """SIGTERM with a viewer connected: the stream ends and the process exits by itself
    (Hummingbird stops its server first and waits for open responses)."""
    import signal
    import socket
    import subprocess
    from conftest import ServerProcess

    server = ServerProcess(photo_stub, log_name="e2e-server-stop.log")
    try:
        host, port = server.base.split("//")[1].split(":")
        viewer = socket.create_connection((host, int(port)), timeout=10)
        # A member's stream (the map is its members').
        from helpers import Api
        session = Api(server.base).reader_session
        viewer.sendall(b"GET /api/locations/changes HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n"
                       + f"X-Parse-Session-Token: {session}\r\n\r\n".encode())
        assert b"200" in viewer.recv(4096).split(b"\r\n", 1)[0]
        server.process.send_signal(signal.SIGTERM)
        try:
            code = server.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            raise AssertionError("the server did not stop within 15 s of SIGTERM with a viewer connected")
        assert code == 0
        # The viewer's stream was ended, not left hanging.
        viewer.settimeout(5)
        rest = b""
        while chunk := viewer.recv(4096):
            rest += chunk
        viewer.close()
    finally:
        server.stop()


def test_reloading_the_map_again_and_again_never_waits_for_a_connection(page, api):
    """A browser opens six connections to one server. A page left for another used to keep its
    live stream open (Chromium keeps the page for going back), so the seventh reload waited
    about a minute for a free connection."""
    viewer = api.create_user("Many", "Reloads")
    page.log_in(viewer)
    for attempt in range(8):
        page.driver.get("about:blank")
        started = time.monotonic()
        page.driver.get(page.base + "/#/map")
        page.map_ready(timeout=30)
        page.until(lambda d: page.find("#live-indicator").get_attribute("data-state") == "live", 10, "stream not live")
        took = time.monotonic() - started
        assert took < 10, f"reload {attempt + 1} took {took:.1f} s"
