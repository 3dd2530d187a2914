#!/usr/bin/env python3
"""Web map benchmark: time from navigation to every marker clustered on screen.

Starts `onthemap serve` on a fresh SQLite file, seeds N student locations (straight into
the SQLite file with Benchmarks/ServerBenchmark/seed.py while the server is stopped, or with
--seed api through the public Parse API), logs in once in headless Chromium, waits until
the server's live-map snapshot is built, then loads `/#/map` again and again and reads the
page's own performance marks:

  onthemap:locations-loaded  every location fetched and parsed (one snapshot request)
  onthemap:markers-ready     every location placed in the map's clusters, the clusters and
                             pins in view drawn (two animation frames later)

Both are milliseconds since navigation start. As references measured in the same run, the
same page fetches and parses the snapshot alone (no map: the difference is what building
and clustering the markers costs), and fetches every location the way the map did before
the snapshot existed (Parse pages of 1,000, six at once).

With --languages en,ar,de each size is measured once per language (the language the student
chose, kept on the device as the login card keeps it): what a language costs the first draw
(its catalogue is downloaded before the app starts; English's is preloaded with the page).

With --town N, after the sizes, N more students are posted a few hundred metres apart in one
town far from the others (Hanga Roa, on Easter Island) and the page clicks the town's bubble at the world's
zoom, --runs times: how long the named list of all N takes to open (the click's own work, and
until it is painted).

Usage: python3 Benchmarks/WebMap/bench.py [--sizes 10000,100000] [--runs 5] [--bin PATH] [--seed direct|api]
       [--languages en,ar] [--town 1000]
"""
import argparse
import http.client
import json
import os
import platform
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
PARSE_HEADERS = {
    "X-Parse-Application-Id": "QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr",
    "X-Parse-REST-API-Key": "QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY",
    "Content-Type": "application/json",
}
FIRST = ["Ada", "Alan", "Grace", "Linus", "Maria", "Wei", "Kofi", "Sofia", "Arjun", "Hana", "Olga", "Ben", "Lina", "Tariq"]
LAST = ["Lovelace", "Turing", "Hopper", "Chen", "Okafor", "Rossi", "Kowalski", "Nakamura", "Santos", "Müller", "Singh"]
# Places students cluster around: (lat, lng, name).
CITIES = [
    (37.39, -122.08, "Mountain View, CA"), (40.71, -74.0, "New York, NY"), (51.51, -0.13, "London, UK"),
    (52.52, 13.4, "Berlin, Germany"), (48.86, 2.35, "Paris, France"), (35.68, 139.69, "Tokyo, Japan"),
    (28.61, 77.21, "New Delhi, India"), (12.97, 77.59, "Bangalore, India"), (-23.55, -46.63, "São Paulo, Brazil"),
    (6.45, 3.39, "Lagos, Nigeria"), (-1.29, 36.82, "Nairobi, Kenya"), (30.04, 31.24, "Cairo, Egypt"),
    (-33.87, 151.21, "Sydney, Australia"), (1.35, 103.82, "Singapore"), (19.43, -99.13, "Mexico City"),
    (-34.6, -58.38, "Buenos Aires"), (55.76, 37.62, "Moscow, Russia"), (39.9, 116.4, "Beijing, China"),
    (41.01, 28.98, "Istanbul, Türkiye"), (-26.2, 28.05, "Johannesburg"), (43.65, -79.38, "Toronto, Canada"),
    (47.61, -122.33, "Seattle, WA"), (59.33, 18.07, "Stockholm"), (21.03, 105.85, "Hanoi, Vietnam"),
]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(base, method, path, body=None, headers=None):
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=60) as response:
        text = response.read().decode()
    return json.loads(text[5:] if text.startswith(")]}'") else text)


