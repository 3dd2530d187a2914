"""A teacher's cockpit: a small map on each row of the approval queue, the present view for the
projector (read-only, live, Escape leaves it), and a public class's map framed by another
site (a page on another origin), while a members-only class and the app itself refuse it."""
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import DESKTOP, PHONE, SCREENSHOTS
from test_n_classes import administrator, as_teacher, axe_check, post_in_class, unique_slug


def test_queue_rows_show_where_and_the_present_view_is_read_only_and_live(page, api):
    teacher = administrator(api)
    slug = unique_slug("present")
    as_teacher(teacher, "POST", "/api/classes", {"slug": slug, "name": "Present class", "join": "open", "approval": "all"})
    ana, ben = api.create_user("Ana", "Present"), api.create_user("Ben", "Present")
    post_in_class(ana, slug, "Lagos", 6.45, 3.39)
    post_in_class(ben, slug, "Nairobi", -1.29, 36.82)

    page.log_in(teacher)
    page.open(f"/c/{slug}/")
    page.map_ready()
    page.clickable("#moderation-button").click()
    page.visible("#moderation")
    page.clickable("#moderation-tab-waiting").click()
    page.until(lambda d: len(page.find_all("#moderation-list > li")) == 2, 20, "the queue never listed both posts")
    for size, width in ((DESKTOP, 96), (PHONE, 72)):
        page.viewport(size)
        maps = page.find_all("#moderation-list > li svg.mini-map")
        # Named by the place the class shows (its town, at Town precision).
        labels = sorted(m.get_attribute("aria-label") for m in maps)
        assert labels[0].startswith("Lagos") and labels[1].startswith("Nairobi"), labels
        assert all(m.get_attribute("role") == "img" and m.size["width"] == width for m in maps)
        # One outline for the page, drawn in every row.
        page.until(lambda d: page.js("return !!document.querySelector('#mini-map-world')"), 10, "no world outline")
        assert page.js("return document.querySelectorAll('#mini-map-world').length") == 1
        drawn = page.js("return document.querySelector('.mini-map use').getBBox().width")
        assert drawn > 300, drawn
    page.screenshot("approval-queue-maps")
    page.clickable("#moderation-approve-all").click()
    page.alert()
    page.dismiss_alert("#alert-ok")
    page.text_in("#moderation-done", "Approved 2 posts.", 20)
    page.clickable("#moderation-close").click()
    page.gone("#moderation")

    # The class menu's Present link opens the projector's view over the app.
    page.clickable("#class-button").click()
    page.clickable(f"a.class-row-present[href='#/c/{slug}/present']")
    page.screenshot("classes-with-present")
    page.clickable(f"a.class-row-present[href='#/c/{slug}/present']").click()
    page.until(lambda d: page.js("return document.getElementById('present-scene')?.dataset.state") == "ready",
               20, "the present view never drew its map")
    assert page.js("return location.hash") == f"#/c/{slug}/present"
    page.text_in("#present-scene .present-count", "2 students")
    page.text_in("#present-scene .present-title", "Present class")
    page.until(lambda d: page.js("return document.querySelector('#present-scene .present-live').dataset.state") == "live",
               15, "the present view never went live")
    # Read-only: its only buttons are Full screen and Leave; the app's are under it.
    buttons = page.js("return [...document.querySelectorAll('#present-scene button')].filter((b) => !b.hidden)"
                      ".map((b) => b.className)")
    assert all("present-fullscreen" in b or "present-leave" in b or "leaflet" in b or "map-fit" in b for b in buttons), buttons
    assert page.js("const b = document.getElementById('add-location-button').getBoundingClientRect();"
                   "return document.getElementById('present-scene').contains("
                   "document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2))")

    # A post made meanwhile appears, named, and the count follows.
    cleo = api.create_user("Cleo", "Present")
    as_teacher(teacher, "POST", f"/api/classes/{slug}/members", {"email": cleo.email, "role": "moderator"})
    as_teacher(cleo, "POST", f"/api/classes/{slug}/join", {})
    post_in_class(cleo, slug, "Accra", 5.6, -0.19)
    page.text_in("#present-scene .present-count", "3 students", 20)
    page.screenshot("present")
    found = []
    axe_check(page, "present view", found)
    assert not found, "axe found serious or critical violations:\n" + "\n".join(found)

    # At phone size too; then Escape leaves it for the class's map.
    page.viewport(PHONE)
    assert page.find("#present-scene .present-leave").is_displayed()
    page.viewport(DESKTOP)
    page.find("body").send_keys(Keys.ESCAPE)
    page.until(lambda d: page.js("return location.hash") == f"#/c/{slug}/map", 10, "Escape did not leave the present view")
    page.gone("#present-scene")
    page.visible("#main-scene")
    page.map_ready()
    assert not page.console_errors()


