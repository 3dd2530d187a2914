"""Live map: another client's writes reach an open map and list without a refresh."""
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
