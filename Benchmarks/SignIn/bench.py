"""Sign-in with an OpenID Connect provider, timed: the whole round trip a browser makes
(our /auth/<id>/start, the provider's form, our callback with the code exchange and ID token
verification, the session) against a password login on the same server, measured in the
same run.

    swift build -c release && python3 Benchmarks/SignIn/bench.py [--rounds 40] [--bin .build/release/onthemap]

Needs PyPI `oidc-provider-mock` (Tests/E2E/requirements.txt). Prints `FIGURE:` lines.
"""
import argparse
import http.cookiejar
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait(url, process, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited")
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} never answered")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def location(opener, url, data=None):
    try:
        opener.open(url, data=data, timeout=30)
    except urllib.error.HTTPError as error:
        if error.code in (302, 303):
            return error.headers["Location"]
        raise
    raise AssertionError(f"{url} did not redirect")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--bin", default=".build/release/onthemap")
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="onthemap-signin-bench-")
    provider_port, server_port = free_port(), free_port()
    issuer = f"http://127.0.0.1:{provider_port}"
    base = f"http://127.0.0.1:{server_port}"
    provider = subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--port", str(provider_port), "--require-nonce"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = None
    try:
        wait(issuer + "/.well-known/openid-configuration", provider)
        server = subprocess.Popen([arguments.bin, "serve", "--port", str(server_port), "--data-dir", work,
                                   "--oidc-provider", f"id=bench,name=Bench,issuer={issuer},client-id=bench,client-secret=bench"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait(base + "/health", server)
        request = urllib.request.Request(base + "/api/users", method="POST", headers={"Content-Type": "application/json"},
                                         data=json.dumps({"email": "bench@example.com", "password": "correct horse battery",
                                                          "first_name": "B", "last_name": "Ench"}).encode())
        urllib.request.urlopen(request, timeout=30).read()

        ours, provider_side, password = [], [], []
        for round_number in range(arguments.rounds + 2):
            opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), NoRedirect)
            started = time.perf_counter()
            authorize = location(opener, base + "/auth/bench/start")
            at_provider = time.perf_counter()
            callback = location(opener, authorize, urllib.parse.urlencode({"sub": f"user-{round_number % 5}"}).encode())
            back = time.perf_counter()
            landed = location(opener, callback)
            done = time.perf_counter()
            assert landed == "/"
            login = urllib.request.Request(base + "/api/session", method="POST", headers={"Content-Type": "application/json"},
                                           data=json.dumps({"udacity": {"username": "bench@example.com",
                                                                        "password": "correct horse battery"}}).encode())
            before = time.perf_counter()
            urllib.request.urlopen(login, timeout=30).read()
            after = time.perf_counter()
            if round_number >= 2:  # the first rounds fetch discovery and keys
                ours.append(((at_provider - started) + (done - back)) * 1000)
                provider_side.append((back - at_provider) * 1000)
                password.append((after - before) * 1000)
        for name, values in (("ours (start + callback: code exchange, ID token check, session)", ours),
                             ("the provider's form post (oidc-provider-mock)", provider_side),
                             ("a password login, bcrypt cost 12 (reference)", password)):
            print(f"FIGURE: sign-in {name}: median {statistics.median(values):.1f} ms, "
                  f"p95 {percentile(values, 0.95):.1f} ms over {len(values)} rounds")
    finally:
        for process in (server, provider):
            if process and process.poll() is None:
                process.send_signal(signal.SIGINT)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
