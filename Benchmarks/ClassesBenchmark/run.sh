#!/usr/bin/env bash
# Classes benchmark: 1,010 classes (1,000 of 100 students, 10 of 100,000) on one SQLite server,
# read as the administrator; memory while every class's map is read, first-page latency for a
# small and a big class with and without the list cache, snapshot times. See bench.py.
#
#   bash Benchmarks/ClassesBenchmark/run.sh [bench.py options]
#   ONTHEMAP_BIN=/path/to/onthemap bash Benchmarks/ClassesBenchmark/run.sh   # no build
#
# Without ONTHEMAP_BIN it builds the release binary first (swift waits if the build folder is
# locked by another build). Options go to bench.py (--small-classes, --small-size,
# --big-classes, --big-size, --runs, --keep).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
if [[ -n "${ONTHEMAP_BIN:-}" ]]; then
    bin=$ONTHEMAP_BIN
else
    (cd "$repo" && swift build -c release --product onthemap >&2)
    bin="$(cd "$repo" && swift build -c release --show-bin-path)/onthemap"
fi
[[ -x "$bin" ]] || { echo "not an executable: $bin" >&2; exit 1; }
echo "commit $(cd "$repo" && git rev-parse --short HEAD), $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$here/bench.py" --bin "$bin" "$@"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
