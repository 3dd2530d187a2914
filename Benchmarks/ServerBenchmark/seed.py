#!/usr/bin/env python3
"""Seed StudentLocation rows straight into an OnTheMap SQLite file (benchmark data).

    python3 seed.py DB_PATH [COUNT]      # default COUNT 1,000,000

The file must already exist and be migrated (start `onthemap serve` on it once). Rows go
into `student_locations` in one transaction with executemany; values look like what
real clients post: names, a place, a profile URL, coordinates near that place, and
createdAt <= updatedAt spread over one year, formatted `YYYY-MM-DDTHH:MM:SS.mmmZ`.
The server's next opening writes their search words (the `store_upkeep` row this leaves:
minutes at a million). Prints one uniqueKey that exists, for the `where` benchmark query.
"""
import random
import sqlite3
import string
import sys
import time
from datetime import datetime, timedelta, timezone

FIRST = ("Aarav Ada Ahmed Aiko Alejandro Alice Amara Ana Andrei Anna Arjun Ben Bruno Camila Carlos "
         "Chen Chloe Daniel David Diego Elena Emma Fatima Felix Gabriel Grace Hana Hugo Ibrahim Isabel "
         "Ivan Jack James Jin Jonas Jose Julia Kenji Lars Laura Leila Liam Lina Lucas Luis Maria Marta "
         "Mateo Maya Mei Mohammed Nadia Noah Nora Oliver Olga Omar Pablo Priya Rafael Ravi Sara Sofia "
         "Tariq Tom Valentina Wei Yara Yusuf Zoe").split()
LAST = ("Adams Ahmed Alvarez Andersen Bauer Becker Brown Chen Costa Cruz Davis Diaz Dubois Fischer "
        "Garcia Gonzalez Gupta Hansen Hernandez Ito Jensen Johnson Kim Kowalski Kumar Lee Lopez Martin "
        "Martinez Meyer Miller Moreau Muller Nakamura Nguyen Novak Okafor Olsen Patel Pereira Petrov "
        "Rossi Santos Schmidt Silva Singh Smith Suzuki Tanaka Taylor Thomas Wang Weber Williams Wilson "
        "Yamamoto Young Zhang").split()
PLACES = [
    ("Mountain View, CA", 37.386, -122.084), ("San Francisco, CA", 37.775, -122.419),
    ("New York, NY", 40.713, -74.006), ("Austin, TX", 30.267, -97.743), ("Chicago, IL", 41.878, -87.630),
    ("Seattle, WA", 47.606, -122.332), ("Denver, CO", 39.739, -104.990), ("Boston, MA", 42.360, -71.059),
    ("Miami, FL", 25.762, -80.192), ("Toronto, Canada", 43.653, -79.383), ("Mexico City", 19.433, -99.133),
    ("Sao Paulo, Brazil", -23.551, -46.633), ("Buenos Aires", -34.604, -58.382), ("London, UK", 51.507, -0.128),
    ("Paris, France", 48.857, 2.352), ("Berlin, Germany", 52.520, 13.405), ("Madrid, Spain", 40.417, -3.704),
    ("Rome, Italy", 41.903, 12.496), ("Stockholm, Sweden", 59.329, 18.069), ("Warsaw, Poland", 52.230, 21.012),
    ("Cairo, Egypt", 30.044, 31.236), ("Lagos, Nigeria", 6.524, 3.379), ("Nairobi, Kenya", -1.292, 36.822),
    ("Cape Town", -33.925, 18.424), ("Dubai", 25.205, 55.271), ("Mumbai, India", 19.076, 72.878),
    ("Bangalore, India", 12.972, 77.595), ("Delhi, India", 28.704, 77.102), ("Singapore", 1.352, 103.820),
    ("Tokyo, Japan", 35.676, 139.650), ("Seoul, Korea", 37.567, 126.978), ("Beijing, China", 39.904, 116.407),
    ("Shanghai", 31.230, 121.474), ("Sydney, Australia", -33.869, 151.209), ("Auckland, NZ", -36.849, 174.763),
    ("Jakarta", -6.209, 106.846), ("Manila", 14.600, 120.984), ("Istanbul", 41.008, 28.978),
    ("Moscow, Russia", 55.756, 37.617), ("Kyiv, Ukraine", 50.450, 30.523),
]
SITES = ["https://www.linkedin.com/in/{}", "https://github.com/{}", "https://{}.dev",
         "https://twitter.com/{}", "www.linkedin.com/in/{}", "https://medium.com/@{}"]
ALNUM = string.ascii_letters + string.digits
START = datetime(2024, 1, 1, tzinfo=timezone.utc)
YEAR_MS = 366 * 24 * 3600 * 1000


def stamp(ms):
    t = START + timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def rows(count, rng):
    seen = set()
    for _ in range(count):
        while True:
            object_id = "".join(rng.choices(ALNUM, k=10))
            if object_id not in seen:
                seen.add(object_id)
                break
        first, last = rng.choice(FIRST), rng.choice(LAST)
        place, lat, lon = rng.choice(PLACES)
        handle = (first + last).lower() + str(rng.randrange(1000))
        created = rng.randrange(YEAR_MS)
        updated = created if rng.random() < 0.3 else rng.randrange(created, YEAR_MS)
        yield (
            object_id, None, str(rng.randrange(10**9, 10**10)), first, last, place,
            rng.choice(SITES).format(handle),
            round(max(-90.0, min(90.0, lat + rng.uniform(-0.5, 0.5))), 6),
            round(max(-180.0, min(180.0, lon + rng.uniform(-0.5, 0.5))), 6),
            stamp(created), stamp(updated),
        )


def main():
    path = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    rng = random.Random(20240101)
    started = time.time()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA cache_size = -400000")  # 400 MB page cache for the index builds
    db.execute("PRAGMA synchronous = OFF")
    db.execute("BEGIN")
    db.execute("DELETE FROM student_locations")
    db.executemany(
        "INSERT INTO student_locations (object_id, owner_key, unique_key, first_name, last_name, map_string,"
        " media_url, latitude, longitude, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        rows(count, rng),
    )
    # Posts written past the server have no search words: the store_upkeep row (migration 23)
    # has the server's next opening write them, as it would for posts from before search.
    db.execute("INSERT OR IGNORE INTO store_upkeep (task) VALUES ('search_terms')")
    db.execute("COMMIT")
    db.execute("ANALYZE")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    total = db.execute("SELECT COUNT(*) FROM student_locations").fetchone()[0]
    key = db.execute("SELECT unique_key FROM student_locations ORDER BY object_id LIMIT 1 OFFSET 4242").fetchone()[0]
    db.close()
    print(f"seeded {total} rows in {time.time() - started:.1f} s", file=sys.stderr)
    print(key)


if __name__ == "__main__":
    main()
