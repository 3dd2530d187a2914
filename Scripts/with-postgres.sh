#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL server, with ONTHEMAP_TEST_POSTGRES_URL
# pointing at it, and removes the server afterwards. `swift test` then runs the storage
# contract suite and the PostgreSQL server suites against it as well as against SQLite.
#
#   bash Scripts/with-postgres.sh swift test
#
# Needs the PostgreSQL server binaries (Debian: apt-get install postgresql).
set -euo pipefail

bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [[ -z "$bin" || ! -x "$bin/initdb" ]]; then
    echo "with-postgres: no PostgreSQL server found under /usr/lib/postgresql (apt-get install postgresql)" >&2
    exit 1
fi
port="${ONTHEMAP_TEST_POSTGRES_PORT:-55432}"
dir="$(mktemp -d /tmp/onthemap-postgres.XXXXXX)"
# initdb refuses to run as root; the cluster then belongs to the postgres user.
as_owner=()
if [[ "$(id -u)" == 0 ]]; then
    chown postgres "$dir"
    as_owner=(runuser -u postgres --)
fi

stop() {
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap stop EXIT

# An ICU English collation on purpose ('a' < 'B'): the tests prove the schema sorts text by
# code point whatever locale a real deployment's database was created with.
"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 \
    --locale-provider=icu --icu-locale=en-US >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
# fsync off: a test cluster is thrown away, durability buys nothing here. A port already
# taken by something else: try the next one.
started=""
for try_port in $(seq "$port" $((port + 20))); do
    if "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $try_port -k $dir -c fsync=off -c max_connections=600" start >/dev/null 2>&1; then
        started=$try_port
        break
    fi
done
if [[ -z "$started" ]]; then
    cat "$dir/server.log" >&2
    echo "with-postgres: could not start PostgreSQL on ports $port to $((port + 20))" >&2
    exit 1
fi
port=$started

export ONTHEMAP_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
echo "with-postgres: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port" >&2
"$@"
