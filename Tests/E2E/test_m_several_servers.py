"""Travel on several servers: two `onthemap serve` processes on one PostgreSQL database and
one S3 bucket (SeaweedFS). Pins dropped on either; every photo fetched from the provider
once; viewers on both servers see albums arrive live; one server killed with SIGKILL
mid-album and the other finishes it; nothing half-written left in the bucket or database.

Needs ONTHEMAP_TEST_POSTGRES_URL (Scripts/with-postgres.sh) and ONTHEMAP_TEST_S3_ENDPOINT
(Scripts/with-seaweedfs.sh); skipped without them unless ONTHEMAP_TEST_REQUIRE_SHARED=1.
No browser: the API and the event streams are what is shared.
"""
import collections
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

import s3_support
from conftest import OUTPUT, ROOT, ServerProcess, free_port, wait_for_health
from helpers import Api
from photo_stub import PhotoStub

READY = bool(os.environ.get("ONTHEMAP_TEST_POSTGRES_URL") and os.environ.get("ONTHEMAP_TEST_S3_ENDPOINT"))
if not READY and os.environ.get("ONTHEMAP_TEST_REQUIRE_SHARED") == "1":
    raise RuntimeError("ONTHEMAP_TEST_REQUIRE_SHARED=1 needs with-postgres.sh and with-seaweedfs.sh around this run")
pytestmark = pytest.mark.skipif(not READY, reason="needs PostgreSQL and an S3 store (with-postgres.sh, with-seaweedfs.sh)")

CLAIM_SECONDS = 2


class Server:
    def __init__(self, name, database_url, photo_store, stub):
        binary = Path(os.environ.get("ONTHEMAP_BIN", ROOT / ".build" / "debug" / "onthemap"))
        if not binary.is_absolute():
            binary = ROOT / binary
        self.data_dir = tempfile.mkdtemp(prefix=f"onthemap-{name}-")
        self.base = f"http://127.0.0.1:{free_port()}"
        OUTPUT.mkdir(exist_ok=True)
        self.log = open(OUTPUT / f"e2e-several-{name}.log", "w")
        environment = {k: v for k, v in os.environ.items() if k != "FLICKR_API_KEY"}
        self.process = subprocess.Popen(
            [str(binary), "serve", "--host", "127.0.0.1", "--port", self.base.rsplit(":", 1)[1], "--data-dir", self.data_dir,
             "--database-url", database_url, "--photo-store", photo_store,
             "--photo-store-endpoint", os.environ["ONTHEMAP_TEST_S3_ENDPOINT"],
             "--photo-claim-seconds", str(CLAIM_SECONDS), "--wikimedia-api-url", stub.api_url, "--bcrypt-cost", "4"],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=self.data_dir, env=environment)
        wait_for_health(self.base, self.process)
        self.api = Api(self.base)

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    # The same clean stop as the suite's own server (SIGINT, then kill; log closed, data removed).
    stop = ServerProcess.stop


