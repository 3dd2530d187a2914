"""Schemathesis hooks for Scripts/fuzz-api.sh (loaded through SCHEMATHESIS_HOOKS).

- Authentication: every request carries `X-Parse-Session-Token` for the account the script
  signed up. The fuzzer itself logs out (DELETE /session, ?all=1) and so ends that session
  now and then: on a 401 the provider logs in again through the API and the request is
  retried once.
- The Udacity routes answer `)]}'` + newline before their JSON (docs/api/udacity-session.md §1.2), which the
  document cannot express; the operations say so and carry `x-onthemap-body-prefix` on
  their responses. Before the checks run, the prefix is verified and stripped so the JSON
  after it is validated against the schema. A body without the prefix is left as it is, so
  it fails the schema check (it is then not JSON either).
"""
import json
import os
import urllib.request

import schemathesis

BASE_URL = os.environ["ONTHEMAP_FUZZ_URL"].rstrip("/")
EMAIL = os.environ["ONTHEMAP_FUZZ_EMAIL"]
PASSWORD = os.environ["ONTHEMAP_FUZZ_PASSWORD"]
PREFIX = b")]}'\n"


def login() -> str:
    body = json.dumps({"udacity": {"username": EMAIL, "password": PASSWORD}}).encode()
    request = urllib.request.Request(
        f"{BASE_URL}/api/session", data=body, method="POST",
        headers={"Content-Type": "application/json", "Accept": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        data = response.read()
    if not data.startswith(PREFIX):
        raise RuntimeError(f"login answer lacks the Udacity prefix: {data[:40]!r}")
    return json.loads(data[len(PREFIX):])["session"]["id"]


@schemathesis.auth(refresh_interval=None, retry_on=[401])
class SessionAuth:
    def get(self, case, context):
        return login()

    def set(self, case, data, context):
        case.headers = case.headers or {}
        case.headers["X-Parse-Session-Token"] = data


def _has_prefix(case, status: int) -> bool:
    """Whether the documented response for this status carries the Udacity prefix."""
    responses = case.operation.definition.raw.get("responses", {})
    definition = responses.get(str(status)) or responses.get("default") or {}
    if "$ref" in definition:
        name = definition["$ref"].rsplit("/", 1)[-1]
        definition = case.operation.schema.raw_schema["components"]["responses"].get(name, {})
    return "x-onthemap-body-prefix" in definition


@schemathesis.hook
def after_call(context, case, response):
    if _has_prefix(case, response.status_code) and response.content.startswith(PREFIX):
        response.content = response.content[len(PREFIX):]
        response.clear_cache()


@schemathesis.hook
def before_call(context, case, kwargs):
    """The live map's change stream stays open until its `timeout`: end it after a second so
    each call returns well within the request timeout (the answer is still checked)."""
    if case.operation.definition.raw.get("operationId") == "liveChanges":
        case.query = dict(case.query or {})
        case.query["timeout"] = 1
