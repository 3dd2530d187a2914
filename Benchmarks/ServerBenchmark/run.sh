#!/usr/bin/env bash
# Server benchmark: 1,000,000 StudentLocation rows in SQLite, measured with wrk
# against `onthemap serve` and, in the same run, against nginx serving the same bytes.
#
#   bash Benchmarks/ServerBenchmark/run.sh
#
# Needs Debian `wrk` and `nginx`, python3, and a Swift toolchain. Settings through the
# environment: ROWS (1000000), DURATION (15s), WARMUP (3s), THREADS (2), CONNECTIONS (32),
# BENCH_DATA_DIR (reuse a data folder seeded by an earlier run with KEEP_DATA=1 instead
# of seeding again). Prints a Markdown table at the end.
#
# If the server has `--no-list-cache`, the three queries are measured twice: as served by
# default (repeated identical queries answered from the in-process list cache) and with
# the cache off (every request runs the SQL, decodes rows and encodes JSON). Besides wrk's
# figures, the server's CPU time per request (from /proc) is printed: it stays meaningful
# when other work shares the machine. A raw-SQL reference (same SELECT through Python's
# sqlite3 on the same file) is measured in the same run.
#
# With POSTGRES_URL (a libpq-style URL, e.g. postgres://postgres@127.0.0.1:55432/postgres?sslmode=disable)
# the same rows are copied into a fresh schema there and the server is measured again on
# PostgreSQL, with the list cache (the default) and without, with a pgbench raw-SQL reference.
# Scripts/with-postgres.sh provides a throwaway server:
#   bash Scripts/with-postgres.sh bash -c 'POSTGRES_URL=$ONTHEMAP_TEST_POSTGRES_URL bash Benchmarks/ServerBenchmark/run.sh'
set -euo pipefail

ROWS=${ROWS:-1000000}
DURATION=${DURATION:-15s}
WARMUP=${WARMUP:-3s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
APP_ID=QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr
REST_KEY=QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY
PATH_LIST=/parse/classes/StudentLocation

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
for tool in wrk nginx python3 curl swift; do
    command -v "$tool" >/dev/null || { echo "missing: $tool (apt-get install wrk nginx curl python3)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/onthemap-serverbench.XXXXXX)
chmod 755 "$work"   # nginx workers drop root and must read the file
server_pid=""
nginx_pid=""

stop() {  # stop PID: TERM, wait up to 10 s, then KILL
    local pid=$1
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    stop "$server_pid"; server_pid=""
    stop "$nginx_pid"; nginx_pid=""
    if [[ "${KEEP_DATA:-0}" == 1 ]]; then echo "kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

log() { printf '\n== %s\n' "$*" >&2; }

# 1. Release build (the build folder may be locked by someone else's build: swift waits).
log "building onthemap (release)"
(cd "$repo" && swift build -c release --product onthemap >&2)
bin="$(cd "$repo" && swift build -c release --show-bin-path)/onthemap"

data="${BENCH_DATA_DIR:-$work/data}"
db="$data/onthemap.sqlite"
port=$(free_port)

start_server() {  # [extra serve flags...]
    "$bin" serve --host 127.0.0.1 --port "$port" --data-dir "$data" --log-level warning "$@" \
        >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 300); do
        if curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1; then return 0; fi
        kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "server died" >&2; exit 1; }
        sleep 0.1
    done
    echo "server did not become healthy" >&2; exit 1
}

# 2. Create + migrate the database once, then seed it directly.
if [[ -n "${BENCH_DATA_DIR:-}" && -f "$db" ]]; then
    log "reusing $db"
    unique_key=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT unique_key FROM student_locations ORDER BY object_id LIMIT 1 OFFSET 4242").fetchone()[0])' "$db")
else
    mkdir -p "$data"
    log "creating and migrating $db"
    start_server
    stop "$server_pid"; server_pid=""
    log "seeding $ROWS rows"
    unique_key=$(python3 "$here/seed.py" "$db" "$ROWS")
fi
rows_in_db=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM student_locations").fetchone()[0])' "$db")

# 3. Serve the seeded data; save the exact answer for nginx.
log "starting onthemap on 127.0.0.1:$port ($rows_in_db rows)"
start_server
parse_headers=(-H "X-Parse-Application-Id: $APP_ID" -H "X-Parse-REST-API-Key: $REST_KEY")
q_first="$PATH_LIST?limit=100&order=-updatedAt"
q_skip="$PATH_LIST?limit=100&skip=5000&order=-updatedAt"
q_where="$PATH_LIST?where=$(python3 -c 'import json,sys,urllib.parse; print(urllib.parse.quote(json.dumps({"uniqueKey": sys.argv[1]}, separators=(",",":")), safe=""))' "$unique_key")"

mkdir -p "$work/www"
curl -fsS "${parse_headers[@]}" "http://127.0.0.1:$port$q_first" -o "$work/www/studentlocations.json"
chmod 755 "$work/www"; chmod 644 "$work/www/studentlocations.json"
body_bytes=$(stat -c %s "$work/www/studentlocations.json")
python3 - "$work/www/studentlocations.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
assert len(results) == 100, len(results)
stamps = [r["updatedAt"] for r in results]
assert stamps == sorted(stamps, reverse=True), "not ordered by -updatedAt"
PY
where_hits=$(curl -fsS "${parse_headers[@]}" "http://127.0.0.1:$port$q_where" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["results"]))')

