#!/usr/bin/env python3
"""Live map benchmark: map load by snapshot versus paging, and fan-out latency.

    python3 Benchmarks/LiveMap/bench.py BASE_URL SERVER_PID [VIEWERS] [IDLE_VIEWERS]

Against a running server that already holds the locations (run.sh seeds and starts it):
1. Map load: one `GET /api/locations/snapshot` (plain and gzip, first and cached) against
   paging the Parse list by 1,000 (one at a time, and six at once as the web app does).
2. Fan-out: VIEWERS Server-Sent Events streams open on the server; one student posts; the
   time from the POST's answer to each viewer's `created` event, p50/p99/max (10 posts).
3. Memory: the server's resident memory before and after IDLE_VIEWERS more streams, per viewer.
Standard library only (raw sockets), so the viewers cost the client little.
"""
import asyncio
import gzip
import json
import statistics
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

import sse_viewers

BASE = sys.argv[1].rstrip("/")
PID = int(sys.argv[2])
VIEWERS = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
IDLE = int(sys.argv[4]) if len(sys.argv) > 4 else 10000
HOST, PORT = urlparse(BASE).hostname, urlparse(BASE).port
PARSE = {"X-Parse-Application-Id": "QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr",
         "X-Parse-REST-API-Key": "QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY"}


def get(path, headers=None):
    request = urllib.request.Request(BASE + path, headers=headers or {})
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.read(), dict(response.headers)


def post(path, body, headers=None, udacity=False):
    request = urllib.request.Request(BASE + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=60) as response:
        text = response.read()
    return json.loads(text[5:] if udacity else text)


def timed(function, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def rss_kb():
    with open(f"/proc/{PID}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))


def map_load():
    first = time.perf_counter()
    body, _ = get("/api/locations/snapshot")
    cold = time.perf_counter() - first
    count = json.loads(body)["count"]
    plain, body = timed(lambda: get("/api/locations/snapshot")[0])
    zipped, zbody = timed(lambda: get("/api/locations/snapshot", {"Accept-Encoding": "gzip"})[0])
    assert json.loads(gzip.decompress(zbody))["count"] == count
    _, headers = get("/api/locations/snapshot")
    not_modified = timed(lambda: _status("/api/locations/snapshot", {"If-None-Match": headers["ETag"]}))[0]
    pages = (count + 999) // 1000
    page = lambda index: get(f"/parse/classes/StudentLocation?limit=1000&skip={index * 1000}&order=-updatedAt", PARSE)[0]
    sequential, _ = timed(lambda: [page(i) for i in range(pages)], repeat=1)
    with ThreadPoolExecutor(6) as pool:
        parallel, _ = timed(lambda: list(pool.map(page, range(pages))), repeat=1)
    print(f"locations: {count:,}")
    print(f"snapshot first request (builds it): {cold * 1000:.0f} ms")
    print(f"snapshot cached, plain: {plain * 1000:.0f} ms, {len(body):,} bytes")
    print(f"snapshot cached, gzip: {zipped * 1000:.0f} ms, {len(zbody):,} bytes")
    print(f"snapshot 304 (If-None-Match): {not_modified * 1000:.1f} ms")
    print(f"Parse list, {pages} pages of 1,000 one at a time: {sequential * 1000:.0f} ms")
    print(f"Parse list, {pages} pages of 1,000 six at once: {parallel * 1000:.0f} ms")


def _status(path, headers):
    try:
        get(path, headers)
        return 200
    except urllib.error.HTTPError as error:
        return error.code


async def open_viewer(since):
    return await sse_viewers.open_viewer(HOST, PORT, since)


wait_for = sse_viewers.wait_for


async def fan_out(session):
    version = json.loads(get("/api/locations/snapshot")[0])["version"]
    viewers = []
    for start in range(0, VIEWERS, 200):
        viewers += await asyncio.gather(*(open_viewer(version) for _ in range(start, min(VIEWERS, start + 200))))
    print(f"viewers connected: {len(viewers)}")
    latencies = []
    loop = asyncio.get_running_loop()
    for index in range(10):
        name = f"Fanout{index}x{int(time.time())}"
        waits = [asyncio.ensure_future(wait_for(reader, name.encode())) for reader, _ in viewers]
        await asyncio.sleep(0.2)
        body = {"firstName": name, "lastName": "Bench", "mapString": "Lyon", "mediaURL": "https://example.com",
                "latitude": 45.76, "longitude": 4.84}
        sent = time.perf_counter()
        await loop.run_in_executor(None, lambda: post("/parse/classes/StudentLocation", body,
                                                      {**PARSE, "X-Parse-Session-Token": session}))
        answered = time.perf_counter()
        arrivals = await asyncio.gather(*waits)
        latencies += [max(0.0, arrival - answered) for arrival in arrivals]
        if index == 0:
            print(f"first post answered in {(answered - sent) * 1000:.0f} ms")
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
    print(f"fan-out to {len(viewers)} viewers, 10 posts, from the POST's answer to each viewer's event: "
          f"p50 {pick(0.5):.0f} ms, p99 {pick(0.99):.0f} ms, max {latencies[-1] * 1000:.0f} ms "
          f"(target p99 < 1 s with 10,000 viewers: {verdict(pick(0.99) < 1000 and len(viewers) >= 10000)})")
    return viewers


def verdict(met):
    """The issue's word for a target: MET or MISSED."""
    return "MET" if met else "MISSED"


async def idle(viewers):
    version = json.loads(get("/api/locations/snapshot")[0])["version"]
    before = rss_kb()
    idle = []
    for start in range(0, IDLE, 500):
        idle += await asyncio.gather(*(open_viewer(version) for _ in range(start, min(IDLE, start + 500))))
    await asyncio.sleep(2)
    after = rss_kb()
    print(f"{len(idle):,} more idle viewers: server RSS {before / 1024:.0f} MB -> {after / 1024:.0f} MB, "
          f"{(after - before) / len(idle):.1f} KB per viewer (target < 20 KB: {verdict((after - before) / len(idle) < 20)})")
    for _, writer in viewers + idle:
        writer.close()


def main():
    email = f"bench{int(time.time())}@example.com"
    post("/api/users", {"email": email, "password": "benchmark-pass", "first_name": "Bench", "last_name": "Mark"})
    session = post("/api/session", {"udacity": {"username": email, "password": "benchmark-pass"}}, udacity=True)["session"]["id"]
    map_load()
    print(f"server RSS after map load: {rss_kb() / 1024:.0f} MB")

    async def run():
        viewers = await fan_out(session)
        await idle(viewers)
    asyncio.run(run())


if __name__ == "__main__":
    main()
