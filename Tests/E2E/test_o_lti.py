"""OnTheMap as an LTI 1.3 tool, end to end.

The platform is a real process of its own making (lti_platform.py: a learning management
system's side of LTI Core 1.3, Deep Linking 2.0, Names and Role Provisioning Services 2.0
and Dynamic Registration 1.0, signing and checking every JWT with RSA keys). The tool is
`onthemap serve` on a data folder of its own, reached as http://localhost:PORT while the
platform is http://127.0.0.1:PORT, so the platform's course page frames the tool cross-site.

Most tests are the browser's part without a browser (`Agent`: it follows the redirects and
the self-submitting forms and keeps the tool's cookies by hand, since Python's HTTP clients
do not send `Secure` cookies over http); one test runs the launch in Chromium, inside the
platform's iframe. The host's commands (`onthemap admin lti …`, `admin users`, `admin class
list`) run on the same data folder.
"""
import hashlib
import hmac
import json
import os
import re
import secrets
import subprocess
import time
import urllib.parse
import uuid
from dataclasses import dataclass
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import OUTPUT, ROOT, Page, ServerProcess, free_port
from lti_agent import Agent, Response
from helpers import PARSE_HEADERS, Api, HTTPFailure, add_member
from lti_platform import (DEEP_LINKING_REQUEST, INSTITUTION_ADMINISTRATOR, INSTRUCTOR, LEARNER, LTI, NRPS_SCOPE,
                          TEACHING_ASSISTANT, TOOL_CONFIGURATION, Person, Platform, b64url, unsigned_token)

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                                reason="needs the tool started here, with its own data folder")

LOG_NAME = "e2e-lti-server.log"
# The login initiation's cookie binding state and nonce to the browser: one per login
# (onthemap_lti_<id>, Path=/lti/), so launches in several tabs or frames do not collide.
STATE_COOKIE_PREFIX = "onthemap_lti_"
SESSION_COOKIE = "onthemap_session"
PLATFORMS = []        # every platform this file started (their secrets are checked against the log)
FORGED = []           # tokens the tests made by hand


def binary():
    path = Path(os.environ.get("ONTHEMAP_BIN", ROOT / ".build" / "debug" / "onthemap"))
    return path if path.is_absolute() else ROOT / path


def new_platform(**kwargs):
    platform = Platform(**kwargs).start()
    PLATFORMS.append(platform)
    return platform


def person(first="Ada", last=None):
    last = last or "Tester" + secrets.token_hex(3)
    sub = "user-" + uuid.uuid4().hex[:12]
    return Person(sub=sub, given_name=first, family_name=last, email=f"{first.lower()}.{sub}@school.example")


# ---- a browser without a browser: lti_agent.py ----

def frame_ancestors(response):
    policy = response.headers.get("Content-Security-Policy") or ""
    for directive in policy.split(";"):
        words = directive.split()
        if words and words[0].lower() == "frame-ancestors":
            return words[1:]
    return None


# ---- the tool, its platforms ----

@dataclass
class Launched:
    response: Response
    agent: Agent
    slug: str
    session: str


class LTIWorld:
    def __init__(self, server, tool, platform):
        self.server, self.tool, self.platform = server, tool, platform
        self.api = Api(tool)

    # ---- the host's commands ----

    def cli(self, *args, check=True):
        result = subprocess.run([str(binary()), *args, "--data-dir", self.server.data_dir], capture_output=True,
                                text=True, timeout=60, cwd=self.server.data_dir)
        if check:
            assert result.returncode == 0, f"onthemap {' '.join(args)} failed ({result.returncode}): {result.stderr}{result.stdout}"
        return result

    def inventory(self):
        """Every account key and class of the tool's database. `admin class list` prints a slug
        in a column 20 characters wide, cutting longer ones: the classes are those columns, sorted
        (a list, so two classes whose slugs begin alike still count twice)."""
        accounts = {json.loads(line)["key"] for line in self.cli("admin", "users", "--json").stdout.splitlines() if line.strip()}
        classes = sorted(line[:20].strip() for line in self.cli("admin", "class", "list").stdout.splitlines()[1:] if line.strip())
        return {"accounts": accounts, "classes": classes}

    def add_platform(self, platform, *extra, wait=True):
        """Registers `platform` with the tool by hand, both sides: the platform's form for the
        tool's URLs, then `onthemap admin lti add-platform`. Returns (the platform's Tool, the
        tool's id for the platform)."""
        record = platform.add_tool(login_url=self.tool + "/lti/login", redirect_uris=[self.tool + "/lti/launch"],
                                   jwks_uri=self.tool + "/lti/jwks", target_link_uri=self.tool + "/lti/launch")
        out = self.cli("admin", "lti", "add-platform", "--issuer", platform.issuer, "--client-id", record.client_id,
                       "--auth-url", platform.auth_url, "--token-url", platform.token_url, "--jwks-url", platform.jwks_url,
                       "--deployment-id", record.deployment_id, "--name", platform.name, *extra).stdout
        ids = [line.strip() for line in out.splitlines() if re.fullmatch(r"[A-Za-z0-9_-]{3,40}", line.strip())]
        assert ids, f"add-platform printed no id on a line of its own: {out!r}"
        if wait:
            self.await_known(platform, record)
        return record, ids[-1]

    def await_known(self, platform, record, known=True, timeout=60):
        """Waits until the running tool answers the platform's login initiation with the
        redirect to the platform (or, known=False, refuses it)."""
        probe = platform.launch(record, person("Probe"))
        deadline = time.time() + timeout
        while True:
            answer = Agent().get(probe.login_url())
            redirected = answer.status in (302, 303) and (answer.location or "").startswith(platform.auth_url)
            if redirected == known:
                return
            assert time.time() < deadline, f"the tool never {'accepted' if known else 'refused'} {platform.issuer}: {answer.describe()}"
            time.sleep(0.2)

    # ---- launches ----

    def begin(self, launch, agent=None, via="get"):
        """The browser's way to the tool's launch URL: the login initiation, the tool's redirect
        to the platform, the platform's self-submitting form. Returns (agent, action, fields)."""
        agent = agent or Agent()
        if via == "get":
            answer = agent.get(launch.login_url())
        else:
            action, fields = launch.login_form()
            answer = agent.post(action, fields, headers={"Origin": launch.issuer})
        assert answer.status in (302, 303), f"login initiation answered {answer.describe()}"
        assert answer.location.startswith(self.platform_of(launch).auth_url + "?"), answer.location
        auth = agent.get(answer.location)
        assert auth.status == 200, f"the platform refused the tool's authentication request: {auth.describe()}"
        form = auth.document.forms[0]
        return agent, form.action, form.values()

    def finish(self, agent, action, fields, origin=None):
        return agent.post(action, fields, headers={"Origin": origin or self.platform.issuer})

    def run(self, launch, agent=None, via="get"):
        agent, action, fields = self.begin(launch, agent, via)
        return agent, self.finish(agent, action, fields, launch.issuer)

    def launched(self, launch, via="get"):
        """A launch that must succeed: its page, the class's slug, the session."""
        agent, answer = self.run(launch, via=via)
        assert answer.status == 200, f"launch failed: {answer.describe()}"
        link = answer.document.links.get("open-map")
        assert link is not None, f"no #open-map on the launch page: {answer.describe()}"
        match = re.fullmatch(r"/#/signed-in/c/([a-z0-9-]+)(/.*)?", link["href"])
        assert match, link["href"]
        session = agent.cookie(SESSION_COOKIE)
        assert session, f"the launch set no {SESSION_COOKIE} cookie"
        return Launched(answer, agent, match.group(1), session)

    def platform_of(self, launch):
        return next(p for p in PLATFORMS if p.issuer == launch.issuer)

    # ---- the tool's API with a launch's session ----

    def get(self, path, session):
        return self.api.request("GET", path, headers={"Cookie": f"{SESSION_COOKIE}={session}"})[1]

    def write(self, method, path, body, session):
        return self.api.request(method, path, body, headers={"X-Parse-Session-Token": session})[1]

    def klass(self, slug, session):
        return self.get(f"/api/classes/{slug}", session)

    def account(self, session):
        return self.get("/api/account", session)["account"]

    def status_of(self, method, path, session, body=None):
        try:
            if method == "GET":
                self.get(path, session)
            else:
                self.write(method, path, body, session)
        except HTTPFailure as failure:
            return failure.status
        return 200


