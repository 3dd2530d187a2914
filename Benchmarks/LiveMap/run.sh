#!/usr/bin/env bash
# Live map benchmark: snapshot versus paging, fan-out to many viewers, memory per
# viewer. Seeds N locations into a fresh SQLite data directory, starts the built server with
# connection caps raised for the viewers, runs bench.py, cleans up.
#
#   swift build && bash Benchmarks/LiveMap/run.sh [N] [VIEWERS] [IDLE_VIEWERS]
#
# Environment: ONTHEMAP_BIN (default: the debug build's onthemap; a release build is faster).
set -euo pipefail
cd "$(dirname "$0")/../.."
COUNT="${1:-100000}"
VIEWERS="${2:-1000}"
IDLE="${3:-10000}"
BIN="${ONTHEMAP_BIN:-$(swift build --show-bin-path)/onthemap}"
WORK="$(mktemp -d)"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"

start() {
    "$BIN" serve --port 0 --data-dir "$WORK/data" --log-level warning --bcrypt-cost 4 \
        --max-connections-per-address 30000 --max-connections 30000 >"$WORK/server.out" 2>"$WORK/server.err" &
    PID=$!
    for _ in $(seq 1 300); do
        URL="$(grep -o 'http://[0-9.:]*' "$WORK/server.out" | head -1 || true)"
        [ -n "$URL" ] && curl -fsS "$URL/health" >/dev/null 2>&1 && return
        sleep 0.1
    done
    echo "server did not start" >&2; cat "$WORK/server.err" >&2; exit 1
}

start   # creates and migrates the database
kill "$PID"; wait "$PID" || true
python3 Benchmarks/ServerBenchmark/seed.py "$WORK/data/onthemap.sqlite" "$COUNT" >/dev/null
# A fresh database's default class is members-only; this benchmark reads it anonymously, as
# every map was read before classes (Benchmarks/LiveMap/two_servers.py measures classes).
"$BIN" admin class set main --visibility public --data-dir "$WORK/data" >/dev/null
start
echo "commit $(git rev-parse --short HEAD), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), binary $BIN"
python3 Benchmarks/LiveMap/bench.py "$URL" "$PID" "$VIEWERS" "$IDLE"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
