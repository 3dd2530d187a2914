"""Email survives a crash: a server asked for reset links while its SMTP relay is down is
killed with SIGKILL, the relay comes up, a server starts again on the same data directory,
and every link arrives, once each. What the outbox promises (docs/hosting.md): a message is
written with what caused it and is sent until the relay takes it."""
import os
import re
import signal
import subprocess
import tempfile
import time
import urllib.request

import pytest

from conftest import ServerProcess, free_port
from helpers import Api
from smtp_sink import SMTPSink

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                                reason="kills and restarts servers of its own")


def metric(base, name):
    """The value of a counter on the server's /metrics, 0 when it was never counted."""
    with urllib.request.urlopen(base + "/metrics", timeout=10) as response:
        text = response.read().decode()
    match = re.search(rf"^{name}(?:{{[^}}]*}})? ([0-9.e+]+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


def wait_until(condition, what, timeout=20):
    deadline = time.time() + timeout
    while not condition():
        if time.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def test_kill_9_loses_no_reset_link_and_sends_none_twice(photo_stub):
    relay_port = free_port()
    port = free_port()
    mail = ["--smtp-url", f"smtp://127.0.0.1:{relay_port}", "--mail-from", "On the Map <map@school.example>",
            "--public-url", f"http://127.0.0.1:{port}"]
    first = ServerProcess(photo_stub, log_name="e2e-mail-crash-1.log", port=port, extra=mail)
    data_dir = first.data_dir
    sink = None
    second = None
    try:
        api = Api(first.base)
        students = [api.create_user("Crash", f"Student{n}") for n in range(3)]
        for student in students:
            status, _ = api.request("POST", "/api/password-reset/request", {"email": student.email})
            assert status == 202
        # Every message was tried against the relay that is down and put off: now nothing holds
        # a lease, and a kill cannot take a message with it.
        wait_until(lambda: metric(first.base, "onthemap_mail_retried_total") >= len(students),
                   "the server to try the relay that is down")
        first.process.send_signal(signal.SIGKILL)
        first.process.wait()
        first.log.close()

        sink = SMTPSink(tempfile.mkdtemp(prefix="onthemap-e2e-mail-crash-"), "--port", str(relay_port)).start()
        second = ServerProcess(photo_stub, log_name="e2e-mail-crash-2.log", port=port, extra=mail,
                               data_dir=data_dir)
        # The first retry is due 30 s after the failed try.
        messages = sink.wait_for(len(students), timeout=90)
        wait_until(lambda: metric(second.base, "onthemap_mail_sent_total") >= len(students),
                   "the second server to mark what it sent")
        messages = sink.messages()
        recipients = sorted(recipient for message in messages for recipient in message["rcpt_tos"])
        assert recipients == sorted(student.email for student in students), "each link once, none lost"
        assert len({str(message["message"]["Message-ID"]) for message in messages}) == len(students)
        for message in messages:
            assert re.search(rf"http://127\.0\.0\.1:{port}/reset\.html#token=[0-9a-f]+", message["text"])
        assert metric(second.base, "onthemap_mail_sent_total") == len(students)
    finally:
        if first.process.poll() is None:
            first.process.kill()
            first.process.wait()
        if second:
            second.stop()
        else:
            subprocess.run(["rm", "-rf", data_dir], check=False)
        if sink:
            sink.stop()
