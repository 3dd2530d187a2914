"""Stored XSS: hostile text stored as students' names, places and links (and as search text,
geocoder answers, account names and third-party photo credits) is rendered through every
scene in real Chromium, twice: once with the Content-Security-Policy bypassed (so only the
web app's own escaping stands between the payload and execution) and once as deployed
(CSP violations then show markup that got into the page). A canary injected before any
page script (`window.__xss(n)`, `alert`) records every execution."""
import json
import os
import time
import urllib.parse

import pytest
from selenium.webdriver.common.keys import Keys

from conftest import Page
from photo_stub import IMAGE_SIZE, PhotoStub
from security_support import Account, Server, figure, raw

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                                reason="starts servers of its own")

TEMPLATES = [
    "<script>__xss(N)</script>",
    "<img src=x onerror=__xss(N)>",
    "<IMG SRC=x OnErRoR=__xss(N)>",
    "<svg onload=__xss(N)>",
    "<svg/onload=__xss(N)//",
    "<svg><script>__xss(N)</script></svg>",
    "<svg><animate onbegin=__xss(N) attributeName=x dur=1s>",
    "\"><img src=x onerror=__xss(N)>",
    "'><img src=x onerror=__xss(N)>",
    "\" onmouseover=\"__xss(N)\" x=\"",
    "' onfocus='__xss(N)' autofocus x='",
    "\" autofocus onfocus=__xss(N) x=\"",
    "javascript:__xss(N)",
    "JaVaScRiPt:__xss(N)",
    " javascript:__xss(N)",
    "java\tscript:__xss(N)",
    "jav&#x61;script:__xss(N)",
    "javascript://%0a__xss(N)",
    "vbscript:__xss(N)",
    "data:text/html,<script>__xss(N)</script>",
    "https://example.com/\"><script>__xss(N)</script>",
    "https://example.com/#'><img src=x onerror=__xss(N)>",
    "http://example.com/?a=<svg/onload=__xss(N)>",
    "https://example.com/' onmouseover='__xss(N)",
    "http://example.com/ onmouseover=__xss(N)",
    "www.example.com/\"onmouseover=\"__xss(N)",
    "</textarea><script>__xss(N)</script>",
    "</title><script>__xss(N)</script>",
    "</style><img src=x onerror=__xss(N)>",
    "</script><script>__xss(N)</script>",
    "<iframe src=\"javascript:__xss(N)\"></iframe>",
    "<iframe srcdoc=\"<script>parent.__xss(N)</script>\"></iframe>",
    "<body onload=__xss(N)>",
    "<details open ontoggle=__xss(N)>",
    "<input autofocus onfocus=__xss(N)>",
    "<video><source onerror=__xss(N)></video>",
    "<audio src=x onerror=__xss(N)>",
    "<object data=\"javascript:__xss(N)\"></object>",
    "<embed src=\"javascript:__xss(N)\">",
    "<a href=\"javascript:__xss(N)\">click me</a>",
    "<math><mtext><table><mglyph><style><img src=x onerror=__xss(N)>",
    "<div style=\"width:expression(__xss(N))\">css</div>",
    "<div style=\"background:url(javascript:__xss(N))\">css</div>",
    "<style>@import 'javascript:__xss(N)';</style>",
    "{{constructor.constructor('__xss(N)')()}}",
    "${__xss(N)}",
    "<%= __xss(N) %>",
    "[click](javascript:__xss(N))",
    "![x](x\" onerror=\"__xss(N))",
    "&lt;img src=x onerror=__xss(N)&gt;",
    "&#60;img src=x onerror=__xss(N)&#62;",
    "\\u003cimg src=x onerror=__xss(N)\\u003e",
    "\uff1cscript\uff1e__xss(N)\uff1c/script\uff1e",
    "%3Cscript%3E__xss(N)%3C/script%3E",
    "<scr<script>ipt>__xss(N)</scr</script>ipt>",
    "<img src=x onerror=&#95;&#95;xss(N)>",
    "<img src=\"x`onerror=__xss(N)\">",
    "<base href=\"javascript:__xss(N)//\">",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:__xss(N)\">",
    "<form action=\"javascript:__xss(N)\"><button>go</button></form>",
    "<marquee onstart=__xss(N)>m</marquee>",
    "<noscript><p title=\"</noscript><img src=x onerror=__xss(N)>\">",
    "<!--<img src=\"--><img src=x onerror=__xss(N)//\">",
    "<img\u200bsrc=x onerror=__xss(N)>",
    "<img src=x onerror=__xss(N)>\u2028",
    "\u202e<img src=x onerror=__xss(N)>",
    "<scr\x00ipt>__xss(N)</script>",
    "';__xss(N);//",
    "\"-__xss(N)-\"",
    "<x contenteditable autofocus onfocusin=__xss(N)>edit",
]
PAYLOADS = [template.replace("__xss(N)", f"__xss({index})") for index, template in enumerate(TEMPLATES, start=1)]
FIELDS = ("firstName", "lastName", "mapString", "mediaURL")
SPOT = (-37.07, -12.31)  # every record at one point: the cluster spiderfies and every popup can be opened

