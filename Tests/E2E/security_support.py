"""Shared helpers for the security suite (test_s_*.py): a private server process with its
own flags and data directory, raw HTTP with full control of headers and bodies, and the
small vocabulary (users, sessions, locations) the tests share."""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "test-output"
PARSE_HEADERS = {
    "X-Parse-Application-Id": "QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr",
    "X-Parse-REST-API-Key": "QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY",
}
PASSWORD = "correct-horse-battery"
UDACITY_PREFIX = b")]}'\n"


def binary():
    path = Path(os.environ.get("ONTHEMAP_BIN", ROOT / ".build" / "debug" / "onthemap"))
    return path if path.is_absolute() else ROOT / path


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def figure(text):
    """Prints a figure the suite reports (visible with -s and in the captured output)."""
    print(f"\nFIGURE: {text}", flush=True)
    OUTPUT.mkdir(exist_ok=True)
    with open(OUTPUT / "security-figures.txt", "a") as out:
        out.write(text + "\n")


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def headers_all(self, name):
        return [value for key, value in self.headers if key.lower() == name.lower()]

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")

    def json(self):
        body = self.body
        if body.startswith(UDACITY_PREFIX):
            body = body[len(UDACITY_PREFIX):]
        return json.loads(body) if body else None

    def __repr__(self):
        return f"<{self.status} {self.body[:200]!r}>"


def raw(base, method, path, body=None, headers=None, timeout=30):
    """One request with exactly these headers (no redirects, no cookie jar). `body` may be
    bytes, str or a JSON-able value (then sent as application/json unless a type is given)."""
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    headers = dict(headers or {})
    if body is not None and not isinstance(body, (bytes, str)):
        body = json.dumps(body)
        headers.setdefault("Content-Type", "application/json")
    if isinstance(body, str):
        body = body.encode()
    try:
        connection.putrequest(method, path, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return Response(response.status, response.getheaders(), response.read())
    finally:
        connection.close()


class Server:
    """`onthemap serve` on a fresh data directory with extra flags; use as a context manager."""

    def __init__(self, *flags, data_dir=None, env=None, name="security"):
        self.flags = list(flags)
        self.own_dir = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="onthemap-sec-")
        self.env = env or {}
        self.name = name
        self.process = None
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"

    def start(self, timeout=60):
        OUTPUT.mkdir(exist_ok=True)
        self.log = open(OUTPUT / f"{self.name}-server.log", "a")
        environment = {k: v for k, v in os.environ.items() if k != "FLICKR_API_KEY" and not k.startswith("ONTHEMAP_")}
        environment.update(self.env)
        self.process = subprocess.Popen(
            [str(binary()), "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data_dir,
             *self.flags],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=self.data_dir, env=environment)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"onthemap serve exited with {self.process.returncode}")
            try:
                if raw(self.base, "GET", "/health", timeout=2).status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server never became healthy")

    def stop(self, kill=False):
        if self.process and self.process.poll() is None:
            if kill:
                self.process.kill()
            else:
                self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if getattr(self, "log", None):
            self.log.close()
            self.log = None

    def cleanup(self):
        self.stop()
        if self.own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def healthy(self):
        try:
            return raw(self.base, "GET", "/health", timeout=5).status == 200
        except OSError:
            return False

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.cleanup()


class Account:
    """A user made through the public API, with helpers that authenticate by cookie or token."""

    def __init__(self, base, first="Sec", last="User", email=None, password=PASSWORD):
        self.base = base
        self.email = email or f"{first.lower()}.{uuid.uuid4().hex[:10]}@example.com"
        self.password, self.first, self.last = password, first, last
        response = raw(base, "POST", "/api/users",
                       {"email": self.email, "password": password, "first_name": first, "last_name": last})
        assert response.status == 201, response
        self.key = response.json()["account"]["key"]
        self.session = self.log_in()

    def log_in(self, password=None, headers=None):
        response = raw(self.base, "POST", "/api/session",
                       {"udacity": {"username": self.email, "password": password or self.password}}, headers=headers)
        assert response.status == 200, response
        # The known-device cookie lets the owner in while the account is locked to others.
        for cookie in response.headers_all("Set-Cookie"):
            if cookie.startswith("onthemap_device="):
                self.device_cookie = cookie.split(";")[0]
        return response.json()["session"]["id"]

    def cookie(self, session=None):
        return {"Cookie": f"onthemap_session={session or self.session}"}

    def token(self, session=None):
        return {"X-Parse-Session-Token": session or self.session}

    def call(self, method, path, body=None, headers=None, session=None):
        return raw(self.base, method, path, body, {**self.token(session), **(headers or {})})

    def post_location(self, **fields):
        body = {"uniqueKey": self.key, "firstName": self.first, "lastName": self.last,
                "mapString": "Lagos, Nigeria", "mediaURL": "https://example.com/me",
                "latitude": 6.45, "longitude": 3.39, **fields}
        return raw(self.base, "POST", "/parse/classes/StudentLocation", body, {**PARSE_HEADERS, **self.token()})


def location(base, object_id, reader):
    # A new server's map is members-only: read as a member.
    response = raw(base, "GET", f"/parse/classes/StudentLocation/{object_id}", headers={**PARSE_HEADERS, **reader.token()})
    return response.json() if response.status == 200 else None


def session_alive(base, session_id):
    status = raw(base, "GET", "/api/pins", headers={"X-Parse-Session-Token": session_id}).status
    assert status in (200, 401), status
    return status == 200


def cookie_alive(base, session_id):
    status = raw(base, "GET", "/api/pins", headers={"Cookie": f"onthemap_session={session_id}"}).status
    assert status in (200, 401), status
    return status == 200
