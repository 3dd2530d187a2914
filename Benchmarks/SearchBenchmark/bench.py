#!/usr/bin/env python3
"""Search benchmark: GET /api/locations/search in a class of 100,000 students (SQLite).

    swift build -c release --product onthemap
    python3 Benchmarks/SearchBenchmark/bench.py "$(swift build -c release --show-bin-path)/onthemap" [COUNT]

Seeds COUNT rows (default 100,000) with Benchmarks/ServerBenchmark/seed.py into a fresh data
folder, makes the class public, starts the server (which writes the search words of the
seeded posts at start: that time is printed too), then times each query below 30 times
over HTTP on one connection and prints the median and the 95th percentile in ms.
"""
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
QUERIES = ["muller", "Müller", "sao paulo", "berlin", "برلين", "柏林", "ana", "maria silva", "tokyo japan", "zzzz"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    data = tempfile.mkdtemp(prefix="onthemap-searchbench-")
    port = free_port()
    serve = [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", data, "--log-level", "warning"]

    def start():
        process = subprocess.Popen(serve, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started = time.time()
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                connection.request("GET", "/health")
                if connection.getresponse().status == 200:
                    return process, time.time() - started
            except OSError:
                pass
            if process.poll() is not None:
                sys.exit("server died")
            time.sleep(0.1)

    process, _ = start()  # creates and migrates the database
    process.terminate()
    process.wait()
    database = os.path.join(data, "onthemap.sqlite")
    subprocess.run([sys.executable, os.path.join(HERE, "..", "ServerBenchmark", "seed.py"), database, str(count)], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([binary, "admin", "class", "set", "main", "--visibility", "public", "--data-dir", data], check=True,
                   stdout=subprocess.DEVNULL)
    process, ready = start()
    print(f"{count} students; server ready in {ready:.1f} s (search words of every seeded post written at start)")
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        print(f"{'query':<14} {'found':>6} {'median ms':>10} {'p95 ms':>8}")
        for query in QUERIES:
            path = "/api/locations/search?" + urllib.parse.urlencode({"q": query, "limit": 100})
            times = []
            found = 0
            for _ in range(30):
                began = time.perf_counter()
                connection.request("GET", path)
                response = connection.getresponse()
                body = response.read()
                times.append((time.perf_counter() - began) * 1000)
                if response.status != 200:
                    sys.exit(f"{query}: {response.status} {body[:200]!r}")
                found = len(json.loads(body)["results"])
            times.sort()
            print(f"{query:<14} {found:>6} {statistics.median(times):>10.1f} {times[int(len(times) * 0.95) - 1]:>8.1f}")
    finally:
        process.terminate()
        process.wait()


if __name__ == "__main__":
    main()