CANARY = r"""
(() => {
  window.__xssHits = [];
  window.__cspViolations = [];
  window.__xss = (n) => { window.__xssHits.push(String(n)); };
  const record = (what) => (...args) => { window.__xssHits.push(what + ':' + args.join(',')); };
  window.alert = record('alert'); window.confirm = record('confirm'); window.prompt = record('prompt');
  document.addEventListener('securitypolicyviolation', (event) => {
    window.__cspViolations.push(event.violatedDirective + ' ' + (event.blockedURI || '') + ' ' + (event.sample || ''));
  });
})();
"""

# Markup that must never appear: inline handlers, script-ish elements carrying a payload,
# and links or frames to a non-http(s) scheme.
INJECTED_JS = r"""
const found = [];
for (const node of document.querySelectorAll('*')) {
  for (const attr of node.attributes) {
    const name = attr.name.toLowerCase();
    if (name.startsWith('on')) found.push(node.tagName + '[' + name + ']');
    if (['href', 'src', 'action', 'data', 'formaction', 'srcdoc', 'xlink:href'].includes(name)
        && /^\s*(javascript|data|vbscript):/i.test(attr.value) && node.tagName !== 'IMG')
      found.push(node.tagName + '[' + name + '=' + attr.value.slice(0, 40) + ']');
  }
  if (['SCRIPT', 'IFRAME', 'OBJECT', 'EMBED', 'BASE', 'META', 'STYLE', 'MARQUEE', 'DETAILS', 'VIDEO', 'AUDIO', 'MATH', 'NOSCRIPT']
      .includes(node.tagName) && (node.outerHTML.includes('__xss') || node.outerHTML.includes('&#95;')))
    found.push(node.tagName + ':' + node.outerHTML.slice(0, 60));
  if (node.tagName === 'IMG' && node.getAttribute('src') === 'x') found.push('IMG[src=x]');
}
return found;
"""


class HostileStub(PhotoStub):
    """A photo service whose titles, authors and links are XSS payloads."""

    payloads = PAYLOADS[:21]

    def _search(self, handler, query):
        lat, lon = (float(part) for part in query["ggscoord"].split("|"))
        pages = {}
        for index, payload in enumerate(self.payloads):
            page_id = 7000 + index
            link = payload if index % 2 else f"https://commons.wikimedia.org/wiki/{urllib.parse.quote(payload)}"
            pages[str(page_id)] = {
                "pageid": page_id, "ns": 6, "title": f"File:{payload}.jpg",
                "imageinfo": [{
                    "thumburl": f"{self.base}/img/{page_id}.png", "thumbwidth": IMAGE_SIZE[0], "thumbheight": IMAGE_SIZE[1],
                    "url": f"{self.base}/img/{page_id}-full.png", "descriptionurl": link, "user": payload,
                    "extmetadata": {"Artist": {"value": payload}, "LicenseShortName": {"value": payload}},
                }],
            }
        handler._send(200, "application/json", json.dumps({"batchcomplete": "", "query": {"pages": pages}}).encode())


@pytest.fixture(scope="module")
def hostile_stub():
    stub = HostileStub().start()
    yield stub
    stub.stop()


@pytest.fixture(scope="module")
def xss_server(hostile_stub):
    with Server("--wikimedia-api-url", hostile_stub.api_url, "--photos-per-album", "21", name="xss") as server:
        yield server


def store_payloads(base):
    """Posts every payload in every field; returns (owner, records, tried, refused)."""
    owner = Account(base, "Owner", "Of-Payloads")
    tried = refused = 0
    records = []  # (objectId, fields dict)

    def post(fields):
        body = {"firstName": "Pay", "lastName": "Load", "mapString": "Somewhere",
                "mediaURL": "https://example.com/ok", **fields}
        response = owner.post_location(latitude=SPOT[0], longitude=SPOT[1], **body)
        if response.status == 201:
            records.append((response.json()["objectId"], body))
            return True
        assert response.status == 400 and response.json()["code"] == 142, response
        return False

    for payload in PAYLOADS:
        tried += len(FIELDS)
        if post({field: payload for field in FIELDS}):
            continue
        # Refused as a whole: find which fields the server refuses, store the rest.
        accepted = {}
        for field in FIELDS:
            probe = owner.post_location(latitude=SPOT[0], longitude=SPOT[1], **{field: payload})
            if probe.status == 201:
                raw(base, "DELETE", f"/v1/StudentLocation/{probe.json()['objectId']}", headers=owner.token())
                accepted[field] = payload
            else:
                assert probe.status == 400 and probe.json()["code"] == 142, probe
                refused += 1
        if accepted:
            assert post(accepted)
    return owner, records, tried, refused