# nginx: one worker per core, no access log, keep-alive as long as wrk wants.
nginx_port=$(free_port)
cores=$(nproc)
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes $cores;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    keepalive_requests 1000000;
    keepalive_timeout 65s;
    sendfile on;
    tcp_nopush on;
    server {
        listen 127.0.0.1:$nginx_port;
        location = $PATH_LIST {
            default_type "application/json; charset=utf-8";
            alias $work/www/studentlocations.json;
        }
    }
}
CONF
log "starting nginx on 127.0.0.1:$nginx_port ($cores workers)"
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
nginx_pid=$!
for _ in $(seq 100); do curl -fsS -o /dev/null "http://127.0.0.1:$nginx_port$PATH_LIST" 2>/dev/null && break; sleep 0.1; done
curl -fsS "http://127.0.0.1:$nginx_port$PATH_LIST" -o "$work/nginx-copy.json"
cmp -s "$work/nginx-copy.json" "$work/www/studentlocations.json" || { echo "nginx does not serve the same bytes" >&2; exit 1; }

# 4. wrk: same settings for both; a warm-up run first, then the measured one.
# Each measurement appends "name|req/s|p50|p99|errors|cpu us per request|load" to $work/results.
cpu_ticks() {  # utime+stime of PID and its children (nginx workers), in clock ticks
    local total=0 p
    for p in "$1" $(pgrep -P "$1" || true); do
        total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
hz=$(getconf CLK_TCK)
to_ms() {  # wrk latency text (e.g. 812.00us, 3.21ms, 1.02s) -> milliseconds
    python3 -c 'import sys,re; v=sys.argv[1]; n,u=re.match(r"([\d.]+)(\w+)",v).groups(); print("%.2f" % (float(n)*{"us":0.001,"ms":1,"s":1000,"m":60000}[u]))' "$1"
}
measure() {  # name pid url [headers...]
    local name=$1 pid=$2 url=$3; shift 3
    log "wrk: $name ($url)"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "$@" "$url" >/dev/null
    local t0 t1
    t0=$(cpu_ticks "$pid")
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@" "$url" | tee "$work/wrk-$name.txt" >&2
    t1=$(cpu_ticks "$pid")
    local rps p50 p99 errors requests cpu_us
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$work/wrk-$name.txt")
    p50=$(to_ms "$(awk '$1=="50%" {print $2}' "$work/wrk-$name.txt")")
    p99=$(to_ms "$(awk '$1=="99%" {print $2}' "$work/wrk-$name.txt")")
    errors=$(awk '/Non-2xx or 3xx responses:/ {n+=$NF} /Socket errors:/ {gsub(",",""); n+=$4+$6+$8+$10} END {print n+0}' "$work/wrk-$name.txt")
    requests=$(awk '/requests in/ {print $1}' "$work/wrk-$name.txt")
    cpu_us=$(( (t1 - t0) * 1000000 / hz / requests ))
    echo "$name|$rps|$p50|$p99|$errors|$cpu_us|$(cut -d' ' -f1 /proc/loadavg)" >>"$work/results"
}

measure_server() {  # label
    measure "$1 first-page" "$server_pid" "http://127.0.0.1:$port$q_first" "${parse_headers[@]}"
    measure "$1 skip-5000" "$server_pid" "http://127.0.0.1:$port$q_skip" "${parse_headers[@]}"
    measure "$1 where-uniqueKey" "$server_pid" "http://127.0.0.1:$port$q_where" "${parse_headers[@]}"
}
measure nginx "$nginx_pid" "http://127.0.0.1:$nginx_port$PATH_LIST"
measure_server "onthemap"
server_rss_kb=$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status" 2>/dev/null || echo "?")
# The help text is read whole first: `grep -q` on the pipe would stop reading early, `serve
# --help` would die of SIGPIPE, and under `pipefail` the test would fail (it did, silently).
serve_help="$("$bin" serve --help 2>&1)"
if grep -q -- '--no-list-cache' <<<"$serve_help"; then
    stop "$server_pid"; server_pid=""
    log "restarting onthemap with --no-list-cache"
    start_server --no-list-cache
    measure_server "onthemap --no-list-cache"
fi

# Raw SQL reference: the list query the server runs, on the same file, one connection.
log "raw SQL reference (python3 sqlite3)"
python3 - "$db" >"$work/rawsql" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
sql = ("SELECT * FROM student_locations WHERE 1 = 1 ORDER BY updated_at DESC, object_id DESC "
       "LIMIT 100 OFFSET {}")
for name, skip in (("first-page", 0), ("skip-5000", 5000)):
    for _ in range(200):
        db.execute(sql.format(skip)).fetchall()
    times = []
    for _ in range(2000):
        t = time.perf_counter(); rows = db.execute(sql.format(skip)).fetchall(); times.append(time.perf_counter() - t)
    assert len(rows) == 100
    times.sort()
    print(f"{name}|{times[len(times)//2]*1e6:.0f}|{times[int(len(times)*0.99)]*1e6:.0f}")
PY

# 5. Optional: the same rows on PostgreSQL.
touch "$work/rawpg"
if [[ -n "${POSTGRES_URL:-}" ]]; then
    stop "$server_pid"; server_pid=""
    schema="bench_$$"
    separator='?'; [[ "$POSTGRES_URL" == *\?* ]] && separator='&'
    pg_server_url="$POSTGRES_URL${separator}schema=$schema"
    log "PostgreSQL: migrating schema $schema"
    start_server --database-url "$pg_server_url"
    stop "$server_pid"; server_pid=""
    log "PostgreSQL: copying $rows_in_db rows"
    columns="object_id, owner_key, unique_key, first_name, last_name, map_string, media_url, latitude, longitude, created_at, updated_at"
    python3 - "$db" "$work/rows.csv" "$columns" <<'PY'
import csv, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(f"SELECT {sys.argv[3]} FROM student_locations")
with open(sys.argv[2], "w", newline="") as out:
    csv.writer(out).writerows(rows)
PY
    psql "$POSTGRES_URL" -v ON_ERROR_STOP=1 -q \
        -c "\\copy $schema.student_locations ($columns) FROM '$work/rows.csv' WITH (FORMAT csv, FORCE_NOT_NULL (unique_key, first_name, last_name, map_string, media_url))" \
        -c "ANALYZE $schema.student_locations"
    start_server --database-url "$pg_server_url"
    measure_server "onthemap on PostgreSQL"
    stop "$server_pid"; server_pid=""
    start_server --database-url "$pg_server_url" --no-list-cache
    measure_server "onthemap on PostgreSQL --no-list-cache"
    stop "$server_pid"; server_pid=""
    pgbench=$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -n 1 || command -v pgbench || true)
    if [[ -n "$pgbench" ]]; then
        log "raw SQL reference (pgbench, one client)"
        for name_skip in first-page:0 skip-5000:5000; do
            echo "SELECT * FROM $schema.student_locations WHERE 1 = 1 ORDER BY updated_at DESC, object_id DESC LIMIT 100 OFFSET ${name_skip#*:};" >"$work/q.sql"
            latency=$("$pgbench" -n -c 1 -T 5 -f "$work/q.sql" "$POSTGRES_URL" 2>/dev/null | awk '/latency average/ {print $4}')
            echo "${name_skip%%:*}|$latency" >>"$work/rawpg"
        done
    fi
    psql "$POSTGRES_URL" -q -c "DROP SCHEMA $schema CASCADE"
