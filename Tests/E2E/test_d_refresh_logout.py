"""Refresh, failed downloads (network versus server) and logout."""


def test_refresh_shows_new_locations(page, api):
    user = api.create_user("Refresh", "Me")
    page.log_in(user)
    page.tab("list")
    page.until(lambda d: len(page.list_rows()) > 0, 10)
    before = page.marker_count()
    newcomer = api.create_user("Newly", "Arrived")
    newcomer.post_location("Hanoi, Vietnam", latitude=21.03, longitude=105.85)
    page.clickable("#refresh-button").click()
    page.until(lambda d: page.list_rows()[0].text.startswith("NA\nNewly Arrived"), 10, "new row not at the top")
    page.until(lambda d: page.marker_count() == before + 1, 10, "new marker not on the map")


def test_failed_download_over_network_keeps_what_is_shown(page, api):
    user = api.create_user("Offline", "Refresh")
    page.log_in(user)
    page.tab("list")
    page.until(lambda d: len(page.list_rows()) == 100, 10)
    markers = page.marker_count()
    page.offline(True)
    page.clickable("#refresh-button").click()
    title, message = page.alert()
    assert title == "Network Error"
    assert "Cannot reach the server" in message
    page.screenshot("alert-network")
    page.dismiss_alert()
    page.offline(False)
    assert len(page.list_rows()) == 100
    assert page.marker_count() == markers
    page.tab("map")
    assert page.marker_count() == markers and page.find_all("#map .cluster, #map .student-pin")


def test_failed_download_on_the_server_says_server(page, api):
    user = api.create_user("Server", "Trouble")
    page.log_in(user)
    page.tab("list")
    page.until(lambda d: len(page.list_rows()) == 100, 10)
    markers = page.marker_count()
    page.fake_server_error("/parse/classes/StudentLocation")
    page.clickable("#refresh-button").click()
    title, message = page.alert()
    assert title == "Server Error"
    assert "server had a problem" in message and "500" in message
    page.dismiss_alert()
    assert len(page.list_rows()) == 100
    assert page.marker_count() == markers


def test_logout_ends_the_session_and_returns_to_login(page, api):
    user = api.create_user("Log", "Out")
    page.log_in(user)
    assert page.driver.get_cookie("onthemap_session")
    page.find("#logout-button").click()
    page.visible("#login-email")
    assert not page.find("#main-scene").is_displayed()
    assert page.driver.get_cookie("onthemap_session") is None
    assert page.js("return localStorage.getItem('onthemap.account')") is None
    page.driver.refresh()
    page.visible("#login-email")
    # The old session no longer writes.
    status = page.js("""
        return fetch('/parse/classes/StudentLocation', {method: 'POST', headers: {
            'Content-Type': 'application/json',
            'X-Parse-Application-Id': 'QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr',
            'X-Parse-REST-API-Key': 'QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY'},
            body: JSON.stringify({uniqueKey: 'x', firstName: 'x', lastName: 'x', mapString: 'x',
                                  mediaURL: 'https://x.example', latitude: 1, longitude: 1})}).then(r => r.status);
    """)
    assert status in (401, 403)
