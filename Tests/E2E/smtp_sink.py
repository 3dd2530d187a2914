"""A real SMTP relay for the tests (aiosmtpd): keeps every message it accepts as a JSON file.

    python3 smtp_sink.py --dir FOLDER [--port 0] [--tls-cert C --tls-key K [--implicit-tls]]
                         [--auth USER:PASSWORD] [--refuse CODE] [--slow-data SECONDS]

Prints `PORT <n>` on its first line once it listens, and writes the same number to
FOLDER/port. Each accepted message becomes FOLDER/<n>.json: {"mail_from", "rcpt_tos", "data"}
(written to a temporary name first, then renamed, so a reader never sees half of one).
`--refuse 550` answers every RCPT with that code (a relay that refuses); `--refuse 451` makes
it a temporary refusal. `--slow-data` waits that long before accepting DATA (a test can
kill the server while the message is being sent). `--auth` requires AUTH PLAIN or LOGIN
(over TLS, unless no certificate is given).

From Python: `SMTPSink(folder).start()` runs one in a child process; `.messages()` reads
what it received; `.wait_for(count)` waits for that many.
"""

import argparse
import asyncio
import email
import email.policy
import json
import os
import ssl
import subprocess
import sys
import time
from pathlib import Path


def main():
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--implicit-tls", action="store_true")
    parser.add_argument("--auth")
    parser.add_argument("--refuse", type=int)
    parser.add_argument("--slow-data", type=float, default=0)
    options = parser.parse_args()
    folder = Path(options.dir)
    folder.mkdir(parents=True, exist_ok=True)

    class Handler:
        count = len(list(folder.glob("*.json")))

        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if options.refuse:
                return f"{options.refuse} {'5.1.1 no such mailbox here' if options.refuse >= 500 else '4.3.0 try again later'}"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            if options.slow_data:
                await asyncio.sleep(options.slow_data)
            Handler.count += 1
            name = f"{time.time_ns()}-{Handler.count:05d}"
            record = {
                "mail_from": envelope.mail_from,
                "rcpt_tos": envelope.rcpt_tos,
                "data": envelope.content.decode("utf-8", "replace"),
                "tls": session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None,
                "auth": bool(session.authenticated),
            }
            temporary = folder / f".{name}.tmp"
            temporary.write_text(json.dumps(record))
            os.replace(temporary, folder / f"{name}.json")
            return f"250 2.0.0 Ok: queued as {name}"

    def authenticator(server, session, envelope, mechanism, auth_data):
        user, _, password = options.auth.partition(":")
        if isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user and auth_data.password.decode() == password:
            return AuthResult(success=True)
        return AuthResult(success=False, handled=False)

    context = None
    if options.tls_cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(options.tls_cert, options.tls_key)

    class Relay(Controller):
        def factory(self):
            return SMTP(
                self.handler,
                tls_context=None if options.implicit_tls else context,
                require_starttls=False,
                authenticator=authenticator if options.auth else None,
                auth_required=bool(options.auth),
                auth_require_tls=context is not None and not options.implicit_tls,
                hostname="sink.test",
            )

    controller = Relay(
        Handler(), hostname=options.host, port=options.port or 0,
        ssl_context=context if options.implicit_tls else None,
    )
    if options.port == 0:
        # aiosmtpd takes 0 literally only from 1.4.5 on through its server; ask the OS for a free one.
        import socket

        with socket.socket() as probe:
            probe.bind((options.host, 0))
            controller.port = probe.getsockname()[1]
    controller.start()
    (folder / "port").write_text(str(controller.port))
    print(f"PORT {controller.port}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        controller.stop()


class SMTPSink:
    """One smtp_sink.py process for a test, and what it received."""

    def __init__(self, folder, *args):
        self.folder = Path(folder)
        self.args = list(args)
        self.process = None
        self.port = None

    def start(self):
        self.folder.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--dir", str(self.folder), *self.args],
            stdout=subprocess.PIPE, text=True,
        )
        line = self.process.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"smtp_sink did not start: {line!r}")
        self.port = int(line.split()[1])
        return self

    def stop(self):
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    @property
    def url(self):
        return f"smtp://127.0.0.1:{self.port}"

    def messages(self):
        """Every message received, oldest first, each as its JSON record plus `message` (an
        `email.message.EmailMessage`), `subject`, `text` and `html` (decoded)."""
        found = []
        for path in sorted(self.folder.glob("*.json")):
            record = json.loads(path.read_text())
            message = email.message_from_string(record["data"], policy=email.policy.default)
            record["message"] = message
            record["subject"] = str(message["Subject"])
            text = message.get_body(("plain",))
            html = message.get_body(("html",))
            record["text"] = text.get_content() if text else ""
            record["html"] = html.get_content() if html else ""
            found.append(record)
        return found

    def wait_for(self, count, to=None, timeout=30):
        deadline = time.time() + timeout
        while True:
            messages = [m for m in self.messages() if to is None or to in m["rcpt_tos"]]
            if len(messages) >= count:
                return messages
            if time.time() > deadline:
                raise AssertionError(f"expected {count} message(s){' to ' + to if to else ''}, have {len(messages)}")
            time.sleep(0.1)


if __name__ == "__main__":
    main()
