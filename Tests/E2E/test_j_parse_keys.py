"""A host's own Parse keys (`--parse-app-id`, `--parse-rest-key`): the web app sends the keys
the server gives in /config.json, so a student who signs up lists the students, posts a
location and replaces it, with no request refused (403) in the browser or the server log."""
import json
import os
import re
import urllib.request

import pytest

from conftest import OUTPUT, ServerProcess
from helpers import Api, HTTPFailure

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")), reason="starts a server of its own")

APP_ID = "host-chosen-application-id-0001"
REST_KEY = "host-chosen-rest-api-key-0002"
HOST_KEYS = {"X-Parse-Application-Id": APP_ID, "X-Parse-REST-API-Key": REST_KEY}
LOG_NAME = "e2e-server-parse-keys.log"

PLACES = {"results": [
    {"name": "Lagos", "latitude": 6.45, "longitude": 3.39, "kind": "city", "country": "Nigeria",
     "region": "Lagos", "span": {"latitudeDelta": 0.3, "longitudeDelta": 0.3}},
    {"name": "Faro", "latitude": 37.02, "longitude": -7.93, "kind": "city", "country": "Portugal",
     "region": "Faro", "span": {"latitudeDelta": 0.1, "longitudeDelta": 0.1}},
]}


def own_locations(api, key):
    query = urllib.parse.urlencode({"where": json.dumps({"uniqueKey": key}), "limit": "10"})
    _, body = api.request("GET", f"/parse/classes/StudentLocation?{query}",
                          headers={**HOST_KEYS, "X-Parse-Session-Token": api.reader_session})
    return body["results"]


def sign_up(page, first, last, email):
    page.open("/#/signup")
    page.visible("#signup-first")
    page.type_into("#signup-first", first)
    page.type_into("#signup-last", last)
    page.type_into("#signup-email", email)
    page.type_into("#signup-password", "correct-horse-battery")
    page.find("#signup-button").click()
    page.visible("#main-scene", 20)
    page.map_ready()


def post_through_the_sheet(page, place, link, replacing=False, pick=None):
    """Add Location with the geocoder answering PLACES; `pick` chooses another result."""
    page.clickable("#add-location-button").click()
    if replacing:
        title, _ = page.alert()
        assert title == "Replace Your Location?"
        page.dismiss_alert("#alert-ok")
    page.visible("#add-place")
    page.type_into("#add-place", place)
    page.type_into("#add-link", link)
    page.find("#add-find").click()
    page.visible("#add-preview")
    if pick:
        chips = page.until(lambda d: [chip for chip in page.find_all("#preview-alternatives .chip") if pick in chip.text],
                           10, f"no {pick} among the other results")
        chips[0].click()
        page.text_in("#preview-name", pick)
    page.clickable("#add-finish").click()
    page.gone("#add-location")


def refused_in_browser(page):
    return [entry["message"] for entry in page.driver.get_log("browser") if "status of 403" in entry["message"]]


def refused_in_server_log(since):
    """Requests the server refused with 403 after byte `since` of its log."""
    with open(OUTPUT / LOG_NAME) as log:
        log.seek(since)
        return [line.strip() for line in log if re.search(r" 403$", line.strip())]


def test_the_web_app_lists_posts_and_updates_with_the_hosts_own_parse_keys(page, photo_stub):
    own = ServerProcess(photo_stub, extra=["--parse-app-id", APP_ID, "--parse-rest-key", REST_KEY], log_name=LOG_NAME)
    try:
        api = Api(own.base)
        with urllib.request.urlopen(own.base + "/config.json", timeout=10) as response:
            config = json.loads(response.read())
        assert (config["parseApplicationID"], config["parseRESTAPIKey"]) == (APP_ID, REST_KEY)
        with pytest.raises(HTTPFailure) as refused:
            api.locations()  # the original apps' keys, which this host replaced
        assert refused.value.status == 403

        # A classmate posted with the host's keys: the newest location.
        mate = api.create_user("Kofi", "Mensah")
        api.request("POST", "/parse/classes/StudentLocation", {
            "uniqueKey": mate.key, "firstName": "Kofi", "lastName": "Mensah", "mapString": "Accra, Ghana",
            "mediaURL": "https://example.com/kofi", "latitude": 5.6, "longitude": -0.19,
        }, headers={**HOST_KEYS, "X-Parse-Session-Token": mate.session})

        browser_start = os.path.getsize(OUTPUT / LOG_NAME)
        page.base = own.base
        sign_up(page, "Ama", "Owusu", "ama.owusu@example.com")
        key = json.loads(page.js("return localStorage.getItem('onthemap.account')"))["key"]
        markers = page.marker_count()

        # The list comes from /parse/classes/StudentLocation.
        page.tab("list")
        page.until(lambda d: len(page.list_rows()) > 0 and "Kofi Mensah" in page.list_rows()[0].text, 15,
                   "the list did not show the newest student")
        page.tab("map")

        # Posting (POST) with the host's keys.
        page.fake_server_error("/api/geocode", status=200, body=json.dumps(PLACES))
        post_through_the_sheet(page, "Lagos", "https://example.com/ama")
        page.until(lambda d: page.marker_count() == markers + 1, 10, "the new location is not on the map")
        mine = own_locations(api, key)
        assert len(mine) == 1
        assert (mine[0]["mapString"], mine[0]["mediaURL"], mine[0]["latitude"]) == ("Lagos, Nigeria", "https://example.com/ama", 6.45)
        object_id = mine[0]["objectId"]
        page.tab("list")
        page.until(lambda d: page.list_rows()[0].get_attribute("data-object-id") == object_id, 10)

        # Replacing it (PUT) with the host's keys: the same record, moved.
        page.tab("map")
        post_through_the_sheet(page, "Faro, Portugal", "https://example.com/ama-2", replacing=True, pick="Faro")
        page.until(lambda d: [(l["mapString"], l["latitude"]) for l in own_locations(api, key)] == [("Faro, Portugal", 37.02)],
                   10, "the location was not replaced")
        assert own_locations(api, key)[0]["objectId"] == object_id
        assert page.marker_count() == markers + 1  # replaced, not added
        page.tab("list")
        page.until(lambda d: page.list_rows()[0].get_attribute("data-object-id") == object_id and
                   "Faro, Portugal" in page.list_rows()[0].text, 10, "the list does not show the new place")

        assert refused_in_browser(page) == []
        assert refused_in_server_log(browser_start) == []
    finally:
        own.stop()
