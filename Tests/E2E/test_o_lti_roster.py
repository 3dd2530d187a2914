"""The course roster in the class settings, end to end: a real LTI 1.3 platform
(lti_platform.py) with a course of five, a teacher's launch carrying the Names and Role
Provisioning claim (the tool syncs the course's members in the background), one learner who
opens the class and posts, another who opens it and posts nothing, two who never open it.

The teacher's browser, signed in through the launch's one-time window code, finds in the
class's settings a "Course roster" section: when it last synced, how many of the course are on
the map, who is not yet (and why), and, folded, who is. Names are the platform's words, shown
as text. axe finds nothing serious at phone and desktop size. A student's settings show no
roster section, and never ask for it.

The tool is `onthemap serve` of its own, reached as http://localhost:PORT (its --public-url),
while the platform is http://127.0.0.1:PORT.
"""
import html
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

import pytest

from a11y import axe_violations, blocking, describe
from conftest import DESKTOP, PHONE, ROOT, SCREENSHOTS, Page, ServerProcess, free_port
from helpers import PARSE_HEADERS, Api, HTTPFailure
from lti_agent import Agent
from lti_platform import INSTRUCTOR, LEARNER, Person, Platform

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                                reason="needs the tool started here, with its own data folder")

SESSION_COOKIE = "onthemap_session"
SYNC_DEADLINE_S = 30


def binary():
    path = Path(os.environ.get("ONTHEMAP_BIN", ROOT / ".build" / "debug" / "onthemap"))
    return path if path.is_absolute() else ROOT / path


def person(first, last=None):
    sub = "user-" + uuid.uuid4().hex[:12]
    return Person(sub=sub, given_name=first, family_name=last or "Roster" + secrets.token_hex(3),
                  email=f"{first.lower()}.{sub}@school.example")


# ---- the browser's part of a launch, without a browser ----

@dataclass
class Launched:
    slug: str
    session: str
    window_path: str   # /lti/window/<one-time code>: signs a browser in, first-party


