"""Path traversal: the static files and the photo image routes never serve anything outside
the public folder or the photo folder. The server runs with a copy of the web app as its
--public-dir, next to canary files whose content would show any leak."""
import itertools
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from security_support import ROOT, Account, Server, figure, raw

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")), reason="starts servers of its own")

CANARY = "CANARY-7f3a9c-outside-public"
LEAK_MARKERS = [CANARY.encode(), b"root:x:0:0", b"swift-tools-version", b"SQLite format 3", b"[core]"]


@pytest.fixture(scope="module")
def traversal_server(photo_stub):
    top = Path(tempfile.mkdtemp(prefix="onthemap-trav-"))
    public = top / "site" / "public"
    shutil.copytree(ROOT / "Sources" / "WebApp" / "Public", public)
    (top / "site" / "secret.txt").write_text(CANARY)
    (top / "secret.txt").write_text(CANARY)
    (top / "site" / "public-secret").mkdir()
    (top / "site" / "public-secret" / "x.txt").write_text(CANARY)  # a sibling whose name starts like "public"
    data = top / "data"
    data.mkdir()
    (data / "secret.txt").write_text(CANARY)
    (public / "img" / "inside.txt").write_text("inside")
    server = Server("--public-dir", str(public), "--wikimedia-api-url", photo_stub.api_url, "--photos-per-album", "2",
                    data_dir=str(data), name="traversal")
    server.start()
    yield server
    server.cleanup()
    shutil.rmtree(top, ignore_errors=True)


def static_paths():
    targets = ["secret.txt", "../secret.txt", "public-secret/x.txt", "data/secret.txt", "etc/passwd",
               "Package.swift", ".git/config", "data/onthemap.sqlite"]
    ups = ["../", "..%2f", "%2e%2e/", "%2e%2e%2f", ".%2e/", "%2e./", "..%5c", "..\\", "%252e%252e%252f", "..%c0%af",
           "..%ef%bc%8f", "....//", "..;/", "%2e%2e%5c", "..%00/", "..%2F"]
    prefixes = ["/", "/js/", "/css/", "/img/", "/vendor/leaflet/", "//", "/./", "/js/%2e/"]
    paths = set()
    for prefix, up, target in itertools.product(prefixes, ups, targets):
        for depth in (1, 2, 3, 6):
            paths.add(prefix + up * depth + target)
    paths.update(["/%2fetc%2fpasswd", "//etc/passwd", "/..", "/js/..", "/%00", "/index.html%00.js", "/js/main.js%00",
                  "/img/inside.txt/../../secret.txt", "/img/inside.txt%2f..%2f..%2f..%2fsecret.txt",
                  "/" + "%2e%2e%2f" * 10 + "etc/passwd", "/\\..\\..\\secret.txt", "/js/\\..\\..\\..\\secret.txt",
                  "/../public-secret/x.txt", "/%2e%2e/public-secret/x.txt", "/file:///etc/passwd",
                  "/js/main.js/../../../secret.txt", "/.%00./secret.txt"])
    return sorted(paths)


def leaked(response):
    return response.status == 200 and any(marker in response.body for marker in LEAK_MARKERS)


def test_static_and_photo_routes_never_leave_their_folder(traversal_server):
    base = traversal_server.base
    assert raw(base, "GET", "/img/inside.txt").body == b"inside"
    attempts = leaks = 0
    leaks_found = []
    statuses = {}
    for path in static_paths():
        response = raw(base, "GET", path, timeout=10)
        attempts += 1
        statuses[response.status] = statuses.get(response.status, 0) + 1
        assert response.status < 500, (path, response)
        if leaked(response):
            leaks += 1
            leaks_found.append((path, response.status))

    user = Account(base, "Photo", "Owner")
    pin = user.call("POST", "/api/pins", {"latitude": 48.85, "longitude": 2.35}).json()
    photo_ids = []
    import time
    deadline = time.time() + 60
    while time.time() < deadline:
        album = user.call("GET", f"/api/pins/{pin['id']}/photos").json()
        if album["album"]["settled"]:
            photo_ids = [photo["id"] for photo in album["photos"]]
            break
        time.sleep(0.3)
    assert photo_ids
    good = user.call("GET", f"/api/photos/{photo_ids[0]}/image")
    assert good.status == 200 and good.body[:4] == b"\x89PNG"
    photo_targets = ["secret.txt", "../secret.txt", "onthemap.sqlite", "../onthemap.sqlite", f"{pin['id']}",
                     f"photos/{pin['id']}", "etc/passwd"]
    ups = ["../", "..%2f", "%2e%2e%2f", "..%5c", "%252e%252e%252f", "..\\", ""]
    for up, target, depth in itertools.product(ups, photo_targets, (1, 3, 6)):
        for template in ("/api/photos/{}/image", "/api/photos/{}", "/api/pins/{}/photos"):
            path = template.format(up * depth + target)
            response = raw(base, "GET", path, headers=user.token(), timeout=10)
            attempts += 1
            assert response.status < 500, (path, response)
            if leaked(response) or (response.status == 200 and "/image" in path and up):
                leaks += 1
                leaks_found.append((path, response.status))
    for suffix in ("%00", "%00.png", "/..", "/../..", "%2f..%2f..%2fsecret.txt", "/%2e%2e/%2e%2e/secret.txt"):
        path = f"/api/photos/{photo_ids[0]}{suffix}/image"
        response = raw(base, "GET", path, headers=user.token(), timeout=10)
        attempts += 1
        assert response.status < 500, (path, response)
        if leaked(response) or response.status == 200:
            leaks += 1
            leaks_found.append((path, response.status))
    assert traversal_server.healthy()
    figure(f"path traversal attempts {attempts} / leaked {leaks} (static answers by status: "
           + ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items())) + ")")
    assert not leaks_found, leaks_found