class Viewer(threading.Thread):
    """Reads one album's event stream on one server until `done` (or the time runs out)."""

    def __init__(self, base, pin_id, session):
        super().__init__(daemon=True)
        self.url, self.session = f"{base}/api/pins/{pin_id}/events", session
        self.events, self.done, self.connected = [], None, threading.Event()

    def run(self):
        request = urllib.request.Request(self.url, headers={"X-Parse-Session-Token": self.session, "Accept": "text/event-stream"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                self.connected.set()
                name = None
                for raw in response:
                    line = raw.decode().rstrip("\n")
                    if line.startswith("event: "):
                        name = line[7:]
                    elif line.startswith("data: "):
                        self.events.append(name)
                        if name == "done":
                            self.done = json.loads(line[6:])
                            return
        except OSError:
            self.connected.set()


def psql(url, sql):
    binary = sorted(Path("/usr/lib/postgresql").glob("*/bin/psql"))[-1]
    return subprocess.run([str(binary), url, "-At", "-c", sql], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def cluster():
    stub = PhotoStub().start()
    schema = "several_" + uuid.uuid4().hex[:10]
    base_url = os.environ["ONTHEMAP_TEST_POSTGRES_URL"]
    database_url = base_url + ("&" if "?" in base_url else "?") + f"schema={schema}"
    prefix = "e2e-" + uuid.uuid4().hex[:10]
    photo_store = f"s3://{os.environ['ONTHEMAP_TEST_S3_BUCKET']}/{prefix}"
    servers = []
    try:
        servers.append(Server("a", database_url, photo_store, stub))
        servers.append(Server("b", database_url, photo_store, stub))
        yield stub, servers, base_url, schema, prefix
    finally:
        for server in servers:
            server.stop()
        stub.stop()


def settled(api_user, pin_id, timeout=45):
    deadline = time.time() + timeout
    while time.time() < deadline:
        album = api_user.album(pin_id)
        if album["album"]["settled"] and album["album"]["status"] == "complete":
            return album
        time.sleep(0.1)
    raise AssertionError(f"album {pin_id} never settled: {album['album']}")


def test_two_servers_share_albums_and_finish_a_killed_servers_work(cluster):
    stub, (a, b), database_url, schema, prefix = cluster
    user_a = a.api.create_user("Ida", "Pfeiffer")
    user_b = b.api.log_in(user_a.email, user_a.password)  # one database: the account works on both
    user_b_session = user_b[1]

    # Pins dropped on either server; images held back until viewers on both are watching.
    stub.image_gate = threading.Semaphore(0)
    pin_1 = user_a.create_pin(48.8584, 2.2945)["id"]
    pin_2 = b.api.request("POST", "/api/pins", {"latitude": 35.6586, "longitude": 139.7454},
                          headers={"X-Parse-Session-Token": user_b_session})[1]["id"]
    viewers = [Viewer(server.base, pin, session) for server, session in ((a, user_a.session), (b, user_b_session))
               for pin in (pin_1, pin_2)]
    for viewer in viewers:
        viewer.start()
        assert viewer.connected.wait(10)
    time.sleep(0.5)
    for _ in range(100):
        stub.image_gate.release()
    albums = {pin: settled(user_a, pin) for pin in (pin_1, pin_2)}
    for viewer in viewers:
        viewer.join(30)
        assert viewer.done is not None, f"viewer on {viewer.url} saw {viewer.events}"
        assert viewer.done["album"]["ready"] == 21
        assert "album" in viewer.events[1:] or "photo" in viewer.events, viewer.events  # live, not only the end
    # Every photo fetched from the provider exactly once, across both servers.
    fetched = collections.Counter(stub.image_requests)
    assert len(fetched) == 42 and set(fetched.values()) == {1}, fetched.most_common(3)

    # Server A drops a pin and is killed with SIGKILL while its album is half downloaded.
    stub.image_requests.clear()
    stub.image_gate = threading.Semaphore(5)
    pin_3 = user_a.create_pin(-33.8568, 151.2153)["id"]
    deadline = time.time() + 20
    while user_a.album(pin_3)["album"]["ready"] < 5 and time.time() < deadline:
        time.sleep(0.05)
    before_kill = [p["remoteId"] for p in user_a.album(pin_3)["photos"] if p["state"] == "ready"]
    assert len(before_kill) == 5
    time.sleep(0.3)  # let A's next downloads reach the gate
    a.kill()
    for _ in range(100):
        stub.image_gate.release()
    api_b = Api(b.base)
    album = None
    deadline = time.time() + 45
    while time.time() < deadline:
        _, album = api_b.request("GET", f"/api/pins/{pin_3}/photos", headers={"X-Parse-Session-Token": user_b_session})
        if album["album"]["settled"] and album["album"]["status"] == "complete":
            break
        time.sleep(0.1)
    assert album["album"]["status"] == "complete" and album["album"]["ready"] == 21, album["album"]
    fetched = collections.Counter(stub.image_requests)
    assert len(fetched) == 21
    # What A had finished is not fetched again; only downloads cut off by the kill are repeated.
    assert all(fetched[str(remote_id)] == 1 for remote_id in before_kill), (before_kill, fetched)
    assert max(fetched.values()) <= 2

    # Nothing half-written: no claim or pending row left, and the bucket holds exactly the ready images.
    url = database_url
    rows = psql(url, f"SELECT state || ':' || COALESCE(claim_owner, '-') FROM {schema}.photos")
    assert set(rows.splitlines()) == {"ready:-"}, rows
    paths = psql(url, f"SELECT file_path FROM {schema}.photos ORDER BY file_path").splitlines()
    keys = s3_support.list_keys(prefix + "/")
    assert keys == sorted(f"{prefix}/{path}" for path in paths)
    assert len(keys) == 63