@dataclass
class Registered:
    platform: Platform
    record: object      # the platform's Tool
    id: str             # the tool's id for the platform


@pytest.fixture(scope="module")
def lti(photo_stub):
    port = free_port()
    tool = f"http://localhost:{port}"
    server = ServerProcess(photo_stub, log_name=LOG_NAME, port=port, extra=["--public-url", tool])
    try:
        world = LTIWorld(server, tool, new_platform(name="Test LMS"))
        # Every platform registered by hand is added before the tool's first launch, so no test
        # waits for the running server to notice a registration made on its database.
        world.registered = {"main": Registered(world.platform, *world.add_platform(world.platform, wait=False))}
        for name, extra in (("trusted", ("--trust-email",)), ("other", ()), ("rotating", ()), ("short-lived", ())):
            platform = new_platform(name=f"{name.capitalize()} LMS")
            world.registered[name] = Registered(platform, *world.add_platform(platform, *extra, wait=False))
        for registered in world.registered.values():
            world.await_known(registered.platform, registered.record)
        world.record, world.platform_id = world.registered["main"].record, world.registered["main"].id
        # Changes a running tool takes up to a minute to act on start now; their tests, further
        # down, find them done: the tool's new signing key (`admin lti rotate-key`), and the
        # rotating platform's new key, after a launch made the tool fetch (and keep) its old keys.
        world.tool_kids_before = tool_kids(world)
        world.cli("admin", "lti", "rotate-key")
        world.key_rotated_at = time.time()
        rotating = world.registered["rotating"]
        world.launched(rotating.platform.launch(rotating.record, person("Kim"), rotating.platform.course(), [INSTRUCTOR]))
        world.platform_old_key = rotating.platform.key
        rotating.platform.rotate_key(keep_old=True)
        world.platform_rotated_at = time.time()
        yield world
    finally:
        server.stop()
        for started in PLATFORMS:
            started.stop()


def teacher_of(lti, course=None, first="Tina", **kwargs):
    """A course whose class exists: its instructor launched once."""
    course = course or lti.platform.course()
    teacher = person(first)
    launched = lti.launched(lti.platform.launch(lti.record, teacher, course, [INSTRUCTOR], **kwargs))
    return course, teacher, launched


def assert_refused(answer, before, lti, what):
    """A failure page: status ≥ 400, a heading saying what went wrong, no session, nothing made."""
    assert answer.status >= 400, f"{what}: the tool answered {answer.describe()}"
    assert answer.document.heading, f"{what}: the failure page has no <h1>: {answer.text[:300]!r}"
    assert not any(c["name"] == SESSION_COOKIE and c["value"] for c in answer.set_cookies), f"{what}: a session was set"
    after = lti.inventory()
    made = {"accounts": sorted(after["accounts"] - before["accounts"]),
            "classes": sorted(set(after["classes"]) - set(before["classes"])) or after["classes"] != before["classes"]}
    assert after == before, f"{what}: something was created: {made}"


# ---- registration by hand, and launches ----

def test_a_platform_added_by_hand_is_listed(lti):
    listing = lti.cli("admin", "lti", "list").stdout
    assert lti.platform.issuer in listing
    assert lti.record.client_id in listing
    assert lti.record.deployment_id in listing
    assert lti.platform_id in listing


