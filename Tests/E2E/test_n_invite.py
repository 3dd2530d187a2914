"""A class's invite comes first: its settings open on the link (in view without scrolling on a
phone and on a desktop), Copy puts it on the clipboard, and the QR code beside it reads back
(pyzbar, Debian's libzbar0, on a screenshot of the element) as the link; on a server without
email, Send by email says email is not set up. On a server with email (a real SMTP relay,
smtp_sink.py), Send by email reaches the relay with the link. The link's page, opened by a
new visitor, names the class and its teacher and opens on Sign up; a revoked link says so
before anyone signs up."""
import os
import struct
import uuid
import zlib

import pytest

from conftest import DESKTOP, PHONE, clean_page, server_with_email
from helpers import Api
from test_n_classes import administrator, as_teacher, copy_invite_link, make_class


def unique_slug(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def png_to_gray(png):
    """A PNG screenshot (8-bit RGB or RGBA, not interlaced, as Chromium writes them) as
    (grey bytes, width, height), what pyzbar reads."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks, header = 8, [], None
    while position < len(png):
        length, kind = struct.unpack(">I4s", png[position:position + 8])
        data = png[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", data)
        elif kind == b"IDAT":
            chunks.append(data)
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                estimate = left + up - corner
                distances = (abs(estimate - left), abs(estimate - up), abs(estimate - corner))
                line[i] = (line[i] + (left, up, corner)[distances.index(min(distances))]) & 255
        rows.append(bytes(line))
        previous = line
    grey = bytearray()
    for line in rows:
        for x in range(width):
            r, g, b = line[x * channels:x * channels + 3]
            grey.append((r * 299 + g * 587 + b * 114) // 1000)
    return bytes(grey), width, height


def read_qr(page):
    from pyzbar import pyzbar
    pixels, width, height = png_to_gray(page.find("#invite-qr").screenshot_as_png)
    found = pyzbar.decode((pixels, width, height))
    assert found, "pyzbar found no QR code in the element's screenshot"
    return found[0].data.decode("utf-8")


def in_view(page, css):
    """Whether the element is wholly inside the window, as it is shown now (no scrolling)."""
    return page.js("""
        const box = document.querySelector(arguments[0]).getBoundingClientRect();
        return box.width > 0 && box.top >= 0 && box.left >= 0 &&
               box.bottom <= window.innerHeight && box.right <= window.innerWidth;""", css)


def open_settings(page, slug):
    page.open(f"/#/c/{slug}/settings")
    page.visible("#invite-section")
    page.until(lambda d: page.find("#invite-link").get_attribute("value"), message="the invite link is shown")
    page.until(lambda d: page.find("#invite-qr svg"), message="the QR code is drawn")


def test_settings_open_on_the_invite_with_copy_and_a_qr_code(page, api):
    teacher = administrator(api)
    slug = unique_slug("geo")
    view = make_class(teacher, slug, "World Geography")
    link = view["invite_url"]
    page.log_in(teacher)
    for size in (PHONE, DESKTOP):
        page.viewport(size)
        open_settings(page, slug)
        assert page.find("#invite-link").get_attribute("value") == link
        first = page.js("return document.querySelector('#settings-view > section:not([hidden]), #settings-view > form:not([hidden])').id")
        assert first == "invite-section", f"the settings open on {first}"
        for css in ("#invite-link", "#invite-copy", "#invite-qr"):
            assert in_view(page, css), f"{css} is in view without scrolling at {size}"
        assert read_qr(page) == link, "the QR code reads as the invite link"
    assert copy_invite_link(page) == link
    # This server has no email: the button says so, and nothing is sent.
    button = page.find("#invite-email-send")
    assert button.text == "Email Is Not Set Up" and not button.is_enabled()
    assert page.find("#invite-email-off").is_displayed()


@pytest.fixture(scope="module")
def mail_server(photo_stub):
    with server_with_email(photo_stub, "invite") as server:
        yield server


@pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")), reason="starts a server of its own, with email set up")
def test_send_by_email_reaches_the_relay_with_the_link(browser, mail_server):
    base, sink = mail_server["base"], mail_server["sink"]
    page = clean_page(browser, base, Api(base))
    teacher = administrator(page.api)
    slug = unique_slug("bio")
    link = make_class(teacher, slug, "Biology 101")["invite_url"]
    assert link.startswith(base)
    page.log_in(teacher)
    open_settings(page, slug)
    page.type_into("#invite-emails", "not-an-address")
    page.find("#invite-email-send").click()
    page.text_in("#invite-email-error", "is not an email address")
    first, second = f"ana-{slug}@example.org", f"ben-{slug}@example.org"
    page.type_into("#invite-emails", f"{first},\n{second}, {first}")
    page.find("#invite-email-send").click()
    page.text_in("#invite-email-done", "2 invitations are on their way.")
    assert page.find("#invite-emails").get_attribute("value") == ""
    for address in (first, second):
        message = sink.wait_for(1, to=address)[0]
        assert "Biology 101" in message["subject"]
        assert link in message["text"], message["text"]
        assert "Demo Student" in message["text"], "the email names the teacher"


def test_the_invite_page_welcomes_a_new_visitor_and_says_at_once_when_a_link_is_revoked(page, api):
    teacher = administrator(api)
    slug = unique_slug("chem")
    view = make_class(teacher, slug, "Chemistry 201")
    for size in (PHONE, DESKTOP):
        page.viewport(size)
        page.driver.get("about:blank")
        page.open(view["invite_path"])
        page.visible("#signup-form")
        page.text_in("#login-note", "Chemistry 201")
        note = page.find("#login-note").text
        assert "Demo S." in note and slug not in note, note
        assert not page.find("#login-form").is_displayed(), "the page opens on Sign up"
        assert page.find("#show-login").is_displayed(), "Log in is a click away"
    page.find("#show-login").click()
    page.visible("#login-form")

    as_teacher(teacher, "DELETE", f"/api/classes/{slug}/invite")
    page.driver.get("about:blank")
    page.open(view["invite_path"])
    page.visible("#signup-form")
    page.text_in("#login-invite-error", "no longer valid")
    assert "Ask your teacher for a new link" in page.find("#login-invite-error").text
    assert not page.find("#login-note").is_displayed(), "no note names a class the link no longer opens"
