#!/usr/bin/env bash
# Server benchmark: 1,000,000 StudentLocation rows of one class in SQLite, measured with wrk
# against `onthemap serve` and, in the same run, against nginx serving the same bytes.
#
#   bash Benchmarks/ServerBenchmark/run.sh
#   ONTHEMAP_BIN=/path/to/onthemap bash Benchmarks/ServerBenchmark/run.sh   # no build
#
# Needs Debian `wrk` and `nginx`, python3, curl, and a Swift toolchain unless ONTHEMAP_BIN
# names a built binary (then nothing is built). Settings through the environment: ROWS
# (1000000), DURATION (15s), WARMUP (3s), THREADS (2), CONNECTIONS (32), BENCH_DATA_DIR
# (reuse a data folder seeded by an earlier run with KEEP_DATA=1 instead of seeding again),
# OLD_CACHED_CPU_US (44: the cached first page's CPU us/request before classes, BENCHMARKS.md).
# Prints a Markdown table at the end.
#
# The rows are the default class's (`main`, class_id 'default'). It is measured two ways:
#   members   the class members-only (a fresh database's default), read by a signed-in member
#             (the second account; the first is the administrator) with X-Parse-Session-Token;
#   public    the same class made public (`onthemap admin class set main --visibility public`),
#             read anonymously, as every map was read before classes.
# Each way with the in-process list cache (the default; wrk repeats one URL, so every measured
# request is a hit) and with `--no-list-cache` (every request runs the SQL, decodes rows and
# encodes JSON). Besides wrk's figures, the server's CPU time per request (from /proc) is
# printed: it stays meaningful when other work shares the machine. A raw-SQL reference (the
# exact SELECT the server runs, class_id bound, through Python's sqlite3 on the same file) is
# measured in the same run.
#
# With POSTGRES_URL (a libpq-style URL, e.g. postgres://postgres@127.0.0.1:55432/postgres?sslmode=disable)
# the same rows (with their class_id) are copied into a fresh schema there and the server is
# measured again on PostgreSQL, both ways, with and without the list cache, with a pgbench
# raw-SQL reference (the same SELECT, class_id sent as a parameter). The copy is vacuumed
# first, as a database that has served a while is (its rows' visibility settled), and its
# search words are not written (nothing here searches). Its first snapshot after a start is
# measured as SQLite's is.
# Scripts/with-postgres.sh provides a throwaway server:
#   bash Scripts/with-postgres.sh bash -c 'POSTGRES_URL=$ONTHEMAP_TEST_POSTGRES_URL bash Benchmarks/ServerBenchmark/run.sh'
# MEASURE_SQLITE=0 leaves out the SQLite runs (nginx's and the first snapshot's stay).
set -euo pipefail

