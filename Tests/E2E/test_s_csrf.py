"""CSRF: every cookie-authenticated write, login and sign-up, sent with the victim's session
cookie from another origin (plain HTTP with forged browser headers, and a real attacker page
on a second local port in Chromium, which is *same-site* for cookies, so SameSite=Lax does
not stop the cookie): nothing may change."""
import os
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import Page
from security_support import PARSE_HEADERS, Account, Server, cookie_alive, figure, free_port, location, raw

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")), reason="starts servers of its own")

NEW_PASSWORD = "a-brand-new-pass-phrase"


@pytest.fixture(scope="module")
def csrf_server(photo_stub):
    with Server("--wikimedia-api-url", photo_stub.api_url, "--photos-per-album", "3", name="csrf") as server:
        yield server


def settled_album(victim, pin_id):
    deadline = time.time() + 60
    while time.time() < deadline:
        album = victim.call("GET", f"/api/pins/{pin_id}/photos").json()
        if album["album"]["settled"]:
            return album
        time.sleep(0.3)
    raise AssertionError("album never settled")


def victim_state(base, victim, object_id, pin_id):
    record = location(base, object_id, victim)
    pins = victim.call("GET", "/api/pins").json()["results"]
    photos = sorted(photo["id"] for photo in victim.call("GET", f"/api/pins/{pin_id}/photos").json()["photos"])
    count = raw(base, "GET", "/parse/classes/StudentLocation?limit=0&count=1", headers={**PARSE_HEADERS, **victim.token()}).json()["count"]
    return {
        "record": record and {k: record[k] for k in ("firstName", "lastName", "mapString", "mediaURL", "latitude", "longitude", "updatedAt")},
        "pins": sorted((pin["id"], pin["latitude"], pin["longitude"]) for pin in pins),
        "photos": photos,
        "locations": count,
    }


def writes(victim, object_id, pin_id, photo_id, signup_email):
    location_body = {"uniqueKey": victim.key, "firstName": "Pwned", "lastName": "Pwned", "mapString": "Evil",
                     "mediaURL": "https://evil.example", "latitude": 1.0, "longitude": 1.0}
    login = {"udacity": {"username": victim.email, "password": victim.password}}
    return [
        ("POST", "/parse/classes/StudentLocation", location_body, PARSE_HEADERS),
        ("PUT", f"/parse/classes/StudentLocation/{object_id}", location_body, PARSE_HEADERS),
        ("DELETE", f"/parse/classes/StudentLocation/{object_id}", None, PARSE_HEADERS),
        ("POST", "/v1/StudentLocation", location_body, {}),
        ("PUT", f"/v1/StudentLocation/{object_id}", location_body, {}),
        ("DELETE", f"/v1/StudentLocation/{object_id}", None, {}),
        ("POST", "/api/pins", {"latitude": 10.0, "longitude": 10.0}, {}),
        ("PATCH", f"/api/pins/{pin_id}", {"latitude": 11.0, "longitude": 11.0}, {}),
        ("PUT", f"/api/pins/{pin_id}", {"latitude": 12.0, "longitude": 12.0}, {}),
        ("DELETE", f"/api/pins/{pin_id}", None, {}),
        ("POST", f"/api/pins/{pin_id}/collection", {}, {}),
        ("DELETE", f"/api/photos/{photo_id}", None, {}),
        ("POST", f"/api/photos/{photo_id}/retry", {}, {}),
        ("POST", "/api/account/password", {"current_password": victim.password, "new_password": NEW_PASSWORD}, {}),
        ("DELETE", "/api/session", None, {}),
        ("DELETE", "/api/session?all=1", None, {}),
        ("DELETE", "/v1/session", None, {}),
        ("POST", "/api/session", login, {}),
        ("POST", "/v1/session", login, {}),
        ("POST", "/api/users", {"email": signup_email, "password": "correct-horse-battery", "first_name": "Evil",
                                "last_name": "Twin"}, {}),
    ]


