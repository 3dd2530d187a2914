"""A local stand-in for Facebook Login and the Graph API, in the format Facebook documents:

- the login dialog `GET /v21.0/dialog/oauth?client_id&redirect_uri&state&response_type=code&scope`
  (a page with "Continue as …" and "Cancel"; cancelling redirects with
  `error=access_denied&error_reason=user_denied`),
- `GET /v21.0/oauth/access_token?client_id&redirect_uri&client_secret&code` (each code once),
- `GET /v21.0/debug_token?input_token&access_token=APP_ID|APP_SECRET`,
- `GET /v21.0/me?fields=id,first_name,last_name,email&access_token&appsecret_proof`, refusing a
  missing or wrong `appsecret_proof` (HMAC-SHA256 of the token keyed with the app secret),
- `DELETE /v21.0/me/permissions?access_token&appsecret_proof` (revokes the token).

Errors are Graph API errors: `{"error":{"message","type":"OAuthException","code":190}}`.
`down = True` makes every Graph call answer 503.
"""
import hashlib
import hmac
import html
import json
import secrets
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

APP_ID = "424242424242"
APP_SECRET = "stub-facebook-app-secret"


class FacebookStub:
    def __init__(self, app_id=APP_ID, app_secret=APP_SECRET):
        self.app_id, self.app_secret = app_id, app_secret
        self.users = {}      # id -> {"first_name", "last_name", "email"}
        self.codes = {}      # code -> (user id, redirect_uri)
        self.tokens = {}     # token -> (user id, app id)
        self.revoked = set()
        self.proof_failures = 0
        self.down = False
        self.lock = threading.Lock()

    # ---- scene setting ----

    def add_user(self, user_id, first, last, email=None):
        self.users[user_id] = {"first_name": first, "last_name": last, "email": email}

    def issue_token(self, user_id, app_id=None):
        """A user access token as the Facebook SDK on a phone would hold it."""
        token = "EAA" + secrets.token_urlsafe(24).replace("-", "").replace("_", "")
        with self.lock:
            self.tokens[token] = (user_id, app_id or self.app_id)
        return token

    def proof(self, token):
        return hmac.new(self.app_secret.encode(), token.encode(), hashlib.sha256).hexdigest()

    def approve(self, dialog_url, user_id):
        """What the dialog does when the user continues: the redirect back, with a code."""
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(dialog_url).query))
        code = secrets.token_urlsafe(16)
        with self.lock:
            self.codes[code] = (user_id, query["redirect_uri"])
        return query["redirect_uri"] + "?" + urllib.parse.urlencode({"code": code, "state": query["state"]})

    # ---- server ----

    def start(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def send(self, status, body, content_type="application/json"):
                data = body.encode() if isinstance(body, str) else body
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def graph_error(self, message, code=190, status=400):
                self.send(status, json.dumps({"error": {"message": message, "type": "OAuthException", "code": code,
                                                        "fbtrace_id": secrets.token_hex(6)}}))

            def query(self):
                return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))

            def route(self):
                return urllib.parse.urlsplit(self.path).path.removeprefix("/v21.0")

            def user_for(self, query):
                """The token's user after checking the token and its appsecret_proof."""
                token = query.get("access_token", "")
                with stub.lock:
                    entry = stub.tokens.get(token)
                if entry is None or token in stub.revoked:
                    self.graph_error("Invalid OAuth access token - Cannot parse access token")
                    return None
                if not hmac.compare_digest(query.get("appsecret_proof", ""), stub.proof(token)):
                    stub.proof_failures += 1
                    self.graph_error("Invalid appsecret_proof provided in the API argument", code=100)
                    return None
                return entry[0]

            def do_GET(self):
                route, query = self.route(), self.query()
                if route == "/dialog/oauth":
                    return self.dialog(query)
                if route == "/dialog/oauth/decide":
                    return self.decide(query)
                if stub.down:
                    return self.send(503, "Service Unavailable", "text/plain")
                if route == "/oauth/access_token":
                    if query.get("client_id") != stub.app_id or query.get("client_secret") != stub.app_secret:
                        return self.graph_error("Error validating client secret.", code=1)
                    with stub.lock:
                        entry = stub.codes.pop(query.get("code", ""), None)
                    if entry is None or entry[1] != query.get("redirect_uri"):
                        return self.graph_error("This authorization code has been used.", code=100)
                    token = stub.issue_token(entry[0])
                    return self.send(200, json.dumps({"access_token": token, "token_type": "bearer", "expires_in": 5183944}))
                if route == "/debug_token":
                    if query.get("access_token") != f"{stub.app_id}|{stub.app_secret}":
                        return self.graph_error("Invalid OAuth access token signature.")
                    token = query.get("input_token", "")
                    with stub.lock:
                        entry = stub.tokens.get(token)
                    if entry is None:
                        return self.send(200, json.dumps({"data": {"is_valid": False, "error": {
                            "code": 190, "message": "Invalid OAuth access token."}}}))
                    user_id, app_id = entry
                    return self.send(200, json.dumps({"data": {
                        "app_id": app_id, "type": "USER", "application": "OnTheMap",
                        "is_valid": token not in stub.revoked, "user_id": user_id,
                        "scopes": ["public_profile", "email"], "expires_at": 1999999999}}))
                if route == "/me":
                    user_id = self.user_for(query)
                    if user_id is None:
                        return None
                    user = stub.users.get(user_id, {})
                    body = {"id": user_id}
                    for field in query.get("fields", "id").split(","):
                        if user.get(field):
                            body[field] = user[field]
                    return self.send(200, json.dumps(body))
                self.send(404, json.dumps({"error": {"message": "Unknown path components", "type": "OAuthException", "code": 2500}}))

            def do_DELETE(self):
                if stub.down:
                    return self.send(503, "Service Unavailable", "text/plain")
                if self.route() != "/me/permissions":
                    return self.send(404, "{}")
                query = self.query()
                if self.user_for(query) is None:
                    return None
                stub.revoked.add(query["access_token"])
                self.send(200, json.dumps({"success": True}))

            def dialog(self, query):
                if query.get("client_id") != stub.app_id or query.get("response_type", "code") != "code":
                    return self.send(400, "<p>Invalid App ID</p>", "text/html")
                buttons = "".join(
                    f'<li><a href="/v21.0/dialog/oauth/decide?{html.escape(urllib.parse.urlencode({**query, "user": uid}))}" '
                    f'class="continue" data-user="{html.escape(uid)}">Continue as {html.escape(u["first_name"])}</a></li>'
                    for uid, u in stub.users.items())
                cancel = html.escape(urllib.parse.urlencode({**query, "user": ""}))
                page = (f"<!doctype html><title>Log in with Facebook</title><h1>Log in to OnTheMap with Facebook</h1>"
                        f"<ul>{buttons}</ul><a id=\"cancel\" href=\"/v21.0/dialog/oauth/decide?{cancel}\">Cancel</a>")
                self.send(200, page, "text/html; charset=utf-8")

            def decide(self, query):
                redirect, state = query.get("redirect_uri", ""), query.get("state", "")
                if query.get("user"):
                    location = stub.approve(urllib.parse.urlunsplit(("http", "x", "/", urllib.parse.urlencode(query), "")), query["user"])
                else:
                    location = redirect + "?" + urllib.parse.urlencode({
                        "error": "access_denied", "error_code": "200", "error_reason": "user_denied",
                        "error_description": "Permissions error", "state": state})
                self.send_response(302)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.dialog_url = self.base + "/v21.0/dialog/oauth"
        self.graph_url = self.base + "/v21.0"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
