#!/usr/bin/env bash
# PostgreSQL's first live-map snapshot after a start, at a million: one class of ROWS
# locations (seed.py's rows, copied into a fresh schema, vacuumed, each post with a search
# word so no opening fills any), each binary given started ROUNDS times in turn on it, and
# the time from its start until its CPU goes quiet (as run.sh measures SQLite's) printed with
# the server's and PostgreSQL's CPU over that time. Alternating binaries compares them under
# the same load (this machine moves figures by a fifth between sittings).
#
#   bash Scripts/with-postgres.sh bash Benchmarks/ServerBenchmark/first_snapshot_pg.sh BIN [BIN ...]
#
# Settings: ROWS (1000000), ROUNDS (4), POSTGRES_URL (default ONTHEMAP_TEST_POSTGRES_URL).
# Needs psql, python3, curl. A binary from before migration 23 also looks, at each opening,
# for posts without search words; with one word a post that costs it less than real posts'
# several words would (1.6-1.9 s at a million, BENCHMARKS.md).
set -euo pipefail
(( $# > 0 )) || { echo "usage: $0 BIN [BIN ...]" >&2; exit 2; }
ROWS=${ROWS:-1000000}
ROUNDS=${ROUNDS:-4}
PG=${POSTGRES_URL:-${ONTHEMAP_TEST_POSTGRES_URL:?set POSTGRES_URL or run inside Scripts/with-postgres.sh}}
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/common.sh"
work="$(mktemp -d /tmp/onthemap-first-snapshot.XXXXXX)"
schema="first_snapshot_$$"
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill -INT "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    psql "$PG" -q -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
separator='?'; [[ "$PG" == *\?* ]] && separator='&'
flags=(--data-dir "$work/pg" --database-url "$PG${separator}schema=$schema")
newest="${!#}"

start() {  # bin [directory flags...]: a server, healthy
    local bin=$1; shift
    "$bin" serve --host 127.0.0.1 --port "$port" --log-level warning "$@" >"$work/server.log" 2>&1 &
    server_pid=$!
    until curl -fsS "$base/health" >/dev/null 2>&1; do
        kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
        sleep 0.05
    done
}
stop() { kill -INT "$server_pid"; wait "$server_pid" || true; server_pid=""; }

echo "seeding $ROWS rows (SQLite, then PostgreSQL)" >&2
mkdir -p "$work/sqlite" "$work/pg"
start "$newest" --data-dir "$work/sqlite"; stop
python3 "$here/seed.py" "$work/sqlite/onthemap.sqlite" "$ROWS" >/dev/null
start "$newest" "${flags[@]}"; stop
copy_locations_to_postgres "$work/sqlite/onthemap.sqlite" "$work/rows.csv" "$PG" "$schema"
psql "$PG" -v ON_ERROR_STOP=1 -q \
    -c "INSERT INTO $schema.location_search_terms (class_id, term, object_id) SELECT class_id, '', object_id FROM $schema.student_locations" \
    -c "VACUUM ANALYZE $schema.location_search_terms"
"$newest" admin class set main --visibility members "${flags[@]}" >/dev/null

postgres_ticks() {
    local total=0 pid
    for pid in $(pgrep -x postgres); do total=$((total + $(proc_ticks "$pid"))); done
    echo "$total"
}
tick_ms=$((1000 / $(getconf CLK_TCK)))
: >"$work/results"
for round in $(seq "$ROUNDS"); do
    for bin in "$@"; do
        postgres_before=$(postgres_ticks)
        started=$(date +%s%N)
        start "$bin" "${flags[@]}"
        healthy=$(( ($(date +%s%N) - started) / 1000000 ))
        ready=$(wait_until_quiet "$server_pid" "$started")
        echo "$bin|$round|$healthy|$ready|$(( $(proc_ticks "$server_pid") * tick_ms ))|$(( ($(postgres_ticks) - postgres_before) * tick_ms ))" \
            | tee -a "$work/results" >&2
        stop
    done
done
python3 - "$work/results" "$ROWS" <<'PY'
import statistics, sys
rows = [l.strip().split("|") for l in open(sys.argv[1]) if l.strip()]
print(f"\nPostgreSQL's first snapshot, {int(sys.argv[2]):,} locations in one class:\n")
print("| binary | round | healthy | first snapshot | server CPU | PostgreSQL CPU |")
print("|---|---:|---:|---:|---:|---:|")
for bin, rnd, healthy, ready, cpu, pg in rows:
    print(f"| {bin} | {rnd} | {int(healthy) / 1000:.2f} s | {int(ready) / 1000:.2f} s | {int(cpu) / 1000:.2f} s | {int(pg) / 1000:.2f} s |")
print()
for bin in dict.fromkeys(r[0] for r in rows):
    ready = [int(r[3]) for r in rows if r[0] == bin]
    median = statistics.median(ready) / 1000
    print(f"- {bin}: median {median:.2f} s (of {len(ready)}), worst {max(ready) / 1000:.2f} s; <= 5 s: {'MET' if median <= 5 else 'MISSED'}")
PY
