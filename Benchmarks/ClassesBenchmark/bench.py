#!/usr/bin/env python3
"""Many classes on one SQLite server: memory and latency as an administrator reads all of them.

    python3 Benchmarks/ClassesBenchmark/bench.py --bin .build/release/onthemap
    (or: bash Benchmarks/ClassesBenchmark/run.sh, which builds or takes ONTHEMAP_BIN)

Seeds, straight into a migrated SQLite file, 1,000 small classes of 100 students and 10 big
classes of 100,000 (1.1 M locations; sizes are options), all members-only, then starts
`onthemap serve` on it and, signed in as the server's administrator (the first account,
who may read every class):

1. reads every class once, in an order that spreads the big classes among the small ones:
   its first Parse page (`/c/<slug>/parse/classes/StudentLocation?limit=100&order=-updatedAt`)
   and its live-map snapshot (`/c/<slug>/api/locations/snapshot/map`, gzip). The server's RSS
   is sampled before, along the way and after (the server keeps at most 64 classes' snapshots,
   the least recently read evicted, so memory must level off). Each big class's snapshot is
   read again right after its first read (served from memory), and the first big class is
   read once more at the end (evicted by then: built again);
2. measures the first page of a small and of a big class, sequentially on one keep-alive
   connection, with the list cache (every request but the first a hit) and after a restart
   with `--no-list-cache` (every request runs the SQL): p50/p99 latency and the server's CPU
   time per request, with a raw-SQL reference (the server's SELECT through Python's sqlite3);
3. on that second server, reads every big class's snapshot back to back: fewer than 64
   classes, so all stay in memory, the most this data can make a server hold.

Standard library only. Prints Markdown tables.
"""
import argparse
import gzip
import http.client
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks/ServerBenchmark"))
import seed  # noqa: E402  (the ServerBenchmark's row generator)

PARSE = {"X-Parse-Application-Id": "QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr",
         "X-Parse-REST-API-Key": "QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY"}
FIRST_PAGE = "/parse/classes/StudentLocation?limit=100&order=-updatedAt"
LIST_SQL = ("SELECT object_id, unique_key, first_name, last_name, map_string, media_url, latitude, longitude, "
            "created_at, updated_at FROM student_locations WHERE class_id = ? AND hidden_at IS NULL AND "
            "owner_disabled = 0 AND 1 = 1 ORDER BY \"updated_at\" DESC, object_id DESC LIMIT 100 OFFSET 0")
EMAIL, PASSWORD = "classes-admin@example.com", "benchmark-pass-1"
HZ = os.sysconf("SC_CLK_TCK")