def test_instructor_launch_makes_the_account_the_class_and_a_teacher(lti):
    platform = lti.platform
    before = lti.inventory()
    course = platform.course(title=f"World Geography {secrets.token_hex(3)}")
    teacher = person("Grace")
    launch = platform.launch(lti.record, teacher, course, [INSTRUCTOR])

    agent = Agent()
    login = agent.get(launch.login_url())
    assert login.status == 302, login.describe()
    state_cookie = next((c for c in login.set_cookies if c["name"].startswith(STATE_COOKIE_PREFIX)), None)
    assert state_cookie is not None, [c["raw"] for c in login.set_cookies]
    attributes = state_cookie["attributes"]
    assert attributes.get("httponly") and attributes.get("secure") and attributes.get("partitioned"), state_cookie["raw"]
    assert str(attributes.get("samesite", "")).lower() == "none", state_cookie["raw"]
    # The OpenID Connect authentication request (Security Framework §5.1.1.2), as the platform got it.
    auth = agent.get(login.location)
    assert auth.status == 200, auth.describe()
    request = launch.auth_requests[-1]
    assert request["scope"] == "openid" and request["response_type"] == "id_token"
    assert request["response_mode"] == "form_post" and request["prompt"] == "none"
    assert request["client_id"] == lti.record.client_id and request["redirect_uri"] == lti.tool + "/lti/launch"
    assert request["login_hint"] == teacher.sub and request["lti_message_hint"] == launch.hint
    assert len(request["state"]) >= 16 and len(request["nonce"]) >= 16 and request["state"] != request["nonce"]
    form = auth.document.forms[0]
    answer = lti.finish(agent, form.action, form.values())

    assert answer.status == 200, answer.describe()
    open_map = answer.document.links["open-map"]
    slug = re.fullmatch(r"/#/signed-in/c/([a-z0-9-]+)", open_map["href"]).group(1)
    open_window = answer.document.links["open-window"]
    assert re.fullmatch(r"/lti/window/[A-Za-z0-9_-]{16,}", open_window["href"]), open_window
    assert open_window.get("target") == "_blank"
    session_cookie = next(c for c in answer.set_cookies if c["name"] == SESSION_COOKIE)
    attributes = session_cookie["attributes"]
    assert attributes.get("httponly") and attributes.get("secure") and attributes.get("partitioned"), session_cookie["raw"]
    assert str(attributes.get("samesite", "")).lower() == "none", session_cookie["raw"]
    session = agent.cookie(SESSION_COOKIE)

    the_class = lti.klass(slug, session)
    assert the_class["name"] == course.title and the_class["role"] == "teacher"
    account = lti.account(session)
    assert (account["first_name"], account["last_name"]) == ("Grace", teacher.family_name)
    after = lti.inventory()
    assert after["accounts"] - before["accounts"] == {account["key"]}
    assert sorted(before["classes"] + [slug[:20]]) == after["classes"]
    assert platform.errors == []

    # The same person again, from another resource link of the course: the same account, the same class.
    again = lti.launched(platform.launch(lti.record, teacher, course,
                                         resource_link={"id": "rl-second", "title": "Second link"}), via="post")
    assert again.slug == slug
    assert lti.account(again.session)["key"] == account["key"]
    assert lti.inventory() == after


def test_the_open_in_a_new_window_code_signs_in_once(lti):
    launched = lti.launched(lti.platform.launch(lti.record, person("Wanda"), lti.platform.course(), [INSTRUCTOR]))
    href = launched.response.document.links["open-window"]["href"]
    browser = Agent()   # a new top-level window: none of the frame's cookies
    page = browser.get(lti.tool + href)
    # The link alone signs nobody in: its page names the account, and its button does.
    assert page.status == 200, page.describe()
    assert "Wanda" in page.text and 'action="/lti/window"' in page.text
    assert not any(c["name"] == SESSION_COOKIE and c["value"] for c in page.set_cookies)
    code = href.rsplit("/", 1)[1]
    opened = browser.post(lti.tool + "/lti/window", {"code": code}, headers={"Origin": lti.tool})
    assert opened.status in (302, 303), opened.describe()
    assert opened.headers["Location"] in (f"/#/signed-in/c/{launched.slug}", f"{lti.tool}/#/signed-in/c/{launched.slug}")
    session = browser.cookie(SESSION_COOKIE)
    assert session and session != launched.session
    assert lti.klass(launched.slug, session)["role"] == "teacher"
    # Spent: the link and its form work no more; another site's form never did.
    assert Agent().get(lti.tool + href).status >= 400
    again = Agent().post(lti.tool + "/lti/window", {"code": code}, headers={"Origin": lti.tool})
    assert again.status >= 400 and again.document.heading, again.describe()
    assert again.set_cookies == [] or not any(c["name"] == SESSION_COOKIE and c["value"] for c in again.set_cookies)
    other = lti.launched(lti.platform.launch(lti.record, person("Wanda"), lti.platform.course(), [INSTRUCTOR]))
    forged = Agent().post(lti.tool + "/lti/window", {"code": other.response.document.links["open-window"]["href"].rsplit("/", 1)[1]},
                          headers={"Origin": "http://127.0.0.1:9"})
    assert forged.status == 403, forged.describe()


def test_the_launch_page_shows_the_platforms_words_as_text(lti):
    title = f"<img src=x onerror=alert(1)> Rivers {secrets.token_hex(2)}"
    launched = lti.launched(lti.platform.launch(lti.record, person("Xena"), lti.platform.course(title=title),
                                                [INSTRUCTOR]))
    assert "<img src=x" not in launched.response.text
    assert title in launched.response.document.all_text
    assert lti.klass(launched.slug, launched.session)["name"] == title


def test_learner_joins_as_student_and_teaching_assistant_as_moderator(lti):
    course, _, first = teacher_of(lti)
    for roles, expected in (([LEARNER], "student"), ([TEACHING_ASSISTANT], "moderator"),
                            ([INSTRUCTOR], "teacher")):
        joined = lti.launched(lti.platform.launch(lti.record, person("Member"), course, roles))
        assert joined.slug == first.slug
        assert lti.klass(joined.slug, joined.session)["role"] == expected, roles


def test_an_institution_administrator_opens_the_class_as_teacher(lti):
    course = lti.platform.course()
    admin = lti.launched(lti.platform.launch(lti.record, person("Ida"), course, [INSTITUTION_ADMINISTRATOR]))
    assert lti.klass(admin.slug, admin.session)["role"] == "teacher"


def test_a_launch_never_lowers_a_role(lti):
    course, teacher, first = teacher_of(lti)
    later = lti.launched(lti.platform.launch(lti.record, teacher, course, [LEARNER]))
    assert lti.klass(later.slug, later.session)["role"] == "teacher"
    assistant = person("Tom")
    lti.launched(lti.platform.launch(lti.record, assistant, course, [TEACHING_ASSISTANT]))
    again = lti.launched(lti.platform.launch(lti.record, assistant, course, [LEARNER]))
    assert lti.klass(again.slug, again.session)["role"] == "moderator"


