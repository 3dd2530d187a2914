"""The class roster answers "who is on the map, and who is not yet": a teacher's settings page
shows each member's place on the map (on the map, waiting for approval, not yet) and their last
post, how many are on the map, and sorts by name, status or last post from the keyboard (each
sort button's column says how it is sorted, aria-sort). The server has no email here, so the
reminder says email is not set up instead of offering a button. The CSV and GeoJSON downloads
hold exactly the class's map as its members see it: fetched with the page's own session."""
import csv
import io
import json

from selenium.webdriver.common.keys import Keys

from helpers import add_member
from test_n_classes import administrator, post_in_class, unique_slug


def names(page):
    return page.js("return [...document.querySelectorAll('#members-list > li .member-who strong')].map((n) => n.textContent)")


def statuses(page):
    return page.js("return [...document.querySelectorAll('#members-list > li .member-status')].map((n) => n.textContent)")


def sorted_by(page):
    return page.js("""return Object.fromEntries([...document.querySelectorAll('#members-head [role=columnheader][data-column]')]
        .map((n) => [n.dataset.column, n.getAttribute('aria-sort')]))""")


def fetch(page, path):
    """`path` fetched by the page itself (its session cookie): status, headers and text."""
    return page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(arguments[0], { credentials: 'same-origin' })
          .then(async (r) => done({ status: r.status, type: r.headers.get('content-type'),
                                    disposition: r.headers.get('content-disposition'), text: await r.text() }))
          .catch((e) => done({ status: 0, text: String(e) }));""", path)


def test_the_roster_says_who_is_on_the_map_sorts_and_exports(page, api):
    teacher = administrator(api)
    slug = unique_slug("roster")
    headers = {"X-Parse-Session-Token": teacher.session}
    api.request("POST", "/api/classes", {"slug": slug, "name": "Geography 7", "visibility": "members", "join": "invite"},
                headers=headers)
    ana, bo, cy = api.create_user("Ana", "Zed"), api.create_user("Bo", "Young"), api.create_user("Cy", "Xu")
    for member in (ana, bo, cy):
        add_member(teacher, slug, member)
    post_in_class(ana, slug, "Lagos, Nigeria", 6.4541, 3.3947)
    # Every post waits for a moderator from now on: Bo's is waiting.
    api.request("PATCH", f"/api/classes/{slug}", {"approval": "all"}, headers=headers)
    post_in_class(bo, slug, "Accra, Ghana", 5.6037, -0.187)

    page.log_in(teacher)
    page.open(f"/#/c/{slug}/settings")
    page.until(lambda d: len(page.find_all("#members-list > li .member-status")) == 4, 15, "the roster never showed")
    page.text_in("#members-count", "1 of 4 members on the map")

    # Not yet first (by name), then waiting, then on the map.
    assert names(page)[2:] == ["Bo Young", "Ana Zed"]
    assert statuses(page) == ["Not yet", "Not yet", "Waiting for approval", "On the map"]
    assert sorted_by(page) == {"name": "none", "status": "ascending", "last": "none"}
    ana_row = page.find(f'#members-list > li[data-key="{ana.key}"]')
    assert ana_row.find_element("css selector", ".member-last time").get_attribute("datetime")
    cy_row = page.find(f'#members-list > li[data-key="{cy.key}"]')
    assert cy_row.find_element("css selector", ".member-last").text == "No post"

    # From the keyboard: Name, then Name again (Z to A), then Last post (newest first).
    name_button = page.find('#members-head [data-sort="name"]')
    name_button.send_keys(Keys.ENTER)
    page.until(lambda d: sorted_by(page)["name"] == "ascending", 5, "Name did not sort")
    assert names(page)[:3] == ["Ana Zed", "Bo Young", "Cy Xu"]
    page.find('#members-head [data-sort="name"]').send_keys(Keys.SPACE)
    page.until(lambda d: sorted_by(page)["name"] == "descending", 5, "Name did not sort the other way")
    assert names(page)[-3:] == ["Cy Xu", "Bo Young", "Ana Zed"]
    page.find('#members-head [data-sort="last"]').send_keys(Keys.ENTER)
    page.until(lambda d: sorted_by(page) == {"name": "none", "status": "none", "last": "descending"}, 5, "Last post did not sort")
    assert names(page)[:2] == ["Bo Young", "Ana Zed"]

    # No email on this server: no button, a sentence.
    page.text_in("#remind-hint", "Email is not set up")
    assert not page.find("#remind-button").is_displayed()

    # The downloads: exactly the class's map as a member sees it.
    page.visible("#export-section")
    csv_link = page.find("#export-csv").get_attribute("href")
    geo_link = page.find("#export-geojson").get_attribute("href")
    assert csv_link.endswith(f"/api/classes/{slug}/export.csv") and geo_link.endswith(f"/api/classes/{slug}/export.geojson")
    seen = json.loads(fetch(page, f"/c/{slug}/api/locations/snapshot")["text"])["locations"]
    assert [location["firstName"] for location in seen] == ["Ana"], "Bo's post waits: members do not see it"

    exported = fetch(page, csv_link)
    assert exported["status"] == 200 and exported["type"].startswith("text/csv")
    assert exported["disposition"] == f'attachment; filename="{slug}-map.csv"'
    rows = list(csv.DictReader(io.StringIO(exported["text"].lstrip("\ufeff"))))
    assert [(row["objectId"], float(row["latitude"]), float(row["longitude"]), row["mapString"]) for row in rows] == \
        [(location["objectId"], location["latitude"], location["longitude"], location["mapString"]) for location in seen]

    geo = fetch(page, geo_link)
    assert geo["status"] == 200 and geo["disposition"] == f'attachment; filename="{slug}-map.geojson"'
    features = json.loads(geo["text"])["features"]
    assert [(feature["id"], feature["geometry"]["coordinates"]) for feature in features] == \
        [(location["objectId"], [location["longitude"], location["latitude"]]) for location in seen]
