#!/usr/bin/env python3
"""Live map across servers and classes: two `onthemap serve` on one PostgreSQL; two
members-only classes A and B; viewers of each class on both servers; students post in
either class on either server. Measures the time from sending each POST to every viewer of
that class receiving its event (the write itself included: events often arrive before the
POST's own answer is read), and counts the events a viewer receives of the other class
(there must be none).

    bash Scripts/with-postgres.sh python3 Benchmarks/LiveMap/two_servers.py [VIEWERS_PER_CLASS_AND_SERVER] [POSTS]

Environment: ONTHEMAP_TEST_POSTGRES_URL (set by with-postgres.sh), ONTHEMAP_BIN (default
the debug build). Post n goes to class A when n is even and B when odd, written on server 1
for n % 4 in (0, 1) and server 2 otherwise, so each class gets posts from both servers: half
the deliveries cross from one server to the other (PostgreSQL's NOTIFY, then the change log)
and half stay on the server that wrote; both are reported. Viewers open their stream with a
student's session cookie (the classes are members-only and open). Standard library only.
"""
import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import sse_viewers

ROOT = Path(__file__).resolve().parents[2]
VIEWERS = int(sys.argv[1]) if len(sys.argv) > 1 else 100
POSTS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
DATABASE = os.environ["ONTHEMAP_TEST_POSTGRES_URL"]
BINARY = os.environ.get("ONTHEMAP_BIN", str(ROOT / ".build/debug/onthemap"))
PARSE = {"X-Parse-Application-Id": "QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr",
         "X-Parse-REST-API-Key": "QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY"}
CLASSES = ("two-servers-a", "two-servers-b")
EVENT = re.compile(rb"event: (\w+)\ndata: ([^\n]*)\n\n")
MARKER = re.compile(rb"TwoSrv(\d+)x")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def call(base, path, body=None, headers=None, udacity=False):
    request = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(),
                                     method="GET" if body is None else "POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=60) as response:
        text = response.read()
    return json.loads(text[5:] if udacity else text)


def start(work):
    port = free_port()
    data = tempfile.mkdtemp(dir=work)
    log = open(os.path.join(data, "server.log"), "w")
    process = subprocess.Popen([BINARY, "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", data,
                                "--database-url", DATABASE, "--log-level", "warning", "--bcrypt-cost", "4",
                                "--max-connections-per-address", "5000", "--max-connections", "5000"],
                               stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(base + "/health", timeout=1).read()
            return process, base
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("a server did not start; see " + log.name)


def account(base, name):
    email = f"{name}x{int(time.time() * 1000)}@example.com"
    call(base, "/api/users", {"email": email, "password": "benchmark-pass", "first_name": name, "last_name": "Bench"})
    return call(base, "/api/session", {"udacity": {"username": email, "password": "benchmark-pass"}},
                udacity=True)["session"]["id"]


class Viewer:
    """One SSE stream of one class on one server; records every change event it receives."""

    def __init__(self, server, slug, reader, writer):
        self.server, self.slug, self.reader, self.writer = server, slug, reader, writer
        self.events = []   # (perf_counter, kind, post number or None)
        self.task = asyncio.ensure_future(self.read())

    async def read(self):
        buffer = b""
        while True:
            chunk = await self.reader.read(65536)
            if not chunk:
                return
            now = time.perf_counter()
            buffer += chunk
            end = 0
            for match in EVENT.finditer(buffer):
                marker = MARKER.search(match.group(2))
                self.events.append((now, match.group(1).decode(), int(marker.group(1)) if marker else None))
                end = match.end()
            buffer = buffer[end:]


async def run(bases):
    # The first account is the server's administrator: it makes the two classes, members-only and
    # open (every account is a student). Students post from either server (sessions are the database's).
    admin = account(bases[0], "Admin")
    for slug in CLASSES:
        call(bases[0], "/api/classes", {"slug": slug, "name": slug, "visibility": "members", "join": "open"},
             {"X-Parse-Session-Token": admin})
    students = [account(base, f"Student{index}") for index, base in enumerate(bases)]
    viewers = []
    for index, base in enumerate(bases):
        host, port = base.removeprefix("http://").split(":")
        for slug in CLASSES:
            for _ in range(100):   # the other server learns of a new class from the database
                try:
                    version = call(base, f"/c/{slug}/api/locations/snapshot", headers={"X-Parse-Session-Token": students[index]})["version"]
                    break
                except urllib.error.HTTPError:
                    await asyncio.sleep(0.1)
            for start_at in range(0, VIEWERS, 100):
                opened = await asyncio.gather(*(sse_viewers.open_viewer(host, port, version, f"/c/{slug}", students[index])
                                                for _ in range(start_at, min(VIEWERS, start_at + 100))))
                viewers += [Viewer(index, slug, reader, writer) for reader, writer in opened]
    print(f"{len(viewers)} viewers connected: {VIEWERS} of each class on each server", flush=True)
    posts = {}   # number -> (class slug, writing server, time sent)
    loop = asyncio.get_running_loop()
    for number in range(POSTS):
        slug, writer_index = CLASSES[number % 2], (number // 2) % 2
        expected = [v for v in viewers if v.slug == slug]
        await asyncio.sleep(0.1)
        body = {"firstName": f"TwoSrv{number}x{int(time.time() * 1000)}", "lastName": "Bench", "mapString": "Lyon",
                "mediaURL": "https://example.com", "latitude": 45.76, "longitude": 4.84}
        sent = time.perf_counter()
        posts[number] = (slug, writer_index, sent)
        await loop.run_in_executor(None, lambda: call(bases[writer_index], f"/c/{slug}/parse/classes/StudentLocation", body,
                                                      {**PARSE, "X-Parse-Session-Token": students[writer_index]}))
        deadline = sent + 30
        while not all(any(post == number for _, _, post in v.events) for v in expected):
            if time.perf_counter() > deadline:
                raise RuntimeError(f"post {number} did not reach every viewer of {slug} in 30 s")
            await asyncio.sleep(0.005)
    await asyncio.sleep(3)   # time for any event of the wrong class to arrive too
    for viewer in viewers:
        viewer.task.cancel()
        viewer.writer.close()

    same, crossed, wrong, other, reloads = [], [], 0, 0, 0
    for viewer in viewers:
        for arrived, kind, post in viewer.events:
            if kind == "reload":
                reloads += 1
            elif post is None:
                other += 1
            elif posts[post][0] != viewer.slug:
                wrong += 1
            else:
                (same if posts[post][1] == viewer.server else crossed).append(arrived - posts[post][2])

    def report(label, values):
        values.sort()
        pick = lambda q: values[min(len(values) - 1, int(q * len(values)))] * 1000
        print(f"{label}: {len(values)} deliveries, p50 {pick(0.5):.0f} ms, p99 {pick(0.99):.0f} ms, "
              f"max {values[-1] * 1000:.0f} ms", flush=True)
    report("written on the viewer's own server", same)
    report("written on the other server      ", crossed)
    print(f"events of the other class received: {wrong} (must be 0); other change events: {other}; reloads: {reloads}")
    return wrong


def main():
    work = tempfile.mkdtemp(prefix="onthemap-two-servers-")
    processes = []
    wrong = 0
    try:
        bases = []
        for _ in range(2):
            process, base = start(work)
            processes.append(process)
            bases.append(base)
        print(f"binary {BINARY}; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}", flush=True)
        wrong = asyncio.run(run(bases))
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        for process in processes:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