def test_a_learner_before_the_class_exists_is_told_and_nothing_is_made(lti):
    before = lti.inventory()
    launch = lti.platform.launch(lti.record, person("Early"), lti.platform.course(), [LEARNER])
    _, answer = lti.run(launch)
    assert answer.status == 409, answer.describe()
    assert "not opened in this course yet" in answer.document.all_text.lower(), answer.describe()
    assert_refused(answer, before, lti, "learner before the class")


def test_an_email_links_an_existing_account_only_from_a_platform_trusted_for_emails(lti):
    existing = lti.api.create_user("Paula", "Password")
    untrusted = person("Paula")
    untrusted.email = existing.email
    _, answer = lti.run(lti.platform.launch(lti.record, untrusted, lti.platform.course(), [INSTRUCTOR]))
    if answer.status == 200:
        assert lti.account(_session_of(answer))["key"] != existing.key
    else:
        assert answer.status >= 400 and answer.document.heading, answer.describe()

    trusted_platform, record = lti.registered["trusted"].platform, lti.registered["trusted"].record
    vouched = person("Paula")
    vouched.email = existing.email
    launched = lti.launched(trusted_platform.launch(record, vouched, trusted_platform.course(), [INSTRUCTOR]))
    assert lti.account(launched.session)["key"] == existing.key


def _session_of(answer):
    cookie = next(c for c in answer.set_cookies if c["name"] == SESSION_COOKIE)
    return cookie["value"]


# ---- Dynamic Registration ----

def registration_link(lti):
    out = lti.cli("admin", "lti", "registration-link", "--public-url", lti.tool).stdout
    links = [word for word in out.split() if word.startswith(lti.tool + "/lti/register?invite=")]
    assert links, f"registration-link printed no link: {out!r}"
    return links[0]


def test_dynamic_registration_then_a_launch_with_what_the_platform_assigned(lti):
    platform = new_platform(name="Self-service LMS")
    link = registration_link(lti)
    token = platform.registration_token()
    agent = Agent()
    answer = agent.get(platform.registration_initiation_url(link, token))
    assert answer.status == 200, f"{answer.describe()} (platform errors: {platform.errors})"
    scripts = [agent.get(urllib.parse.urljoin(answer.url, src)).text
               for src in re.findall(r'<script[^>]*\bsrc="([^"]+)"', answer.text)]
    assert any("org.imsglobal.lti.close" in text for text in [answer.text, *scripts])
    assert platform.errors == []
    assert len(platform.registrations) == 1
    registration = platform.registrations[0]
    request, tool_record = registration["request"], registration["tool"]
    configuration = request[TOOL_CONFIGURATION]
    assert request["initiate_login_uri"] == lti.tool + "/lti/login"
    assert lti.tool + "/lti/launch" in request["redirect_uris"]
    assert request["jwks_uri"] == lti.tool + "/lti/jwks"
    assert NRPS_SCOPE in request.get("scope", "").split()
    assert DEEP_LINKING_REQUEST in [m.get("type") for m in configuration.get("messages", [])]
    assert {"sub", "name", "given_name", "family_name", "email"} <= set(configuration.get("claims", []))
    assert configuration["domain"] in ("localhost", urllib.parse.urlsplit(lti.tool).netloc)

    listing = lti.cli("admin", "lti", "list").stdout
    assert platform.issuer in listing and tool_record.client_id in listing and tool_record.deployment_id in listing

    teacher = lti.launched(platform.launch(tool_record, person("Dina"), platform.course(), [INSTRUCTOR]))
    assert lti.klass(teacher.slug, teacher.session)["role"] == "teacher"

    # The invitation is spent: nothing more is registered, the second token is not even used.
    second = platform.registration_token()
    again = Agent().get(platform.registration_initiation_url(link, second))
    assert again.status >= 400 and again.document.heading, again.describe()
    assert len(platform.registrations) == 1
    assert second in platform.registration_tokens


def test_a_made_up_invitation_registers_nothing(lti):
    platform = new_platform(name="Uninvited LMS")
    token = platform.registration_token()
    link = lti.tool + "/lti/register?invite=" + secrets.token_urlsafe(24)
    answer = Agent().get(platform.registration_initiation_url(link, token))
    assert answer.status >= 400 and answer.document.heading, answer.describe()
    assert platform.registrations == [] and token in platform.registration_tokens


def test_dynamic_registration_refuses_a_configuration_naming_another_issuer(lti):
    """Dynamic Registration 1.0 §3.5.1: the configuration's issuer must match the address it was
    fetched from. One served at another address that names a registered platform's issuer (with
    keys of its own) is not that platform: nothing is registered."""
    impostor = new_platform(name="Impostor LMS")
    impostor.configuration_overrides = {"issuer": lti.platform.issuer}
    listing = lti.cli("admin", "lti", "list").stdout
    token = impostor.registration_token()
    answer = Agent().get(impostor.registration_initiation_url(registration_link(lti), token))
    assert answer.status >= 400 and answer.document.heading, answer.describe()
    assert impostor.registrations == []
    assert lti.cli("admin", "lti", "list").stdout == listing


def test_dynamic_registration_in_the_platforms_iframe_posts_the_close_message(lti, browser):
    platform = new_platform(name="Framed registration LMS")
    url = platform.registration_initiation_url(registration_link(lti), platform.registration_token())
    driver = browser
    reset_browser(driver)
    driver.get(platform.base + "/tools/register?" + urllib.parse.urlencode({"url": url}))
    WebDriverWait(driver, 20).until(EC.text_to_be_present_in_element((By.ID, "status"), "Tool registered"),
                                    f"no close message (platform errors: {platform.errors})")
    assert driver.find_element(By.ID, "status").get_attribute("data-origin") == lti.tool
    assert len(platform.registrations) == 1
    reset_browser(driver)


# ---- Deep Linking ----