def seed(base, session, start, count, threads=16):
    """Posts `count` locations through the Parse API on `threads` keep-alive connections."""
    host, port = base.removeprefix("http://").split(":")
    rng = random.Random(start)
    bodies = []
    for index in range(start, start + count):
        lat, lng, place = rng.choice(CITIES)
        spread = rng.choice([0.05, 0.3, 2.0])
        bodies.append(json.dumps({
            "uniqueKey": f"bench-{index}", "firstName": rng.choice(FIRST), "lastName": rng.choice(LAST),
            "mapString": place, "mediaURL": f"https://example.com/student/{index}",
            "latitude": max(-85, min(85, lat + rng.gauss(0, spread))),
            "longitude": ((lng + rng.gauss(0, spread) + 180) % 360) - 180,
        }).encode())
    headers = {**PARSE_HEADERS, "X-Parse-Session-Token": session}
    lock = threading.Lock()
    cursor = [0]
    errors = []

    def worker():
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        while True:
            with lock:
                if cursor[0] >= len(bodies):
                    break
                body = bodies[cursor[0]]
                cursor[0] += 1
            connection.request("POST", "/parse/classes/StudentLocation", body=body, headers=headers)
            response = connection.getresponse()
            response.read()
            if response.status != 201:
                errors.append(response.status)
        connection.close()

    started = time.time()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    if errors:
        raise RuntimeError(f"{len(errors)} posts failed, e.g. HTTP {errors[0]}")
    return time.time() - started


FETCH_SNAPSHOT_JS = """
const done = arguments[arguments.length - 1];
(async () => {
  const t0 = performance.now();
  // As the app reads it: the binary map layout, read by its own module.
  const { readMapColumns } = await import('/js/mapColumns.js');
  const snapshot = readMapColumns(await fetch('/api/locations/snapshot/map.bin').then(r => r.arrayBuffer()));
  done({ms: performance.now() - t0, rows: snapshot.count});
})();
"""

FETCH_ONLY_JS = """
const done = arguments[arguments.length - 1];
const headers = {'X-Parse-Application-Id': 'QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr',
                 'X-Parse-REST-API-Key': 'QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY'};
const url = (limit, skip, count) => `/parse/classes/StudentLocation?limit=${limit}${skip ? '&skip=' + skip : ''}&order=-updatedAt${count ? '&count=1' : ''}`;
const get = (u) => fetch(u, {headers}).then(r => r.text()).then(t => JSON.parse(t));
(async () => {
  const t0 = performance.now();
  const first = await get(url(10000, 0, true));
  const size = first.results.length;
  const skips = [];
  for (let s = size; s < first.count; s += size) skips.push(s);
  let next = 0, rows = size;
  const worker = async () => { while (next < skips.length) { const p = await get(url(size, skips[next++])); rows += p.results.length; } };
  await Promise.all(Array.from({length: Math.min(6, skips.length)}, worker));
  done({ms: performance.now() - t0, rows});
})();
"""


TOWN = (-27.15, -109.43, "Hanga Roa, Easter Island")

OPEN_TOWN_JS = """
const [count, done] = arguments;
const bubble = [...document.querySelectorAll('#map .cluster')]
  .find((element) => Number(element.textContent.trim()) === count);
if (!bubble) { done({error: 'no bubble of ' + count}); return; }
const t0 = performance.now();
bubble.click();
const clicked = performance.now() - t0;
const names = () => document.querySelectorAll('.popup-group .group-name').length;
const shown = names();
requestAnimationFrame(() => requestAnimationFrame(() => {
  const painted = performance.now() - t0;
  // The list shows its first names at once and takes in the rest right after.
  const whole = () => (names() === count
    ? requestAnimationFrame(() => done({clicked, painted, whole: performance.now() - t0, shown, listed: names()}))
    : setTimeout(whole, 1));
  whole();
}));
"""