def canary_hits(page):
    return page.js("return (window.__xssHits || []).slice()") or []


def check(page, where, results):
    assert page.js("return typeof window.__xss === 'function'"), f"{where}: the canary is not installed"
    hits = canary_hits(page)
    injected = page.js(INJECTED_JS)
    violations = page.js("return (window.__cspViolations || []).slice()") or []
    logged = [entry["message"] for entry in page.driver.get_log("browser")
              if "Content Security Policy" in entry["message"] or "__xss" in entry["message"]]
    results["executed"].update(f"{where}:{hit}" for hit in hits)
    results["injected"].update(f"{where}:{item}" for item in injected)
    results["csp"].update(f"{where}:{item}" for item in violations + logged)
    results["checks"] += 1


def test_stored_xss_renders_as_text_everywhere(browser, xss_server, hostile_stub):
    base = xss_server.base
    owner, records, tried, refused = store_payloads(base)
    assert len(records) >= 50
    # Account names through sign-up (the account sheet shows them).
    named_tried = named_refused = 0
    named = []
    for payload in PAYLOADS[:12]:
        named_tried += 1
        email = f"n{named_tried}.{time.time_ns()}@example.com"
        response = raw(base, "POST", "/api/users", {"email": email, "password": "correct-horse-battery",
                                                    "first_name": payload, "last_name": payload})
        if response.status == 201:
            named.append(type("Named", (), {"email": email, "password": "correct-horse-battery"}))
        else:
            assert response.status == 400, response
            named_refused += 1
    # A Travel album whose photo credits come from the hostile photo service.
    pin = owner.call("POST", "/api/pins", {"latitude": 48.85, "longitude": 2.35}).json()
    deadline = time.time() + 60
    while time.time() < deadline:
        album = owner.call("GET", f"/api/pins/{pin['id']}/photos").json()
        if album["album"]["settled"]:
            break
        time.sleep(0.3)

    driver = browser
    results = {"executed": set(), "injected": set(), "csp": set(), "checks": 0}
    script = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CANARY})["identifier"]
    searched = 0
    try:
        for mode in ("csp-bypassed", "csp-enforced"):
            driver.execute_cdp_cmd("Page.setBypassCSP", {"enabled": mode == "csp-bypassed"})
            page = Page(driver, base, None)
            page.offline(False)
            page.viewport((1280, 800))
            driver.get(base + "/health")
            driver.delete_all_cookies()
            driver.execute_script("localStorage.clear(); sessionStorage.clear();")
            driver.get_log("browser")
            page.log_in(owner)
            if mode == "csp-bypassed":
                # Positive control: markup injected by hand does run and is caught by the canary.
                page.js("document.body.insertAdjacentHTML('beforeend', '<img id=control src=x onerror=__xss(0)>')")
                page.until(lambda d: canary_hits(page) == ["0"], 5, "the canary missed a real execution")
                page.js("document.getElementById('control').remove(); window.__xssHits.length = 0;")
            check(page, f"{mode}/map", results)

            # Map: the single cluster (everyone at one place) opens as a list naming them;
            # every name opens that student's card.
            page.clickable("#map .cluster").click()
            page.until(lambda d: len(page.find_all(".popup-group .group-name")) == len(records), 15,
                       "the group did not list every student")
            names = page.js("""
                const names = [];
                const count = document.querySelectorAll('.popup-group .group-name').length;
                for (let i = 0; i < count; i += 1) {
                  document.querySelectorAll('.popup-group .group-name')[i].click();
                  const name = document.querySelector('.leaflet-popup .popup-name');
                  names.push(name ? name.textContent : null);
                  document.querySelector('.leaflet-popup .group-back').click();
                }
                return names;""")
            squash = lambda text: " ".join((text or "").split())
            expected = {squash(f"{fields['firstName']} {fields['lastName']}") for _, fields in records}
            assert {squash(name) for name in names} == expected, "some popup did not show its student's name as text"
            check(page, f"{mode}/popups", results)

            # List: every record is a row whose text is the payload.
            page.tab("list")
            page.until(lambda d: len(page.list_rows()) == len(records), 15, "not every record listed")
            texts = page.js("return document.getElementById('student-list').textContent")
            for _, fields in records:
                assert fields["mapString"].strip() in texts
            hrefs = page.js("return Array.from(document.querySelectorAll('#student-list a')).map(a => a.href)")
            assert all(href.startswith(("http://", "https://")) for href in hrefs)
            check(page, f"{mode}/list", results)

            # Search: every payload typed as search text.
            page.tab("search")
            for payload in PAYLOADS:
                text = payload.replace("\x00", "").replace("\t", " ")
                page.js("const i = document.getElementById('search-input'); i.value = arguments[0];"
                        "i.dispatchEvent(new Event('input'));", text)
                page.find("#search-input").send_keys(Keys.ENTER)
                page.until(lambda d: "Searching" not in page.find("#search-footer").text, 10)
                searched += 1
            check(page, f"{mode}/search", results)

            # Account sheet with the owner's name, then with payload names.
            page.clickable("#account-button").click()
            time.sleep(0.3)
            check(page, f"{mode}/account", results)
            driver.get(base + "/health")

            # Add location: the replace note shows the existing (payload) place; the geocoder's
            # answers (names from an upstream) are payloads; invalid links and unknown places
            # are echoed in alerts.
            page.open("/")
            page.visible("#main-scene")
            page.map_ready()
            fake = {"results": [{"name": p, "latitude": 6.45, "longitude": 3.39, "kind": p, "country": p,
                                 "countryCode": "NG", "region": p, "span": {"latitudeDelta": 1, "longitudeDelta": 1},
                                 "confidence": 1} for p in PAYLOADS[:8]]}
            page.fake_server_error("/api/geocode", status=200, body=json.dumps(fake))
            page.clickable("#add-location-button").click()
            title, message = page.alert()  # "Replace your location?" quotes the stored (payload) place
            assert "__xss" in message or "Pay" in message or message
            check(page, f"{mode}/replace-confirm", results)
            page.dismiss_alert("#alert-ok")
            page.visible("#add-place")
            check(page, f"{mode}/add-location", results)
            page.type_into("#add-place", PAYLOADS[1])
            page.type_into("#add-link", "https://example.com/\"><svg/onload=__xss(999)>")
            page.find("#add-find").click()
            page.visible("#add-preview")
            for _ in range(3):
                page.js("const c = document.querySelector('#preview-alternatives .chip'); if (c) c.click();")
            check(page, f"{mode}/add-preview", results)
            page.find("#add-back").click()
            page.visible("#add-form")
            for payload in PAYLOADS[:6]:
                page.type_into("#add-link", payload.replace("\x00", ""))
                page.find("#add-find").click()
                page.alert()
                page.dismiss_alert()
            page.fake_server_error("/api/geocode", status=200, body='{"results":[]}')
            page.type_into("#add-link", "https://example.com/ok")
            for payload in PAYLOADS[6:10]:
                page.type_into("#add-place", payload)
                page.find("#add-find").click()
                page.alert()
                page.dismiss_alert()
            check(page, f"{mode}/add-alerts", results)

            # Travel: the album's credits come from the hostile photo service.
            driver.get(base + "/health")
            page.open("/")
            page.visible("#main-scene")
            page.map_ready()
            page.tab("travel")
            page.until(lambda d: d.execute_script(
                "const m = document.getElementById('travel-map'); return m.dataset.state === 'ready'"), 15)
            page.clickable(f'.travel-pin[data-pin-id="{pin["id"]}"]').click()
            page.until(lambda d: d.execute_script(
                "const a = document.getElementById('album'); return !a.hidden && a.dataset.settled === 'true'"), 30,
                "the album never settled")
            credits = page.find_all("#album-credits li, .credit")
            assert credits, "no credits shown"
            hrefs = page.js("return Array.from(document.querySelectorAll('#album a')).map(a => a.href)")
            assert all(href.startswith(("http://", "https://")) for href in hrefs), hrefs
            check(page, f"{mode}/travel", results)

            # Account names that are payloads (those the server accepted).
            for account in named[:3]:
                driver.get(base + "/health")
                driver.delete_all_cookies()
                driver.execute_script("localStorage.clear(); sessionStorage.clear();")
                page.log_in(account)
                page.clickable("#account-button").click()
                time.sleep(0.3)
                check(page, f"{mode}/account-named", results)
            driver.get(base + "/health")
            driver.delete_all_cookies()
    finally:
        driver.execute_cdp_cmd("Page.setBypassCSP", {"enabled": False})
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script})

    field_refused = refused
    figure(f"XSS payloads tried {len(PAYLOADS)} ({tried} field values, {named_tried} account names, "
           f"{len(HostileStub.payloads)} photo credits, {searched} searches) / executed {len(results['executed'])} / "
           f"refused by server {field_refused} field values + {named_refused} names / "
           f"markup injected {len(results['injected'])} / CSP violations {len(results['csp'])} "
           f"({results['checks']} scene checks in 2 modes)")
    assert not results["executed"], sorted(results["executed"])
    assert not results["injected"], sorted(results["injected"])
    assert not results["csp"], sorted(results["csp"])
