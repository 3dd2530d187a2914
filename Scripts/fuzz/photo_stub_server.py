"""Runs the browser suite's Wikimedia Commons stand-in (Tests/E2E/photo_stub.py) until killed,
so the fuzzed server's Travel albums fill with real (generated) photos without the internet.
Prints the API URL to pass as --wikimedia-api-url, then serves."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "E2E"))
from photo_stub import PhotoStub  # noqa: E402

stub = PhotoStub().start()
print(stub.api_url, flush=True)
while True:
    time.sleep(3600)
