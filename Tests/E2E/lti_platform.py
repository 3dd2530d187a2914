"""A real LTI 1.3 platform (a learning management system's side), for the tests of OnTheMap
as an LTI tool. It speaks the IMS specifications' messages over HTTP, signing and checking
every JWT with RSA keys of its own (PyJWT + cryptography), and holds what a platform holds:
registered tools, people, courses and their memberships.

- IMS Security Framework 1.0 and LTI Core 1.3: third-party initiated login (the browser is
  sent to the tool's login initiation URL, GET or POST), the OpenID Connect authentication
  request `GET /auth` (checked: client, redirect URI, hints, nonce, `prompt=none`,
  `response_mode=form_post`), answered by a self-submitting form that posts a signed
  `id_token` and `state` to the tool; `GET /jwks`; key rotation.
- Dynamic Registration 1.0: `GET /.well-known/openid-configuration`, `POST /register` with
  a one-time registration token it hands out; the answer assigns a client id and a
  deployment id.
- Deep Linking 2.0: `deep_linking_settings` in the request, `POST /deep-link-return`
  verifying the tool's `LtiDeepLinkingResponse` JWT against the tool's JWKS.
- Client credentials (Security Framework §4.1): `POST /token` with a `private_key_jwt`
  client assertion checked against the tool's JWKS (jti never twice), bearer tokens.
- Names and Role Provisioning Services 2.0: `GET /memberships/<context id>` with paging
  (`Link: <…>; rel="next"`).
- `GET /course/<launch hint>`: a course page that embeds a launch in an iframe.

Everything a test needs to stage an attack is a parameter of `launch()`: claim overrides,
a `mutate` hook, another signing key or kid, a lifetime, or a hand-made token. Everything it
needs to check is recorded: requests, issued secrets, protocol errors (`errors`).
"""
import base64
import copy
import html
import json
import secrets
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
AGS_SCOPES = (
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
)
MEMBERSHIP_MEDIA_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
INSTRUCTOR = MEMBERSHIP + "#Instructor"
LEARNER = MEMBERSHIP + "#Learner"
MENTOR = MEMBERSHIP + "#Mentor"
CONTEXT_ADMINISTRATOR = MEMBERSHIP + "#Administrator"
# A sub-role of Instructor (LTI Core 1.3 §A.2.3.1).
TEACHING_ASSISTANT = MEMBERSHIP + "/Instructor#TeachingAssistant"
INSTITUTION_ADMINISTRATOR = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator"
INSTITUTION_STUDENT = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student"
COURSE_OFFERING = "http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"

RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
DEEP_LINKING_RESPONSE = "LtiDeepLinkingResponse"
MESSAGE_TYPES = (RESOURCE_LINK_REQUEST, DEEP_LINKING_REQUEST)
STANDARD_CLAIMS = ("iss", "sub", "aud", "exp", "iat", "nonce", "name", "given_name", "family_name", "email",
                   "picture", "locale")
PERSONAL_CLAIMS = ("name", "given_name", "family_name", "email")
KEY_LIFETIME = 3600


class SigningKey:
    """An RSA 2048 key pair with its kid."""

    def __init__(self, kid=None):
        self.kid = kid or "k-" + secrets.token_hex(6)
        self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def jwk(self):
        key = jwt.algorithms.RSAAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        return {**key, "kid": self.kid, "alg": "RS256", "use": "sig"}

    def sign(self, claims, headers=None):
        return jwt.encode(claims, self.private, algorithm="RS256", headers={"kid": self.kid, **(headers or {})})


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned_token(claims, header=None):
    """`alg: none` (RFC 7519 §6): what an attacker without any key can make."""
    head = {"alg": "none", "typ": "JWT", **(header or {})}
    return f"{b64url(json.dumps(head).encode())}.{b64url(json.dumps(claims).encode())}."


@dataclass
class Person:
    sub: str
    given_name: str
    family_name: str
    email: str | None = None

    @property
    def name(self):
        return f"{self.given_name} {self.family_name}"


@dataclass
class Enrollment:
    person: Person
    roles: list
    status: str = "Active"   # Active, Inactive (NRPS 2.0 §2.3); removal deletes the enrollment


@dataclass
class Course:
    id: str
    title: str
    label: str
    type: list = field(default_factory=lambda: [COURSE_OFFERING])
    enrollments: dict = field(default_factory=dict)   # sub -> Enrollment

    def enroll(self, person, roles, status="Active"):
        self.enrollments[person.sub] = Enrollment(person, list(roles), status)
        return person

    def drop(self, person):
        self.enrollments.pop(person.sub, None)

    def set_status(self, person, status):
        self.enrollments[person.sub].status = status

    def claim(self):
        return {"id": self.id, "label": self.label, "title": self.title, "type": list(self.type)}


