#!/usr/bin/env python3
"""Re-folds the keys of an existing gazetteer.txt after a change to the key folding that
only merges keys (today: traditional Chinese folded to simplified), without rebuilding it
from the GeoNames packages. Keys of @qualifiers and @names are folded with the table that
build-gazetteer.py's normalize() uses; keys that become equal are merged (a name is
alternate only if it was alternate under every key merged) and the sections re-sorted in
byte order. A full rebuild with build-gazetteer.py gives the same result.

Usage: python3 Scripts/refold-gazetteer.py [Sources/Geocoding/Resources/gazetteer.txt]
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "Sources", "Geocoding", "Resources", "hant-hans.tsv")


def load_table():
    table = {}
    with open(TABLE, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                t, s = line.rstrip("\n").split("\t")
                table[ord(t)] = s
    return table


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "Sources", "Geocoding", "Resources", "gazetteer.txt")
    table = load_table()
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = []
    i = 0
    changed = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not line.startswith("@"):
            continue
        section, count = line[1:].split(" ")
        count = int(count)
        body = lines[i:i + count]
        i += count
        if section == "qualifiers":
            merged = {}
            for row in body:
                key, refs = row.split("\t")
                folded = key.translate(table)
                changed += folded != key
                merged.setdefault(folded, set()).update(refs.split(","))
            rows = [k + "\t" + ",".join(sorted(v)) for k, v in sorted(merged.items())]
        elif section == "names":
            merged = {}
            for row in body:
                key, ids = row.split("\t")
                folded = key.translate(table)
                changed += folded != key
                entry = merged.setdefault(folded, {})
                for item in ids.split(","):
                    alternate = item.startswith("~")
                    ident = int(item.lstrip("~"))
                    prev = entry.get(ident)
                    entry[ident] = alternate if prev is None else (prev and alternate)
            keys = sorted(merged, key=lambda k: k.encode("utf-8"))
            rows = [k + "\t" + ",".join(("~" if alt else "") + str(n) for n, alt in sorted(merged[k].items()))
                    for k in keys]
        else:
            rows = body
        out[-1] = f"@{section} {len(rows)}"
        out.extend(rows)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print(f"{changed} keys folded", file=sys.stderr)


if __name__ == "__main__":
    main()
