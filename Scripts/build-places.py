#!/usr/bin/env python3
"""Writes Sources/WebApp/Public/places.json, the offline basemap's labels, from the bundled
gazetteer (GeoNames, CC BY 4.0): first-level regions and every place of at least
MIN_POPULATION people, largest first, so the map can label the biggest ones in view; and,
for each of the web app's languages, the names of the cities that language names its own
way (München, Pékin, 北京), from the geocoder's place-names.tsv (Unicode CLDR), keyed by the
place's index: a city is the largest place of its English name in its country, as the
geocoder ties them.

    python3 Scripts/build-places.py
"""
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAZETTEER = ROOT / "Sources/Geocoding/Resources/gazetteer.txt"
NAMES = ROOT / "Sources/Geocoding/Resources/place-names.tsv"
OUTPUT = ROOT / "Sources/WebApp/Public/places.json"
# The web app's languages (its tags) and theirs in place-names.tsv.
LANGUAGES = {"es": "es", "fr": "fr", "pt-BR": "pt", "de": "de", "zh-Hans": "zh-Hans", "hi": "hi", "ar": "ar"}
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


def local_names(places, place_countries):
    """{app language: {index in places: name}} for the cities place-names.tsv names otherwise.
    `place_countries`: each place's country code, in the same order."""
    # (country, English name) -> the index of its largest place among the labels.
    largest = {}
    for index, (place, country) in enumerate(zip(places, place_countries)):
        largest.setdefault((country, place[0]), index)  # places are largest first
    wanted = {theirs: ours for ours, theirs in LANGUAGES.items()}
    names = {ours: {} for ours in LANGUAGES}
    for line in NAMES.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if fields[0] != "city" or fields[3] not in wanted:
            continue
        _, country, english, language, local = fields
        # CLDR tells some cities apart in brackets ("Tripoli (Libye)"): a map label needs not.
        local = re.sub(r"\s*[(（].*?[)）]\s*$", "", local).strip()
        index = largest.get((country, english))
        if index is not None and local and local != places[index][0]:
            names[wanted[language]][str(index)] = local
    return names


def main():
    data = sections(GAZETTEER)
    # regions: country code abbr name lat lon dlat dlon population
    regions = sorted(([r[3], round(float(r[4]), 2), round(float(r[5]), 2), int(r[8] or 0)]
                      for r in data["regions"] if r[3]), key=lambda r: -r[3])
    # places: name lat lon region population (kept with its country, for local_names)
    countries = [c[0] for c in data["countries"]]
    region_country = [countries[int(r[0])] for r in data["regions"]]
    rows = sorted(([p[0], round(float(p[1]), 3), round(float(p[2]), 3), int(p[4] or 0), region_country[int(p[3])]]
                   for p in data["places"] if int(p[4] or 0) >= MIN_POPULATION), key=lambda p: -p[3])
    places = [row[:4] for row in rows]
    body = {
        "source": "GeoNames (https://www.geonames.org/), CC BY 4.0, via the bundled gazetteer; "
                  "city names in other languages from Unicode CLDR; rebuilt by Scripts/build-places.py",
        "regions": regions,
        "places": places,
        "names": local_names(places, [row[4] for row in rows]),
    }
    OUTPUT.write_text(json.dumps(body, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    named = ", ".join(f"{tag} {len(names)}" for tag, names in body["names"].items())
    print(f"{OUTPUT.relative_to(ROOT)}: {len(regions)} regions, {len(places)} places, {OUTPUT.stat().st_size:,} bytes; "
          f"cities named in each language: {named}")


if __name__ == "__main__":
    main()