def launch_ok(launch):
    """Login initiation, the platform's authentication answer (its self-submitting form), the
    post to the tool's launch URL: the class's slug, the session, the window link."""
    agent = Agent()
    answer = agent.get(launch.login_url())
    assert answer.status in (302, 303), f"login initiation answered {answer.status}"
    answer = agent.get(urllib.parse.urljoin(launch.login_url(), answer.headers["Location"]))
    status, page = answer.status, answer.text
    assert status == 200, f"the platform refused the authentication request: {page[:300]}"
    action = html.unescape(re.search(r'<form id="launch" method="post" action="([^"]+)"', page).group(1))
    fields = {html.unescape(name): html.unescape(value)
              for name, value in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', page)}
    answer = agent.post(action, fields, headers={"Origin": launch.issuer})
    status, page = answer.status, answer.text
    assert status == 200, f"the launch failed ({status}): {page[:400]}"
    slug = re.search(r'id="open-map"[^>]*href="/#/(?:signed-in/)?c/([a-z0-9-]+)"', page)
    window = re.search(r'id="open-window" href="(/lti/window/[^"]+)"', page)
    assert slug and window, f"no class link or window link on the launch page: {page[:400]}"
    assert agent.cookie(SESSION_COOKIE), "the launch set no session cookie"
    return Launched(slug.group(1), agent.cookie(SESSION_COOKIE), html.unescape(window.group(1)))


# ---- the tool and its platform ----

class World:
    def __init__(self, server, tool, platform):
        self.server, self.tool, self.platform = server, tool, platform
        self.api = Api(tool)

    def cli(self, *args):
        result = subprocess.run([str(binary()), *args, "--data-dir", self.server.data_dir], capture_output=True,
                                text=True, timeout=60, cwd=self.server.data_dir)
        assert result.returncode == 0, f"onthemap {' '.join(args)} failed ({result.returncode}): {result.stderr}{result.stdout}"
        return result.stdout

    def get(self, path, session):
        return self.api.request("GET", path, headers={"Cookie": f"{SESSION_COOKIE}={session}"})[1]

    def roster(self, slug, session):
        return self.get(f"/api/classes/{slug}/course-roster", session)

    def post_location(self, slug, session):
        account = self.get("/api/account", session)["account"]
        body = {"uniqueKey": account["key"], "firstName": account["first_name"], "lastName": account["last_name"],
                "mapString": "Lagos, Nigeria", "mediaURL": "https://example.com/me", "latitude": 6.45, "longitude": 3.39}
        Api(f"{self.tool}/c/{slug}").request("POST", "/parse/classes/StudentLocation", body,
                                             headers={**PARSE_HEADERS, "X-Parse-Session-Token": session})


@pytest.fixture(scope="module")
def world(photo_stub):
    port = free_port()
    tool = f"http://localhost:{port}"
    platform = Platform(name="Roster LMS").start()
    server = ServerProcess(photo_stub, log_name="e2e-lti-roster-server.log", port=port, extra=["--public-url", tool])
    try:
        world = World(server, tool, platform)
        world.record = platform.add_tool(login_url=tool + "/lti/login", redirect_uris=[tool + "/lti/launch"],
                                         jwks_uri=tool + "/lti/jwks", target_link_uri=tool + "/lti/launch")
        world.cli("admin", "lti", "add-platform", "--issuer", platform.issuer, "--client-id", world.record.client_id,
                  "--auth-url", platform.auth_url, "--token-url", platform.token_url, "--jwks-url", platform.jwks_url,
                  "--deployment-id", world.record.deployment_id, "--name", platform.name)
        # The running tool knows the platform at its next login from it; waited for all the same.
        probe = platform.launch(world.record, person("Probe"))
        deadline = time.time() + 60
        while True:
            answer = Agent().get(probe.login_url())
            status = answer.status
            if status in (302, 303) and (answer.headers.get("Location") or "").startswith(platform.auth_url):
                break
            assert time.time() < deadline, f"the tool never accepted the platform's login ({status})"
            time.sleep(0.2)
        yield world
    finally:
        server.stop()
        platform.stop()


def synced_roster(world, course, slug, session):
    """Waits (a deadline, no fixed wait) for the platform to serve the course's members, then for
    the tool to say it synced."""
    world.platform.wait_for(lambda: any(r["context"] == course.id for r in world.platform.membership_requests),
                            SYNC_DEADLINE_S, "the tool never asked the platform for the course's members")
    deadline = time.time() + SYNC_DEADLINE_S
    while True:
        answer = world.roster(slug, session)
        if answer["synced_at"]:
            return answer
        assert time.time() < deadline, f"synced_at stayed null: {answer}"
        time.sleep(0.2)


def reset_browser(driver):
    for handle in driver.window_handles[1:]:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(driver.window_handles[0])
    driver.get("about:blank")
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.get_log("performance")   # drop earlier requests
    driver.get_log("browser")


def sign_in_by_window(page, launched):
    """The launch's "Open in a new window" link, opened in this browser: a session of its own,
    first-party, then the class's map, signed in."""
    page.open(launched.window_path)
    page.clickable("#continue", 20).click()
    page.until(lambda d: d.get_cookie(SESSION_COOKIE) is not None, 10, "the window link set no session cookie")
    page.until(lambda d: d.execute_script("return location.hash") == f"#/c/{launched.slug}"
               and not page.find("#main-scene").get_attribute("hidden"), 30,
               "the window link did not open the class's map signed in")


def open_settings(page, slug):
    page.open(f"/#/c/{slug}/settings")
    page.visible("#settings-view", 20)
    # The page asked for the class and who I am in it: the rest of it shows.
    page.until(lambda d: not page.find("#leave-section").get_attribute("hidden")
               or not page.find("#end-section").get_attribute("hidden"), 20, "the settings page never loaded")


def requested(driver, part):
    """The URLs of requests the browser sent (its performance log) that contain `part`."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            if part in url:
                urls.append(url)
    return urls


def rows(page, css):
    """(name, status, role, dir) of each row of a roster list, from the DOM (folded ones too)."""
    return page.js("""
        return [...document.querySelectorAll(arguments[0] + ' > li')].map((row) => [
            row.querySelector('strong').textContent, row.querySelector('.course-roster-status').textContent,
            row.querySelector('.member-role').textContent, row.querySelector('strong').getAttribute('dir')]);
    """, css)


def test_the_teacher_sees_who_in_the_course_is_not_on_the_map_and_a_student_does_not(world, browser):
    platform = world.platform
    course = platform.course(title=f"Rivers of Africa {secrets.token_hex(2)}")
    teacher = course.enroll(person("Tess"), [INSTRUCTOR])
    poster = course.enroll(person("Lia"), [LEARNER])          # opens the class, posts
    quiet = course.enroll(person("Luz"), [LEARNER])           # opens the class, posts nothing
    # Never open the class. The platform's names are untrusted: markup, right-to-left script.
    marked = course.enroll(person("Lou", "<img src=x id=injected>"), [LEARNER])
    rtl = course.enroll(Person(sub="user-" + uuid.uuid4().hex[:12], given_name="ليلى", family_name="حداد"), [LEARNER])
    everyone = [teacher, poster, quiet, marked, rtl]

    first = launch_ok(platform.launch(world.record, teacher, course, nrps=True))
    slug = first.slug
    assert world.get(f"/api/classes/{slug}", first.session)["role"] == "teacher"
    listed = synced_roster(world, course, slug, first.session)
    assert sorted(m["name"] for m in listed["members"]) == sorted(p.name for p in everyone)
    assert [e for e in platform.errors if e[0] in ("/token", "/memberships")] == []

    # After the sync, two learners open the class from the course; one posts.
    learner = launch_ok(platform.launch(world.record, poster, course))
    launch_ok(platform.launch(world.record, quiet, course))
    assert world.get(f"/api/classes/{slug}", learner.session)["role"] == "student"
    world.post_location(slug, learner.session)
    by_name = {m["name"]: m for m in world.roster(slug, first.session)["members"]}
    assert (by_name[poster.name]["member"], by_name[poster.name]["on_map"]) == (True, True)
    assert (by_name[quiet.name]["member"], by_name[quiet.name]["on_map"]) == (True, False)
    assert (by_name[marked.name]["member"], by_name[marked.name]["on_map"]) == (False, False)
    assert "role" not in by_name[marked.name]
    # A student reads no roster: 403 in the API's error format.
    with pytest.raises(HTTPFailure) as refused:
        world.roster(slug, learner.session)
    assert refused.value.status == 403
    assert json.loads(refused.value.body)["error"]["code"] == "forbidden", refused.value.body

    driver = browser
    page = Page(driver, world.tool, world.api)
    try:
        reset_browser(driver)
        page.viewport(DESKTOP)

        # ---- the teacher ----
        sign_in_by_window(page, first)
        driver.get_log("performance")
        open_settings(page, slug)
        page.visible("#course-roster-section", 20)
        page.text_in("#course-roster-count", "1 of 5 course members are on the map.", 10)
        assert requested(driver, f"/api/classes/{slug}/course-roster"), "the teacher's page never asked for the roster"
        synced = page.find("#course-roster-synced")
        assert synced.text.startswith("Last synced with the course "), synced.text
        stamp = page.find("#course-roster-synced time")
        assert stamp.get_attribute("datetime") and stamp.text, "the sync's time is not a <time> element"
        heading = page.find("#course-roster-section h2")
        assert heading.text == "Course roster"

        missing = rows(page, "#course-roster-missing")
        assert sorted(row[0] for row in missing) == sorted(p.name for p in (teacher, quiet, marked, rtl))
        status = {row[0]: row[1] for row in missing}
        assert status[quiet.name] == "no location yet"
        assert status[teacher.name] == "no location yet"
        assert status[marked.name] == "not in the class yet"
        assert status[rtl.name] == "not in the class yet"
        assert {row[0]: row[2] for row in missing}[teacher.name] == "Teacher"
        assert all(row[3] == "auto" for row in missing), missing
        # Markup in a name is text.
        assert page.js("return document.querySelector('#course-roster-section img, #injected')") is None
        # Those on the map come after, folded.
        box = page.find("#course-roster-on-map-box")
        assert box.tag_name == "details" and not box.get_attribute("open")
        assert page.find("#course-roster-on-map-title").text == "On the map (1)"
        page.find("#course-roster-on-map-title").click()
        page.visible("#course-roster-on-map > li")
        on_map = rows(page, "#course-roster-on-map")
        assert [(row[0], row[1]) for row in on_map] == [(poster.name, "on the map")]
        assert page.js("""
            const order = [...document.querySelectorAll('#course-roster-section li strong')].map((n) => n.textContent);
            return order.indexOf(arguments[0]) > order.indexOf(arguments[1]);""", poster.name, quiet.name)

        # At a phone's size the section fits the screen; axe finds nothing serious at either size.
        found = []
        for size in (PHONE, DESKTOP):
            page.viewport(size)
            if size == PHONE:
                assert page.js("return document.documentElement.scrollWidth") <= PHONE[0]
                assert page.js("const s = document.getElementById('course-roster-section');"
                               "return s.scrollWidth <= s.clientWidth")
            violations = blocking(axe_violations(driver))
            if violations:
                found.append(f"--- class settings with the course roster at {size[0]}x{size[1]}\n{describe(violations)}")
        assert not found, "axe found serious or critical violations:\n" + "\n".join(found)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for size in (PHONE, DESKTOP):
            page.viewport(size)
            page.js("document.getElementById('course-roster-section').scrollIntoView()")
            driver.save_screenshot(str(SCREENSHOTS / f"lti-course-roster-{size[0]}x{size[1]}.png"))
        page.viewport(DESKTOP)
        assert page.console_errors() == []

        # ---- a student: no roster section, and no request for it ----
        reset_browser(driver)
        sign_in_by_window(page, learner)
        driver.get_log("performance")
        open_settings(page, slug)
        page.visible("#leave-section")
        assert page.find("#course-roster-section").get_attribute("hidden") is not None
        assert page.find("#end-section").get_attribute("hidden") is not None
        assert requested(driver, "course-roster") == []
        assert page.console_errors() == []
    finally:
        reset_browser(driver)
