"""A browser without a browser, for the LTI tests: an HTTP agent that keeps the tool's
cookies by hand (Python's cookie jar drops `Secure` cookies over http, which Chrome keeps for
http://localhost), and the parts of an HTML page the tests read."""
import html.parser
import http.client
import urllib.parse
from dataclasses import dataclass, field


class Document(html.parser.HTMLParser):
    """The parts of an HTML page the tests read: forms (with their fields), links by id,
    headings, and the text."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.forms, self.links, self.h1, self.text = [], {}, [], []
        self._form, self._link, self._in_h1 = None, None, False
        self.feed(text or "")

    def handle_starttag(self, tag, attrs):
        attrs = {name: (value if value is not None else "") for name, value in attrs}
        if tag == "form":
            self._form = Form(attrs.get("action", ""), attrs.get("method", "get").lower(), attrs.get("id"))
            self.forms.append(self._form)
        elif tag in ("input", "button", "textarea", "select") and self._form is not None:
            self._form.inputs.append({**attrs, "tag": tag})
        elif tag == "a":
            self._link = {**attrs, "text": ""}
            if "id" in attrs:
                self.links[attrs["id"]] = self._link
        elif tag == "h1":
            self._in_h1 = True
            self.h1.append("")

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "a":
            self._link = None
        elif tag == "h1":
            self._in_h1 = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_h1:
            self.h1[-1] += data
        if self._link is not None:
            self._link["text"] += data

    @property
    def heading(self):
        return " ".join(h.strip() for h in self.h1 if h.strip())

    @property
    def all_text(self):
        return " ".join(" ".join(self.text).split())


@dataclass
class Form:
    action: str
    method: str
    id: str | None
    inputs: list = field(default_factory=list)

    def values(self, **choices):
        """What submitting the form sends: hidden and text fields as they are, the checked
        radio of each group, with `choices` put in."""
        values = {}
        for field_ in self.inputs:
            name, kind = field_.get("name"), field_.get("type", "text").lower()
            if not name or field_["tag"] == "button" or kind in ("submit", "button"):
                continue
            if kind in ("radio", "checkbox"):
                if "checked" in field_:
                    values[name] = field_.get("value", "on")
            else:
                values[name] = field_.get("value", "")
        values.update(choices)
        return values

    def radios(self, name):
        return [f.get("value") for f in self.inputs if f.get("type", "").lower() == "radio" and f.get("name") == name]

    def field(self, name):
        return next((f for f in self.inputs if f.get("name") == name), None)


@dataclass
class Response:
    status: int
    headers: object
    text: str
    url: str
    set_cookies: list

    @property
    def document(self):
        if not hasattr(self, "_document"):
            self._document = Document(self.text)
        return self._document

    @property
    def location(self):
        location = self.headers.get("Location")
        return urllib.parse.urljoin(self.url, location) if location else None

    def describe(self):
        return f"{self.status} {self.document.heading!r}: {self.document.all_text[:300]}"


def parse_set_cookie(header):
    parts = [p.strip() for p in header.split(";")]
    name, _, value = parts[0].partition("=")
    attributes = {}
    for part in parts[1:]:
        key, has_value, val = part.partition("=")
        attributes[key.strip().lower()] = val.strip() if has_value else True
    return {"name": name.strip(), "value": value.strip(), "attributes": attributes, "raw": header}


class Agent:
    """Follows nothing by itself; keeps cookies per host and path (a browser's jar without the
    Secure rule, which would drop them over http; Chrome keeps them for http://localhost)."""

    def __init__(self):
        self.jar = {}   # host -> {name: (value, path)}

    def cookie(self, name, host="localhost"):
        entry = self.jar.get(host, {}).get(name)
        return entry[0] if entry else None

    def cookie_names(self, host="localhost"):
        return set(self.jar.get(host, {}))

    def request(self, method, url, form=None, headers=None, body=None):
        parts = urllib.parse.urlsplit(url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        all_headers = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "User-Agent": "lti-e2e-agent"}
        path = parts.path or "/"
        cookies = {name: value for name, (value, scope) in self.jar.get(parts.hostname, {}).items()
                   if path == scope.rstrip("/") or path.startswith(scope.rstrip("/") + "/")}
        if cookies:
            all_headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in cookies.items())
        if form is not None:
            body = urllib.parse.urlencode(form)
            all_headers["Content-Type"] = "application/x-www-form-urlencoded"
        all_headers.update(headers or {})
        try:
            connection.request(method, (parts.path or "/") + (f"?{parts.query}" if parts.query else ""), body, all_headers)
            answer = connection.getresponse()
            text = answer.read().decode("utf-8", "replace")
        finally:
            connection.close()
        set_cookies = [parse_set_cookie(h) for h in answer.headers.get_all("Set-Cookie") or []]
        for cookie in set_cookies:
            host_jar = self.jar.setdefault(parts.hostname, {})
            max_age = cookie["attributes"].get("max-age")
            if cookie["value"] == "" or (max_age is not None and max_age is not True and int(max_age) <= 0):
                host_jar.pop(cookie["name"], None)
            else:
                scope = cookie["attributes"].get("path")
                host_jar[cookie["name"]] = (cookie["value"], scope if isinstance(scope, str) and scope else "/")
        return Response(answer.status, answer.headers, text, url, set_cookies)

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def post(self, url, form, **kwargs):
        return self.request("POST", url, form=form, **kwargs)
