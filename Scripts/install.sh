#!/usr/bin/env bash
# Builds `onthemap` and puts it on the PATH:
#
#   bash Scripts/install.sh                 # release build into ~/.local (bin/onthemap)
#   bash Scripts/install.sh --prefix /usr/local
#   bash Scripts/install.sh --debug         # skip the slow optimised build (CI uses this)
#
# The program needs its resource folders (the web app, the gazetteer, the API description)
# beside it, so they go to PREFIX/lib/onthemap with the binary, and PREFIX/bin/onthemap is a
# small launcher. Running it again upgrades in place; the data directory is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${PREFIX:-$HOME/.local}"
configuration=release
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        --debug) configuration=debug; shift ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install: unknown option '$1' (use --prefix DIR or --debug)" >&2; exit 2 ;;
    esac
done

if [ "$configuration" = release ]; then
    echo "install: building the release binary (the first build takes 10 to 20 minutes on 2 cores)"
fi
swift build -c "$configuration" --product onthemap
built="$(swift build -c "$configuration" --show-bin-path)"

target="$prefix/lib/onthemap"
mkdir -p "$target" "$prefix/bin"
# A fresh copy each time, so resources removed upstream do not linger.
rm -rf "$target.new"
mkdir -p "$target.new"
cp "$built/onthemap" "$target.new/"
for bundle in "$built"/*.resources; do
    [ -d "$bundle" ] && cp -R "$bundle" "$target.new/"
done
rm -rf "$target"
mv "$target.new" "$target"

cat > "$prefix/bin/onthemap" <<LAUNCHER
#!/bin/sh
# Installed by OnTheMap's Scripts/install.sh; the program and its resources are in $target.
exec "$target/onthemap" "\$@"
LAUNCHER
chmod 755 "$prefix/bin/onthemap"

echo "install: onthemap is in $prefix/bin"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "install: add it to your PATH: export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
