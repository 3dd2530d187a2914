""""Forgot password?" on the login card, end to end: a server with email set up to a real SMTP
relay (smtp_sink.py, aiosmtpd), the email received, its link followed in Chromium, the new
password set and used, the old one and the spent link refused; an unknown address gets the
same answer and no email; a server without email says so plainly."""
import os
import re
import time

import pytest

from a11y import axe_violations, blocking, describe
from conftest import clean_page, server_with_email
from helpers import Api, HTTPFailure

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                                reason="starts a server of its own, with email set up")

SENT = "If an account has this address, a link is on its way."
NEW_PASSWORD = "a-new-pass-phrase"


@pytest.fixture(scope="module")
def mail_server(photo_stub):
    with server_with_email(photo_stub, "forgot") as server:
        yield server


@pytest.fixture
def mail_page(browser, mail_server):
    """A clean browser on the server that sends email."""
    return clean_page(browser, mail_server["base"], Api(mail_server["base"]))


def focused_id(page):
    return page.js("return document.activeElement && document.activeElement.id")


def ask_for_a_link(page, email):
    """Opens "Forgot password?" from the login card and asks for a link for `email`."""
    page.open("/#/login")
    page.visible("#login-email")
    page.find("#show-forgot").click()
    page.visible("#forgot-form")
    assert focused_id(page) == "forgot-email", "the focus goes to the form's field"
    assert page.driver.title.startswith("Forgot Password")
    page.type_into("#forgot-email", email)
    page.find("#forgot-button").click()
    page.visible("#forgot-sent")
    return page.find("#forgot-sent").text


def link_in(message):
    match = re.search(r"https?://\S+/reset\.html#token=[0-9a-f]+", message["text"])
    assert match, f"no reset link in {message['text']!r}"
    return match.group(0)


def set_password(page, link, password):
    page.driver.get("about:blank")  # else only the fragment changes and the page stays as it is
    page.driver.get(link)
    page.visible("#reset-form")
    page.type_into("#reset-password", password)
    page.type_into("#reset-confirm", password)
    page.find("#reset-button").click()


def test_forgot_password_by_email_end_to_end(mail_page, mail_server):
    page, sink = mail_page, mail_server["sink"]
    student = page.api.create_user("Ada", "Forgetful")
    old_password = student.password

    # An unknown address: the same sentence, in the live region, and no email.
    unknown = f"nobody.{int(time.time() * 1000)}@example.com"
    assert ask_for_a_link(page, unknown) == SENT
    assert page.js("return document.getElementById('forgot-sent').closest('[role=status]') !== null")
    assert not page.find("#forgot-error").is_displayed()
    violations = blocking(axe_violations(page.driver, "#login-scene"))
    assert not violations, describe(violations)

    # The student's address: the identical answer on screen, and the email arrives.
    assert ask_for_a_link(page, student.email) == SENT
    message = sink.wait_for(1, to=student.email)[-1]
    assert "password" in message["subject"].lower()
    link = link_in(message)
    assert link.startswith(mail_server["base"] + "/reset.html#token=")
    assert not [m for m in sink.messages() if unknown in m["rcpt_tos"]], "an unknown address gets no email"

    # Following the link, the student sets a new password and logs in with it.
    set_password(page, link, NEW_PASSWORD)
    page.visible("#reset-done")
    page.screenshot("forgot-password-reset-done")
    student.password = NEW_PASSWORD
    page.log_in(student)

    # The old password no longer works.
    with pytest.raises(HTTPFailure) as refused:
        page.api.log_in(student.email, old_password)
    assert refused.value.status in (401, 403)

    # The same link a second time is refused.
    page.driver.delete_all_cookies()
    set_password(page, link, "another-pass-phrase")
    page.text_in("#reset-error", "already used or expired")
    page.api.log_in(student.email, NEW_PASSWORD)

    # Still nothing for the unknown address, after the sender has had all this time.
    assert not [m for m in sink.messages() if unknown in m["rcpt_tos"]]


def test_the_forgot_form_by_keyboard_and_back(mail_page):
    page = mail_page
    page.open("/#/login")
    page.visible("#login-email")
    page.type_into("#login-email", "typed.before@example.com")
    # Nothing typed after the form opens: asked for, the field is named.
    page.find("#show-forgot").click()
    page.visible("#forgot-form")
    assert page.find("#forgot-email").get_attribute("value") == "typed.before@example.com", \
        "the address typed on the login form comes along"
    page.type_into("#forgot-email", "")
    page.find("#forgot-button").click()
    page.text_in("#forgot-error", "Enter your email.")
    assert focused_id(page) == "forgot-email"
    # Back to the login form, the focus on its first field.
    page.find("#forgot-back").click()
    page.visible("#login-form")
    assert not page.find("#forgot-form").is_displayed()
    assert focused_id(page) == "login-email"
    assert page.driver.title.startswith("Log In")


def test_a_server_without_email_says_so(page):
    page.open("/#/forgot")
    page.visible("#forgot-form")
    page.type_into("#forgot-email", "someone@example.com")
    page.find("#forgot-button").click()
    page.text_in("#forgot-error", "Email is not set up on this server: ask your teacher or the host for a reset link.")
    assert not page.find("#forgot-sent").is_displayed()
    violations = blocking(axe_violations(page.driver, "#login-scene"))
    assert not violations, describe(violations)