def deep_link(lti, launch, choice, name=None):
    """A deep linking launch, the tool's form, and the response posted to the platform: the
    platform's record of the response."""
    agent, answer = lti.run(launch)
    assert answer.status == 200, answer.describe()
    form = next((f for f in answer.document.forms if f.action.endswith("/lti/deep-link")), None)
    assert form is not None and form.method == "post", f"no deep linking form: {answer.describe()}"
    assert form.field("ticket") is not None and set(form.radios("class")) >= {"course", "new"}
    assert form.field("name") is not None
    choices = {"class": choice, **({"name": name} if name is not None else {})}
    foreign = agent.post(urllib.parse.urljoin(lti.tool + "/", form.action), form.values(**choices),
                         headers={"Origin": lti.platform_of(launch).issuer})
    assert foreign.status >= 400 and not any(f.field("JWT") for f in foreign.document.forms), \
        f"the deep linking form was accepted from another site: {foreign.describe()}"
    chosen = agent.post(urllib.parse.urljoin(lti.tool + "/", form.action), form.values(**choices),
                        headers={"Origin": lti.tool})
    assert chosen.status == 200, chosen.describe()
    back = next((f for f in chosen.document.forms if f.field("JWT") is not None), None)
    assert back is not None and back.method == "post", f"no form back to the platform: {chosen.describe()}"
    platform = lti.platform_of(launch)
    assert back.action == platform.deep_link_return_url
    count = len(platform.deep_link_responses)
    returned = agent.post(back.action, back.values(), headers={"Origin": lti.tool})
    assert returned.status == 200, f"the platform refused the response: {returned.describe()}"
    assert len(platform.deep_link_responses) == count + 1
    return platform.deep_link_responses[-1], back.values()["JWT"]


def test_deep_linking_a_new_class_then_launching_the_link(lti):
    course, teacher, _ = teacher_of(lti)
    name = f"Field trip {secrets.token_hex(3)}"
    launch = lti.platform.launch(lti.record, teacher, course, message_type=DEEP_LINKING_REQUEST)
    response, token = deep_link(lti, launch, "new", name)
    assert jwt.get_unverified_header(token)["alg"] == "RS256"
    assert response["data"] == launch.deep_link_data
    [item] = response["content_items"]
    assert item["type"] == "ltiResourceLink" and item["title"] == name
    assert item["url"] == lti.tool + "/lti/launch"
    slug = item["custom"]["onthemap_class"]

    opened = lti.launched(lti.platform.launch(lti.record, teacher, course, target_link_uri=item["url"],
                                              custom=item["custom"],
                                              resource_link={"id": "rl-" + secrets.token_hex(4), "title": item["title"]}))
    assert opened.slug == slug
    the_class = lti.klass(slug, opened.session)
    assert the_class["name"] == name and the_class["role"] == "teacher"
    learner = lti.launched(lti.platform.launch(lti.record, person("Lee"), course, [LEARNER], custom=item["custom"],
                                               target_link_uri=item["url"]))
    assert learner.slug == slug and lti.klass(slug, learner.session)["role"] == "student"


def test_deep_linking_the_courses_own_class(lti):
    course, teacher, first = teacher_of(lti)
    launch = lti.platform.launch(lti.record, teacher, course, message_type=DEEP_LINKING_REQUEST)
    response, _ = deep_link(lti, launch, "course")
    [item] = response["content_items"]
    assert item["custom"]["onthemap_class"] == first.slug and item["title"] == course.title


def test_a_learners_deep_linking_request_is_refused(lti):
    course, _, _ = teacher_of(lti)
    before = lti.inventory()
    launch = lti.platform.launch(lti.record, person("Sly"), course, [LEARNER], message_type=DEEP_LINKING_REQUEST)
    _, answer = lti.run(launch)
    assert answer.status == 403, answer.describe()
    assert answer.document.heading and not any(f.action.endswith("/lti/deep-link") for f in answer.document.forms)
    assert lti.inventory()["classes"] == before["classes"]


def test_a_custom_class_the_platform_never_linked_is_not_opened(lti):
    """The custom claim is the platform's to send, but only links the tool made for that
    platform may name a class: another course's (another platform's) class stays closed."""
    other_platform, record = lti.registered["other"].platform, lti.registered["other"].record
    _, _, victim = teacher_of(lti)   # a class of the main platform
    intruder = person("Ivan")
    _, answer = lti.run(other_platform.launch(record, intruder, other_platform.course(), [INSTRUCTOR],
                                              custom={"onthemap_class": victim.slug}))
    if answer.status == 200:
        link = answer.document.links["open-map"]["href"]
        assert link not in (f"/#/c/{victim.slug}", f"/#/signed-in/c/{victim.slug}"), "a forged custom claim opened another platform's class"
        session = _session_of(answer)
        assert lti.status_of("GET", f"/api/classes/{victim.slug}", session) == 403
    else:
        assert answer.document.heading, answer.describe()


# ---- Names and Role Provisioning ----

def roster(lti, slug, session):
    return lti.get(f"/api/classes/{slug}/course-roster", session)


def synced(lti, slug, session, previous, requests_before, pages):
    """Waits for the platform to serve `pages` more membership pages, then for the tool to say
    it synced (synced_at changes)."""
    platform = lti.platform
    platform.wait_for(lambda: len(platform.membership_requests) >= requests_before + pages, 30,
                      f"the tool did not fetch {pages} membership pages")
    deadline = time.time() + 15
    while True:
        answer = roster(lti, slug, session)
        if answer["synced_at"] and answer["synced_at"] != previous:
            return answer
        assert time.time() < deadline, f"synced_at stayed {answer['synced_at']!r}"
        time.sleep(0.1)


def post_location(lti, slug, session):
    account = lti.account(session)
    body = {"uniqueKey": account["key"], "firstName": account["first_name"], "lastName": account["last_name"],
            "mapString": "Lagos, Nigeria", "mediaURL": "https://example.com/me", "latitude": 6.45, "longitude": 3.39}
    Api(f"{lti.tool}/c/{slug}").request("POST", "/parse/classes/StudentLocation", body,
                                        headers={**PARSE_HEADERS, "X-Parse-Session-Token": session})


