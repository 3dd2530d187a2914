#!/usr/bin/env bash
# Load benchmark: many clients, 90% reads / 10% writes, first alone and then while
# an attacker runs catastrophic regexes, floods logins and holds thousands of idle connections.
#
#   bash Benchmarks/LoadBenchmark/run.sh
#
# Needs Debian `wrk` and `curl`, python3 and a Swift toolchain. Settings through the
# environment: CONNECTIONS (1000 legitimate clients), DURATION (60s per phase), THREADS (2),
# REGEX_CLIENTS (8), LOGIN_CLIENTS (32), IDLE (3000 idle connections held by the attacker),
# EXTRA_FLAGS (more `serve` flags, e.g. for PostgreSQL: --database-url ...), CONFIG (release).
#
# Every client here comes from one machine. The legitimate ones share 127.0.0.1, so the
# per-address cap is raised to fit them (--max-connections-per-address, see below); the idle
# attacker connects from 127.0.0.2 and meets the same cap. Each acknowledged write's objectId
# is recorded and looked up afterwards: "missing" must be 0.
set -euo pipefail

CONNECTIONS=${CONNECTIONS:-1000}
DURATION=${DURATION:-60s}
THREADS=${THREADS:-2}
REGEX_CLIENTS=${REGEX_CLIENTS:-8}
LOGIN_CLIENTS=${LOGIN_CLIENTS:-32}
IDLE=${IDLE:-3000}
PER_ADDRESS=$((CONNECTIONS + REGEX_CLIENTS + LOGIN_CLIENTS + 64))

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
for tool in wrk python3 curl swift; do
    command -v "$tool" >/dev/null || { echo "missing: $tool (apt-get install wrk curl python3)" >&2; exit 1; }
done
ulimit -n "$(ulimit -Hn)"   # wrk's and the attacker's sockets

work=$(mktemp -d /tmp/onthemap-loadbench.XXXXXX)
server_pid=""
attackers=()
stop() {  # stop PID: TERM, wait up to 10 s, then KILL
    local pid=$1
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    for pid in "${attackers[@]}"; do stop "$pid"; done
    stop "$server_pid"
    if [[ "${KEEP_DATA:-0}" == 1 ]]; then echo "kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { printf '\n== %s\n' "$*" >&2; }
seconds() { local d=$1; d=${d%s}; echo "$d"; }

CONFIG=${CONFIG:-release}   # CONFIG=debug measures the debug build (slower; no rebuild if it is current)
log "building onthemap ($CONFIG)"
(cd "$repo" && swift build -c "$CONFIG" --product onthemap >&2)
bin="$(cd "$repo" && swift build -c "$CONFIG" --show-bin-path)/onthemap"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"

log "starting the server (demo data, per-address cap $PER_ADDRESS)"
# shellcheck disable=SC2086
"$bin" serve --demo --host 127.0.0.1 --port "$port" --data-dir "$work/data" --log-level error \
    --max-connections-per-address "$PER_ADDRESS" ${EXTRA_FLAGS:-} >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 300); do curl -fsS "$base/health" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fsS "$base/health" >/dev/null

session=$(curl -fsS -X POST "$base/api/session" -H 'Content-Type: application/json' \
    -d '{"udacity":{"username":"demo@onthemap.local","password":"onthemap-demo"}}' |
    tail -c +6 | python3 -c 'import json,sys; print(json.load(sys.stdin)["session"]["id"])')
# The catastrophic-regex victim record: sixty a's and a '!', a few dozen times.
for i in $(seq 30); do
    curl -fsS -o /dev/null -X POST "$base/parse/classes/StudentLocation" -H "X-Parse-Session-Token: $session" \
        -H 'X-Parse-Application-Id: QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr' -H 'X-Parse-REST-API-Key: QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY' \
        -H 'Content-Type: application/json' \
        -d "{\"mapString\":\"$(printf 'a%.0s' $(seq 60))!\",\"mediaURL\":\"https://example.com/$(printf 'x%.0s' $(seq 40))\",\"latitude\":1,\"longitude\":1,\"firstName\":\"A\",\"lastName\":\"B\"}"
done

run_mixed() {  # phase name
    mkdir -p "$work/ids-$1"
    SESSION=$session IDS_DIR="$work/ids-$1" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --timeout 10s \
        -s "$here/mixed.lua" "$base" >"$work/mixed-$1.txt" 2>&1 || true
    grep '^RESULT' "$work/mixed-$1.txt" || { cat "$work/mixed-$1.txt" >&2; echo "RESULT failed"; }
}

log "phase 1: $CONNECTIONS clients, $DURATION, no attacker"
quiet=$(run_mixed quiet)
echo "$quiet" >&2

log "phase 2: the same while an attacker runs $REGEX_CLIENTS regexes at a time, $LOGIN_CLIENTS login clients and $IDLE idle connections"
attack_seconds=$(( $(seconds "$DURATION") + 10 ))
python3 "$here/idle_attacker.py" 127.0.0.1 "$port" "$IDLE" "$attack_seconds" 127.0.0.2 >"$work/idle.txt" 2>"$work/idle.log" &
attackers+=($!)
wrk -t1 -c"$REGEX_CLIENTS" -d"${attack_seconds}s" --timeout 30s -s "$here/attack-regex.lua" "$base" >"$work/regex.txt" 2>&1 &
attackers+=($!)
wrk -t1 -c"$LOGIN_CLIENTS" -d"${attack_seconds}s" --timeout 30s -s "$here/attack-login.lua" "$base/api/session" >"$work/login.txt" 2>&1 &
attackers+=($!)
sleep 5
attacked=$(run_mixed attacked)
echo "$attacked" >&2
for pid in "${attackers[@]}"; do wait "$pid" 2>/dev/null || true; done
attackers=()

log "checking every acknowledged write"
stop "$server_pid"; server_pid=""
missing=$(python3 - "$work" <<'PY'
import glob, sqlite3, sys
work = sys.argv[1]
ids = [line.strip() for path in glob.glob(f"{work}/ids-*/ids-*.txt") for line in open(path) if line.strip()]
db = sqlite3.connect(f"{work}/data/onthemap.sqlite")
found = sum(1 for i in ids if db.execute("SELECT 1 FROM student_locations WHERE object_id = ?", (i,)).fetchone())
print(f"acknowledged={len(ids)} missing={len(ids) - found}")
PY
)

field() { sed -n "s/.*[ ]$2=\([^ ]*\).*/\1/p" <<<"$1"; }
echo
echo "| phase | req/s | p50 ms | p99 ms | max ms | 2xx | 4xx (124) | 5xx | socket errors + timeouts | acked writes |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for phase in quiet attacked; do
    line=$([[ $phase == quiet ]] && echo "$quiet" || echo "$attacked")
    echo "| $phase | $(field "$line" rps) | $(field "$line" p50_ms) | $(field "$line" p99_ms) | $(field "$line" max_ms) | $(field "$line" s2xx) | $(field "$line" s4xx) ($(field "$line" of_which_124)) | $(field "$line" s5xx) | $(field "$line" socket_errors) + $(field "$line" timeouts) | $(field "$line" acked_writes) |"
done
echo
echo "writes checked afterwards: $missing"
echo "regex attacker: $(grep '^RESULT' "$work/regex.txt" || tail -3 "$work/regex.txt")"
echo "login flood:    $(grep '^RESULT' "$work/login.txt" || tail -3 "$work/login.txt")"
echo "idle attacker:  $(cat "$work/idle.txt")"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), fd limit $(ulimit -n)"
