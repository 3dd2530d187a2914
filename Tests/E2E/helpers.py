"""Plain-HTTP helpers the browser tests use to set the scene through the public API."""
import json
import urllib.error
import urllib.parse
import urllib.request
import uuid

PARSE_HEADERS = {
    "X-Parse-Application-Id": "QrX47CA9cyuGewLdsL7o5Eb8iug6Em8ye0dnAbIr",
    "X-Parse-REST-API-Key": "QuWThTdiRmTux3YaDseUSEpUKo7aBYM737yKd4gY",
}
PASSWORD = "correct-horse-battery"


class HTTPFailure(Exception):
    def __init__(self, status, body):
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body


# Every suite's server runs with --demo: its demo account is the server's first, so its
# administrator, and may read every class's map (a new server's map is members-only).
DEMO_EMAIL = "demo@onthemap.local"
DEMO_PASSWORD = "onthemap-demo"


class Api:
    def __init__(self, base):
        self.base = base.rstrip("/")
        self._reader_session = None

    @property
    def reader_session(self):
        """A session that may read the map: the demo administrator's, logged in once."""
        if self._reader_session is None:
            _, self._reader_session = self.log_in(DEMO_EMAIL, DEMO_PASSWORD)
        return self._reader_session

    def request(self, method, path, body=None, headers=None, udacity=False):
        data = None if body is None else json.dumps(body).encode()
        all_headers = {"Accept": "application/json", **(headers or {})}
        if data is not None:
            all_headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=all_headers)
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                text = response.read().decode()
                status = response.status
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            if udacity and text.startswith(")]}'"):
                text = text[5:]
            raise HTTPFailure(error.code, text) from None
        if udacity and text.startswith(")]}'"):
            text = text[5:]
        return status, (json.loads(text) if text else None)

    # ---- accounts and sessions ----

    def create_user(self, first="Test", last="Student", email=None, password=PASSWORD):
        email = email or f"{first.lower()}.{uuid.uuid4().hex[:10]}@example.com"
        _, body = self.request("POST", "/api/users", {
            "email": email, "password": password, "first_name": first, "last_name": last,
        })
        return User(self, body["account"]["key"], email, password, first, last)

    def log_in(self, email, password):
        _, body = self.request("POST", "/api/session", {"udacity": {"username": email, "password": password}}, udacity=True)
        return body["account"]["key"], body["session"]["id"]

    def session_alive(self, session_id):
        """Whether the server still accepts `session_id` (asks for the account's pins with it)."""
        try:
            self.request("GET", "/api/pins", headers={"X-Parse-Session-Token": session_id})
        except HTTPFailure as failure:
            if failure.status == 401:
                return False
            raise
        return True

    # ---- locations ----

    def locations(self, where=None, limit=100, skip=0, count=False):
        params = {"limit": str(limit), "order": "-updatedAt"}
        if skip:
            params["skip"] = str(skip)
        if where is not None:
            params["where"] = json.dumps(where)
        if count:
            params["count"] = "1"
        _, body = self.request("GET", "/parse/classes/StudentLocation?" + urllib.parse.urlencode(params),
                               headers={**PARSE_HEADERS, "X-Parse-Session-Token": self.reader_session})
        return body

    def count(self, where=None):
        return self.locations(where=where, limit=0, count=True)["count"]


class User:
    def __init__(self, api, key, email, password, first, last):
        self.api, self.key, self.email, self.password = api, key, email, password
        self.first, self.last = first, last
        self._session = None

    @property
    def name(self):
        return f"{self.first} {self.last}"

    @property
    def session(self):
        if self._session is None:
            _, self._session = self.api.log_in(self.email, self.password)
        return self._session

    def post_location(self, map_string="Lagos, Nigeria", latitude=6.45, longitude=3.39,
                      media_url="https://example.com/me", unique_key=None, first=None, last=None):
        body = {
            "uniqueKey": unique_key or self.key,
            "firstName": self.first if first is None else first,
            "lastName": self.last if last is None else last,
            "mapString": map_string, "mediaURL": media_url,
            "latitude": latitude, "longitude": longitude,
        }
        _, created = self.api.request("POST", "/parse/classes/StudentLocation", body,
                                      headers={**PARSE_HEADERS, "X-Parse-Session-Token": self.session})
        return created["objectId"]

    # ---- travel ----

    def travel(self, method, path, body=None):
        _, result = self.api.request(method, path, body, headers={"X-Parse-Session-Token": self.session})
        return result

    def pins(self):
        return self.travel("GET", "/api/pins")["results"]

    def album(self, pin_id):
        return self.travel("GET", f"/api/pins/{pin_id}/photos")

    def create_pin(self, latitude, longitude):
        return self.travel("POST", "/api/pins", {"latitude": latitude, "longitude": longitude})


# ---- classes ----

def add_member(teacher, slug, member, role="student"):
    """Puts `member` (a User) on class `slug`'s roster with `role` the way a person gets there:
    its teacher (a User, or a session id) adds their email, which invites them, and they
    accept (joining with no code). A member already only changes role. Returns the roster
    answer (`{"members", "invitations"}`) after the join."""
    session = teacher if isinstance(teacher, str) else teacher.session
    headers = {"X-Parse-Session-Token": session}
    _, answer = member.api.request("POST", f"/api/classes/{slug}/members", {"email": member.email, "role": role}, headers=headers)
    if any(item.get("key") == member.key for item in answer["members"]):
        return answer
    invited = {item["email"].lower(): item["role"] for item in answer["invitations"]}
    assert invited.get(member.email.lower()) == role, f"{member.email} is not invited as {role}: {answer}"
    member.api.request("POST", f"/api/classes/{slug}/join", {}, headers={"X-Parse-Session-Token": member.session})
    _, roster = member.api.request("GET", f"/api/classes/{slug}/members", headers=headers)
    assert any(item["key"] == member.key and item["role"] == role for item in roster["members"]), \
        f"{member.email} did not join {slug} as {role}: {roster}"
    return roster