def test_roster_sync_pages_shows_who_has_not_posted_and_removes_who_left(lti):
    platform = lti.platform
    assert platform.page_size == 2
    course = platform.course(title=f"Cartography {secrets.token_hex(3)}")
    teacher = course.enroll(person("Tess"), [INSTRUCTOR])
    assistant = course.enroll(person("Ari"), [TEACHING_ASSISTANT])
    learners = [course.enroll(person(name), [LEARNER]) for name in ("Lia", "Luz", "Lou", "Lev", "Lin")]
    members = [teacher, assistant, *learners]
    pages = -(-len(members) // platform.page_size)
    assert pages >= 3
    assertions_before = len(platform.client_assertions)

    requests = len(platform.membership_requests)
    first = lti.launched(platform.launch(lti.record, teacher, course, nrps=True))
    slug = first.slug
    listed = synced(lti, slug, first.session, None, requests, pages)
    assert sorted(m["name"] for m in listed["members"]) == sorted(p.name for p in members)
    by_name = {m["name"]: m for m in listed["members"]}
    expected_roles = {teacher.name: "teacher", assistant.name: "moderator", **{p.name: "student" for p in learners}}
    assert by_name[teacher.name]["role"] == "teacher"
    for name, role in expected_roles.items():   # what the course's roles make them
        assert by_name[name].get("role", role) == role, by_name[name]
    assert by_name[teacher.name]["member"] is True
    assert not any(by_name[p.name]["member"] for p in learners)
    assert not any(m["on_map"] for m in listed["members"])
    assert INSTRUCTOR in by_name[teacher.name]["roles"]
    # The tool authenticated with a client assertion the platform verified (Security Framework §4.1).
    assert len(platform.client_assertions) > assertions_before
    assertion = platform.client_assertions[-1]
    assert assertion["iss"] == assertion["sub"] == lti.record.client_id
    fetched = [r for r in platform.membership_requests[requests:] if r["context"] == course.id]
    assert len(fetched) >= 3 and sorted({r["page"] for r in fetched}) == list(range(1, pages + 1))
    assert [e for e in platform.errors if e[0] in ("/token", "/memberships")] == []

    # The assistant and three learners come in; one posts.
    lti.launched(platform.launch(lti.record, assistant, course))
    sessions = {p.sub: lti.launched(platform.launch(lti.record, p, course)).session for p in learners[:3]}
    post_location(lti, slug, sessions[learners[0].sub])
    # A student the teacher invited in OnTheMap itself, not from the course, who accepted.
    outsider = lti.api.create_user("Olga", "Outside")
    add_member(first.session, slug, outsider)

    requests = len(platform.membership_requests)
    second = lti.launched(platform.launch(lti.record, teacher, course, nrps=True))
    listed = synced(lti, slug, second.session, listed["synced_at"], requests, pages)
    by_name = {m["name"]: m for m in listed["members"]}
    assert [by_name[p.name]["member"] for p in learners] == [True, True, True, False, False]
    assert by_name[assistant.name]["member"] is True and by_name[assistant.name]["role"] == "moderator"
    assert all(by_name[p.name]["role"] == "student" for p in learners[:3])
    assert [by_name[p.name]["on_map"] for p in learners] == [True, False, False, False, False]
    # Who has not posted yet, as the teacher reads it.
    assert sorted(m["name"] for m in listed["members"] if not m["on_map"]) == sorted(p.name for p in members[:2] + learners[1:])

    # A student reads no roster.
    assert lti.status_of("GET", f"/api/classes/{slug}/course-roster", sessions[learners[0].sub]) == 403

    # Luz leaves the course, Lou is made inactive: the next sync takes them off the class.
    course.drop(learners[1])
    course.set_status(learners[2], "Inactive")
    keys = {p.sub: lti.account(sessions[p.sub])["key"] for p in learners[:3]}
    requests = len(platform.membership_requests)
    third = lti.launched(platform.launch(lti.record, teacher, course, nrps=True))
    listed = synced(lti, slug, third.session, listed["synced_at"], requests, -(-(len(members) - 1) // platform.page_size))
    assert learners[1].name not in [m["name"] for m in listed["members"]]
    assert all(not m["member"] for m in listed["members"] if m["name"] == learners[2].name)
    on_roster = {m["key"] for m in lti.get(f"/api/classes/{slug}/members", third.session)["members"]}
    assert keys[learners[0].sub] in on_roster
    assert keys[learners[1].sub] not in on_roster and keys[learners[2].sub] not in on_roster
    assert outsider.key in on_roster
    assert lti.status_of("GET", f"/api/classes/{slug}", sessions[learners[1].sub]) == 403


# ---- attacks ----

def hs256_with_the_platforms_public_key(platform):
    """The RS256/HS256 confusion: an HMAC keyed with the platform's public key, which anyone has."""
    def make(claims):
        public = platform.key.private.public_key().public_bytes(serialization.Encoding.PEM,
                                                                serialization.PublicFormat.SubjectPublicKeyInfo)
        head = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": platform.key.kid}).encode())
        body = b64url(json.dumps(claims).encode())
        signature = hmac.new(public, f"{head}.{body}".encode(), hashlib.sha256).digest()
        token = f"{head}.{body}.{b64url(signature)}"
        FORGED.append(token)
        return token
    return make


def made_up(maker):
    def make(claims):
        token = maker(claims)
        FORGED.append(token)
        return token
    return make


def shifted(seconds):
    def mutate(claims):
        claims["iat"] += seconds
        claims["exp"] += seconds
        return claims
    return mutate


TOKEN_ATTACKS = {
    "signed with another key under the platform's kid": lambda p: {"key": p.attacker_key, "headers": {"kid": p.key.kid}},
    "signed with a key the platform never published": lambda p: {"key": p.attacker_key},
    "alg none": lambda p: {"token": made_up(lambda c: unsigned_token(c, {"kid": p.key.kid}))},
    "HS256 keyed with the public key": lambda p: {"token": hs256_with_the_platforms_public_key(p)},
    "expired": lambda p: {"mutate": shifted(-900)},
    "wrong nonce": lambda p: {"claims": {"nonce": "n-" + secrets.token_hex(16)}},
    "no nonce": lambda p: {"claims": {"nonce": None}},
    "for another client": lambda p: {"claims": {"aud": "someone-else", "azp": "someone-else"}},
    "from another issuer": lambda p: {"claims": {"iss": "http://127.0.0.1:9"}},
    "unknown deployment": lambda p: {"claims": {LTI + "deployment_id": "deployment-unknown"}},
    "no message_type": lambda p: {"claims": {LTI + "message_type": None}},
    "no version": lambda p: {"claims": {LTI + "version": None}},
    "no sub": lambda p: {"claims": {"sub": None}},
    "no roles": lambda p: {"claims": {LTI + "roles": None}},
    "no resource_link": lambda p: {"claims": {LTI + "resource_link": None}},
    "version 1.1": lambda p: {"claims": {LTI + "version": "1.1"}},
    "unknown message_type": lambda p: {"claims": {LTI + "message_type": "LtiUnheardOfRequest"}},
    "deployment_id not a string": lambda p: {"claims": {LTI + "deployment_id": 42}},
    "roles not an array": lambda p: {"claims": {LTI + "roles": INSTRUCTOR}},
    "target_link_uri of another site": lambda p: {"claims": {LTI + "target_link_uri": "https://evil.example/lti/launch"}},
}


@pytest.mark.parametrize("attack", list(TOKEN_ATTACKS))
def test_a_bad_id_token_is_refused(lti, attack):
    before = lti.inventory()
    launch = lti.platform.launch(lti.record, person("Mallory"), lti.platform.course(), [INSTRUCTOR],
                                 **TOKEN_ATTACKS[attack](lti.platform))
    agent, action, fields = lti.begin(launch)
    assert_refused(lti.finish(agent, action, fields), before, lti, attack)


def test_a_replayed_id_token_is_refused(lti):
    launch = lti.platform.launch(lti.record, person("Rita"), lti.platform.course(), [INSTRUCTOR])
    agent, action, fields = lti.begin(launch)
    first = lti.finish(agent, action, fields)
    assert first.status == 200, first.describe()
    after_first = lti.inventory()
    assert_refused(lti.finish(agent, action, fields), after_first, lti, "the same id_token and state again")
    assert_refused(lti.finish(Agent(), action, fields), after_first, lti, "replayed from another browser")


def test_state_and_form_attacks_are_refused(lti):
    before = lti.inventory()
    platform = lti.platform

    def fresh():
        return lti.begin(platform.launch(lti.record, person("Eve"), platform.course(), [INSTRUCTOR]))

    agent, action, fields = fresh()
    assert_refused(lti.finish(Agent(), action, fields), before, lti, "no state cookie (another browser)")
    agent, action, fields = fresh()
    assert_refused(lti.finish(agent, action, {**fields, "state": "st-" + secrets.token_hex(16)}), before, lti, "unknown state")
    agent, action, fields = fresh()
    assert_refused(lti.finish(agent, action, {**fields, "id_token": "not-a-jwt"}), before, lti, "not a JWT")
    agent, action, fields = fresh()
    assert_refused(lti.finish(agent, action, {**fields, "id_token": "e30.e30.e30"}), before, lti, "a JWT of nothing")
    agent, action, fields = fresh()
    assert_refused(lti.finish(agent, action, {"state": fields["state"]}), before, lti, "no id_token")
    agent, action, fields = fresh()
    assert_refused(lti.finish(agent, action, {"state": fields["state"], "error": "login_required",
                                              "error_description": "The user is not signed in"}),
                   before, lti, "the platform's error response")
    # Two browsers: each one's id_token with the other's state and cookie.
    agent_a, action, fields_a = fresh()
    agent_b, _, fields_b = fresh()
    assert_refused(lti.finish(agent_a, action, {**fields_a, "id_token": fields_b["id_token"]}), before, lti,
                   "another browser's id_token")


def test_login_initiation_attacks_are_refused(lti):
    before = lti.inventory()
    stranger = new_platform(name="Unregistered LMS")
    stranger_tool = stranger.add_tool(login_url=lti.tool + "/lti/login", redirect_uris=[lti.tool + "/lti/launch"],
                                      jwks_uri=lti.tool + "/lti/jwks", target_link_uri=lti.tool + "/lti/launch")
    cases = {
        "unknown issuer": stranger.launch(stranger_tool, person("Stan"), stranger.course(), [INSTRUCTOR]),
        "unknown client_id": lti.platform.launch(lti.record, person("Cid"), lti.platform.course(), [INSTRUCTOR],
                                                 login_extra={"client_id": "not-a-client"}),
        "no login_hint": lti.platform.launch(lti.record, person("Nola"), lti.platform.course(), [INSTRUCTOR],
                                             login_extra={"login_hint": None}),
        "no iss": lti.platform.launch(lti.record, person("Ivy"), lti.platform.course(), [INSTRUCTOR],
                                      login_extra={"iss": None}),
    }
    for what, launch in cases.items():
        for via in ("get", "post"):
            agent = Agent()
            if via == "get":
                answer = agent.get(launch.login_url())
            else:
                action, fields = launch.login_form()
                answer = agent.post(action, fields, headers={"Origin": launch.issuer})
            assert_refused(answer, before, lti, f"{what} ({via})")
            assert not any(n.startswith(STATE_COOKIE_PREFIX) for n in agent.cookie_names()), f"{what}: a state was started"
    assert stranger.auth_requests == []

    # A login initiation that names another site as the target never sends the browser there.
    launch = lti.platform.launch(lti.record, person("Tara"), lti.platform.course(), [INSTRUCTOR],
                                 login_extra={"target_link_uri": "https://evil.example/lti/launch"})
    agent = Agent()
    answer = agent.get(launch.login_url())
    if answer.status < 400:
        assert answer.location and answer.location.startswith(lti.platform.auth_url + "?"), answer.location
        auth = agent.get(answer.location)
        form = auth.document.forms[0]
        assert form.action == lti.tool + "/lti/launch"
        final = lti.finish(agent, form.action, form.values())
        assert "evil.example" not in (final.headers.get("Location") or "")
        assert not any("evil.example" in link.get("href", "") for link in final.document.links.values())
        assert "evil.example" not in final.text


# ---- framing ----

def test_framing_is_allowed_for_the_registered_platforms_only(lti):
    launched = lti.launched(lti.platform.launch(lti.record, person("Fay"), lti.platform.course(), [INSTRUCTOR]))
    ancestors = frame_ancestors(launched.response)
    assert ancestors is not None, "the launch page has no frame-ancestors"
    assert lti.platform.issuer in ancestors and "*" not in ancestors, ancestors
    assert (launched.response.headers.get("X-Frame-Options") or "").upper() != "DENY"

    app = launched.agent.get(lti.tool + "/")
    assert app.status == 200
    ancestors = frame_ancestors(app)
    assert ancestors is not None and lti.platform.issuer in ancestors and "*" not in ancestors, ancestors
    assert (app.headers.get("X-Frame-Options") or "").upper() != "DENY"

    plain = Agent().get(lti.tool + "/")
    assert plain.status == 200
    assert frame_ancestors(plain) == ["'none'"], plain.headers.get("Content-Security-Policy")
    assert (plain.headers.get("X-Frame-Options") or "").upper() == "DENY"


# ---- in a browser ----

def reset_browser(driver):
    driver.switch_to.default_content()
    for handle in driver.window_handles[1:]:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(driver.window_handles[0])
    driver.get("about:blank")
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})


def test_launch_inside_the_platforms_iframe(lti, browser):
    """The course page (http://127.0.0.1:…) frames the tool (http://localhost:…): cross-site.
    The launch completes in the frame, and the class map opens there, signed in."""
    driver = browser
    reset_browser(driver)
    course = lti.platform.course(title=f"Rivers of Europe {secrets.token_hex(2)}")
    launch = lti.platform.launch(lti.record, person("Vera"), course, [INSTRUCTOR])
    try:
        driver.get(lti.platform.course_page_url(launch))
        WebDriverWait(driver, 20).until(EC.frame_to_be_available_and_switch_to_it((By.ID, "tool")))
        page = Page(driver, lti.tool, lti.api)
        page.until(lambda d: d.execute_script("return location.pathname === '/' && Boolean(document.getElementById('map'))"),
                   30, "the launch never reached the class map inside the iframe")
        page.visible("#main-scene", 20)
        page.text_in("#class-name", course.title, 20)
        page.map_ready(30)
        driver.switch_to.default_content()
        SCREENSHOTS = OUTPUT / "screenshots"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(SCREENSHOTS / "lti-course-iframe-1280x800.png"))
        assert lti.platform.errors == []
    finally:
        reset_browser(driver)