def log(message):
    print(f"== {message}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def status_kb(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ   # utime + stime


def wait_idle(pid, limit=300):
    """Waits until the server's CPU time stops growing (start-up work done); returns seconds waited."""
    started, before = time.time(), cpu_seconds(pid)
    while time.time() - started < limit:
        time.sleep(1)
        after = cpu_seconds(pid)
        if after - before <= 0.02:
            break
        before = after
    return time.time() - started


def load():
    return os.getloadavg()[0]


class Server:
    def __init__(self, binary, data, work, *flags):
        self.port = free_port()
        self.log = open(os.path.join(work, "server.log"), "a")
        self.process = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", data,
             "--log-level", "warning", "--bcrypt-cost", "4", *flags],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.pid = self.process.pid
        for _ in range(600):
            try:
                self.request("GET", "/health")
                return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(f"the server died; see {self.log.name}")
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)

    def request(self, method, path, body=None, headers=None, connection=None):
        own = connection is None
        connection = connection or self.connection()
        try:
            connection.request(method, path, body=None if body is None else json.dumps(body).encode(),
                               headers={"Content-Type": "application/json", **(headers or {})})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            if own:
                connection.close()

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def seed_database(db_path, small, small_size, big, big_size):
    """Classes and their locations, in one transaction. Returns [(slug, id, size)]."""
    started = time.time()
    classes = [(f"small-{i:04d}", f"cs{i:04d}", small_size) for i in range(small)]
    classes += [(f"big-{i:02d}", f"cb{i:02d}", big_size) for i in range(big)]
    db = sqlite3.connect(db_path, isolation_level=None)
    db.execute("PRAGMA cache_size = -400000")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO classes (id, slug, name, visibility, join_rule, invite_code, created_at) "
        "VALUES (?, ?, ?, 'members', 'invite', NULL, '2026-01-01T00:00:00.000Z')",
        [(cid, slug, slug.replace("-", " ").title()) for slug, cid, _ in classes])

    def located():
        generated = seed.rows(sum(size for *_, size in classes), random.Random(20240101))
        for _, cid, size in classes:
            for _ in range(size):
                yield (*next(generated), cid)

    db.executemany(
        "INSERT INTO student_locations (object_id, owner_key, unique_key, first_name, last_name, map_string,"
        " media_url, latitude, longitude, created_at, updated_at, class_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        located())
    db.execute("COMMIT")
    db.execute("ANALYZE")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    total = db.execute("SELECT COUNT(*) FROM student_locations").fetchone()[0]
    db.close()
    log(f"seeded {len(classes)} classes, {total} locations in {time.time() - started:.0f} s")
    return classes


def sign_in(server):
    status, _, body = server.request("POST", "/api/users", {"email": EMAIL, "password": PASSWORD,
                                                            "first_name": "Class", "last_name": "Admin"})
    if status not in (200, 201):
        log(f"sign-up answered {status} (an earlier run's account?): logging in")
    status, _, body = server.request("POST", "/api/session", {"udacity": {"username": EMAIL, "password": PASSWORD}})
    assert status == 200, (status, body[:200])
    return json.loads(body[5:])["session"]["id"]


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def sweep(server, token, classes):
    """Reads every class's first page and map snapshot once. Returns the measurements."""
    headers = {**PARSE, "X-Parse-Session-Token": token}
    snapshot_headers = {"X-Parse-Session-Token": token, "Accept-Encoding": "gzip"}
    smalls = [c for c in classes if c[0].startswith("small-")]
    bigs = [c for c in classes if c[0].startswith("big-")]
    # One big class after every len(smalls)/len(bigs) small ones, starting with a big one.
    order, step = [], max(1, len(smalls) // max(1, len(bigs)))
    for index, big in enumerate(bigs):
        order.append(big)
        order += smalls[index * step:(index + 1) * step]
    order += smalls[len(bigs) * step:]
    connection = server.connection()
    rss_samples = [(0, status_kb(server.pid, "VmRSS"))]
    page_times, small_snapshots, big_first, big_again, snapshot_bytes = [], [], [], [], {}
    cpu_before = cpu_seconds(server.pid)
    started = time.perf_counter()
    for number, (slug, _, size) in enumerate(order, 1):
        t = time.perf_counter()
        status, _, body = server.request("GET", f"/c/{slug}{FIRST_PAGE}", headers=headers, connection=connection)
        page_times.append(time.perf_counter() - t)
        assert status == 200, (slug, status, body[:200])
        assert len(json.loads(body)["results"]) == min(100, size), slug
        t = time.perf_counter()
        status, answer_headers, body = server.request("GET", f"/c/{slug}/api/locations/snapshot/map",
                                                      headers=snapshot_headers, connection=connection)
        elapsed = time.perf_counter() - t
        assert status == 200, (slug, status, body[:200])
        assert answer_headers.get("Content-Encoding") == "gzip", answer_headers
        if size > 1000:
            big_first.append(elapsed)
            count = json.loads(gzip.decompress(body))["count"]
            assert count == size, (slug, count)
            snapshot_bytes[slug] = len(body)
            for _ in range(5):
                t = time.perf_counter()
                status, _, again = server.request("GET", f"/c/{slug}/api/locations/snapshot/map",
                                                  headers=snapshot_headers, connection=connection)
                big_again.append(time.perf_counter() - t)
                assert status == 200 and len(again) == len(body)
        else:
            small_snapshots.append(elapsed)
            if number % 97 == 0:
                assert json.loads(gzip.decompress(body))["count"] == size, slug
        if number % 101 == 0 or number == len(order):
            rss_samples.append((number, status_kb(server.pid, "VmRSS")))
    sweep_seconds = time.perf_counter() - started
    sweep_cpu = cpu_seconds(server.pid) - cpu_before
    time.sleep(2)
    rss_after = status_kb(server.pid, "VmRSS")
    # The first big class was read first of all: evicted long since, so built again.
    first_big = order[0][0]
    t = time.perf_counter()
    status, _, _ = server.request("GET", f"/c/{first_big}/api/locations/snapshot/map", headers=snapshot_headers,
                                  connection=connection)
    evicted_again = time.perf_counter() - t
    assert status == 200
    rss_reread = status_kb(server.pid, "VmRSS")
    connection.close()
    return dict(order=order, page_times=page_times, small_snapshots=small_snapshots, big_first=big_first,
                big_again=big_again, evicted_again=evicted_again, rss_samples=rss_samples,
                sweep_seconds=sweep_seconds, sweep_cpu=sweep_cpu, snapshot_bytes=snapshot_bytes,
                rss_after=rss_after, rss_reread=rss_reread)


def first_pages(server, token, slug, runs):
    """`runs` sequential first-page requests on one connection (after one not counted)."""
    headers = {**PARSE, "X-Parse-Session-Token": token}
    connection = server.connection()
    status, _, body = server.request("GET", f"/c/{slug}{FIRST_PAGE}", headers=headers, connection=connection)
    assert status == 200, (status, body[:200])
    times = []
    cpu_before = cpu_seconds(server.pid)
    for _ in range(runs):
        t = time.perf_counter()
        status, _, _ = server.request("GET", f"/c/{slug}{FIRST_PAGE}", headers=headers, connection=connection)
        times.append(time.perf_counter() - t)
        assert status == 200
    cpu = cpu_seconds(server.pid) - cpu_before
    connection.close()
    return dict(p50=percentile(times, 0.5) * 1000, p99=percentile(times, 0.99) * 1000,
                cpu_us=cpu / runs * 1e6, load=load())


def raw_sql(db_path, class_id, runs=2000):
    db = sqlite3.connect(db_path)
    for _ in range(200):
        db.execute(LIST_SQL, (class_id,)).fetchall()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        rows = db.execute(LIST_SQL, (class_id,)).fetchall()
        times.append(time.perf_counter() - t)
    assert len(rows) == 100
    db.close()
    return percentile(times, 0.5) * 1e6, percentile(times, 0.99) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.environ.get("ONTHEMAP_BIN", str(ROOT / ".build/release/onthemap")))
    parser.add_argument("--small-classes", type=int, default=1000)
    parser.add_argument("--small-size", type=int, default=100)
    parser.add_argument("--big-classes", type=int, default=10)
    parser.add_argument("--big-size", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=2000, help="first-page requests per measurement")
    parser.add_argument("--keep", action="store_true", help="keep the data folder")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="onthemap-classes-")
    data = os.path.join(work, "data")
    server = None
    try:
        log(f"creating and migrating the database ({args.bin})")
        server = Server(args.bin, data, work)
        server.stop()
        server = None
        log(f"seeding {args.small_classes} classes of {args.small_size} and {args.big_classes} of {args.big_size}")
        db_path = os.path.join(data, "onthemap.sqlite")
        classes = seed_database(db_path, args.small_classes, args.small_size, args.big_classes, args.big_size)
        small_slug, small_id, _ = classes[args.small_classes // 2]
        big_slug, big_id, _ = classes[-1]

        load_start = load()
        server = Server(args.bin, data, work)
        # Start-up work: the live map prunes the change log (the seed left one entry per row)
        # and reads the default class's snapshot (empty here).
        idle_after = wait_idle(server.pid)
        log(f"server idle after {idle_after:.0f} s")
        rss_started = status_kb(server.pid, "VmRSS")
        token = sign_in(server)
        rss_before = status_kb(server.pid, "VmRSS")
        log(f"reading every class as the administrator (RSS {rss_before / 1024:.0f} MB)")
        swept = sweep(server, token, classes)
        hwm = status_kb(server.pid, "VmHWM")
        load_sweep = load()

        log("first pages, list cache on")
        cached = {name: first_pages(server, token, slug, args.runs)
                  for name, slug in (("small", small_slug), ("big", big_slug))}
        server.stop()
        server = Server(args.bin, data, work, "--no-list-cache")
        log("first pages, --no-list-cache")
        uncached = {name: first_pages(server, token, slug, args.runs)
                    for name, slug in (("small", small_slug), ("big", big_slug))}
        # The most this data can make the server hold: every big class's snapshot at once
        # (fewer than 64 classes, so none is evicted).
        rss_fresh = status_kb(server.pid, "VmRSS")
        bigs_started = time.perf_counter()
        for slug, _, size in classes:
            if size > 1000:
                status, _, _ = server.request("GET", f"/c/{slug}/api/locations/snapshot/map",
                                              headers={"X-Parse-Session-Token": token, "Accept-Encoding": "gzip"})
                assert status == 200
        all_bigs = dict(before=rss_fresh, after=status_kb(server.pid, "VmRSS"), hwm=status_kb(server.pid, "VmHWM"),
                        seconds=time.perf_counter() - bigs_started)
        server.stop()
        server = None
        raw = {"small": raw_sql(db_path, small_id), "big": raw_sql(db_path, big_id)}

        mb = lambda kb: f"{kb / 1024:.0f} MB"
        ms = lambda s: f"{s * 1000:.1f} ms"
        n_classes = len(classes)
        total = sum(size for *_, size in classes)
        print(f"\n{n_classes} classes ({args.small_classes} of {args.small_size:,}, {args.big_classes} of "
              f"{args.big_size:,}), {total:,} locations, SQLite; binary {args.bin}; {os.cpu_count()} cores; "
              f"load average {load_start:.1f} at the start, {load_sweep:.1f} after the sweep, {load():.1f} at the end\n")
        print("| server memory | RSS |")
        print("|---|---:|")
        print(f"| started, before any read | {mb(rss_started)} |")
        print(f"| signed in, before reading the classes | {mb(rss_before)} |")
        for number, kb in swept["rss_samples"][1:]:
            print(f"| after {number} classes read (first page + map snapshot) | {mb(kb)} |")
        print(f"| 2 s after reading all {n_classes} | **{mb(swept['rss_after'])}** |")
        print(f"| then the first big class read again (its snapshot built again) | {mb(swept['rss_reread'])} |")
        print(f"| peak (VmHWM) | {mb(hwm)} |")
        print(f"| another server (`--no-list-cache`, after its first-page runs) | {mb(all_bigs['before'])} |")
        print(f"| ... after reading the {args.big_classes} big classes' snapshots back to back (all kept) | "
              f"**{mb(all_bigs['after'])}** (peak {mb(all_bigs['hwm'])}, {all_bigs['seconds']:.0f} s) |")
        print()
        pages, smalls = swept["page_times"], swept["small_snapshots"]
        print("| the sweep (one client, one request at a time) | p50 | p99 | max |")
        print("|---|---:|---:|---:|")
        print(f"| first page, each class's first read (cache miss) | {ms(percentile(pages, .5))} | "
              f"{ms(percentile(pages, .99))} | {ms(max(pages))} |")
        print(f"| map snapshot, small class, first read (built) | {ms(percentile(smalls, .5))} | "
              f"{ms(percentile(smalls, .99))} | {ms(max(smalls))} |")
        print(f"| map snapshot, big class, first read (built; {len(swept['big_first'])} classes) | "
              f"{ms(percentile(swept['big_first'], .5))} | - | {ms(max(swept['big_first']))} |")
        print(f"| map snapshot, big class, read again (from memory; {len(swept['big_again'])} reads) | "
              f"{ms(percentile(swept['big_again'], .5))} | - | {ms(max(swept['big_again']))} |")
        print(f"| map snapshot, the first big class after the sweep (evicted: built again) | "
              f"{ms(swept['evicted_again'])} | - | - |")
        sizes = list(swept["snapshot_bytes"].values())
        print(f"\nSweep: {swept['sweep_seconds']:.1f} s wall, {swept['sweep_cpu']:.1f} s server CPU; "
              f"a big class's gzipped map snapshot is {statistics.median(sizes) / 1e6:.1f} MB.\n")
        print("| first page, one keep-alive connection, sequential | p50 ms | p99 ms | server CPU us/request | raw SQL p50 / p99 us | CPU / raw SQL p50 | load avg |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for label, results in (("cached", cached), ("--no-list-cache", uncached)):
            for name, slug, size in (("small", small_slug, args.small_size), ("big", big_slug, args.big_size)):
                r = results[name]
                reference = (f"{raw[name][0]:.0f} / {raw[name][1]:.0f} | {r['cpu_us'] / raw[name][0]:.1f}x"
                             if results is uncached else "- | -")
                print(f"| {label}, {name} class (`{slug}`, {size:,} students) | {r['p50']:.2f} | {r['p99']:.2f} | "
                      f"{r['cpu_us']:.0f} | {reference} | {r['load']:.1f} |")
        print(f"\n({args.runs} requests each, after one not counted; Python's http.client adds its own time to the "
              "latency, not to the server's CPU.)")
    finally:
        if server is not None:
            server.stop()
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