ROWS=${ROWS:-1000000}
DURATION=${DURATION:-15s}
WARMUP=${WARMUP:-3s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
OLD_CACHED_CPU_US=${OLD_CACHED_CPU_US:-44}
APP_ID=QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr
REST_KEY=QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY
PATH_LIST=/parse/classes/StudentLocation
CLASS_ID=default      # the default class `main`'s id (migration 11)
PASSWORD=benchmark-pass-1
ADMIN_EMAIL=bench-admin@example.com
MEMBER_EMAIL=bench-member@example.com
# The list query the server runs for `limit=100&order=-updatedAt[&skip=N]` with no `where`
# (SQLStore.locations: locationColumns, class_id bound, VisiblePost.readable(by: nil), which is
# VisiblePost.condition, `.always` as 1 = 1, the sort column as an identifier, object_id as
# tie-breaker, LIMIT/OFFSET as literals). Anonymous readers and members alike: only an author
# with a post waiting for approval reads another query, and the benchmark's member has none.
LIST_SQL='SELECT object_id, unique_key, first_name, last_name, map_string, media_url, latitude, longitude, created_at, updated_at FROM student_locations WHERE class_id = ? AND hidden_at IS NULL AND owner_disabled = 0 AND waiting = 0 AND 1 = 1 ORDER BY "updated_at" DESC, object_id DESC LIMIT 100 OFFSET {skip}'
# The index the server's SQLite plans that query on, at every offset (migration 13's partial
# index, whose condition is VisiblePost.condition; checked with EXPLAIN QUERY PLAN in the
# server's SQLite). The raw-SQL reference must plan on it too, or the two compare different
# work: without `waiting = 0` the partial index does not apply, and at skip=5000 a scan of
# student_locations_updated_at that reads every skipped row's record costs about 20 times more.
SERVER_INDEX=student_locations_class_visible

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/common.sh"
tools="wrk nginx python3 curl"
[[ -z "${ONTHEMAP_BIN:-}" ]] && tools="$tools swift"
for tool in $tools; do
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

# 1. The binary: ONTHEMAP_BIN, or a release build (the build folder may be locked by someone
# else's build: swift waits).
if [[ -n "${ONTHEMAP_BIN:-}" ]]; then
    bin=$ONTHEMAP_BIN
    [[ -x "$bin" ]] || { echo "ONTHEMAP_BIN is not an executable: $bin" >&2; exit 1; }
    log "using $bin (no build)"
else
    log "building onthemap (release)"
    (cd "$repo" && swift build -c release --product onthemap >&2)
    bin="$(cd "$repo" && swift build -c release --show-bin-path)/onthemap"
fi

data="${BENCH_DATA_DIR:-$work/data}"
db="$data/onthemap.sqlite"
port=$(free_port)
base="http://127.0.0.1:$port"
database_flags=(--data-dir "$data")   # where `serve` and `admin` find the database

start_server() {  # [extra serve flags...]
    local started
    started=$(date +%s%N)
    "$bin" serve --host 127.0.0.1 --port "$port" "${database_flags[@]}" --log-level warning "$@" \
        >"$work/server.log" 2>&1 &
    server_pid=$!
    local healthy=0
    for _ in $(seq 300); do
        if curl -fsS "$base/health" >/dev/null 2>&1; then healthy=1; break; fi
        kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "server died" >&2; exit 1; }
        sleep 0.1
    done
    [[ $healthy == 1 ]] || { echo "server did not become healthy" >&2; exit 1; }
    # At start the server reads and encodes the default class's live-map snapshot in the
    # background (seconds at 1,000,000). Wait until it is done, or its work would be counted
    # in the first measurement; when it went quiet is when the first snapshot was ready.
    first_snapshot_ms=$(wait_until_quiet "$server_pid" "$started")
    log "server $server_pid busy until ${first_snapshot_ms} ms after its start, then idle"
}

set_visibility() {  # members|public: the default class, on the database directly (no server running)
    "$bin" admin class set main --visibility "$1" "${database_flags[@]}" >&2
}

# The administrator (first account) and a member (second; `main` is open, so every account is
# a student). Idempotent: an account that exists already (a reused data folder) just logs in.
# Prints the member's session token.
member_session() {
    local email
    for email in "$ADMIN_EMAIL" "$MEMBER_EMAIL"; do
        curl -sS -o /dev/null -H 'Content-Type: application/json' \
            -d "{\"email\":\"$email\",\"password\":\"$PASSWORD\",\"first_name\":\"Bench\",\"last_name\":\"Mark\"}" \
            "$base/api/users"
    done
    curl -fsS -H 'Content-Type: application/json' \
        -d "{\"udacity\":{\"username\":\"$MEMBER_EMAIL\",\"password\":\"$PASSWORD\"}}" "$base/api/session" |
        python3 -c 'import json,sys; print(json.loads(sys.stdin.buffer.read()[5:])["session"]["id"])'
}