def test_open_in_a_new_window_from_the_launch_page(lti, browser):
    """Where the frame cannot run the map (here: a course page whose iframe may not run
    scripts, so the launch page stays), its "Open in a new window" link opens the class in a
    tab of its own, signed in; its one-time code works once."""
    driver = browser
    reset_browser(driver)
    course = lti.platform.course(title=f"Deltas {secrets.token_hex(2)}")
    launch = lti.platform.launch(lti.record, person("Wes"), course, [INSTRUCTOR])
    try:
        driver.get(lti.platform.course_page_url(
            launch, sandbox="allow-forms allow-same-origin allow-popups allow-popups-to-escape-sandbox"))
        WebDriverWait(driver, 20).until(EC.frame_to_be_available_and_switch_to_it((By.ID, "tool")))
        page = Page(driver, lti.tool, lti.api)
        # The platform's self-submitting form does not submit itself here: its button does.
        page.clickable("form#launch button[type=submit]", 20).click()
        link = page.visible("#open-window", 20)
        href = link.get_attribute("href")
        assert href.startswith(lti.tool + "/lti/window/"), href
        before = set(driver.window_handles)
        link.click()
        WebDriverWait(driver, 10).until(lambda d: len(d.window_handles) > len(before))
        driver.switch_to.window((set(driver.window_handles) - before).pop())
        page.clickable("#continue", 20).click()
        page.visible("#main-scene", 30)
        page.text_in("#class-name", course.title, 20)
        assert driver.current_url.startswith(lti.tool + "/")
        again = Agent().get(href)
        assert again.status >= 400 and again.document.heading, again.describe()
    finally:
        reset_browser(driver)