@dataclass
class Tool:
    """A tool as the platform registered it (by hand or by Dynamic Registration)."""
    client_id: str
    login_url: str
    redirect_uris: list
    jwks_uri: str
    target_link_uri: str
    deployment_ids: list
    claims: list | None = None          # the claims it asked for; None: every claim
    scopes: list = field(default_factory=lambda: [NRPS_SCOPE])
    messages: list = field(default_factory=list)
    registration: dict | None = None    # the Dynamic Registration request, as sent
    name: str = "OnTheMap"

    @property
    def deployment_id(self):
        return self.deployment_ids[0]


@dataclass
class Launch:
    """One launch the platform offers a user: the login initiation it sends the browser to,
    and the id_token it will answer the authentication request with."""
    hint: str                    # lti_message_hint, opaque
    issuer: str
    tool: Tool
    person: Person
    course: Course | None
    roles: list
    message_type: str
    deployment_id: object
    target_link_uri: str
    resource_link: dict | None
    custom: dict | None
    nrps: bool
    claims: dict                 # overrides merged into the id_token's claims (None deletes)
    mutate: object               # callable(claims) -> claims or None, after the overrides
    key: SigningKey | None
    headers: dict
    lifetime: int
    token: object                # callable(claims) -> str: a hand-made id_token instead of signing
    deep_link_data: str | None
    login_extra: dict
    auth_requests: list = field(default_factory=list)
    id_tokens: list = field(default_factory=list)

    def login_params(self):
        params = {
            "iss": self.issuer,
            "login_hint": self.person.sub,
            "target_link_uri": self.target_link_uri,
            "lti_message_hint": self.hint,
            "client_id": self.tool.client_id,
            "lti_deployment_id": self.deployment_id if isinstance(self.deployment_id, str) else str(self.deployment_id),
        }
        params.update(self.login_extra)
        return {name: value for name, value in params.items() if value is not None}

    def login_url(self):
        """Third-party initiated login as a GET (what an iframe's src or a link does)."""
        return self.tool.login_url + "?" + urllib.parse.urlencode(self.login_params())

    def login_form(self):
        """Third-party initiated login as a form POST: (action, fields)."""
        return self.tool.login_url, self.login_params()


