#!/usr/bin/env python3
"""Writes Sources/WebApp/Public/places.json, the offline basemap's labels, from the bundled
gazetteer (GeoNames, CC BY 4.0): first-level regions and every place of at least
MIN_POPULATION people, largest first, so the map can label the biggest ones in view.

    python3 Scripts/build-places.py
"""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAZETTEER = ROOT / "Sources/Geocoding/Resources/gazetteer.txt"
OUTPUT = ROOT / "Sources/WebApp/Public/places.json"
MIN_POPULATION = 15000


def sections(path):
    """{section name: [tab-separated fields per line]} for the gazetteer's @sections."""
    result, current = {}, None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        if line.startswith("@"):
            current = result.setdefault(line[1:].split()[0], [])
            continue
        if current is not None:
            current.append(line.split("\t"))
    return result


def main():
    data = sections(GAZETTEER)
    # regions: country code abbr name lat lon dlat dlon population
    regions = sorted(([r[3], round(float(r[4]), 2), round(float(r[5]), 2), int(r[8] or 0)]
                      for r in data["regions"] if r[3]), key=lambda r: -r[3])
    # places: name lat lon region population
    places = sorted(([p[0], round(float(p[1]), 3), round(float(p[2]), 3), int(p[4] or 0)]
                     for p in data["places"] if int(p[4] or 0) >= MIN_POPULATION), key=lambda p: -p[3])
    body = {
        "source": "GeoNames (https://www.geonames.org/), CC BY 4.0, via the bundled gazetteer; "
                  "rebuilt by Scripts/build-places.py",
        "regions": regions,
        "places": places,
    }
    OUTPUT.write_text(json.dumps(body, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    print(f"{OUTPUT.relative_to(ROOT)}: {len(regions)} regions, {len(places)} places, {OUTPUT.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
