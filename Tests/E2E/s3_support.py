"""A few signed S3 calls for tests that check what the server left in the bucket (SigV4,
path-style; the endpoint and keys are the ones Scripts/with-seaweedfs.sh exports)."""
import datetime
import hashlib
import hmac
import os
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET


def _quote(text, safe=""):
    return urllib.parse.quote(text, safe=safe + "-_.~")


def request(method, path, query=None):
    endpoint = os.environ["ONTHEMAP_TEST_S3_ENDPOINT"].rstrip("/")
    access_key, secret_key = os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]
    region = os.environ.get("ONTHEMAP_TEST_S3_REGION", "us-east-1")
    host = urllib.parse.urlsplit(endpoint).netloc
    now = datetime.datetime.now(datetime.timezone.utc)
    amz, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    empty = hashlib.sha256(b"").hexdigest()
    canonical_query = "&".join(f"{_quote(k)}={_quote(v)}" for k, v in sorted((query or {}).items()))
    canonical = "\n".join([method, _quote(path, "/"), canonical_query, f"host:{host}", f"x-amz-content-sha256:{empty}",
                           f"x-amz-date:{amz}", "", "host;x-amz-content-sha256;x-amz-date", empty])
    scope = f"{day}/{region}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + secret_key).encode()
    for part in (day, region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    url = endpoint + _quote(path, "/") + ("?" + canonical_query if canonical_query else "")
    req = urllib.request.Request(url, method=method, headers={
        "x-amz-date": amz, "x-amz-content-sha256": empty,
        "Authorization": f"AWS4-HMAC-SHA256 Credential={access_key}/{scope}, "
                         f"SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={signature}"})
    with urllib.request.urlopen(req, timeout=10) as response:
        return response.read()


def list_keys(prefix):
    """Every key under `prefix` in the test bucket."""
    bucket = os.environ["ONTHEMAP_TEST_S3_BUCKET"]
    keys, token = [], None
    while True:
        query = {"list-type": "2", "prefix": prefix}
        if token:
            query["continuation-token"] = token
        root = ET.fromstring(request("GET", f"/{bucket}", query))
        ns = {"s3": root.tag.split("}")[0].strip("{")} if root.tag.startswith("{") else {}
        find = (lambda node, name: node.findall(f"s3:{name}", ns)) if ns else (lambda node, name: node.findall(name))
        keys += [item[0].text for item in (find(c, "Key") for c in find(root, "Contents")) if item]
        truncated = find(root, "IsTruncated")
        if not truncated or truncated[0].text != "true":
            return sorted(keys)
        token = find(root, "NextContinuationToken")[0].text