def seed_town(base, session, count):
    """Posts `count` students within a few hundred metres of TOWN."""
    host, port = base.removeprefix("http://").split(":")
    rng = random.Random(7)
    headers = {**PARSE_HEADERS, "X-Parse-Session-Token": session}
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    for index in range(count):
        body = json.dumps({
            "uniqueKey": f"town-{index}", "firstName": rng.choice(FIRST), "lastName": rng.choice(LAST),
            "mapString": TOWN[2], "mediaURL": f"https://example.com/town/{index}",
            "latitude": TOWN[0] + rng.gauss(0, 0.002), "longitude": TOWN[1] + rng.gauss(0, 0.002),
        })
        connection.request("POST", "/parse/classes/StudentLocation", body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        if response.status != 201:
            raise RuntimeError(f"a town post failed: HTTP {response.status}")
    connection.close()


def measure_town(driver, base, count, runs):
    """Milliseconds from a click on the town's bubble to its list (the click's work, until its
    first names are painted, until all `count` are in it and painted), each run on a freshly
    loaded map."""
    results = []
    for _ in range(runs + 1):  # the first warms up and is left out
        driver.get("about:blank")
        driver.get(base + "/#/map")
        WebDriverWait(driver, 120, poll_frequency=0.05).until(
            lambda d: d.execute_script("return document.getElementById('map').dataset.state === 'ready'"))
        result = driver.execute_async_script(OPEN_TOWN_JS, count)
        if result.get("error") or result["listed"] != count or result["shown"] < 1:
            raise RuntimeError(f"the town's list did not open with {count} names: {result}")
        results.append(result)
    return results[1:]


def measure(driver, base, expected, runs, paged_reference):
    results = []
    for run in range(runs + 1):  # run 0 warms the browser cache and is reported apart
        driver.get("about:blank")
        driver.get(base + "/#/map")
        WebDriverWait(driver, 120, poll_frequency=0.05).until(
            lambda d: d.execute_script("return document.getElementById('map').dataset.state === 'ready' && "
                                       "performance.getEntriesByName('onthemap:basemap-drawn').length > 0"))
        marks = driver.execute_script("""
            const m = (n) => { const e = performance.getEntriesByName(n); return e.length ? e[e.length - 1].startTime : null; };
            return {loaded: m('onthemap:locations-loaded'), ready: m('onthemap:markers-ready'),
                    basemap: m('onthemap:basemap-drawn'),
                    count: Number(document.getElementById('map').dataset.markerCount),
                    snapshot: performance.getEntriesByType('resource').some(e => e.name.includes('/api/locations/snapshot')),
                    drawn: document.querySelectorAll('#map .cluster, #map .student-pin').length};
        """)
        if marks["count"] != expected:
            raise RuntimeError(f"map shows {marks['count']} markers, expected {expected}")
        if not marks["snapshot"]:
            raise RuntimeError("the map paged through the Parse list instead of loading the snapshot")
        results.append(marks)
        if os.environ.get("BENCH_TIMINGS") and run == runs:
            # Where the last load's time went: the page's own marks and its slowest requests.
            timeline = driver.execute_script("""
                const marks = performance.getEntriesByType('mark').filter(e => e.name.startsWith('onthemap:'))
                  .map(e => [Math.round(e.startTime), e.name]);
                const requests = performance.getEntriesByType('resource').filter(e => e.duration > 20)
                  .map(e => [Math.round(e.startTime), Math.round(e.responseEnd), e.name.replace(location.origin, '')]);
                return {marks, requests};
            """)
            for start, name in timeline["marks"]:
                print(f"  mark {start:>6} ms  {name}", file=sys.stderr)
            for start, end, name in timeline["requests"]:
                print(f"  request {start:>6} - {end:>6} ms  {name}", file=sys.stderr)
    snapshot_only, paged = [], []
    for _ in range(runs):
        driver.get("about:blank")
        driver.get(base + "/health")
        snapshot_only.append(driver.execute_async_script(FETCH_SNAPSHOT_JS)["ms"])
        if paged_reference:
            paged.append(driver.execute_async_script(FETCH_ONLY_JS)["ms"])
    return results[0], results[1:], snapshot_only, paged


def start_server(binary, data_dir, port, log):
    server = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", data_dir,
                               "--public-dir", str(ROOT / "Sources/WebApp/Public"), "--log-level", "warning"],
                              stdout=log, stderr=subprocess.STDOUT)
    # A freshly seeded million has no search words yet: the server fills them before it listens
    # (a few minutes), so the wait is long.
    deadline = time.time() + 900
    while time.time() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server stopped (exit {server.returncode})")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
            return server
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not start")