class Platform:
    def __init__(self, name="OnTheMap Test LMS", page_size=2, guid=None):
        self.name = name
        self.guid = guid or secrets.token_hex(8)
        self.page_size = page_size
        self.key = SigningKey()
        self.published = [self.key]          # the keys /jwks lists
        self.attacker_key = SigningKey()     # never published
        self.tools = {}                      # client_id -> Tool
        self.launches = {}                   # hint -> Launch
        self.courses = {}                    # context id -> Course
        self.registration_tokens = {}        # token -> expiry (spent tokens are removed)
        self.registrations = []              # Dynamic Registration requests accepted
        self.deep_link_responses = []        # verified LtiDeepLinkingResponse claims
        self.access_tokens = {}              # token -> {"client_id", "scopes", "expires"}
        self.client_assertions = []          # verified client assertion claims
        self.seen_jtis = set()
        self.seen_deep_link_nonces = set()
        self.membership_requests = []        # {"context", "page", "client_id", "accept"}
        self.auth_requests = []              # every /auth query, as received
        self.errors = []                     # (endpoint, reason): every request the platform refused
        self.secrets = []                    # every token/assertion it issued or received
        self._jwks_cache = {}                # jwks_uri -> JWKS dict
        self.configuration_overrides = {}    # merged into the OpenID configuration (None deletes)
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)

    # ---- addresses ----

    def start(self):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base = self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    @property
    def auth_url(self):
        return self.base + "/auth"

    @property
    def token_url(self):
        return self.base + "/token"

    @property
    def jwks_url(self):
        return self.base + "/jwks"

    @property
    def configuration_url(self):
        return self.base + "/.well-known/openid-configuration"

    @property
    def deep_link_return_url(self):
        return self.base + "/deep-link-return"

    def memberships_url(self, course):
        return self.base + "/memberships/" + urllib.parse.quote(course.id, safe="")

    def course_page_url(self, launch, sandbox=None):
        """The course page framing `launch`; `sandbox` is the iframe's sandbox attribute, if any."""
        url = self.base + "/course/" + urllib.parse.quote(launch.hint, safe="")
        return url + ("?" + urllib.parse.urlencode({"sandbox": sandbox}) if sandbox is not None else "")

    # ---- the platform's administrator ----

    def add_tool(self, login_url, redirect_uris, jwks_uri, target_link_uri, client_id=None, deployment_ids=None,
                 **extra):
        """Registers a tool by hand (the platform's form for a tool's URLs): returns the Tool,
        with the client id and the deployment id the platform gives it."""
        tool = Tool(client_id=client_id or "client-" + secrets.token_hex(6), login_url=login_url,
                    redirect_uris=list(redirect_uris), jwks_uri=jwks_uri, target_link_uri=target_link_uri,
                    deployment_ids=list(deployment_ids or ["deployment-" + secrets.token_hex(4)]), **extra)
        with self.lock:
            self.tools[tool.client_id] = tool
        return tool

    def course(self, title=None, label=None, course_id=None):
        """A new course (an LTI context) of this platform."""
        suffix = secrets.token_hex(4)
        course = Course(id=course_id or "ctx-" + suffix, title=title or f"Geography {suffix}",
                        label=label or f"GEO-{suffix[:4].upper()}")
        with self.lock:
            self.courses[course.id] = course
        return course

    def add_deployment(self, tool, deployment_id=None):
        deployment_id = deployment_id or "deployment-" + secrets.token_hex(4)
        with self.lock:
            tool.deployment_ids.append(deployment_id)
        return deployment_id

    def registration_token(self, lifetime=3600):
        """A one-time bearer token for one Dynamic Registration (handed to the tool in the
        registration initiation URL)."""
        token = "regtoken-" + secrets.token_urlsafe(24)
        with self.lock:
            self.registration_tokens[token] = time.time() + lifetime
            self.secrets.append(token)
        return token

    def registration_initiation_url(self, tool_registration_url, token=None):
        """The tool's registration URL with the platform's `openid_configuration` and
        `registration_token` (Dynamic Registration 1.0 §3.3)."""
        params = {"openid_configuration": self.configuration_url}
        if token is not None:
            params["registration_token"] = token
        separator = "&" if "?" in tool_registration_url else "?"
        return tool_registration_url + separator + urllib.parse.urlencode(params)

    def rotate_key(self, keep_old=True):
        """A new signing key; the old one stays published (for tokens already out) unless not."""
        new = SigningKey()
        with self.lock:
            self.published = ([*self.published] if keep_old else []) + [new]
            self.key = new
        return new

    # ---- launches ----

    def launch(self, tool, person, course=None, roles=None, message_type=RESOURCE_LINK_REQUEST,
               deployment_id=None, target_link_uri=None, resource_link=None, custom=None, nrps=False,
               claims=None, mutate=None, key=None, headers=None, lifetime=300, token=None, login_extra=None):
        """Offers `person` a launch of `tool` (from `course`): returns the Launch, whose
        login_url()/login_form() start it. Without `roles`, the person's roles in the course;
        with them, the person is (re-)enrolled with those roles."""
        if course is not None:
            if roles is None:
                roles = course.enrollments[person.sub].roles
            else:
                course.enroll(person, roles)
        if resource_link is None and message_type == RESOURCE_LINK_REQUEST:
            resource_link = {"id": "rl-" + secrets.token_hex(4), "title": "Class map"}
        launch = Launch(
            hint="hint-" + secrets.token_urlsafe(12), issuer=self.issuer, tool=tool, person=person, course=course,
            roles=list(roles or []), message_type=message_type,
            deployment_id=tool.deployment_id if deployment_id is None else deployment_id,
            target_link_uri=target_link_uri or message_target(tool, message_type) or tool.target_link_uri,
            resource_link=resource_link,
            custom=custom, nrps=nrps, claims=dict(claims or {}), mutate=mutate, key=key, headers=dict(headers or {}),
            lifetime=lifetime, token=token,
            deep_link_data="dl-" + secrets.token_hex(8) if message_type == DEEP_LINKING_REQUEST else None,
            login_extra=dict(login_extra or {}),
        )
        with self.lock:
            self.launches[launch.hint] = launch
            if course is not None:
                self.courses[course.id] = course
        return launch

    def id_token_claims(self, launch, nonce):
        """The claims of the id_token for `launch` (LTI Core 1.3 §5), before overrides."""
        now = int(time.time())
        tool, person = launch.tool, launch.person
        claims = {
            "iss": self.issuer, "aud": tool.client_id, "azp": tool.client_id, "sub": person.sub,
            "exp": now + launch.lifetime, "iat": now, "nonce": nonce,
            "name": person.name, "given_name": person.given_name, "family_name": person.family_name,
            "email": person.email,
            LTI + "message_type": launch.message_type,
            LTI + "version": "1.3.0",
            LTI + "deployment_id": launch.deployment_id,
            LTI + "target_link_uri": launch.target_link_uri,
            LTI + "roles": list(launch.roles),
            LTI + "tool_platform": {"guid": self.guid, "name": self.name, "product_family_code": "onthemap-tests",
                                    "version": "1.0"},
            LTI + "launch_presentation": {"document_target": "iframe", "locale": "en-US"},
        }
        if person.email is None:
            del claims["email"]
        if tool.claims is not None:  # a tool registered dynamically gets the personal claims it asked for
            for name in PERSONAL_CLAIMS:
                if name not in tool.claims:
                    claims.pop(name, None)
        if launch.course is not None:
            claims[LTI + "context"] = launch.course.claim()
        if launch.resource_link is not None:
            claims[LTI + "resource_link"] = dict(launch.resource_link)
        if launch.custom is not None:
            claims[LTI + "custom"] = dict(launch.custom)
        if launch.message_type == DEEP_LINKING_REQUEST:
            claims[DL + "deep_linking_settings"] = {
                "deep_link_return_url": self.deep_link_return_url,
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "accept_multiple": False,
                "auto_create": True,
                "title": "Add a class map",
                "data": launch.deep_link_data,
            }
        if launch.nrps and launch.course is not None and NRPS_SCOPE in tool.scopes:
            claims[NRPS_CLAIM] = {"context_memberships_url": self.memberships_url(launch.course),
                                  "service_versions": ["2.0"]}
        for name, value in launch.claims.items():
            if value is None:
                claims.pop(name, None)
            else:
                claims[name] = value
        if launch.mutate is not None:
            claims = launch.mutate(claims) or claims
        return claims

    def issue_id_token(self, launch, nonce):
        claims = self.id_token_claims(launch, nonce)
        if launch.token is not None:
            token = launch.token(claims)
        else:
            token = (launch.key or self.key).sign(claims, launch.headers)
        with self.lock:
            launch.id_tokens.append(token)
            self.secrets.append(token)
        return token

    # ---- waiting for the tool ----

    def wait_for(self, predicate, timeout=30, message="the platform never saw it"):
        """Blocks until predicate() (called under the lock) is true; every request the platform
        answers wakes it. Fails after `timeout` seconds."""
        with self.changed:
            if not self.changed.wait_for(predicate, timeout):
                raise AssertionError(f"{message} (platform errors: {self.errors})")

    def _notify(self):
        with self.changed:
            self.changed.notify_all()

    def _refuse(self, endpoint, reason):
        with self.lock:
            self.errors.append((endpoint, reason))
        self._notify()

    # ---- checking the tool's JWTs ----

    def tool_jwks(self, tool, refresh=False):
        with self.lock:
            cached = self._jwks_cache.get(tool.jwks_uri)
        if cached is not None and not refresh:
            return cached
        request = urllib.request.Request(tool.jwks_uri, headers={"Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            keys = json.loads(response.read())
        with self.lock:
            self._jwks_cache[tool.jwks_uri] = keys
        return keys

    def tool_key(self, tool, token):
        """The tool's public key that signed `token`, from its JWKS (fetched again when the kid
        is new: the tool rotated its key)."""
        header = jwt.get_unverified_header(token)
        if header.get("alg") != "RS256":
            raise jwt.InvalidTokenError(f"alg {header.get('alg')!r}, not RS256")
        for refresh in (False, True):
            keys = [k for k in self.tool_jwks(tool, refresh).get("keys", []) if k.get("kty") == "RSA"]
            kid = header.get("kid")
            found = [k for k in keys if k.get("kid") == kid] if kid else (keys if len(keys) == 1 else [])
            if found:
                return jwt.PyJWK(found[0], algorithm="RS256").key
        raise jwt.InvalidTokenError(f"no key {header.get('kid')!r} in the tool's JWKS at {tool.jwks_uri}")

    def _tool_named_by(self, token, claim="iss"):
        unverified = jwt.decode(token, options={"verify_signature": False})
        with self.lock:
            tool = self.tools.get(unverified.get(claim))
        if tool is None:
            raise jwt.InvalidTokenError(f"{claim} {unverified.get(claim)!r} is no registered tool's client_id")
        return tool

    # ---- endpoints ----

    def _openid_configuration(self):
        configuration = {
            "issuer": self.issuer,
            "authorization_endpoint": self.auth_url,
            "token_endpoint": self.token_url,
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["RS256"],
            "jwks_uri": self.jwks_url,
            "registration_endpoint": self.base + "/register",
            "scopes_supported": ["openid", NRPS_SCOPE, *AGS_SCOPES],
            "response_types_supported": ["id_token"],
            "subject_types_supported": ["public", "pairwise"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "claims_supported": list(STANDARD_CLAIMS),
            PLATFORM_CONFIGURATION: {
                "product_family_code": "onthemap-tests",
                "version": "1.0",
                "messages_supported": [{"type": RESOURCE_LINK_REQUEST}, {"type": DEEP_LINKING_REQUEST}],
                "variables": [],
            },
        }
        for name, value in self.configuration_overrides.items():
            if value is None:
                configuration.pop(name, None)
            else:
                configuration[name] = value
        return configuration

    def _authenticate(self, query):
        """The OpenID Connect authentication request (Security Framework §5.1.1.2): returns
        (status, html)."""
        with self.lock:
            self.auth_requests.append(dict(query))
            launch = self.launches.get(query.get("lti_message_hint", ""))
            tool = self.tools.get(query.get("client_id", ""))
        if launch is not None:
            launch.auth_requests.append(dict(query))

        def refuse(reason):
            self._refuse("/auth", reason)
            return 400, page("Launch refused", f"<p id=\"error\">{html.escape(reason)}</p>")

        if tool is None:
            return refuse(f"unknown client_id {query.get('client_id')!r}")
        redirect_uri = query.get("redirect_uri")
        if redirect_uri not in tool.redirect_uris:
            return refuse(f"redirect_uri {redirect_uri!r} is not one of the tool's {tool.redirect_uris}")
        for name, expected in (("scope", None), ("response_type", "id_token"), ("response_mode", "form_post"),
                               ("prompt", "none")):
            if expected is not None and query.get(name) != expected:
                return refuse(f"{name}={query.get(name)!r}, expected {expected!r}")
        if "openid" not in query.get("scope", "").split():
            return refuse(f"scope {query.get('scope')!r} lacks openid")
        if not query.get("nonce"):
            return refuse("no nonce")
        if not query.get("state"):
            return refuse("no state")
        if launch is None:
            return refuse(f"lti_message_hint {query.get('lti_message_hint')!r} was not issued (or not echoed unaltered)")
        if launch.tool is not tool:
            return refuse("lti_message_hint was issued for another client_id")
        if query.get("login_hint") != launch.person.sub:
            return refuse(f"login_hint {query.get('login_hint')!r} is not the one issued")
        token = self.issue_id_token(launch, query["nonce"])
        fields = {"id_token": token, "state": query["state"]}
        self._notify()
        return 200, auto_post_page(redirect_uri, fields, "Launching the tool")

    def _register(self, authorization, body):
        """Dynamic Registration 1.0 §3.5-3.6: returns (status, JSON)."""
        def refuse(status, error, description):
            self._refuse("/register", description)
            return status, {"error": error, "error_description": description}

        token = authorization[len("Bearer "):] if authorization.startswith("Bearer ") else None
        with self.lock:
            expiry = self.registration_tokens.get(token) if token else None
            if expiry is not None and expiry >= time.time():
                del self.registration_tokens[token]   # one registration per token
            else:
                expiry = None
        if expiry is None:
            return refuse(401, "invalid_token", "a missing, unknown, spent or expired registration token")
        try:
            request = json.loads(body)
        except ValueError:
            return refuse(400, "invalid_client_metadata", "the body is not JSON")
        problems = registration_problems(request)
        if problems:
            return refuse(400, "invalid_client_metadata", "; ".join(problems))
        configuration = request[TOOL_CONFIGURATION]
        messages = configuration.get("messages", [])
        tool = self.add_tool(
            login_url=request["initiate_login_uri"], redirect_uris=request["redirect_uris"],
            jwks_uri=request["jwks_uri"], target_link_uri=configuration["target_link_uri"],
            claims=list(configuration.get("claims", [])),
            scopes=[s for s in request.get("scope", "").split() if s in (NRPS_SCOPE, *AGS_SCOPES)],
            messages=messages, registration=request, name=request["client_name"])
        answer = copy.deepcopy(request)
        answer["client_id"] = tool.client_id
        answer[TOOL_CONFIGURATION]["deployment_id"] = tool.deployment_id
        answer["scope"] = " ".join(tool.scopes)
        with self.lock:
            self.registrations.append({"request": request, "answer": answer, "tool": tool})
        self._notify()
        return 200, answer

    def _deep_link_return(self, form):
        """Deep Linking 2.0 §4.2: the tool's response, auto-posted by the browser."""
        token = form.get("JWT", "")
        with self.lock:
            self.secrets.append(token)
        try:
            tool = self._tool_named_by(token)
            claims = jwt.decode(token, self.tool_key(tool, token), algorithms=["RS256"], audience=self.issuer,
                                issuer=tool.client_id, leeway=5,
                                options={"require": ["iss", "aud", "exp", "iat", "nonce"]})
            problems = []
            if claims.get(LTI + "message_type") != DEEP_LINKING_RESPONSE:
                problems.append(f"message_type {claims.get(LTI + 'message_type')!r}")
            if claims.get(LTI + "version") != "1.3.0":
                problems.append(f"version {claims.get(LTI + 'version')!r}")
            deployment_id = claims.get(LTI + "deployment_id")
            if deployment_id not in tool.deployment_ids:
                problems.append(f"deployment_id {deployment_id!r} is not the tool's")
            data = claims.get(DL + "data")
            with self.lock:
                request = next((l for l in self.launches.values() if l.deep_link_data and l.deep_link_data == data), None)
                nonce_seen = claims["nonce"] in self.seen_deep_link_nonces
                self.seen_deep_link_nonces.add(claims["nonce"])
            if request is None:
                problems.append(f"data {data!r} is not the data of a deep linking request (it must come back unchanged)")
            elif request.deployment_id != deployment_id:
                problems.append("deployment_id differs from the request's")
            if nonce_seen:
                problems.append("nonce used before")
            items = claims.get(DL + "content_items", [])
            if not isinstance(items, list):
                problems.append("content_items is not an array")
                items = []
            if len(items) > 1 and request is not None:
                problems.append(f"{len(items)} content items where the request accepted one (accept_multiple false)")
            for item in items:
                if not isinstance(item, dict) or item.get("type") != "ltiResourceLink":
                    problems.append(f"content item {item!r} is not an accepted type (ltiResourceLink)")
            if problems:
                raise jwt.InvalidTokenError("; ".join(problems))
        except (jwt.InvalidTokenError, OSError, ValueError) as error:
            self._refuse("/deep-link-return", str(error))
            return 400, page("Content not added", f"<p id=\"error\">{html.escape(str(error))}</p>")
        with self.lock:
            self.deep_link_responses.append({"claims": claims, "tool": tool, "launch": request,
                                             "content_items": items, "data": data})
        self._notify()
        titles = "".join(f"<li>{html.escape(str(item.get('title', '')))}</li>" for item in items)
        return 200, page("Content added", f"<p>Added {len(items)} item(s):</p><ul id=\"items\">{titles}</ul>")

    def _token(self, form):
        """Client credentials grant with a JWT client assertion (Security Framework §4.1)."""
        def refuse(error, description):
            self._refuse("/token", description)
            return 400, {"error": error, "error_description": description}

        assertion = form.get("client_assertion", "")
        if assertion:
            with self.lock:
                self.secrets.append(assertion)
        if form.get("grant_type") != "client_credentials":
            return refuse("unsupported_grant_type", f"grant_type {form.get('grant_type')!r}")
        if form.get("client_assertion_type") != CLIENT_ASSERTION_TYPE:
            return refuse("invalid_request", f"client_assertion_type {form.get('client_assertion_type')!r}")
        try:
            tool = self._tool_named_by(assertion)
            claims = jwt.decode(assertion, self.tool_key(tool, assertion), algorithms=["RS256"],
                                audience=self.token_url, issuer=tool.client_id, leeway=5,
                                options={"require": ["iss", "sub", "aud", "exp", "iat", "jti"]})
            if claims["sub"] != tool.client_id:
                raise jwt.InvalidTokenError(f"sub {claims['sub']!r} is not the client_id")
            if claims["exp"] > time.time() + 3600:
                raise jwt.InvalidTokenError("exp more than an hour ahead")
            with self.lock:
                replayed = claims["jti"] in self.seen_jtis
                self.seen_jtis.add(claims["jti"])
            if replayed:
                raise jwt.InvalidTokenError(f"jti {claims['jti']!r} used before")
        except (jwt.InvalidTokenError, OSError, ValueError) as error:
            return refuse("invalid_client", str(error))
        requested = form.get("scope", "").split()
        granted = [scope for scope in requested if scope in tool.scopes]
        if not granted:
            return refuse("invalid_scope", f"scope {form.get('scope')!r}: none of it is granted to this tool")
        token = "at-" + secrets.token_urlsafe(24)
        with self.lock:
            self.client_assertions.append(claims)
            self.access_tokens[token] = {"client_id": tool.client_id, "scopes": granted,
                                         "expires": time.time() + KEY_LIFETIME}
            self.secrets.append(token)
        self._notify()
        return 200, {"access_token": token, "token_type": "Bearer", "expires_in": KEY_LIFETIME, "scope": " ".join(granted)}

    def _memberships(self, context_id, query, authorization, accept):
        """NRPS 2.0 §2.2-2.4: returns (status, headers, body)."""
        def refuse(status, reason):
            self._refuse("/memberships", reason)
            return status, {"Content-Type": "application/json"}, {"error": reason}

        token = authorization[len("Bearer "):] if authorization.startswith("Bearer ") else ""
        with self.lock:
            grant = self.access_tokens.get(token)
            course = self.courses.get(context_id)
        if grant is None or grant["expires"] < time.time():
            return refuse(401, "missing, unknown or expired bearer token")
        if NRPS_SCOPE not in grant["scopes"]:
            return refuse(403, "the token lacks the contextmembership.readonly scope")
        if MEMBERSHIP_MEDIA_TYPE not in accept:
            return refuse(406, f"Accept {accept!r} does not ask for {MEMBERSHIP_MEDIA_TYPE}")
        if course is None:
            return refuse(404, f"no course {context_id!r}")
        try:
            page_number = int(query.get("page", "1"))
            limit = min(int(query.get("limit", self.page_size)), self.page_size)
        except ValueError:
            return refuse(400, "page and limit are numbers")
        with self.lock:
            enrollments = list(course.enrollments.values())
            self.membership_requests.append({"context": context_id, "page": page_number,
                                             "client_id": grant["client_id"], "accept": accept})
        role = query.get("role")
        if role:
            enrollments = [e for e in enrollments if role in e.roles or MEMBERSHIP + "#" + role in e.roles]
        start = (page_number - 1) * limit
        chunk = enrollments[start:start + limit]
        url = self.memberships_url(course)
        headers = {"Content-Type": MEMBERSHIP_MEDIA_TYPE}
        if start + limit < len(enrollments):
            following = {**{k: v for k, v in query.items() if k != "page"}, "page": str(page_number + 1)}
            headers["Link"] = f'<{url}?{urllib.parse.urlencode(following)}>; rel="next"'
        members = []
        for enrollment in chunk:
            person = enrollment.person
            member = {"status": enrollment.status, "name": person.name, "given_name": person.given_name,
                      "family_name": person.family_name, "user_id": person.sub, "roles": list(enrollment.roles)}
            if person.email:
                member["email"] = person.email
            members.append(member)
        body = {"id": url + ("?" + urllib.parse.urlencode(query) if query else ""),
                "context": {"id": course.id, "label": course.label, "title": course.title},
                "members": members}
        self._notify()
        return 200, headers, body

    def _course_page(self, hint, sandbox=None):
        with self.lock:
            launch = self.launches.get(hint)
        if launch is None or launch.course is None:
            return 404, page("No such course", "")
        course = launch.course
        return 200, (
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(course.title)} - {html.escape(self.name)}</title></head><body>"
            f"<header><h1 id=\"course-title\">{html.escape(course.title)}</h1>"
            f"<p>Signed in as {html.escape(launch.person.name)}</p></header>"
            f"<iframe id=\"tool\" name=\"tool\" title=\"{html.escape(launch.tool.name)}\" "
            f"src=\"{html.escape(launch.login_url())}\" style=\"width:100%;height:720px;border:1px solid #ccc\" "
            "allow=\"geolocation; clipboard-write\""
            + (f" sandbox=\"{html.escape(sandbox)}\"" if sandbox is not None else "") + "></iframe>"
            "</body></html>")

    def _registration_page(self, url):
        """The platform's page for a Dynamic Registration: the tool's registration URL in an
        iframe; the tool's `org.imsglobal.lti.close` message closes it (§3.7)."""
        return 200, (
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Register a tool</title></head><body>"
            "<h1>Register a tool</h1><p id=\"status\">Registering…</p>"
            f"<iframe id=\"registration\" src=\"{html.escape(url)}\" style=\"width:100%;height:480px\"></iframe>"
            "<script>window.addEventListener('message', (event) => {"
            "  if (event.data && event.data.subject === 'org.imsglobal.lti.close') {"
            "    document.getElementById('registration').remove();"
            "    const status = document.getElementById('status');"
            "    status.textContent = 'Tool registered'; status.dataset.origin = event.origin; }"
            "});</script></body></html>")

    def _handler(self):
        platform = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def send(self, status, body, content_type="text/html; charset=utf-8", headers=None):
                if isinstance(body, (dict, list)):
                    body, content_type = json.dumps(body), (headers or {}).pop("Content-Type", "application/json")
                data = body.encode() if isinstance(body, str) else body
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Cache-Control", "no-store")
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def route(self):
                parts = urllib.parse.urlsplit(self.path)
                return parts.path, dict(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))

            def form(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode() if length else ""
                if self.headers.get_content_type() == "application/x-www-form-urlencoded":
                    return raw, dict(urllib.parse.parse_qsl(raw, keep_blank_values=True))
                return raw, {}

            def do_GET(self):
                path, query = self.route()
                if path == "/.well-known/openid-configuration":
                    return self.send(200, platform._openid_configuration())
                if path == "/jwks":
                    with platform.lock:
                        keys = [key.jwk() for key in platform.published]
                    return self.send(200, {"keys": keys})
                if path == "/auth":
                    return self.send(*platform._authenticate(query))
                if path.startswith("/memberships/"):
                    context_id = urllib.parse.unquote(path[len("/memberships/"):])
                    status, headers, body = platform._memberships(context_id, query, self.headers.get("Authorization", ""),
                                                                  self.headers.get("Accept", ""))
                    return self.send(status, body, headers=headers)
                if path.startswith("/course/"):
                    return self.send(*platform._course_page(urllib.parse.unquote(path[len("/course/"):]),
                                                            query.get("sandbox")))
                if path == "/tools/register":
                    return self.send(*platform._registration_page(query.get("url", "")))
                self.send(404, page("Not found", ""))

            def do_POST(self):
                path, _ = self.route()
                raw, form = self.form()
                if path == "/auth":   # the authentication request may also be a form POST
                    return self.send(*platform._authenticate(form))
                if path == "/register":
                    if self.headers.get_content_type() != "application/json":
                        platform._refuse("/register", f"Content-Type {self.headers.get('Content-Type')!r}")
                        return self.send(400, {"error": "invalid_client_metadata",
                                               "error_description": "the registration is JSON"})
                    return self.send(*platform._register(self.headers.get("Authorization", ""), raw))
                if path == "/deep-link-return":
                    return self.send(*platform._deep_link_return(form))
                if path == "/token":
                    return self.send(*platform._token(form))
                self.send(404, page("Not found", ""))

        return Handler


def message_target(tool, message_type):
    """The target_link_uri a dynamically registered tool gave for this message type, if any."""
    for message in tool.messages:
        if isinstance(message, dict) and message.get("type") == message_type and message.get("target_link_uri"):
            return message["target_link_uri"]
    return None


def registration_problems(request):
    """What the tool's registration request (Dynamic Registration 1.0 §3.5.2) gets wrong."""
    problems = []
    if not isinstance(request, dict):
        return ["the registration is not a JSON object"]

    def absolute(url):
        parts = urllib.parse.urlsplit(url) if isinstance(url, str) else None
        return bool(parts and parts.scheme in ("http", "https") and parts.netloc and not parts.fragment)

    if request.get("application_type") != "web":
        problems.append(f"application_type {request.get('application_type')!r}, expected 'web'")
    if request.get("response_types") != ["id_token"]:
        problems.append(f"response_types {request.get('response_types')!r}, expected ['id_token']")
    grants = request.get("grant_types")
    if not isinstance(grants, list) or not {"implicit", "client_credentials"} <= set(grants):
        problems.append(f"grant_types {grants!r} must hold implicit and client_credentials")
    if not absolute(request.get("initiate_login_uri")):
        problems.append(f"initiate_login_uri {request.get('initiate_login_uri')!r}")
    uris = request.get("redirect_uris")
    if not isinstance(uris, list) or not uris or not all(absolute(u) for u in uris):
        problems.append(f"redirect_uris {uris!r}")
    if not absolute(request.get("jwks_uri")):
        problems.append(f"jwks_uri {request.get('jwks_uri')!r}")
    if request.get("token_endpoint_auth_method") != "private_key_jwt":
        problems.append(f"token_endpoint_auth_method {request.get('token_endpoint_auth_method')!r}")
    if not isinstance(request.get("client_name"), str) or not request.get("client_name"):
        problems.append("client_name missing")
    if "scope" in request and not isinstance(request["scope"], str):
        problems.append("scope is a space-separated string")
    configuration = request.get(TOOL_CONFIGURATION)
    if not isinstance(configuration, dict):
        return problems + [f"{TOOL_CONFIGURATION} missing"]
    domain = configuration.get("domain")
    if not isinstance(domain, str) or not domain:
        problems.append("tool configuration: domain missing")
    else:
        for url in [request.get("initiate_login_uri"), *(uris if isinstance(uris, list) else [])]:
            parts = urllib.parse.urlsplit(url) if isinstance(url, str) else None
            if parts and domain not in (parts.hostname, parts.netloc):
                problems.append(f"{url!r} is not in the tool's domain {domain!r}")
    if not absolute(configuration.get("target_link_uri")):
        problems.append(f"tool configuration: target_link_uri {configuration.get('target_link_uri')!r}")
    claims = configuration.get("claims", [])
    if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
        problems.append("tool configuration: claims is an array of strings")
    messages = configuration.get("messages", [])
    if not isinstance(messages, list):
        problems.append("tool configuration: messages is an array")
    else:
        for message in messages:
            if not isinstance(message, dict) or message.get("type") not in MESSAGE_TYPES:
                problems.append(f"tool configuration: message {message!r} is not a supported type")
            elif "target_link_uri" in message and not absolute(message["target_link_uri"]):
                problems.append(f"tool configuration: message target_link_uri {message['target_link_uri']!r}")
    if "deployment_id" in configuration:
        problems.append("tool configuration: deployment_id is the platform's to assign")
    return problems


def page(title, body):
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"</head><body><h1>{html.escape(title)}</h1>{body}</body></html>")


def auto_post_page(action, fields, title):
    """A page whose form posts `fields` to `action` at once (OIDC form_post response mode)."""
    inputs = "".join(f"<input type=\"hidden\" name=\"{html.escape(name)}\" value=\"{html.escape(value)}\">"
                     for name, value in fields.items())
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title></head>"
            f"<body><form id=\"launch\" method=\"post\" action=\"{html.escape(action)}\">{inputs}"
            "<noscript><p>JavaScript is off: continue by hand.</p></noscript>"
            "<button type=\"submit\">Continue</button></form>"
            "<script>document.forms[0].submit()</script></body></html>")