# ---- keys ----

def test_the_platform_rotates_its_key(lti):
    """OpenID Connect Core §10.1.1: the signer starts using a new key when it likes; the verifier
    goes back to the jwks_uri when it sees an unfamiliar kid. The tool may space those fetches
    out (a forged kid must not make it hammer the platform), so the new key is waited for: the
    platform rotated its key in the fixture, right after a launch with the old one."""
    registered = lti.registered["rotating"]
    platform, record = registered.platform, registered.record
    assert platform.key is not lti.platform_old_key and lti.platform_old_key in platform.published
    # A launch signed with the old key still passes while the platform still publishes it.
    assert lti.launched(platform.launch(record, person("Kit"), platform.course(), [INSTRUCTOR], key=lti.platform_old_key))
    deadline = lti.platform_rotated_at + 65
    while True:
        _, answer = lti.run(platform.launch(record, person("Kai"), platform.course(), [INSTRUCTOR]))
        if answer.status == 200:
            break
        assert time.time() < deadline, f"the new key was never accepted: {answer.describe()}"
        time.sleep(1)


def tool_kids(lti):
    return {key["kid"] for key in json.loads(Agent().get(lti.tool + "/lti/jwks").text)["keys"]}


def test_the_tool_rotates_its_key(lti):
    """`admin lti rotate-key` ran in the fixture: running servers take up to a minute."""
    before = lti.tool_kids_before
    deadline = lti.key_rotated_at + 75
    while not tool_kids(lti) - before:
        assert time.time() < deadline, "the tool's JWKS never showed a new key"
        time.sleep(0.5)
    new = tool_kids(lti) - before
    assert before <= tool_kids(lti), "the old key left the JWKS at once (tokens signed with it are still out)"
    course, teacher, _ = teacher_of(lti)
    launch = lti.platform.launch(lti.record, teacher, course, message_type=DEEP_LINKING_REQUEST)
    _, token = deep_link(lti, launch, "course")
    assert jwt.get_unverified_header(token)["kid"] in new


def test_a_removed_platform_launches_no_more(lti):
    registered = lti.registered["short-lived"]
    assert lti.launched(registered.platform.launch(registered.record, person("Sol"), registered.platform.course(),
                                                   [INSTRUCTOR]))
    lti.cli("admin", "lti", "remove", registered.id)
    assert registered.platform.issuer not in lti.cli("admin", "lti", "list").stdout
    lti.await_known(registered.platform, registered.record, known=False)


def test_no_token_reaches_the_server_log(lti):
    """Runs last in this file: everything above went through this tool."""
    log = (OUTPUT / LOG_NAME).read_text()
    secrets_seen = [s for p in PLATFORMS for s in p.secrets] + FORGED
    assert secrets_seen
    for secret in secrets_seen:
        assert secret not in log, f"a token reached the log: {secret[:24]}…"
    for marker in ("id_token=", "client_assertion=", "registration_token=", "access_token=", "invite="):
        assert marker not in log, marker