status_of() {  # url [curl args...]: the HTTP status
    local url=$1; shift
    curl -sS -o /dev/null -w '%{http_code}' "$@" "$url"
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
rows_in_db=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM student_locations WHERE class_id = ?", (sys.argv[2],)).fetchone()[0])' "$db" "$CLASS_ID")

# The raw-SQL reference's plans, before anything is measured: each offset must use the server's index.
python3 - "$db" "$LIST_SQL" "$CLASS_ID" "$SERVER_INDEX" >&2 <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
sql, class_id, index = sys.argv[2], sys.argv[3], sys.argv[4]
wrong = []
for skip in (0, 5000):
    plan = [row[-1] for row in db.execute("EXPLAIN QUERY PLAN " + sql.format(skip=skip), (class_id,))]
    print(f"raw SQL plan, sqlite {sqlite3.sqlite_version}, OFFSET {skip}: " + "; ".join(plan))
    if not any(f"USING INDEX {index} " in step + " " for step in plan):
        wrong.append(skip)
if wrong:
    sys.exit(f"the raw-SQL reference does not plan on {index} at OFFSET {wrong}: it would not measure the server's query")
PY

parse_headers=(-H "X-Parse-Application-Id: $APP_ID" -H "X-Parse-REST-API-Key: $REST_KEY")
q_first="$PATH_LIST?limit=100&order=-updatedAt"
q_skip="$PATH_LIST?limit=100&skip=5000&order=-updatedAt"
q_where="$PATH_LIST?where=$(python3 -c 'import json,sys,urllib.parse; print(urllib.parse.quote(json.dumps({"uniqueKey": sys.argv[1]}, separators=(",",":")), safe=""))' "$unique_key")"

# 3. Serve the seeded data (members-only class, a member's session); save the exact answer for nginx.
set_visibility members
log "starting onthemap on $base ($rows_in_db rows in the default class)"
start_server
echo "$first_snapshot_ms" >"$work/first_snapshot"
token=$(member_session)
session_headers=(-H "X-Parse-Session-Token: $token")
anonymous_status=$(status_of "$base$q_first" "${parse_headers[@]}")
[[ "$anonymous_status" == 401 ]] || { echo "members-only class answered $anonymous_status to an anonymous read (expected 401)" >&2; exit 1; }

mkdir -p "$work/www"
curl -fsS "${parse_headers[@]}" "${session_headers[@]}" "$base$q_first" -o "$work/www/studentlocations.json"
chmod 755 "$work/www"; chmod 644 "$work/www/studentlocations.json"
body_bytes=$(stat -c %s "$work/www/studentlocations.json")
python3 - "$work/www/studentlocations.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
assert len(results) == 100, len(results)
stamps = [r["updatedAt"] for r in results]
assert stamps == sorted(stamps, reverse=True), "not ordered by -updatedAt"
PY
where_hits=$(curl -fsS "${parse_headers[@]}" "${session_headers[@]}" "$base$q_where" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["results"]))')

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
    # A request that is refused would measure the refusal: check the answer first.
    local status
    status=$(status_of "$url" "$@")
    [[ "$status" == 200 ]] || { echo "$name: $url answered $status" >&2; exit 1; }
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
    log "$name: $cpu_us us of the server's CPU per request"
}

measure_server() {  # label [headers...]
    local label=$1; shift
    measure "$label first-page" "$server_pid" "$base$q_first" "${parse_headers[@]}" "$@"
    measure "$label skip-5000" "$server_pid" "$base$q_skip" "${parse_headers[@]}" "$@"
    measure "$label where-uniqueKey" "$server_pid" "$base$q_where" "${parse_headers[@]}" "$@"
}

# The help text is read whole first: `grep -q` on the pipe would stop reading early, `serve
# --help` would die of SIGPIPE, and under `pipefail` the test would fail (it did, silently).
serve_help="$("$bin" serve --help 2>&1)"
has_no_list_cache=0
grep -q -- '--no-list-cache' <<<"$serve_help" && has_no_list_cache=1

# Both ways on the running database (`database_flags`); a server is running on entry (members-only,
# started without flags) and none on return. `prefix` names the rows ("onthemap" or "onthemap on PostgreSQL").
measure_both_ways() {  # prefix
    local prefix=$1 token
    token=$(member_session)
    measure_server "$prefix, members, session" -H "X-Parse-Session-Token: $token"
    server_rss_kb=$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status" 2>/dev/null || echo "?")
    echo "$prefix|$server_rss_kb" >>"$work/rss"
    if [[ $has_no_list_cache == 1 ]]; then
        stop "$server_pid"; server_pid=""
        log "$prefix: restarting with --no-list-cache"
        start_server --no-list-cache
        measure_server "$prefix, members, session, --no-list-cache" -H "X-Parse-Session-Token: $token"
    fi
    stop "$server_pid"; server_pid=""
    log "$prefix: the default class made public, read anonymously"
    set_visibility public
    start_server
    measure_server "$prefix, public, anonymous"
    if [[ $has_no_list_cache == 1 ]]; then
        stop "$server_pid"; server_pid=""
        start_server --no-list-cache
        measure_server "$prefix, public, anonymous, --no-list-cache"
    fi
    stop "$server_pid"; server_pid=""
    set_visibility members   # as a fresh database has it
}

measure nginx "$nginx_pid" "http://127.0.0.1:$nginx_port$PATH_LIST"
if [[ "${MEASURE_SQLITE:-1}" == 1 ]]; then
    measure_both_ways "onthemap"
else  # MEASURE_SQLITE=0: PostgreSQL's runs only (the SQLite server served the reference bytes)
    stop "$server_pid"; server_pid=""
