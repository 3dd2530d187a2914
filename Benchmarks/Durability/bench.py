#!/usr/bin/env python3
"""Durable writes on SQLite, measured against a real `onthemap serve`.

    python3 Benchmarks/Durability/bench.py [--bin PATH] [--rounds 20] [--seconds 10]

0. Floor: commits per second of SQLite itself (Python's sqlite3, WAL, one 200-byte row per
   transaction) with FULL and NORMAL on the same file system: the fsync a commit waits for.
1. Cost: write throughput (StudentLocation POSTs through the Parse API, each its own
   commit) with `synchronous=FULL` (the default) and `synchronous=normal`, from 1 writer and
   from 16 at once, `--seconds` each, on a fresh database each time.
2. Crashes: `--rounds` times, 16 writers post while the server is killed with SIGKILL at a
   random moment; the server is started again on the same file and every write it had
   acknowledged (201 with an objectId) must be there. Prints acknowledged / lost.

A process kill loses nothing even with NORMAL (the OS still holds the file's pages); what
FULL adds is the power-loss guarantee, which no test on one machine can show. This measures
that the guarantee costs what the figures say and that crashes lose nothing.
Standard library only; the server binary defaults to the debug build.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid

PARSE = {"X-Parse-Application-Id": "QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr",
         "X-Parse-REST-API-Key": "QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary, data_dir, synchronous=None):
        self.binary, self.data_dir, self.synchronous = binary, data_dir, synchronous
        self.port = free_port()
        self.process = None

    def start(self):
        url = "sqlite://" + os.path.join(self.data_dir, "onthemap.sqlite")
        if self.synchronous:
            url += "?synchronous=" + self.synchronous
        self.process = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data_dir,
             "--database-url", url, "--bcrypt-cost", "4", "--log-level", "error"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if request(self.port, "GET", "/health")[0] == 200:
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def request(port, method, path, body=None, headers=None, connection=None):
    own = connection is None
    connection = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        data = json.dumps(body).encode() if body is not None else None
        connection.request(method, path, data, {"Content-Type": "application/json", **(headers or {})})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        if own:
            connection.close()


def account(port):
    email = f"durable-{uuid.uuid4().hex[:12]}@example.com"
    status, body = request(port, "POST", "/api/users",
                           {"email": email, "password": "durable-pass-phrase", "first_name": "Dur", "last_name": "Able"})
    assert status == 201, body
    key = json.loads(body)["account"]["key"]
    status, body = request(port, "POST", "/api/session", {"udacity": {"username": email, "password": "durable-pass-phrase"}})
    assert status == 200, body
    return key, json.loads(body[5:] if body.startswith(b")]}'") else body)["session"]["id"]  # Udacity's prefix


def writer(port, key, session, stop, acknowledged, lock):
    connection = None
    headers = {**PARSE, "X-Parse-Session-Token": session}
    while not stop.is_set():
        body = {"uniqueKey": key, "firstName": "Dur", "lastName": "Able", "mapString": "Lagos, Nigeria",
                "mediaURL": "https://example.com/me", "latitude": random.uniform(-80, 80), "longitude": random.uniform(-170, 170)}
        try:
            connection = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            status, answer = request(port, "POST", "/parse/classes/StudentLocation", body, headers, connection)
        except (OSError, http.client.HTTPException):
            return  # the server is gone (killed): stop writing
        if status == 201:
            with lock:
                acknowledged.append(json.loads(answer)["objectId"])


def load(server, credentials, seconds=None, kill_after=None):
    """Runs a posting thread per (key, session); returns the acknowledged objectIds."""
    stop, lock, acknowledged = threading.Event(), threading.Lock(), []
    threads = [threading.Thread(target=writer, args=(server.port, key, session, stop, acknowledged, lock))
               for key, session in credentials]
    for thread in threads:
        thread.start()
    time.sleep(kill_after if kill_after is not None else seconds)
    if kill_after is not None:
        server.kill()
    stop.set()
    for thread in threads:
        thread.join()
    return acknowledged


def present(port, object_ids):
    missing = 0
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for object_id in object_ids:
        status, _ = request(port, "GET", f"/parse/classes/StudentLocation/{object_id}", headers=PARSE, connection=connection)
        missing += status != 200
    connection.close()
    return missing


def commit_floor(directory, commits=500):
    for mode in ("FULL", "NORMAL"):
        connection = sqlite3.connect(os.path.join(directory, f"{mode}.sqlite"), isolation_level=None)
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute(f"PRAGMA synchronous = {mode}")
        connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        started = time.perf_counter()
        for _ in range(commits):
            connection.execute("BEGIN")
            connection.execute("INSERT INTO t (v) VALUES (?)", ("x" * 200,))
            connection.execute("COMMIT")
        elapsed = time.perf_counter() - started
        connection.close()
        print(f"| {mode} | {commits / elapsed:.0f} | {elapsed / commits * 1000:.2f} |", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.environ.get("ONTHEMAP_BIN", ".build/debug/onthemap"))
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    binary = os.path.abspath(args.bin)

    print(f"machine: {os.cpu_count()} cores; binary: {binary}")
    directory = tempfile.mkdtemp(prefix="onthemap-floor-")
    print("| SQLite synchronous | commits/s | ms per commit |\n|---|---|---|")
    commit_floor(directory)
    shutil.rmtree(directory, ignore_errors=True)
    print()
    print("| synchronous | writers | writes/s |\n|---|---|---|")
    for synchronous in (None, "normal"):
        for writers in (1, 16):
            directory = tempfile.mkdtemp(prefix="onthemap-durable-")
            server = Server(binary, directory, synchronous).start()
            acknowledged = load(server, [account(server.port) for _ in range(writers)], seconds=args.seconds)
            server.stop()
            shutil.rmtree(directory, ignore_errors=True)
            print(f"| {synchronous or 'full (default)'} | {writers} | {len(acknowledged) / args.seconds:.0f} |", flush=True)

    directory = tempfile.mkdtemp(prefix="onthemap-crash-")
    total = lost = 0
    server = Server(binary, directory).start()
    credentials = [account(server.port) for _ in range(16)]  # sessions outlive restarts
    server.stop()
    for round_number in range(args.rounds):
        server = Server(binary, directory).start()
        acknowledged = load(server, credentials, kill_after=random.uniform(0.5, 2.5))
        server = Server(binary, directory).start()
        missing = present(server.port, acknowledged)
        server.stop()
        total += len(acknowledged)
        lost += missing
        print(f"crash {round_number + 1}: acknowledged {len(acknowledged)}, lost {missing}", flush=True)
    shutil.rmtree(directory, ignore_errors=True)
    print(f"RESULT kill -9 rounds {args.rounds}: writes acknowledged {total} / lost {lost}")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
