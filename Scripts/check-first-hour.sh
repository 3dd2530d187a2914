#!/usr/bin/env bash
# What a newcomer meets in the first hour, checked on a clean clone (CI runs it):
#   1. the build printed no warning from our own sources (pass the build's output file);
#   2. the documented install command puts a working `onthemap` on the PATH;
#   3. a busy port is one clear line naming --port, a non-zero exit, nothing half-started;
#   4. `serve --demo` on a machine without internet fills a Travel album, and serves the app.
#
#   bash Scripts/check-first-hour.sh BUILD_LOG
set -euo pipefail
cd "$(dirname "$0")/.."
build_log="${1:?usage: check-first-hour.sh BUILD_LOG}"

fail() { echo "first hour: FAILED: $*" >&2; exit 1; }

# 1. Warnings from Sources/ or Tests/ (dependencies' own warnings are not ours to fix).
if grep -E "^$PWD/(Sources|Tests|Benchmarks)/.*warning:" "$build_log"; then
    fail "the build printed warnings from our sources (above)"
fi
echo "first hour: no warnings from our sources"

# 2. Install (the debug build CI already has; the documented command, docs/hosting.md, builds release).
work="$(mktemp -d)"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
bash Scripts/install.sh --debug --prefix "$work/prefix" >/dev/null
export PATH="$work/prefix/bin:$PATH"
[ "$(command -v onthemap)" = "$work/prefix/bin/onthemap" ] || fail "onthemap is not on the PATH after install"
(cd "$work" && onthemap --help >/dev/null) || fail "the installed onthemap does not run"
echo "first hour: install puts onthemap on the PATH"

# 3. A busy port.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
python3 -c "import socket,time; s=socket.socket(); s.bind(('127.0.0.1',$port)); s.listen(); time.sleep(60)" &
holder=$!
sleep 0.5
set +e
(cd "$work" && onthemap serve --host 127.0.0.1 --port "$port" --data-dir "$work/busy" >"$work/busy.out" 2>"$work/busy.err")
status=$?
set -e
kill "$holder" 2>/dev/null || true
[ "$status" -ne 0 ] || fail "serve on a busy port exited 0"
[ ! -s "$work/busy.out" ] || fail "serve on a busy port printed start-up lines: $(cat "$work/busy.out")"
[ "$(wc -l <"$work/busy.err")" -eq 1 ] || fail "expected one line on a busy port, got: $(cat "$work/busy.err")"
grep -q -- "--port" "$work/busy.err" || fail "the busy-port line does not name --port: $(cat "$work/busy.err")"
echo "first hour: busy port says: $(cat "$work/busy.err")"

# 4. The demo, with every photo service unreachable (a proxy that does not exist).
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
(cd "$work" && exec env https_proxy=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9 \
    onthemap serve --demo --host 127.0.0.1 --port "$port" --data-dir "$work/demo" >"$work/demo.out" 2>&1) &
server=$!
python3 - "$port" <<'PY' || { cat "$work/demo.out" >&2; fail "the demo's Travel album did not fill offline"; }
import http.client, json, sys, time
port = int(sys.argv[1])
def call(method, path, body=None, headers=None):
    for _ in range(600):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            c.request(method, path, json.dumps(body) if body is not None else None,
                      {"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin", **(headers or {})})
            r = c.getresponse()
            return r.status, r.read()
        except ConnectionRefusedError:
            time.sleep(0.2)
    raise SystemExit("the demo server never answered")
status, page = call("GET", "/")
assert status == 200 and b"<html" in page.lower(), (status, page[:200])
status, body = call("POST", "/api/session", {"udacity": {"username": "demo@onthemap.local", "password": "onthemap-demo"}})
assert status == 200, body
cookie = {"Cookie": "onthemap_session=" + json.loads(body[5:])["session"]["id"]}
status, body = call("POST", "/api/pins", {"latitude": 45.76, "longitude": 4.84}, cookie)
assert status == 201, body
pin = json.loads(body)["id"]
deadline = time.time() + 120
while time.time() < deadline:
    album = json.loads(call("GET", f"/api/pins/{pin}/photos", headers=cookie)[1])
    ready = [p for p in album["photos"] if p["state"] == "ready"]
    if album["album"].get("settled"):
        break
    time.sleep(0.5)
assert len(ready) == 21, album["album"]
status, image = call("GET", f"/api/photos/{ready[0]['id']}/image", headers=cookie)
assert status == 200 and image.startswith(b"\x89PNG"), status
print(f"first hour: the demo's album filled offline with {len(ready)} photos ({ready[0]['title']})")
PY
echo "first hour: passed"