def variants(base, other_origin):
    """(name, extra headers, body encoding) an attacker's page can produce."""
    return [
        ("origin-evil/json", {"Origin": "http://evil.example"}, "json"),
        ("origin-null/json", {"Origin": "null"}, "json"),
        ("origin-other-port/json", {"Origin": other_origin}, "json"),
        ("origin-sibling-subdomain/json", {"Origin": "http://evil.127.0.0.1.nip.io"}, "json"),
        ("origin-prefix-trick/json", {"Origin": base + ".evil.example"}, "json"),
        ("sfs-cross-site/json", {"Sec-Fetch-Site": "cross-site"}, "json"),
        ("sfs-same-site/json", {"Sec-Fetch-Site": "same-site", "Origin": other_origin}, "json"),
        ("sfs-same-site-only/json", {"Sec-Fetch-Site": "same-site"}, "json"),
        ("sfs-cross-site+own-origin/json", {"Sec-Fetch-Site": "cross-site", "Origin": base}, "json"),
        ("origin-evil/form", {"Origin": "http://evil.example"}, "form"),
        ("sfs-cross-site/text", {"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"}, "text"),
        ("sfs-same-site/multipart", {"Sec-Fetch-Site": "same-site", "Origin": other_origin}, "multipart"),
        ("no-browser-headers/form", {}, "form"),
        ("no-browser-headers/text", {}, "text"),
    ]


def encode(body, encoding):
    import json
    import urllib.parse
    text = json.dumps(body if body is not None else {})
    if encoding == "json":
        return (text if body is not None else None), "application/json"
    if encoding == "form":
        return urllib.parse.urlencode({text: ""}), "application/x-www-form-urlencoded"
    if encoding == "text":
        return text, "text/plain"
    boundary = "----evil" + uuid.uuid4().hex
    return (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{text}\"\r\n\r\nx\r\n--{boundary}--\r\n",
            f"multipart/form-data; boundary={boundary}")


ATTACK_PAGE = """<!doctype html><html><body>
<iframe name="sink" style="display:none"></iframe>
<form id="f1" method="POST" action="{base}/v1/StudentLocation" enctype="text/plain" target="sink">
<input name='{{"firstName":"Pwned","lastName":"X","mapString":"Evil","mediaURL":"https://evil.example","latitude":1,"longitude":1,"pad":"' value='"}}'>
</form>
<form id="f2" method="POST" action="{base}/api/account/password" enctype="text/plain" target="sink">
<input name='{{"current_password":"{password}","new_password":"{new}","pad":"' value='"}}'>
</form>
<form id="f3" method="POST" action="{base}/api/pins" target="sink"><input name="latitude" value="5"><input name="longitude" value="5"></form>
<script>
const base = {base!r};
const json = (o) => JSON.stringify(o);
const attempts = [
  ['POST', '/v1/StudentLocation', json({{firstName: 'Pwned', lastName: 'X', mapString: 'Evil', mediaURL: 'https://evil.example', latitude: 1, longitude: 1}})],
  ['POST', '/parse/classes/StudentLocation', json({{firstName: 'Pwned', lastName: 'X', mapString: 'Evil', mediaURL: 'https://evil.example', latitude: 1, longitude: 1}})],
  ['POST', '/api/pins', json({{latitude: 5, longitude: 5}})],
  ['POST', '/api/pins/{pin}/collection', '{{}}'],
  ['POST', '/api/photos/{photo}/retry', '{{}}'],
  ['POST', '/api/account/password', json({{current_password: '{password}', new_password: '{new}'}})],
  ['POST', '/api/session', json({{udacity: {{username: '{email}', password: '{password}'}}}})],
  ['POST', '/api/users', json({{email: 'csrf-' + Date.now() + '@example.com', password: 'correct-horse-battery', first_name: 'Evil', last_name: 'Twin'}})],
];
const cors = [
  ['PUT', '/v1/StudentLocation/{object_id}'], ['DELETE', '/v1/StudentLocation/{object_id}'],
  ['PATCH', '/api/pins/{pin}'], ['DELETE', '/api/pins/{pin}'], ['DELETE', '/api/photos/{photo}'], ['DELETE', '/api/session?all=1'],
];
(async () => {{
  let sent = 0;
  for (const [method, path, body] of attempts) {{
    try {{ await fetch(base + path, {{method, body, credentials: 'include', mode: 'no-cors'}}); }} catch (e) {{}}
    sent++;
  }}
  for (const [method, path] of cors) {{
    try {{ await fetch(base + path, {{method, credentials: 'include', headers: {{'Content-Type': 'application/json'}}, body: method === 'DELETE' ? undefined : '{{"latitude":7,"longitude":7}}'}}); }} catch (e) {{}}
    sent++;
  }}
  for (const id of ['f1', 'f2', 'f3']) {{
    document.getElementById(id).submit();
    sent++;
    await new Promise((r) => setTimeout(r, 700));
  }}
  document.title = 'done ' + sent;
}})();
</script></body></html>"""


