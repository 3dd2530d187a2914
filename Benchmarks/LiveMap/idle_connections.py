#!/usr/bin/env python3
"""What an idle connection costs the server, by what it did before going idle.

Starts the given onthemap binary on a fresh data folder (its default class made public),
opens N connections of one kind, waits for the server to settle and prints the growth of its
resident memory per connection. Each kind gets a server of its own, warmed with a few
connections of that kind first, so one kind's heap growth is not charged to the next.

Kinds:
  bare    connected, nothing sent
  health  one `GET /health` answered, the connection kept alive
  stream  a live-map viewer: `GET /api/locations/changes`, left open

    python3 Benchmarks/LiveMap/idle_connections.py <path to onthemap> [N] [kinds...]
"""
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time

APP_KEYS = (
    b"X-Parse-Application-Id: QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr\r\n"
    b"X-Parse-REST-API-Key: QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY\r\n"
)
REQUESTS = {
    "bare": None,
    "health": b"GET /health HTTP/1.1\r\nHost: bench\r\n\r\n",
    "stream": b"GET /api/locations/changes HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n" + APP_KEYS + b"\r\n",
}


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def settle(pid):
    """Waits until the server's CPU stays quiet for a second."""
    quiet, before = 0, cpu_ticks(pid)
    while quiet < 4:
        time.sleep(0.25)
        after = cpu_ticks(pid)
        quiet = quiet + 1 if after - before <= 1 else 0
        before = after


def open_connections(port, count, request):
    sockets = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port))
        if request:
            connection.sendall(request)
            connection.settimeout(10)
            head = connection.recv(64)
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(f"unexpected answer: {head!r}")
        sockets.append(connection)
    return sockets


def start(binary, data):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [binary, "serve", "--port", str(port), "--data-dir", data, "--log-level", "warning",
         "--max-connections-per-address", "30000", "--max-connections", "30000"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return server, port
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("the server did not start")


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
    kinds = sys.argv[3:] or list(REQUESTS)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count * 2 + 1000), hard))
    folder = tempfile.mkdtemp(prefix="onthemap-idle-")
    try:
        data = os.path.join(folder, "data")
        server, _ = start(binary, data)  # creates and migrates the database
        server.terminate()
        server.wait()
        subprocess.run([binary, "admin", "class", "set", "main", "--visibility", "public", "--data-dir", data],
                       check=True, stdout=subprocess.DEVNULL)
        for kind in kinds:
            server, port = start(binary, data)
            try:
                warm = open_connections(port, 200, REQUESTS[kind])
                settle(server.pid)
                before = rss_kb(server.pid)
                held = open_connections(port, count, REQUESTS[kind])
                settle(server.pid)
                after = rss_kb(server.pid)
                print(f"{kind}: {count} connections, server RSS {before / 1024:.0f} -> {after / 1024:.0f} MB, "
                      f"{(after - before) / count:.1f} KB each")
                for connection in warm + held:
                    connection.close()
            finally:
                server.terminate()
                server.wait()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
