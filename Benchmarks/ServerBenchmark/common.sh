# Shared by run.sh and first_snapshot_pg.sh (sourced, not run).

# The columns of student_locations copied into PostgreSQL, in the CSV's order.
LOCATION_COLUMNS="object_id, owner_key, unique_key, first_name, last_name, map_string, media_url, latitude, longitude, created_at, updated_at, class_id"

proc_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# wait_until_quiet PID STARTED_NS: waits until PID's CPU time stops growing (at most 1 tick in
# each quarter second for a whole second, or 300 s from STARTED_NS) and prints the milliseconds
# from STARTED_NS to its last busy quarter second: after a start, when the server's first
# live-map snapshot was ready.
wait_until_quiet() {
    local pid=$1 started=$2 before after now last_busy quiet=0
    before=$(proc_ticks "$pid")
    last_busy=$(date +%s%N)
    while (( quiet < 4 )); do
        sleep 0.25
        after=$(proc_ticks "$pid")
        now=$(date +%s%N)
        if (( after - before > 1 )); then quiet=0; last_busy=$now; else quiet=$((quiet + 1)); fi
        before=$after
        (( (now - started) / 1000000000 < 300 )) || break
    done
    echo $(( (last_busy - started) / 1000000 ))
}

# copy_locations_to_postgres SQLITE_FILE CSV POSTGRES_URL SCHEMA: every location of the SQLite
# file into the schema's student_locations (migrated, empty), through CSV; then vacuumed, as
# a database that has served a while is (its rows' visibility settled).
copy_locations_to_postgres() {
    local sqlite_file=$1 csv=$2 url=$3 schema=$4
    python3 - "$sqlite_file" "$csv" "$LOCATION_COLUMNS" <<'PY'
import csv, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(f"SELECT {sys.argv[3]} FROM student_locations")
with open(sys.argv[2], "w", newline="") as out:
    csv.writer(out).writerows(rows)
PY
    psql "$url" -v ON_ERROR_STOP=1 -q \
        -c "\\copy $schema.student_locations ($LOCATION_COLUMNS) FROM '$csv' WITH (FORMAT csv, FORCE_NOT_NULL (unique_key, first_name, last_name, map_string, media_url))" \
        -c "VACUUM ANALYZE $schema.student_locations"
}