def attacker_site(html):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_cross_site_writes_change_nothing(csrf_server, browser):
    base = csrf_server.base
    victim = Account(base, "Victim", "Of-CSRF")
    object_id = victim.post_location().json()["objectId"]
    pin_id = victim.call("POST", "/api/pins", {"latitude": 48.85, "longitude": 2.35}).json()["id"]
    photo_id = settled_album(victim, pin_id)["photos"][0]["id"]
    before = victim_state(base, victim, object_id, pin_id)
    other_origin = f"http://127.0.0.1:{free_port()}"
    signup_email = f"csrf-{uuid.uuid4().hex[:8]}@example.com"

    # Controls: the victim's own origin with the same cookie is served (so refusals below are
    # the cross-site guard, not a missing session).
    control = raw(base, "GET", f"/api/pins/{pin_id}", headers={**victim.cookie(), "Sec-Fetch-Site": "same-origin"})
    assert control.status == 200, control
    control = raw(base, "PUT", f"/v1/StudentLocation/{object_id}", {"mapString": "Lagos, Nigeria"},
                  {**victim.cookie(), "Origin": base, "Sec-Fetch-Site": "same-origin"})
    assert control.status == 200, control
    before = victim_state(base, victim, object_id, pin_id)

    attempts = succeeded = 0
    failures = []
    for name, extra, encoding in variants(base, other_origin):
        for method, path, body, headers in writes(victim, object_id, pin_id, photo_id, signup_email):
            data, content_type = encode(body, encoding)
            all_headers = {**headers, **victim.cookie(), **extra}
            if data is not None:
                all_headers["Content-Type"] = content_type
            response = raw(base, method, path, data, all_headers)
            attempts += 1
            assert response.status < 500, (name, method, path, response)
            if response.status < 400 or response.header("Set-Cookie") and "onthemap_session=" in response.header("Set-Cookie") \
                    and "Max-Age=0" not in response.header("Set-Cookie"):
                succeeded += 1
                failures.append((name, method, path, response.status))
            elif path.startswith("/api/session") or path.startswith("/v1/session") or path == "/api/users":
                if path.startswith("/v1") and method == "DELETE" or "session" in path:
                    assert response.body.startswith(b")]}'\n"), (name, method, path, response)

    # A real attacker page on another port (same site for cookies) while the victim is logged in.
    driver = browser
    page = Page(driver, base, None)
    driver.get(base + "/health")
    driver.delete_all_cookies()
    driver.execute_script("localStorage.clear(); sessionStorage.clear();")
    page.log_in(victim)
    browser_session = next(c["value"] for c in driver.get_cookies() if c["name"] == "onthemap_session")
    html = ATTACK_PAGE.format(base=base, pin=pin_id, photo=photo_id, object_id=object_id, email=victim.email,
                              password=victim.password, new=NEW_PASSWORD)
    site = attacker_site(html)
    try:
        driver.get(f"http://127.0.0.1:{site.server_address[1]}/")
        page.until(lambda d: d.title.startswith("done"), 30, "the attacker page never finished")
        browser_attempts = int(driver.title.split()[1])
    finally:
        site.shutdown()
    attempts += browser_attempts

    after = victim_state(base, victim, object_id, pin_id)
    changed = [key for key in before if before[key] != after[key]]
    succeeded += len(changed)
    assert cookie_alive(base, browser_session), "the attack ended the browser's session"
    assert cookie_alive(base, victim.session), "the attack ended the victim's session"
    assert raw(base, "POST", "/api/session", {"udacity": {"username": victim.email, "password": victim.password}}).status == 200
    assert raw(base, "POST", "/api/session", {"udacity": {"username": signup_email, "password": "correct-horse-battery"}}).status == 403
    figure(f"CSRF attempts {attempts} ({attempts - browser_attempts} forged over HTTP, {browser_attempts} from a "
           f"real attacker page in Chromium) / succeeded {succeeded}")
    assert not failures, failures
    assert not changed, (changed, before, after)