class HostPage:
    """Another origin (localhost, not 127.0.0.1: another site too) whose page frames `frames`."""

    def __init__(self, frames):
        html = "<!doctype html><title>School</title>" + "".join(
            f'<iframe id="{name}" src="{src}" width="600" height="400"></iframe>' for name, src in frames.items())
        body = html.encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://localhost:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def headers_of(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def test_a_public_class_embeds_on_another_site_and_nothing_else_does(page, api, server):
    teacher = administrator(api)
    public, members = unique_slug("embed"), unique_slug("hidden")
    as_teacher(teacher, "POST", "/api/classes", {"slug": public, "name": "Open Geography", "visibility": "public", "join": "open"})
    as_teacher(teacher, "POST", "/api/classes", {"slug": members, "name": "Secret Biology", "join": "open"})
    dana = api.create_user("Dana", "Embed")
    post_in_class(dana, public, "Lima", -12.05, -77.04)
    post_in_class(dana, members, "Quito", -0.18, -78.47)

    status, headers = headers_of(f"{server}/embed/{public}")
    assert status == 200 and headers.get("X-Frame-Options") is None
    assert "frame-ancestors *" in headers["Content-Security-Policy"]
    for path in (f"/embed/{members}", "/embed/no-such-class"):
        status, headers = headers_of(server + path)
        assert status == 404 and headers["X-Frame-Options"] == "DENY", path
    status, headers = headers_of(server + "/")
    assert status == 200 and headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]

    # The teacher's settings give the embed code of the public class only.
    page.log_in(teacher)
    page.open(f"/#/c/{public}/settings")
    code = page.visible("#embed-code")
    assert code.get_attribute("value").startswith(f'<iframe src="{server}/embed/{public}" title="Open Geography"')
    page.clickable("#embed-copy").click()
    page.until(lambda d: page.find("#embed-done").is_displayed() or page.find("#embed-error").is_displayed(), 10, "Copy said nothing")
    page.open(f"/#/c/{members}/settings")
    page.text_in("#embed-hint", "Only a map anyone may see")
    page.open(f"/#/c/{public}/settings")
    page.visible("#embed-code")
    page.viewport(PHONE)
    page.js("document.getElementById('embed-section').scrollIntoView()")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.driver.save_screenshot(str(SCREENSHOTS / "class-settings-embed-390x844.png"))
    page.viewport(DESKTOP)
    found = []
    axe_check(page, "settings with the embed code", found)
    assert not found, "axe found serious or critical violations:\n" + "\n".join(found)
    page.open(f"/#/c/{members}/settings")
    page.text_in("#embed-hint", "Only a map anyone may see")
    assert not page.find("#embed-box").is_displayed()

    host = HostPage({"public": f"{server}/embed/{public}", "members": f"{server}/embed/{members}", "app": f"{server}/"})
    try:
        page.driver.delete_all_cookies()
        page.driver.get(host.url)
        driver = page.driver
        driver.switch_to.frame(driver.find_element(By.ID, "public"))
        page.until(lambda d: page.js("return document.querySelector('.present')?.dataset.state") == "ready", 20,
                   "the embedded map never drew")
        page.text_in(".present-count", "1 student")
        page.text_in(".present-title", "Open Geography")
        assert page.js("return document.title") == "Open Geography · On the Map"
        page.until(lambda d: "Dana Embed" in page.js(
            "return [...document.querySelectorAll('.pin-name')].map((e) => e.textContent).join()"), 10, "no named pin")
        assert not page.find_all(".present-leave")
        page.until(lambda d: page.js("return document.querySelector('.present-live').dataset.state") == "live", 15,
                   "the embed never went live")
        post_in_class(api.create_user("Emil", "Embed"), public, "Cusco", -13.53, -71.97)
        page.text_in(".present-count", "2 students", 20)
        driver.switch_to.default_content()
        page.screenshot("embed-on-another-site", sizes=(DESKTOP,))
        driver.switch_to.default_content()
        # The members-only class's frame shows the 404, and the app's frame nothing at all.
        for name in ("members", "app"):
            driver.switch_to.frame(driver.find_element(By.ID, name))
            shown = page.js("return document.body ? document.body.innerText : ''")
            assert "Secret Biology" not in shown and "Quito" not in shown and not page.find_all("#login-scene, .present")
            driver.switch_to.default_content()

        # The teacher makes the class members-only: the open embed drops every pin, name and
        # count at once (its stream is ended, and the server now refuses it the map).
        driver.switch_to.frame(driver.find_element(By.ID, "public"))
        as_teacher(teacher, "PATCH", f"/api/classes/{public}", {"visibility": "members"})
        page.until(lambda d: page.js("return document.querySelector('.present').dataset.state") == "withdrawn", 30,
                   "the embed kept showing a class that is no longer public")
        page.text_in(".present-status", "This map is no longer shared.")
        # (Leaflet fades the names out, then removes them.)
        page.until(lambda d: not page.js("return document.querySelectorAll('.pin-name, .student-pin').length"), 10,
                   "pins or names stayed on the withdrawn map")
        shown = page.js("return document.body.innerText")
        assert "Dana Embed" not in shown and "Open Geography" not in shown and "student" not in shown
        assert page.js("return document.title") == "On the Map"

        # Public again: the frame comes back by itself (no one reloads a page on a projector or
        # another site), with its name, its pins and its live changes.
        as_teacher(teacher, "PATCH", f"/api/classes/{public}", {"visibility": "public"})
        page.until(lambda d: page.js("return document.querySelector('.present').dataset.state") == "ready", 40,
                   "the embed stayed empty after its class was public again")
        page.text_in(".present-count", "2 students", 10)
        page.text_in(".present-title", "Open Geography", 10)
        assert page.find(".present-status").is_displayed() is False
        page.until(lambda d: page.js("return document.querySelector('.present-live').dataset.state") == "live", 15,
                   "the returned embed never went live")
        post_in_class(api.create_user("Flor", "Embed"), public, "Lima", -12.05, -77.04)
        page.text_in(".present-count", "3 students", 20)
    finally:
        page.driver.switch_to.default_content()
        host.close()
