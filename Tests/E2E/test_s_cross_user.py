"""Cross-user access: user B, logged in, tries to change A's location (both mounts, by token
and by same-origin cookie), to move, delete or refill A's pins, to delete or retry A's
photos, and to read A's pins, albums, photos and images (Travel data is private: 404)."""
import os
import time

import pytest

from security_support import PARSE_HEADERS, Account, Server, figure, location, raw

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")), reason="starts servers of its own")


@pytest.fixture(scope="module")
def cross_server(photo_stub):
    with Server("--wikimedia-api-url", photo_stub.api_url, "--photos-per-album", "3", name="cross-user") as server:
        yield server


def test_user_b_cannot_touch_or_see_user_a(cross_server):
    base = cross_server.base
    a, b = Account(base, "Alice", "Owner"), Account(base, "Bob", "Intruder")
    object_id = a.post_location().json()["objectId"]
    pin_id = a.call("POST", "/api/pins", {"latitude": 48.85, "longitude": 2.35}).json()["id"]
    deadline = time.time() + 60
    while not (album := a.call("GET", f"/api/pins/{pin_id}/photos").json())["album"]["settled"]:
        assert time.time() < deadline
        time.sleep(0.3)
    photo_ids = [photo["id"] for photo in album["photos"]]
    photo_id = photo_ids[0]
    image = a.call("GET", f"/api/photos/{photo_id}/image")
    assert image.status == 200 and image.body[:4] == b"\x89PNG"

    def snapshot():
        return (location(base, object_id, a), a.call("GET", "/api/pins").json(),
                sorted(p["id"] for p in a.call("GET", f"/api/pins/{pin_id}/photos").json()["photos"]))

    before = snapshot()
    body = {"firstName": "Bob", "lastName": "Was-Here", "mapString": "Nowhere", "mediaURL": "https://evil.example",
            "latitude": 0.0, "longitude": 0.0, "uniqueKey": a.key}
    writes = [
        ("PUT", f"/parse/classes/StudentLocation/{object_id}", body, PARSE_HEADERS, (403,)),
        ("DELETE", f"/parse/classes/StudentLocation/{object_id}", None, PARSE_HEADERS, (403,)),
        ("PUT", f"/v1/StudentLocation/{object_id}", body, {}, (403,)),
        ("DELETE", f"/v1/StudentLocation/{object_id}", None, {}, (403,)),
        ("PATCH", f"/api/pins/{pin_id}", {"latitude": 1.0, "longitude": 1.0}, {}, (404,)),
        ("PUT", f"/api/pins/{pin_id}", {"latitude": 1.0, "longitude": 1.0}, {}, (404,)),
        ("DELETE", f"/api/pins/{pin_id}", None, {}, (404,)),
        ("POST", f"/api/pins/{pin_id}/collection", {}, {}, (404,)),
        *[("DELETE", f"/api/photos/{p}", None, {}, (404,)) for p in photo_ids],
        *[("POST", f"/api/photos/{p}/retry", {}, {}, (404,)) for p in photo_ids],
    ]
    reads = [
        ("GET", f"/api/pins/{pin_id}", None, {}, (404,)),
        ("GET", f"/api/pins/{pin_id}/photos", None, {}, (404,)),
        ("GET", f"/api/pins/{pin_id}/events", None, {}, (404,)),
        *[("GET", f"/api/photos/{p}", None, {}, (404,)) for p in photo_ids],
        *[("GET", f"/api/photos/{p}/image", None, {}, (404,)) for p in photo_ids],
    ]
    attempts = succeeded = 0
    wrong_status = []
    for auth in ("token", "cookie"):
        for method, path, data, headers, expected in writes + reads:
            credentials = b.token() if auth == "token" else {**b.cookie(), "Sec-Fetch-Site": "same-origin"}
            response = raw(base, method, path, data, {**headers, **credentials}, timeout=10)
            attempts += 1
            if response.status < 400:
                succeeded += 1
            if response.status not in expected:
                wrong_status.append((auth, method, path, response.status, response.body[:120]))
            if path.startswith("/parse") or path.startswith("/v1"):
                assert response.json() == {"code": 119, "error": response.json()["error"]}, response
            if "/image" in path or "/photos" in path:
                assert b"\x89PNG" not in response.body
    # B's list of pins never includes A's; a forged uniqueKey posts as B, not as A.
    attempts += 2
    if any(pin["id"] == pin_id for pin in b.call("GET", "/api/pins").json()["results"]):
        succeeded += 1
    forged = b.post_location(uniqueKey=a.key)
    assert forged.status == 201
    if location(base, forged.json()["objectId"], a)["uniqueKey"] != b.key:
        succeeded += 1
    mine = raw(base, "GET", f"/v1/StudentLocation?uniqueKey={a.key}", headers=a.token()).json()["results"]
    assert [record["objectId"] for record in mine] == [object_id]

    after = snapshot()
    changed = before != after
    figure(f"cross-user attempts {attempts} / succeeded {succeeded + int(changed)}")
    assert not succeeded and not changed, (before, after)
    assert not wrong_status, wrong_status
