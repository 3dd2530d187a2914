"""A local stand-in for Wikimedia Commons for the Travel browser tests.

It answers the generator form of geosearch the server sends (docs/api/photo-providers.md §4:
`action=query&generator=geosearch&ggscoord=<lat>|<lon>&ggsnamespace=6&prop=imageinfo&
iiurlwidth=<w>...`) with files near the point, and serves generated PNG images for them.
Tests change its behaviour on the fly: `image_delay` (seconds per image, so placeholders
show), `search_failure` ("429", "500", "api-error" or None) and `total` (files per search).
"""
import hashlib
import json
import struct
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

IMAGE_SIZE = (192, 144)


def _png(width, height, rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6))
            + chunk(b"IEND", b""))


def _hsl(h, s, l):
    """HSL (0-1 each) to an RGB byte triple."""
    def hue(p, q, t):
        t %= 1.0
        if t < 1 / 6:
            return p + (q - p) * 6 * t
        if t < 1 / 2:
            return q
        if t < 2 / 3:
            return p + (q - p) * (2 / 3 - t) * 6
        return p
    q = l * (1 + s) if l < 0.5 else l + s - l * s
    p = 2 * l - q
    return tuple(int(255 * hue(p, q, h + offset)) for offset in (1 / 3, 0, -1 / 3))


def landscape_png(seed, size=IMAGE_SIZE):
    """A small made-up landscape (sky, sun, two ridges, a lake) that differs per seed."""
    digest = hashlib.sha256(seed.encode()).digest()
    width, height = size
    hue = digest[0] / 255
    sky_top, sky_bottom = _hsl(hue, 0.55, 0.55), _hsl((hue + 0.08) % 1, 0.6, 0.85)
    far, near = _hsl((hue + 0.35) % 1, 0.25, 0.5), _hsl((hue + 0.4) % 1, 0.35, 0.3)
    water = _hsl((hue + 0.55) % 1, 0.45, 0.45)
    sun = _hsl((hue + 0.12) % 1, 0.9, 0.75)
    sun_x, sun_y, sun_r = width * (0.2 + 0.6 * digest[1] / 255), height * (0.18 + 0.2 * digest[2] / 255), 10 + digest[3] % 10
    phase1, phase2 = digest[4] / 40, digest[5] / 40
    lake = int(height * (0.78 + 0.1 * digest[6] / 255))
    import math
    rows = []
    for y in range(height):
        row = bytearray()
        t = y / height
        sky = tuple(int(a + (b - a) * t) for a, b in zip(sky_top, sky_bottom))
        for x in range(width):
            ridge1 = height * (0.45 + 0.12 * math.sin(x / 23 + phase1) + 0.05 * math.sin(x / 7 + phase2))
            ridge2 = height * (0.62 + 0.08 * math.sin(x / 31 + phase2) + 0.03 * math.sin(x / 5 + phase1))
            if y >= lake:
                pixel = water
            elif y >= ridge2:
                pixel = near
            elif y >= ridge1:
                pixel = far
            elif (x - sun_x) ** 2 + (y - sun_y) ** 2 <= sun_r ** 2:
                pixel = sun
            else:
                pixel = sky
            row.extend(pixel)
        rows.append(row)
    return _png(width, height, rows)


class PhotoStub:
    def __init__(self):
        self.image_delay = 0.0
        # A threading.Semaphore: each image answer waits for one release(), so a test
        # decides exactly how many images have arrived (None: no gate).
        self.image_gate = None
        self.search_delay = 0.0
        self.search_failure = None
        self.total = 42
        self.searches = []
        self.image_requests = []
        self._images = {}
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                if url.path == "/w/api.php":
                    stub._search(self, dict(urllib.parse.parse_qsl(url.query)))
                elif url.path.startswith("/img/"):
                    stub._image(self, url.path[len("/img/"):])
                else:
                    self._send(404, "text/plain", b"not found")

            def _send(self, status, content_type, body, headers=None):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.api_url = f"{self.base}/w/api.php"
        self.thread = threading.Thread(target=self.server.serve_forever, name="photo-stub", daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def reset(self):
        self.image_delay = 0.0
        self.image_gate = None
        self.search_delay = 0.0
        self.search_failure = None
        self.total = 42

    # ---- geosearch ----

    def _search(self, handler, query):
        with self._lock:
            self.searches.append(query)
        if self.search_delay:
            time.sleep(self.search_delay)
        failure = self.search_failure
        if failure == "429":
            handler._send(429, "text/plain", b"Too Many Requests", {"Retry-After": "60"})
            return
        if failure == "500":
            handler._send(500, "text/plain", b"upstream maintenance")
            return
        if failure == "api-error":
            body = {"error": {"code": "internal_api_error", "info": "The geosearch backend is unavailable."}}
            handler._send(200, "application/json", json.dumps(body).encode())
            return
        if (query.get("action") != "query" or query.get("generator") != "geosearch"
                or query.get("ggsnamespace") != "6" or query.get("prop") != "imageinfo"
                or "iiurlwidth" not in query or "|" not in query.get("ggscoord", "")):
            body = {"error": {"code": "badparams", "info": f"unexpected query {query}"}}
            handler._send(200, "application/json", json.dumps(body).encode())
            return
        if "OnTheMap" not in (handler.headers.get("User-Agent") or ""):
            handler._send(403, "text/plain", b"Please set a descriptive User-Agent")
            return
        lat, lon = (float(part) for part in query["ggscoord"].split("|"))
        limit = int(query.get("ggslimit", "10"))
        count = min(limit, self.total)
        if count <= 0:
            handler._send(200, "application/json", b'{"batchcomplete":""}')
            return
        # Page ids depend on the place, so two pins show different photos.
        place = int(hashlib.sha1(f"{lat:.3f},{lon:.3f}".encode()).hexdigest()[:6], 16) * 1000
        pages = {}
        for index in range(count):
            page_id = place + index
            name = f"Stub view {index + 1}"
            pages[str(page_id)] = {
                "pageid": page_id, "ns": 6, "title": f"File:{name}.jpg",
                "imageinfo": [{
                    "thumburl": f"{self.base}/img/{page_id}.png", "thumbwidth": IMAGE_SIZE[0], "thumbheight": IMAGE_SIZE[1],
                    "url": f"{self.base}/img/{page_id}-full.png",
                    "descriptionurl": f"https://commons.wikimedia.org/wiki/File:Stub_view_{index + 1}.jpg",
                    "user": f"Uploader {index + 1}",
                    "extmetadata": {
                        "Artist": {"value": f'<a href="//commons.wikimedia.org/wiki/User:P{index}">Photographer {index + 1}</a>'},
                        "LicenseShortName": {"value": "CC BY-SA 4.0"},
                    },
                }],
            }
        body = {"batchcomplete": "", "query": {"pages": pages}}
        handler._send(200, "application/json", json.dumps(body).encode())

    # ---- images ----

    def _image(self, handler, name):
        seed = name.split(".")[0]
        with self._lock:
            self.image_requests.append(seed)
        gate = self.image_gate
        if gate is not None:
            gate.acquire(timeout=60)
        if self.image_delay:
            time.sleep(self.image_delay)
        with self._lock:
            data = self._images.get(seed)
        if data is None:
            data = landscape_png(seed)
            with self._lock:
                self._images[seed] = data
        handler._send(200, "image/png", data, {"Cache-Control": "public, max-age=86400"})