fi

# Raw SQL reference: the exact list query the server runs, on the same file, one connection.
log "raw SQL reference (python3 sqlite3)"
python3 - "$db" "$LIST_SQL" "$CLASS_ID" >"$work/rawsql" 2>"$work/rawsql-plan" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
sql, class_id = sys.argv[2], sys.argv[3]
for name, skip in (("first-page", 0), ("skip-5000", 5000)):
    statement = sql.format(skip=skip)
    plan = "; ".join(row[-1] for row in db.execute("EXPLAIN QUERY PLAN " + statement, (class_id,)))
    print(f"sqlite {sqlite3.sqlite_version}, {name}: {plan}", file=sys.stderr)
    for _ in range(200):
        db.execute(statement, (class_id,)).fetchall()
    times = []
    for _ in range(2000):
        t = time.perf_counter(); rows = db.execute(statement, (class_id,)).fetchall(); times.append(time.perf_counter() - t)
    assert len(rows) == 100
    times.sort()
    print(f"{name}|{times[len(times)//2]*1e6:.0f}|{times[int(len(times)*0.99)]*1e6:.0f}")
PY
cat "$work/rawsql-plan" >&2

# 5. Optional: the same rows on PostgreSQL.
touch "$work/rawpg"
if [[ -n "${POSTGRES_URL:-}" ]]; then
    schema="bench_$$"
    separator='?'; [[ "$POSTGRES_URL" == *\?* ]] && separator='&'
    pg_server_url="$POSTGRES_URL${separator}schema=$schema"
    database_flags=(--data-dir "$work/pgdata" --database-url "$pg_server_url")
    mkdir -p "$work/pgdata"
    log "PostgreSQL: migrating schema $schema"
    start_server
    stop "$server_pid"; server_pid=""
    log "PostgreSQL: copying $rows_in_db rows"
    copy_locations_to_postgres "$db" "$work/rows.csv" "$POSTGRES_URL" "$schema"
    set_visibility members
    start_server
    echo "$first_snapshot_ms" >"$work/first_snapshot_pg"
    measure_both_ways "onthemap on PostgreSQL"
    pgbench=$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -n 1 || command -v pgbench || true)
    if [[ -n "$pgbench" ]]; then
        log "raw SQL reference (pgbench, one client, extended protocol, class_id as a parameter)"
        pg_sql() {  # skip class-placeholder: the list query on the benchmark's schema
            python3 -c 'import sys; print(sys.argv[1].replace("?", sys.argv[4]).replace("student_locations", sys.argv[3] + ".student_locations").format(skip=sys.argv[2]))' \
                "$LIST_SQL" "$1" "$schema" "$2"
        }
        psql "$POSTGRES_URL" -q -c "EXPLAIN $(pg_sql 0 "'$CLASS_ID'")" >&2 || true
        for name_skip in first-page:0 skip-5000:5000; do
            echo "$(pg_sql "${name_skip#*:}" :cls);" >"$work/q.sql"
            latency=$("$pgbench" -n -M extended -c 1 -T 5 -D cls="$CLASS_ID" -f "$work/q.sql" "$POSTGRES_URL" 2>/dev/null | awk '/latency average/ {print $4}')
            echo "${name_skip%%:*}|$latency" >>"$work/rawpg"
        done
    fi
    psql "$POSTGRES_URL" -q -c "DROP SCHEMA $schema CASCADE"
fi

# 6. Report.
python3 - "$work/results" "$work/rawsql" "$work/rawpg" "$work/rss" "$work/first_snapshot" "$work/first_snapshot_pg" <<PY
import os, sys
rows = [l.strip().split("|") for l in open(sys.argv[1]) if l.strip()]
r = {n: (float(rps), float(p50), float(p99), int(err), int(cpu), load) for n, rps, p50, p99, err, cpu, load in rows}
queries = {"first-page": "$q_first", "skip-5000": "$q_skip", "where-uniqueKey": "$q_where"}
nginx = r["nginx"][0]
rss = dict(l.strip().split("|") for l in open(sys.argv[4]) if l.strip())
print()
print("rows: $rows_in_db (class_id '$CLASS_ID'), response body: $body_bytes bytes, where hits: $where_hits, "
      "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency (after a $WARMUP warm-up), cores: $cores, "
      "server RSS after the members, cached run: " + ", ".join(f"{k} {v} kB" for k, v in rss.items()))
print()
print("| server | request | req/s | p50 ms | p99 ms | req/s vs nginx | CPU us/request | errors | load avg |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
def line(server, request, v):
    rps, p50, p99, err, cpu, load = v
    print(f"| {server} | \`{request}\` | {rps:,.0f} | {p50:.2f} | {p99:.2f} | {rps / nginx:.2f} | {cpu} | {err} | {load} |")
line("nginx (same bytes, static file)", "GET $PATH_LIST", r["nginx"])
labels = [f"{db}, {way}{cache}" for db in ("onthemap", "onthemap on PostgreSQL")
          for way in ("members, session", "public, anonymous") for cache in ("", ", --no-list-cache")]
for label in labels:
    for key, q in queries.items():
        if f"{label} {key}" in r:
            line(label, "GET " + q, r[f"{label} {key}"])
print()
print("Raw SQL reference (python3 sqlite3, the server's SELECT with class_id bound, one connection, 2000 runs):")
raw = {}
for l in open(sys.argv[2]):
    name, p50, p99 = l.strip().split("|")
    raw[name] = int(p50)
    print(f"- {name}: p50 {p50} us, p99 {p99} us per query (100 rows fetched)")
pg = [l.strip().split("|") for l in open(sys.argv[3]) if l.strip()]
rawpg = {}
if pg:
    print("Raw SQL reference on PostgreSQL (pgbench -M extended, the same SELECT, class_id a parameter, one client, 5 s):")
    for name, latency in pg:
        rawpg[name] = float(latency) * 1000 if latency else None
        print(f"- {name}: {latency} ms per query on average")
print()
print("Targets:")
first_ms = int(open(sys.argv[5]).read())
print(f"- first snapshot of the class ready after a start (the server's CPU quiet; SQLite): {first_ms / 1000:.1f} s; "
      f"<= 5 s: {'MET' if first_ms <= 5000 else 'MISSED'}")
if os.path.exists(sys.argv[6]):
    first_pg_ms = int(open(sys.argv[6]).read())
    print(f"- first snapshot of the class ready after a start (the server's CPU quiet; PostgreSQL): {first_pg_ms / 1000:.1f} s; "
          f"<= 5 s: {'MET' if first_pg_ms <= 5000 else 'MISSED'}")
for name, kb in rss.items():
    if kb.isdigit():
        print(f"- server RSS with the class's snapshot ({name}): {int(kb) / 1024:.0f} MB; < 300 MB: {'MET' if int(kb) < 300 * 1024 else 'MISSED'}")
for db, reference, what in (("onthemap", raw, "the raw SQL p50"), ("onthemap on PostgreSQL", rawpg, "pgbench's average (PostgreSQL's own CPU is not in the server's)")):
    for way in ("members, session", "public, anonymous"):
        for key in ("first-page", "skip-5000"):
            name = f"{db}, {way}, --no-list-cache {key}"
            if name not in r or not reference.get(key): continue
            cpu = r[name][4]
            print(f"- uncached, {db}, {way}, {key}: {cpu} us CPU/request vs {reference[key]:.0f} us ({what}) = "
                  f"{cpu / reference[key]:.1f}x; <= 2x: {'MET' if cpu <= 2 * reference[key] else 'MISSED'}")
old = $OLD_CACHED_CPU_US
for db in ("onthemap", "onthemap on PostgreSQL"):
    for way in ("members, session", "public, anonymous"):
        name = f"{db}, {way} first-page"
        if name not in r: continue
        cpu = r[name][4]
        print(f"- cached first page, {db}, {way}: {cpu} us CPU/request vs {old} us before classes = {cpu / old:.2f}x; "
              f"within 10%: {'MET' if cpu <= old * 1.1 else 'MISSED'}")
# A member's cached read against the same read made anonymously of the public class: what
# knowing who asks costs when the answer itself is cached.
for db in ("onthemap", "onthemap on PostgreSQL"):
    for key in queries:
        member, anonymous = r.get(f"{db}, members, session {key}"), r.get(f"{db}, public, anonymous {key}")
        if not member or not anonymous or not anonymous[4]: continue
        print(f"- cached, {db}, member vs anonymous, {key}: {member[4]} us vs {anonymous[4]} us CPU/request = "
              f"{member[4] / anonymous[4]:.2f}x; <= 1.25x: {'MET' if member[4] <= 1.25 * anonymous[4] else 'MISSED'}")
PY
