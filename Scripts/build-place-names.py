#!/usr/bin/env python3
"""Writes Sources/Geocoding/Resources/place-names.tsv: country names and the names of the
cities that give time zones their names, in many languages, from the Unicode CLDR data
that PyPI's babel ships (version pinned in Scripts/requirements-gazetteer.txt).

The geocoder reads them two ways: to understand a country or a large city typed in the
student's own language ("القاهرة، مصر", "北京，中国", "Múnich, Alemania"), and to name a
place in the reader's language when it answers.

Lines (tab-separated, UTF-8):
  country  <ISO 3166 code>  <language>  <name>
  city     <ISO 3166 code>  <English name>  <language>  <name>

A city is identified by its country and its English name (the time zone's exemplar city,
"Europe/Berlin" -> "Berlin"); the geocoder ties it to the largest place of that name in
that country. Names equal to the English one are left out.

Usage: python3 -m venv /tmp/v && /tmp/v/bin/pip install babel==2.18.0 &&
       /tmp/v/bin/python Scripts/build-place-names.py
"""

import os
import sys

from babel import Locale
from babel.core import get_global

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Sources", "Geocoding", "Resources", "place-names.tsv")

# The app's languages first, then the languages most students write in besides them.
LANGUAGES = [
    "en", "de", "es", "fr", "pt", "ar", "hi", "zh_Hans",
    "zh_Hant", "ja", "ko", "ru", "uk", "it", "nl", "pl", "tr", "fa", "ur", "he", "el",
    "sv", "da", "nb", "fi", "cs", "hu", "ro", "id", "ms", "vi", "th", "bn", "ta", "te",
    "mr", "sw", "ca",
]

# Territories that are no country of their own in the gazetteer, or CLDR's pseudo-regions.
SKIP_TERRITORIES = {"001", "150", "419", "EU", "EZ", "UN", "QO", "ZZ", "XA", "XB"}


def tag(code):
    return code.replace("_", "-")


def clean(text):
    return " ".join(str(text).split())


def main():
    lines = []
    english = Locale.parse("en")
    countries = sorted(c for c in english.territories if len(c) == 2 and c.isalpha() and c not in SKIP_TERRITORIES)
    zones = get_global("zone_territories")
    for code in LANGUAGES:
        locale = Locale.parse(code)
        for country in countries:
            name = locale.territories.get(country)
            if name:
                lines.append(("country", country, tag(code), clean(name)))
        for zone, country in sorted(zones.items()):
            if "/" not in zone or zone.startswith("Etc/") or country in SKIP_TERRITORIES:
                continue
            english_name = english.time_zones.get(zone, {}).get("city") or zone.rsplit("/", 1)[1].replace("_", " ")
            name = locale.time_zones.get(zone, {}).get("city")
            if not name or clean(name) == clean(english_name):
                continue
            lines.append(("city", country, clean(english_name), tag(code), clean(name)))
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("# Country and city names from the Unicode CLDR (via PyPI babel), Unicode License v3;\n")
        f.write("# written by Scripts/build-place-names.py. See ATTRIBUTION.md.\n")
        for line in lines:
            f.write("\t".join(line) + "\n")
    print(f"{len(lines)} names for {len(countries)} countries in {len(LANGUAGES)} languages -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
