#!/usr/bin/env python3
"""Live map across servers: two `onthemap serve` on one PostgreSQL; viewers on
both; students post on either; the time from sending each POST to every viewer's event
(the write itself included: events often arrive before the POST's own answer is read).

    bash Scripts/with-postgres.sh python3 Benchmarks/LiveMap/two_servers.py [VIEWERS_PER_SERVER] [POSTS]

Environment: ONTHEMAP_TEST_POSTGRES_URL (set by with-postgres.sh), ONTHEMAP_BIN (default
the debug build). Posts alternate between the servers, so half the deliveries cross from
one server to the other (through PostgreSQL's NOTIFY and the change log) and half stay on
the server that wrote; both are reported. Standard library only.
"""
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import sse_viewers
from sse_viewers import wait_for

ROOT = Path(__file__).resolve().parents[2]
VIEWERS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
POSTS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
DATABASE = os.environ["ONTHEMAP_TEST_POSTGRES_URL"]
BINARY = os.environ.get("ONTHEMAP_BIN", str(ROOT / ".build/debug/onthemap"))
PARSE = {"X-Parse-Application-Id": "QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr",
         "X-Parse-REST-API-Key": "QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY"}


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


async def open_viewer(base, since):
    host, port = base.removeprefix("http://").split(":")
    return await sse_viewers.open_viewer(host, port, since)


async def run(bases):
    sessions = []
    for index, base in enumerate(bases):
        email = f"two{index}x{int(time.time())}@example.com"
        call(base, "/api/users", {"email": email, "password": "benchmark-pass", "first_name": "Two", "last_name": "Servers"})
        sessions.append(call(base, "/api/session", {"udacity": {"username": email, "password": "benchmark-pass"}},
                             udacity=True)["session"]["id"])
    viewers = []  # (server index, reader, writer)
    for index, base in enumerate(bases):
        version = call(base, "/api/locations/snapshot")["version"]
        for start_at in range(0, VIEWERS, 100):
            opened = await asyncio.gather(*(open_viewer(base, version) for _ in range(start_at, min(VIEWERS, start_at + 100))))
            viewers += [(index, reader, writer) for reader, writer in opened]
    print(f"{len(viewers)} viewers connected, {VIEWERS} on each server", flush=True)
    same, crossed = [], []
    loop = asyncio.get_running_loop()
    for number in range(POSTS):
        writer_index = number % 2
        name = f"Cross{number}x{int(time.time() * 1000)}"
        waits = [asyncio.ensure_future(wait_for(reader, name.encode())) for _, reader, _ in viewers]
        await asyncio.sleep(0.1)
        body = {"firstName": name, "lastName": "Bench", "mapString": "Lyon", "mediaURL": "https://example.com",
                "latitude": 45.76, "longitude": 4.84}
        sent = time.perf_counter()
        await loop.run_in_executor(None, lambda: call(bases[writer_index], "/parse/classes/StudentLocation", body,
                                                      {**PARSE, "X-Parse-Session-Token": sessions[writer_index]}))
        arrivals = await asyncio.wait_for(asyncio.gather(*waits), timeout=30)
        for (viewer_index, _, _), arrival in zip(viewers, arrivals):
            (same if viewer_index == writer_index else crossed).append(arrival - sent)
    for _, _, writer in viewers:
        writer.close()

    def report(label, values):
        values.sort()
        pick = lambda q: values[min(len(values) - 1, int(q * len(values)))] * 1000
        print(f"{label}: {len(values)} deliveries, p50 {pick(0.5):.0f} ms, p99 {pick(0.99):.0f} ms, "
              f"max {values[-1] * 1000:.0f} ms", flush=True)
    report("written on the viewer's own server", same)
    report("written on the other server      ", crossed)


def main():
    work = tempfile.mkdtemp(prefix="onthemap-two-servers-")
    processes = []
    try:
        bases = []
        for _ in range(2):
            process, base = start(work)
            processes.append(process)
            bases.append(base)
        print(f"binary {BINARY}; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}", flush=True)
        asyncio.run(run(bases))
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        for process in processes:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