def stop_server(server):
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def wait_for_snapshot(base, session):
    """Seconds until the snapshot answers 200 (it is built in the background at start); asked
    as the signed-in student (a new server's default class is members-only)."""
    started = time.time()
    snapshot = urllib.request.Request(base + "/api/locations/snapshot/map.bin", headers={"X-Parse-Session-Token": session})
    while True:
        try:
            with urllib.request.urlopen(snapshot, timeout=600) as response:
                response.read()
                return time.time() - started
        except urllib.error.HTTPError as error:
            if error.code != 503:
                raise
            time.sleep(0.2)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bin", default=os.environ.get("ONTHEMAP_BIN", str(ROOT / ".build/release/onthemap")))
    parser.add_argument("--output", default=str(ROOT / "test-output" / "benchmark-web.md"))
    parser.add_argument("--paged-max", type=int, default=100000,
                        help="measure the paged reference only up to this many locations (it takes minutes beyond)")
    parser.add_argument("--seed", choices=["direct", "api"], default="direct",
                        help="direct: rows written into the SQLite file while the server is stopped (fast); api: POSTs")
    parser.add_argument("--languages", default="en",
                        help="the web app's languages to measure each size in (tags of js/i18n.js), e.g. en,ar,de")
    parser.add_argument("--town", type=int, default=0,
                        help="then post this many students in one town and time opening their list")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    languages = args.languages.split(",")

    data_dir = tempfile.mkdtemp(prefix="onthemap-webbench-")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(os.path.join(data_dir, "server.log"), "w")
    server = start_server(args.bin, data_dir, port, log)
    driver = None
    rows = []
    try:
        email, password = "bench@example.com", "benchmark-password"
        request(base, "POST", "/api/users", {"email": email, "password": password, "first_name": "Bench", "last_name": "Mark"})
        session = request(base, "POST", "/api/session", {"udacity": {"username": email, "password": password}})["session"]["id"]

        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800"):
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
        driver.set_script_timeout(120)
        driver.get(base + "/#/login")
        driver.find_element(By.ID, "login-email").send_keys(email)
        driver.find_element(By.ID, "login-password").send_keys(password + Keys.ENTER)
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.getElementById('map').dataset.state === 'ready'"))
        chromium = driver.capabilities.get("browserVersion", "?")

        seeded = 0
        for size in sorted(sizes):
            if args.seed == "api":
                took = seed(base, session, seeded, size - seeded)
            else:
                stop_server(server)
                started = time.time()
                subprocess.run([sys.executable, str(ROOT / "Benchmarks/ServerBenchmark/seed.py"),
                                os.path.join(data_dir, "onthemap.sqlite"), str(size)],  # replaces every row
                               check=True, stdout=subprocess.DEVNULL)
                took = time.time() - started
                server = start_server(args.bin, data_dir, port, log)
            print(f"seeded {size - seeded} locations in {took:.1f} s ({(size - seeded) / took:.0f}/s)", flush=True)
            seeded = size
            built = wait_for_snapshot(base, session)
            rss = int(next(line.split()[1] for line in open(f"/proc/{server.pid}/status") if line.startswith("VmRSS")))
            print(f"snapshot ready {built:.1f} s after start; server RSS {rss // 1024} MB", flush=True)
            for language in languages:
                driver.get(base + "/health")
                driver.execute_script("localStorage.setItem('onthemap.language', arguments[0])", language)
                load_at_start = os.getloadavg()[0]
                cold, warm, snapshot_only, paged = measure(driver, base, size, args.runs,
                                                           size <= args.paged_max and language == languages[0])
                ready = [r["ready"] / 1000 for r in warm]
                loaded = [r["loaded"] / 1000 for r in warm]
                basemap = [r["basemap"] / 1000 for r in warm]
                fetch = [ms / 1000 for ms in snapshot_only]
                row = {
                    "size": size, "ready_median": statistics.median(ready), "ready_min": min(ready), "ready_max": max(ready),
                    "loaded_median": statistics.median(loaded), "basemap_median": statistics.median(basemap), "fetch_median": statistics.median(fetch),
                    "paged_median": statistics.median(ms / 1000 for ms in paged) if paged else None, "built": built, "rss": rss // 1024,
                    "cold_ready": cold["ready"] / 1000, "drawn": warm[-1]["drawn"],
                    "load": max(load_at_start, os.getloadavg()[0]), "language": language,
                }
                rows.append(row)
                print(f"{size:>7} locations, {language}: markers ready {row['ready_median']:.3f} s median "
                      f"(min {row['ready_min']:.3f}, max {row['ready_max']:.3f}, first load {row['cold_ready']:.3f}); "
                      f"locations loaded at {row['loaded_median']:.3f} s; basemap drawn at {row['basemap_median']:.3f} s; snapshot fetch alone {row['fetch_median']:.3f} s; "
                      f"paged fetch (before) {row['paged_median'] or 0:.3f} s; "
                      f"{row['drawn']} clusters/pins drawn; load average {row['load']:.1f}", flush=True)
        town = None
        if args.town:
            driver.get(base + "/health")
            driver.execute_script("localStorage.setItem('onthemap.language', 'en')")
            seed_town(base, session, args.town)
            runs = measure_town(driver, base, args.town, args.runs)
            town = {key: [r[key] for r in runs] for key in ("clicked", "painted", "whole")}
            town["load"] = os.getloadavg()[0]
            print(f"{args.town} students in one town: the click's work {statistics.median(town['clicked']):.1f} ms median "
                  f"(max {max(town['clicked']):.1f}), list painted at {statistics.median(town['painted']):.1f} ms median "
                  f"(max {max(town['painted']):.1f}), all {args.town} names in it and painted at "
                  f"{statistics.median(town['whole']):.1f} ms median (max {max(town['whole']):.1f}); "
                  f"load average {town['load']:.1f}", flush=True)
    finally:
        if driver:
            driver.quit()
        stop_server(server)
        log.close()
        shutil.rmtree(data_dir, ignore_errors=True)

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.processor())
    memory = next((line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal")), "0")
    targets = {10000: 0.5, 100000: 0.8}
    lines = [
        "## Web map: navigation to all markers clustered",
        "",
        "Headless Chromium loads `/#/map` (already logged in, static files cached), fetches every",
        "location in one request (the live map's snapshot in the map's column layout, gzipped, served",
        "from the server's memory), clusters them for the zoom shown and draws the clusters and pins in view.",
        "Times are from navigation start to the page's `onthemap:markers-ready` mark (after two",
        "animation frames), median of the runs after a warm-up load. The country basemap is drawn",
        "just after the markers (so it does not hold up their download); its time is shown too.",
        "References in the same run: the snapshot fetched and parsed alone (no map), and every location",
        "fetched the way the map did before the snapshot (Parse pages of 1,000, six at once). \"Snapshot",
        "built\" is from the server's start until its first snapshot answer (read once at start, in the",
        "background); RSS is the server's after that.",
        "",
        "| locations | language | markers ready (median) | min – max | first load | locations loaded | basemap drawn | snapshot alone | paged (before) | snapshot built | server RSS | load average | target |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        target = targets.get(row["size"])
        verdict = f"< {target} s {'✓' if row['ready_median'] < target else '✗'}" if target else ""
        lines.append(f"| {row['size']:,} | {row['language']} | {row['ready_median']:.3f} s | {row['ready_min']:.3f} – {row['ready_max']:.3f} s | "
                     f"{row['cold_ready']:.3f} s | {row['loaded_median']:.3f} s | {row['basemap_median']:.3f} s | {row['fetch_median']:.3f} s | "
                     f"{'%.3f s' % row['paged_median'] if row['paged_median'] else 'not measured'} | {row['built']:.1f} s | {row['rss']} MB | {row['load']:.1f} | {verdict} |")
    lines += [
        "",
        f"Command: `python3 Benchmarks/WebMap/bench.py --sizes {args.sizes} --runs {args.runs} --seed {args.seed} --languages {args.languages} "
        f"{'--town %d ' % args.town if args.town else ''}"
        f"--bin {os.path.relpath(args.bin, ROOT) if args.bin.startswith(str(ROOT)) else args.bin}` "
        f"({'a release build, `swift build -c release`' if '/release/' in args.bin else 'a DEBUG build of the server'}).",
        f"Machine: {os.cpu_count()} cores ({cpu}), {int(memory) // 1024 // 1024} GiB, {platform.system()} {platform.release()}; "
        f"Chromium {chromium} headless; server and browser on the same machine. The load average column is",
        "the 1-minute load of the whole machine while that size ran; it includes the seeding just before (well above 2 means other work shared the 2 cores).",
        "",
    ]
    if town:
        lines += [
            f"{args.town:,} students in one town, its bubble clicked at the world's zoom (median of {args.runs}): the click's work "
            f"{statistics.median(town['clicked']):.1f} ms, the named list painted at {statistics.median(town['painted']):.1f} ms "
            f"(max {max(town['painted']):.1f}), all {args.town:,} names in it and painted at {statistics.median(town['whole']):.1f} ms "
            f"(max {max(town['whole']):.1f}; target < 100 ms {'✓' if statistics.median(town['whole']) < 100 else '✗'}); "
            f"load average {town['load']:.1f}.",
            "",
        ]
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text("\n".join(lines))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    sys.exit(main())