fi

# 6. Report.
python3 - "$work/results" "$work/rawsql" "$work/rawpg" <<PY
import sys
rows = [l.strip().split("|") for l in open(sys.argv[1]) if l.strip()]
r = {n: (float(rps), float(p50), float(p99), int(err), int(cpu), load) for n, rps, p50, p99, err, cpu, load in rows}
queries = {"first-page": "$q_first", "skip-5000": "$q_skip", "where-uniqueKey": "$q_where"}
nginx = r["nginx"][0]
print()
print("rows: $rows_in_db, response body: $body_bytes bytes, where hits: $where_hits, "
      "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency (after a $WARMUP warm-up), cores: $cores, "
      "server RSS after the default run: ${server_rss_kb} kB")
print()
print("| server | request | req/s | p50 ms | p99 ms | req/s vs nginx | CPU us/request | errors | load avg |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
def line(server, request, v):
    rps, p50, p99, err, cpu, load = v
    print(f"| {server} | \`{request}\` | {rps:,.0f} | {p50:.2f} | {p99:.2f} | {rps / nginx:.2f} | {cpu} | {err} | {load} |")
line("nginx (same bytes, static file)", "GET $PATH_LIST", r["nginx"])
labels = ("onthemap", "onthemap --no-list-cache", "onthemap on PostgreSQL", "onthemap on PostgreSQL --no-list-cache")
for label in labels:
    for key, q in queries.items():
        if f"{label} {key}" in r:
            line(label, "GET " + q, r[f"{label} {key}"])
print()
print("Raw SQL reference (python3 sqlite3, same SELECT, one connection, 2000 runs):")
for l in open(sys.argv[2]):
    name, p50, p99 = l.strip().split("|")
    print(f"- {name}: p50 {p50} us, p99 {p99} us per query (100 rows fetched)")
pg = [l.strip().split("|") for l in open(sys.argv[3]) if l.strip()]
if pg:
    print("Raw SQL reference on PostgreSQL (pgbench, same SELECT, one client, 5 s):")
    for name, latency in pg:
        print(f"- {name}: {latency} ms per query on average")
print()
for label in labels:
    key = f"{label} first-page"
    if key not in r: continue
    rps, _, p99, *_ = r[key]
    print(f"{label}, first page: req/s >= 0.5 x nginx: {'MET' if rps >= 0.5 * nginx else 'MISSED'} ({rps / nginx:.2f} x); "
          f"p99 < 10 ms: {'MET' if p99 < 10 else 'MISSED'} ({p99:.2f} ms)")
PY
