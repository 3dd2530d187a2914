"""Teachers' notices, end to end with a real SMTP relay (smtp_sink.py): a teacher asks in the
class's settings to be told when posts wait for approval; a student's post waits; the email
arrives with the count, the class's link and a one-click stop; followed signed out, its link
asks, stops that email and says so."""
import os
import re

import pytest

from a11y import axe_violations, blocking, describe
from conftest import clean_page, server_with_email
from helpers import Api
from test_n_classes import ADMIN_EMAIL, administrator, as_teacher, post_in_class, unique_slug

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                                reason="starts a server of its own, with email set up")


@pytest.fixture(scope="module")
def notice_server(photo_stub):
    with server_with_email(photo_stub, "notices") as server:
        yield server


def answer_and_wait_for_the_next(page):
    """OK on a question the app follows at once with its answer in the same dialog."""
    asked = page.find("#alert-title").text
    page.find("#alert-ok").click()
    page.until(lambda d: page.find("#alert-title").text != asked, 10, "no answer followed the question")


def test_a_teacher_is_told_of_waiting_posts_and_stops_it_from_the_email(browser, notice_server):
    base, sink = notice_server["base"], notice_server["sink"]
    page = clean_page(browser, base, Api(base))
    teacher = administrator(page.api)
    slug = unique_slug("notice")
    as_teacher(teacher, "POST", "/api/classes", {"slug": slug, "name": "Notice class", "join": "open", "approval": "all"})

    page.log_in(teacher)
    page.open(f"/#/c/{slug}/settings")
    page.visible("#notices-section")
    assert not page.find("#notices-no-email").is_displayed()
    assert not page.find("#notice-waiting").is_selected()
    page.clickable("#notice-waiting").click()
    page.text_in("#notices-done", "Saved.")
    violations = blocking(axe_violations(page.driver, "#notices-section"))
    assert not violations, describe(violations)
    assert as_teacher(teacher, "GET", f"/api/classes/{slug}/notices") == {"email": True, "waiting": True, "reported": False}

    # A student's post waits for approval: the teacher is told by email.
    student = page.api.create_user("Nia", "Waits")
    as_teacher(student, "POST", f"/api/classes/{slug}/join", {})
    post_in_class(student, slug, "Lagos, Nigeria", 6.45, 3.39)
    message = sink.wait_for(1, to=ADMIN_EMAIL, timeout=60)[-1]
    assert message["subject"] == "Posts wait for your approval in Notice class"
    assert "Waiting now: 1." in message["text"]
    assert f"{base}/#/c/{slug}/map" in message["text"]
    assert str(message["message"]["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
    assert str(message["message"]["List-Unsubscribe"]).startswith(f"<{base}/api/notices/stop?token=")
    stop = re.search(r"https?://\S+/#/stop-notice/[0-9a-f]{48}", message["text"]).group(0)
    assert stop.startswith(base)

    # Followed on a computer where nobody is signed in: asked first, then told what stopped.
    page = clean_page(browser, base, Api(base))
    page.driver.get(stop)
    title, _ = page.alert()
    assert title == "Stop these emails?"
    assert as_teacher(teacher, "GET", f"/api/classes/{slug}/notices")["waiting"] is True, "nothing stops before the answer"
    answer_and_wait_for_the_next(page)
    title, said = page.alert()
    assert title == "Emails stopped"
    assert "Notice class" in said and "wait for approval" in said
    page.dismiss_alert("#alert-ok")
    page.visible("#login-email")
    assert as_teacher(teacher, "GET", f"/api/classes/{slug}/notices")["waiting"] is False

    # The same link again: already stopped.
    page.driver.get("about:blank")
    page.driver.get(stop)
    page.alert()
    answer_and_wait_for_the_next(page)
    title, said = page.alert()
    assert said == "These emails were already stopped."
    page.dismiss_alert("#alert-ok")
