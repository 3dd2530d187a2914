"""The server's own pages and messages a person reads, in that person's language: a sign-in
problem page and a course-launch problem page (html lang/dir, title and text from the server's
catalogue, Sources/Localization/Catalogues), our API's error messages, the web app's choice
(its onthemap_language cookie) before the browser's Accept-Language; while the old protocols'
errors stay byte for byte what old apps read, whatever the language. No browser."""
import html
import json
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

CATALOGUES = Path(__file__).resolve().parents[2] / "Sources" / "Localization" / "Catalogues"


def catalogue(tag):
    with open(CATALOGUES / f"{tag}.json", encoding="utf-8") as handle:
        return json.load(handle)


def fetch(server, path, headers=None, method="GET", body=None):
    request = urllib.request.Request(server + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def page_parts(text):
    opening = re.search(r"<html ([^>]*)>", text).group(1)
    heading = html.unescape(re.search(r"<h1>(.*?)</h1>", text, re.S).group(1))
    paragraph = html.unescape(re.sub(r"<[^>]+>", "", re.search(r'<p id="[a-z-]*problem">(.*?)</p>', text, re.S).group(1)))
    return opening, heading, paragraph


@pytest.mark.parametrize("tag", ["en", "de", "ar", "zh-Hans"])
def test_sign_in_problem_page_in_the_readers_language(server, tag):
    messages = catalogue(tag)
    status, headers, text = fetch(server, "/auth/no-such-provider/start", {"Accept-Language": f"{tag},en;q=0.5"})
    assert status == 404
    opening, heading, paragraph = page_parts(text)
    assert f'lang="{tag}"' in opening
    assert f'dir="{"rtl" if tag == "ar" else "ltr"}"' in opening
    assert heading == messages["signin.noProvider.title"]
    assert paragraph == messages["signin.noProvider.message"]
    if tag != "en":
        assert heading != catalogue("en")["signin.noProvider.title"], "still English"
        assert headers.get("Content-Language") == tag
    back = html.unescape(re.search(r'<a href="/#/login">(.*?)</a>', text).group(1))
    assert back == messages["page.backToLogin"]


def test_the_web_apps_choice_wins_over_the_browsers(server):
    spanish = catalogue("es")
    _, _, text = fetch(server, "/auth/no-such-provider/start", {"Accept-Language": "de", "Cookie": "onthemap_language=es"})
    assert page_parts(text)[1] == spanish["signin.noProvider.title"]
    # A cookie naming no language of ours is ignored.
    _, _, text = fetch(server, "/auth/no-such-provider/start", {"Accept-Language": "de", "Cookie": "onthemap_language=xx"})
    assert page_parts(text)[1] == catalogue("de")["signin.noProvider.title"]


def test_course_launch_problem_page_in_the_readers_language(server):
    for tag in ["en", "fr", "hi"]:
        messages = catalogue(tag)
        status, _, text = fetch(server, "/lti/login", {"Accept-Language": tag})
        assert status == 400
        opening, heading, paragraph = page_parts(text)
        assert f'lang="{tag}"' in opening
        assert heading == messages["lti.notALogin.title"]
        assert paragraph == f'{messages["lti.notALogin.message"]} {messages["lti.tryAgain"]}'


def test_api_errors_follow_the_language_and_old_protocols_do_not(server):
    body = json.dumps({"email": "not an email", "password": "long enough password", "first_name": "A", "last_name": "B"}).encode()
    answers = {}
    for tag in ["en", "pt-BR", "ar"]:
        status, headers, text = fetch(server, "/api/users", {"Accept-Language": tag, "Content-Type": "application/json"}, "POST", body)
        assert status == 400
        error = json.loads(text)["error"]
        assert error["code"] == "invalid_email"
        answers[tag] = error["message"]
    assert answers["en"] == "Enter a valid email address, like name@example.com."
    assert answers["pt-BR"] == catalogue("pt-BR")["api.error.invalidEmail"]
    assert answers["ar"] == catalogue("ar")["api.error.invalidEmail"]

    login = json.dumps({"udacity": {"username": "nobody@example.com", "password": "wrong"}}).encode()
    parse_bodies, udacity_bodies = set(), set()
    for tag in ["en", "de", "ar"]:
        headers = {"Accept-Language": tag, "Cookie": f"onthemap_language={tag}", "Content-Type": "application/json"}
        udacity_bodies.add(fetch(server, "/api/session", headers, "POST", login)[2])
        parse_bodies.add(fetch(server, "/parse/classes/StudentLocation/no-such-object", {
            **headers, "X-Parse-Application-Id": "QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr",
            "X-Parse-REST-API-Key": "QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY"})[2])
    assert len(udacity_bodies) == 1 and "Account not found or invalid credentials." in udacity_bodies.pop()
    assert len(parse_bodies) == 1
