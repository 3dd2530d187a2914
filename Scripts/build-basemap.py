#!/usr/bin/env python3
"""Build Sources/WebApp/Public/world.geojson, the web app's offline basemap.

Source: Natural Earth 1:110m admin-0 countries (public domain), as shipped in the
PyPI wheel geopandas==0.14.4 at geopandas/datasets/naturalearth_lowres/.
Coordinates are rounded to 2 decimals; only the country name is kept.

Usage:
    pip install pyshp==2.3.1
    python3 Scripts/build-basemap.py            # downloads the wheel with pip
    python3 Scripts/build-basemap.py WHEEL.whl  # or uses one you have
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import shapefile  # pyshp

PREFIX = "geopandas/datasets/naturalearth_lowres/naturalearth_lowres"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Sources", "WebApp", "Public", "world.geojson")


def find_wheel(argv):
    if len(argv) > 1:
        return argv[1]
    tmp = tempfile.mkdtemp()
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, "geopandas==0.14.4"],
        check=True,
    )
    return os.path.join(tmp, "geopandas-0.14.4-py3-none-any.whl")


def rounded_ring(points):
    ring = []
    for x, y in points:
        p = [round(x, 2), round(y, 2)]
        if not ring or ring[-1] != p:
            ring.append(p)
    if len(ring) >= 2 and ring[0] != ring[-1]:
        ring.append(ring[0])
    return ring


def signed_area(ring):
    a = 0.0
    for (x1, y1), (x2, y2) in zip(ring, ring[1:]):
        a += x1 * y2 - x2 * y1
    return a / 2


def geometry(shape):
    """Shapefile polygon parts -> GeoJSON (Multi)Polygon.
    Shapefile outer rings are clockwise, holes counter-clockwise."""
    parts = list(shape.parts) + [len(shape.points)]
    polygons = []
    for start, end in zip(parts, parts[1:]):
        ring = rounded_ring(shape.points[start:end])
        if len(ring) < 4:
            continue  # collapsed by rounding
        if signed_area(ring) <= 0 or not polygons:  # clockwise: outer ring
            polygons.append([ring[::-1]])  # GeoJSON wants outer rings counter-clockwise
        else:
            polygons[-1].append(ring[::-1])
    if len(polygons) == 1:
        return {"type": "Polygon", "coordinates": polygons[0]}
    return {"type": "MultiPolygon", "coordinates": polygons}


def main(argv):
    wheel = find_wheel(argv)
    with zipfile.ZipFile(wheel) as z:
        files = {ext: io.BytesIO(z.read(PREFIX + "." + ext)) for ext in ("shp", "shx", "dbf")}
        encoding = z.read(PREFIX + ".cpg").decode().strip() or "latin-1"
    reader = shapefile.Reader(shp=files["shp"], shx=files["shx"], dbf=files["dbf"], encoding=encoding)
    names = [f[0] for f in reader.fields[1:]]
    features = []
    for sr in reader.iterShapeRecords():
        props = dict(zip(names, sr.record))
        features.append({
            "type": "Feature",
            "properties": {"name": props.get("name", "")},
            "geometry": geometry(sr.shape),
        })
    collection = {
        "type": "FeatureCollection",
        "source": "Natural Earth 1:110m admin-0 countries (public domain), via geopandas 0.14.4",
        "features": features,
    }
    with open(OUT, "w") as f:
        json.dump(collection, f, separators=(",", ":"))
    print(f"wrote {OUT}: {len(features)} countries, {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main(sys.argv)
