#!/usr/bin/env bash
# Browser tests for the web app: installs Debian's chromium, chromedriver and Leaflet plus
# the pinned Python packages, then runs pytest against an already built server binary
# (ONTHEMAP_BIN, default .build/debug/onthemap). Extra arguments go to pytest; name test
# files to run only those.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Devanagari and Chinese fonts: without them Hindi and Chinese draw as boxes, and the language
# walk's checks of cut-off text measure nothing.
apt_packages=(chromium chromium-driver libjs-leaflet fonts-inter fonts-lohit-deva fonts-wqy-microhei libzbar0)
missing=()
for package in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "E2E: installing ${missing[*]}"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PYTHON=${PYTHON:-python3}
if ! $PYTHON -c "import selenium, pytest, xdist, prometheus_client, axe_playwright_python, oidc_provider_mock, jwt, cryptography, aiosmtpd, pyzbar" 2>/dev/null || \
   [ "$($PYTHON -c 'import selenium; print(selenium.__version__)')" != "$(sed -n 's/^selenium==//p' Tests/E2E/requirements.txt)" ]; then
    $PYTHON -m pip install -q --disable-pip-version-check -r Tests/E2E/requirements.txt
fi

export ONTHEMAP_BIN=${ONTHEMAP_BIN:-.build/debug/onthemap}
if [ ! -x "$ONTHEMAP_BIN" ]; then
    echo "E2E: $ONTHEMAP_BIN not found; build the server first (swift build)" >&2
    exit 2
fi
mkdir -p test-output/screenshots
# Test files or folders among the arguments replace the whole suite.
targets=(Tests/E2E)
for argument in "$@"; do
    case "$argument" in -*) ;; *) [ -e "${argument%%::*}" ] && targets=() ;; esac
done
exec $PYTHON -m pytest "${targets[@]}" -p no:cacheprovider --junitxml=test-output/e2e-junit.xml "$@"
