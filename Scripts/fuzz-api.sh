#!/usr/bin/env bash
# Fuzzes the HTTP API of a built server with schemathesis, driven by the server's own
# /openapi.json: no 5xx, every status, content type and body as the document says.
#
#   swift build && bash Scripts/fuzz-api.sh
#
# Starts `onthemap serve --port 0 --demo` on a fresh data directory (Travel photos from the
# browser suite's local Wikimedia stand-in, so nothing leaves the machine), signs up and logs in
# through the API so authenticated routes are exercised (Scripts/fuzz/hooks.py), installs the
# pinned schemathesis (Scripts/fuzz/requirements.txt) into .build/fuzz-venv when missing, and
# runs it bounded in time. Exits non-zero on any failure; prints requests made, 5xx answers
# and spec violations.
#
# Environment: ONTHEMAP_BIN (default: the debug build's onthemap), FUZZ_MAX_TIME (seconds,
# default 150), FUZZ_MAX_EXAMPLES (per operation and phase, default 40), FUZZ_SEED (default
# random), FUZZ_VENV (default .build/fuzz-venv), FUZZ_REPORT_DIR (default test-output/fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN="${ONTHEMAP_BIN:-$(swift build --show-bin-path)/onthemap}"
MAX_TIME="${FUZZ_MAX_TIME:-150}"
MAX_EXAMPLES="${FUZZ_MAX_EXAMPLES:-40}"
VENV="${FUZZ_VENV:-.build/fuzz-venv}"
REPORT_DIR="${FUZZ_REPORT_DIR:-test-output/fuzz}"
REQUIREMENTS=Scripts/fuzz/requirements.txt
PINNED="$(sed -n 's/^schemathesis==//p' "$REQUIREMENTS")"

[ -x "$BIN" ] || { echo "fuzz-api: no server binary at $BIN (run swift build first)" >&2; exit 1; }

if [ "$("$VENV/bin/schemathesis" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' || true)" != "$PINNED" ]; then
    echo "fuzz-api: installing schemathesis $PINNED into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQUIREMENTS"
fi

WORK="$(mktemp -d)"
SERVER_PID=""
STUB_PID=""
cleanup() {
    for pid in $SERVER_PID $STUB_PID; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# Travel photos from the browser suite's Wikimedia stand-in, so nothing leaves the machine.
python3 Scripts/fuzz/photo_stub_server.py >"$WORK/stub.out" &
STUB_PID=$!
PHOTOS_URL=""
for _ in $(seq 1 100); do
    PHOTOS_URL="$(head -1 "$WORK/stub.out")"
    [ -n "$PHOTOS_URL" ] && break
    sleep 0.1
done
[ -n "$PHOTOS_URL" ] || { echo "fuzz-api: the photo stub did not start" >&2; exit 1; }

# Info level: one line per request, counted for the figures. Cheap bcrypt: logins, sign-ups
# and password changes are fuzzed by the hundred. Email set up (to a relay port where nothing
# listens: the outbox keeps its messages and retries), so "Forgot password?" is fuzzed as it
# answers on a school's server, not as the 503 of a server without email.
"$BIN" serve --port 0 --data-dir "$WORK/data" --demo --log-level info --bcrypt-cost "${FUZZ_BCRYPT_COST:-4}" \
    --wikimedia-api-url "$PHOTOS_URL" --smtp-url smtp://127.0.0.1:9 --mail-from "On the Map <map@fuzz.invalid>" \
    --public-url http://127.0.0.1:9 >"$WORK/server.out" 2>"$WORK/server.err" &
SERVER_PID=$!
BASE=""
for _ in $(seq 1 600); do
    BASE="$(grep -oE 'http://[^ ]+:[0-9]+' "$WORK/server.out" | head -1 || true)"
    [ -n "$BASE" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.err" >&2; echo "fuzz-api: the server did not start" >&2; exit 1; }
    sleep 0.1
done
[ -n "$BASE" ] || { echo "fuzz-api: the server printed no address" >&2; exit 1; }
echo "fuzz-api: server at $BASE"

# An account of its own, signed up through the API; hooks.py logs it in (and again whenever
# the fuzzer has logged it out).
export ONTHEMAP_FUZZ_URL="$BASE"
export ONTHEMAP_FUZZ_EMAIL="fuzz-$RANDOM$RANDOM@example.com"
export ONTHEMAP_FUZZ_PASSWORD="fuzz-password-$RANDOM$RANDOM"
curl -fsS -o /dev/null -X POST "$BASE/api/users" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$ONTHEMAP_FUZZ_EMAIL\",\"password\":\"$ONTHEMAP_FUZZ_PASSWORD\",\"first_name\":\"Fuzz\",\"last_name\":\"Tester\"}"

rm -rf "$REPORT_DIR"; mkdir -p "$REPORT_DIR"
export SCHEMATHESIS_HOOKS=hooks
export PYTHONPATH="$PWD/Scripts/fuzz${PYTHONPATH:+:$PYTHONPATH}"
SEED_ARGS=()
[ -n "${FUZZ_SEED:-}" ] && SEED_ARGS=(--seed "$FUZZ_SEED")
# One worker: with two, schemathesis draws examples for two operations at once on threads of
# one process, and hypothesis's own bookkeeping is not safe for that (twice a run failed with a
# hypothesis-internal FlakyFailure while generating an example, never on a server answer). One
# worker also makes a run with FUZZ_SEED repeatable.
set +e
"$VENV/bin/schemathesis" run "${FUZZ_SCHEMA:-$BASE/openapi.json}" --url "$BASE" \
    --phases examples,coverage,fuzzing \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
    --max-examples "$MAX_EXAMPLES" --max-time "$MAX_TIME" --request-timeout 20 --workers 1 \
    --generation-with-security-parameters false \
    -H "X-Parse-Application-Id: QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr" \
    -H "X-Parse-REST-API-Key: QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY" \
    --report ndjson,junit --report-dir "$REPORT_DIR" --no-color "${SEED_ARGS[@]}" ${FUZZ_EXTRA_ARGS:-} \
    | tee "$WORK/schemathesis.out"
STATUS=${PIPESTATUS[0]}
set -e

python3 Scripts/fuzz/figures.py "$WORK/server.err" "$REPORT_DIR" || true
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "fuzz-api: the server died during the run" >&2; tail -20 "$WORK/server.err" >&2; exit 1
fi
if [ "$STATUS" -ne 0 ]; then
    echo "fuzz-api: FAILED (schemathesis exit $STATUS); server errors logged:" >&2
    grep -E " (error|critical) " "$WORK/server.err" | tail -20 >&2 || true
    exit 1
fi
echo "fuzz-api: passed"
