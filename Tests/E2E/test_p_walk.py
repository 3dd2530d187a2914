"""Every screen in every language but English: a browser whose first language is Spanish,
French, Portuguese (Brazil), German, Simplified Chinese, Hindi, then Arabic walks the login and
sign-up screens, the map, the list, a search with results, adding a location (both steps and an
alert), Travel with an album, the account dialog, the Classes sheet (with a class that invited
them), a class's settings (as its teacher, with an address invited), an invitation, the new-class
page and moderation (as an administrator), and the offline banner. At each screen, at phone and desktop size, it keeps what a student reads or hears (the
visible text, and the accessible names: aria-label, title, placeholder, alt, button values) and
screenshots (test-output/screenshots/<lang>-<screen>-<size>.png). Then per language:

- no English left: a word of the English catalogue's messages (or a common English word) the
  language's catalogue does not have, once what students typed (names, places, links, class
  names), addresses, numbers and product names are set aside; in Chinese, Hindi and Arabic, any
  Latin word of two letters or more;
- axe finds nothing serious or critical, at phone and desktop size;
- at 390x844 (German and Hindi above all: long words, tall script; every language is checked) no
  button, tab, label, heading or row is cut: wider inside than its box, or beyond the viewport's
  sides; nor is the class's name in the top bar squeezed out.

ONTHEMAP_WALK_LANGUAGES="de,ar" walks only those (ONTHEMAP_WALK_LANGUAGES=en walks English, for
comparing screenshots)."""
import json
import os
import re
import time
import traceback
import urllib.parse
import uuid

import pytest

from a11y import axe_violations, blocking, describe
from conftest import DESKTOP, PHONE, SCREENSHOTS, make_driver
from helpers import User, add_member
from languages import OTHER_TAGS, catalogue, fresh
from test_m_moderation import sign_out

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                                reason="the album screen needs the server started here, pointed at the photo stub")

LANGUAGES = [tag for tag in os.environ.get("ONTHEMAP_WALK_LANGUAGES", ",".join(OTHER_TAGS)).split(",") if tag]
# The browser's languages for each: the language first, English after it (as most browsers).
BROWSER_LANGUAGE = {"es": "es,en", "fr": "fr,en", "pt-BR": "pt-BR,en", "de": "de,en", "zh-Hans": "zh-CN,en",
                    "hi": "hi,en", "ar": "ar,en", "en": "en-US"}
NON_LATIN = {"zh-Hans", "hi", "ar"}
# German and Hindi first of all (long words, tall script), but a phone's room is short in all.
CUT_CHECKED = set(OTHER_TAGS)
ADMIN_EMAIL, ADMIN_PASSWORD = "demo@onthemap.local", "onthemap-demo"

# Names that are the same in every language (products, formats, the app's own name).
ALLOWED_PHRASES = ["On the Map", "OnTheMap", "GitHub", "LinkedIn", "Google", "Moodle", "Canvas", "Facebook",
                   "Udacity", "Wikimedia Commons", "Wikimedia", "Flickr", "OpenStreetMap", "Natural Earth",
                   "GeoNames", "Leaflet", "Microsoft", "Apple", "CSV", "GeoJSON", "JSON", "URL", "LTI", "HTTPS", "HTTP"]
# Common English words the catalogue might not hold (a sentence hard-coded in a script).
COMMON_ENGLISH = set("""the a an of to your you is are on in for with this that these those no not and or by at
from as be it its will can has have was were here there all any new open close back my me we our they their
them what when where who which how why been being do does did done please try again now more less than
only also just about into out up down over after before yet still very one none some each every""".split())

# What students typed, and data the app shows as it is (map labels, photo credits): left out.
USER_TEXT = ", ".join([
    ".row-name", ".row-place", ".row-host", ".popup-name", ".popup-place", ".popup-link", ".class-name",
    ".class-row-name", "#account-name", "#account-email", ".member-who > strong", ".member-email",
    ".moderation-who > strong", ".moderation-who a", ".album-title", ".preview-place", ".preview-link",
    ".credit", ".place-label", "#create-slug-preview", ".slug-to-type", ".avatar",
])

COLLECT = """
const [userText] = arguments;
const shown = (element) => element.checkVisibility({ checkVisibilityCSS: true, visibilityProperty: true });
// With a modal dialog open, what is behind it is inert: only the dialog counts.
const scope = [...document.querySelectorAll('dialog')].filter((d) => d.matches(':modal')).pop() || document.body;
const found = [];
const where = (element) => element.id ? '#' + element.id
  : element.tagName.toLowerCase() + (element.classList.length ? '.' + [...element.classList].join('.') : '');
const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
for (let node; (node = walker.nextNode());) {
  const text = node.textContent.replace(/\\s+/g, ' ').trim();
  const parent = node.parentElement;
  if (!text || !parent || parent.closest('script, style, noscript, template, ' + userText)) continue;
  if (parent.closest('option')) {
    const select = parent.closest('select');
    if (select && shown(select)) found.push([where(select) + ' option', text]);
    continue;
  }
  if (shown(parent)) found.push([where(parent), text]);
}
for (const element of scope.querySelectorAll('[aria-label], [title], [placeholder], [alt], [aria-description], input[type=button], input[type=submit]')) {
  if (!shown(element) || element.closest(userText)) continue;
  for (const name of ['aria-label', 'title', 'placeholder', 'alt', 'aria-description']) {
    const value = element.getAttribute(name);
    if (value && value.trim()) found.push([where(element) + '[' + name + ']', value.trim()]);
  }
  if (element.matches('input[type=button], input[type=submit]') && element.value) found.push([where(element) + '[value]', element.value]);
}
found.push(['<title>', document.title]);
return found;
"""

CUT = """
const [userText] = arguments;
const shown = (element) => element.checkVisibility({ checkVisibilityCSS: true, visibilityProperty: true });
const scope = [...document.querySelectorAll('dialog')].filter((d) => d.matches(':modal')).pop() || document.body;
const selector = 'button, [role=tab], label, legend, h1, h2, h3, h4, summary, a.button, .text-button, .tab, .field-label, '
  + '.choice-title, .choice-detail, .moderation-tab, .badge, .row-time, .row-top, .bar-title, .sheet-title, .form-error, '
  + '.note, .class-row-role, .offline-banner, .waiting-banner, .toast, .album-hint, .list-footer, .map-status, '
  + '.account-hint, .class-hint, .alert p, .add-question, .auth-switch, .language-choice';
const clipped = (element) => {
  for (let e = element; e && e !== document.body; e = e.parentElement) {
    const style = getComputedStyle(e);
    if (style.clipPath !== 'none' || (style.overflow === 'hidden' && e.getBoundingClientRect().width <= 2)) return true;
  }
  return false;
};
const inScroller = (element) => {
  for (let e = element.parentElement; e && e !== document.body; e = e.parentElement) {
    const x = getComputedStyle(e).overflowX;
    if ((x === 'auto' || x === 'scroll') && e.scrollWidth > e.clientWidth + 1) return true;
  }
  return false;
};
const width = document.documentElement.clientWidth;
const cut = [];
for (const element of scope.querySelectorAll(selector)) {
  const text = (element.innerText || element.value || '').replace(/\\s+/g, ' ').trim();
  if (!text || !shown(element) || element.closest('.leaflet-container, ' + userText) || clipped(element)) continue;
  const box = element.getBoundingClientRect();
  if (box.width <= 2 || box.height <= 2) continue;
  const name = element.id ? '#' + element.id : element.tagName.toLowerCase() + '.' + [...element.classList].join('.');
  if (getComputedStyle(element).display !== 'inline' && element.scrollWidth > element.clientWidth + 1) {
    cut.push(`${name} "${text.slice(0, 80)}": ${element.scrollWidth}px of text in ${element.clientWidth}px`);
  } else if (!inScroller(element) && (box.right > width + 1 || box.left < -1)) {
    cut.push(`${name} "${text.slice(0, 80)}": from ${Math.round(box.left)} to ${Math.round(box.right)}px of ${width}`);
  }
}
// The class's name (user text, so not above) keeps room for more than a letter or two in the top bar.
const className = document.querySelector('#class-button .class-name');
if (className && shown(className) && className.scrollWidth > className.clientWidth + 1 && className.clientWidth < 30)
  cut.push(`#class-button .class-name "${className.textContent}": squeezed to ${className.clientWidth}px`);
return cut;
"""

# Words Intl writes in the language (relative times, month and day names, times of day, lists): not English.
INTL_WORDS = """
const tag = arguments[0];
const words = [];
const relative = new Intl.RelativeTimeFormat(tag, { numeric: 'auto' });
for (const unit of ['second', 'minute', 'hour', 'day', 'week', 'month', 'year'])
  for (const value of [-5, -2, -1, 0, 1, 2, 5]) words.push(relative.format(value, unit));
for (let month = 0; month < 12; month++)
  for (const style of ['long', 'short']) words.push(new Date(2024, month, 3).toLocaleDateString(tag, { month: style, weekday: style, day: 'numeric', year: 'numeric', hour: 'numeric', minute: '2-digit' }));
words.push(new Intl.ListFormat(tag).format(['x', 'y', 'z']), new Intl.ListFormat(tag, { type: 'disjunction' }).format(['x', 'y']));
// Times of day, morning and evening (a language may mark them in Latin letters, as Hindi's am/pm).
for (const hour of [9, 21]) words.push(new Date(2024, 0, 3, hour, 5).toLocaleTimeString(tag, { hour: 'numeric', minute: '2-digit' }));
return words.join(' ');
"""


# ---- the catalogues' words --------------------------------------------------------------------

def message_text(message):
    """A message's words without its ICU syntax: argument names, types, plural and select keys."""
    out, position = [], 0

    def argument(position):  # at "{": returns the end, adding the text of plural/select cases
        close = position + 1
        head_end = min([i for i in (message.find("{", close), message.find("}", close)) if i >= 0] or [len(message)])
        head = [part.strip() for part in message[close:head_end].split(",")]
        if len(head) >= 3 and head[1] in ("plural", "select", "selectordinal") and message[head_end:head_end + 1] == "{":
            # head[2] is the first case's key; every case is "key {message}"
            index = head_end
            while index < len(message) and message[index] == "{":
                index = body(index + 1) + 1
                out.append(" ")
                while index < len(message) and message[index] not in "{}":
                    index += 1
            return index + 1
        return message.find("}", close) + 1 if message.find("}", close) >= 0 else len(message)

    def body(position):  # a message up to its closing "}" (or the end): returns that index
        while position < len(message):
            char = message[position]
            if char == "'" and message[position + 1:position + 2] in ("{", "}"):
                end = message.find("'", position + 1)
                end = len(message) if end < 0 else end
                out.append(message[position + 1:end])
                position = end + 1
            elif char == "{":
                position = argument(position)
            elif char == "}":
                return position
            else:
                out.append(" " if char == "#" else char)
                position += 1
        return position

    body(position)
    return "".join(out)


def words(text):
    return {word.lower() for word in re.findall(r"[^\W\d_]+", text) if len(word) >= 2}


URL = re.compile(r"\b(?:https?://|www\.)\S+|\S+@\S+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|edu|local|example|io|dev|info)\b\S*"
                 r"|/c/\S+|#/\S+", re.I)


def catalogue_words(tag):
    """The words of a catalogue's messages (the addresses in its examples left out)."""
    return set().union(*(words(URL.sub(" ", message_text(message))) for message in catalogue(tag).values()))


ENGLISH_WORDS = catalogue_words("en") | COMMON_ENGLISH
class Leftovers:
    """Finds English in the texts a screen shows: set aside what students typed, addresses,
    product names; what stays is English when the language's catalogue lacks the word."""

    def __init__(self, tag, masks, intl_text):
        self.tag = tag
        # Longest first, so "Ana Lima" goes before "Ana".
        self.masks = sorted({mask for mask in masks if mask and len(mask) > 1} | set(ALLOWED_PHRASES), key=len, reverse=True)
        self.own_words = catalogue_words(tag) | words(intl_text)

    def english_in(self, text):
        for mask in self.masks:
            if mask in text:
                text = text.replace(mask, " ")
        text = URL.sub(" ", text)
        if self.tag in NON_LATIN:
            latin = {word for word in re.findall(r"[A-Za-z\u00c0-\u024f]{2,}", text)}
            return sorted(word for word in latin if word.lower() not in self.own_words)
        found = re.findall(r"[^\W\d_]+", text)
        return sorted({word for word in found if len(word) >= 2 and word.lower() in ENGLISH_WORDS
                       and word.lower() not in self.own_words})


# ---- the walk ------------------------------------------------------------------------------------

class Walk:
    def __init__(self, tag, page):
        self.tag, self.page = tag, page
        self.texts = {}          # screen -> [(where, text)]
        self.axe = []            # "--- screen at size\n…"
        self.cut = {}            # screen -> [description]
        self.failures = []       # screens that could not be reached
        self.started = time.time()
        self.html_lang = None

    def capture(self, screen):
        """At phone then desktop size: texts, the cut check (phone), axe, a screenshot."""
        page = self.page
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        texts = []
        for size in (PHONE, DESKTOP):
            page.viewport(size)
            texts += [tuple(item) for item in page.js(COLLECT, USER_TEXT)]
            if size == PHONE and self.tag in CUT_CHECKED:
                cut = page.js(CUT, USER_TEXT)
                if cut:
                    self.cut[screen] = cut
            violations = blocking(axe_violations(page.driver))
            if violations:
                self.axe.append(f"--- {screen} at {size[0]}x{size[1]}\n{describe(violations)}")
            page.driver.save_screenshot(str(SCREENSHOTS / f"{self.tag}-{screen}-{size[0]}x{size[1]}.png"))
        self.texts[screen] = list(dict.fromkeys(texts))

    def step(self, screen, action):
        """Reaches a screen, then captures it; a screen that cannot be reached is noted, and the
        walk goes on from the map."""
        try:
            action()
            self.capture(screen)
            return True
        except Exception:  # noqa: BLE001 — every screen is tried, whatever broke before it
            self.failures.append(f"{screen}: {traceback.format_exc(limit=3)}")
            try:
                self.page.driver.save_screenshot(str(SCREENSHOTS / f"{self.tag}-{screen}-failed.png"))
                self.page.js("for (const d of document.querySelectorAll('dialog[open]')) d.close()")
            except Exception:  # noqa: BLE001
                pass
            return False


def settle_i18n(page):
    page.until(lambda d: not d.execute_script("return document.documentElement.classList.contains('i18n-pending')"),
               5, "the page stayed hidden")


def close_dialog(page, css):
    page.find(f"{css}-close").click()
    page.gone(css)


def class_request(user, method, path, body=None):
    _, answer = user.api.request(method, path, body, headers={"X-Parse-Session-Token": user.session})
    return answer


FAKE_GEOCODE = {"results": [
    {"name": "Lagos", "latitude": 6.45, "longitude": 3.39, "kind": "city", "country": "Nigeria",
     "region": "Lagos", "span": {"latitudeDelta": 0.3, "longitudeDelta": 0.3}},
    {"name": "Lagos", "latitude": 37.1, "longitude": -8.67, "kind": "city", "country": "Portugal",
     "region": "Faro", "span": {"latitudeDelta": 0.1, "longitudeDelta": 0.1}},
]}


def demo_strings(api):
    """Names, places and links of the demo's students (the list, the map): set aside."""
    strings, skip = set(), 0
    while skip < 3000:
        batch = api.locations(limit=100, skip=skip)["results"]
        for item in batch:
            first, last = item.get("firstName", ""), item.get("lastName", "")
            strings |= {first, last, f"{first} {last}".strip(), item.get("mapString", ""), item.get("mediaURL", "")}
        if len(batch) < 100:
            break
        skip += 100
    return strings


def walk(tag, driver, server, api, photo_stub):
    page = fresh(driver, server, api)
    result = Walk(tag, page)
    step = result.step

    # The data, through the API: a student with a post and a Travel pin, a class they teach (the
    # administrator makes it and adds them as its teacher, and invites an address that has not
    # joined yet), a class they are invited to (by its link, and by their email: the Classes
    # sheet marks it Invited).
    admin = User(api, "1000000001", ADMIN_EMAIL, ADMIN_PASSWORD, "Demo", "Student")
    suffix = os.environ.get("ONTHEMAP_WALK_SUFFIX") or uuid.uuid4().hex[:6]
    student = api.create_user("Zainab", "Okafor")
    student.post_location("Nairobi, Kenya", -1.29, 36.82, "https://example.com/zainab")
    pin = student.create_pin(48.8566, 2.3522)
    taught, invited = f"walk-{tag.lower()}-{suffix}", f"join-{tag.lower()}-{suffix}"
    taught_name, invited_name = f"Kiswahili {suffix}", f"Astronomia {suffix}"
    class_request(admin, "POST", "/api/classes", {"slug": taught, "name": taught_name})
    add_member(admin, taught, student, "teacher")
    guest = f"guest.{suffix}@example.com"
    class_request(admin, "POST", f"/api/classes/{taught}/members", {"email": guest, "role": "moderator"})
    invite = class_request(admin, "POST", "/api/classes", {"slug": invited, "name": invited_name})["invite_code"]
    class_request(admin, "POST", f"/api/classes/{invited}/members", {"email": student.email, "role": "student"})
    # A demo post the student reports (the administrator's Reported list then shows it).
    reported = api.locations(limit=1, skip=5)["results"][0]["objectId"]
    class_request(student, "POST", f"/api/locations/{reported}/report", {"reason": "Qwzx"})
    masks = demo_strings(api) | {"Qwzx", student.first, student.last, student.name, student.email, guest, admin.first, admin.last,
                                 admin.name, taught, invited, taught_name, invited_name, "Nairobi, Kenya", "Lagos, Nigeria",
                                 "Lagos", "Nigeria", "Portugal", "Faro", "Zainab Okafor"}

    def login_screen():
        page.open("/#/login")
        page.visible("#login-email")
        settle_i18n(page)
    step("login", login_screen)
    masks |= {name for name in page.js("return import('/js/i18n.js').then(m => m.LANGUAGES.map(l => l.name))")}
    intl_text = page.js(INTL_WORDS, tag)
    result.html_lang = page.js("return [document.documentElement.lang, document.documentElement.dir]")

    def login_error():
        page.type_into("#login-email", student.email)
        page.type_into("#login-password", "not-the-password\n")
        page.visible("#login-error")
    step("login-error", login_error)

    def sign_up():
        page.find("#show-signup").click()
        page.visible("#signup-first")
    step("signup", sign_up)

    step("map", lambda: page.log_in(student))

    def list_screen():
        page.tab("list")
        page.until(lambda d: len(page.list_rows()) > 10, 15, "the list never filled")
    step("list", list_screen)

    def report_prompt():
        page.clickable("#student-list > li [data-report-id]").click()
        page.visible(".reason-dialog #reason-input")
    if step("report", report_prompt):
        page.js("document.querySelector('.reason-dialog').close()")

    def search_screen():
        page.tab("search")
        page.type_into("#search-input", "a")
        page.until(lambda d: len(page.list_rows("#search-results")) > 0, 15, "no search results")
    step("search", search_screen)

    def replace_question():
        page.tab("map")
        page.clickable("#add-location-button").click()
        page.alert()  # Replace your location?
    step("add-replace", replace_question)

    def add_location():
        page.dismiss_alert("#alert-ok")
        page.visible("#add-place")
    step("add-location", add_location)

    def location_needed():
        page.type_into("#add-place", "")
        page.type_into("#add-link", "https://example.com/zainab")
        page.find("#add-find").click()
        page.alert()  # Location Needed
    if step("add-alert", location_needed):
        page.dismiss_alert()

    def add_preview():
        page.fake_server_error("/api/geocode", status=200, body=json.dumps(FAKE_GEOCODE))
        page.type_into("#add-place", "Lagos")
        page.find("#add-find").click()
        page.visible("#add-finish", 15)
    step("add-preview", add_preview)
    page.js("const d = document.getElementById('add-location'); if (d.open) d.close()")

    def travel_screen():
        page.tab("travel")
        page.until(lambda d: d.execute_script(
            "return document.getElementById('travel-map').dataset.state === 'ready'"), 15, "the travel map never became ready")
    step("travel", travel_screen)

    def album_screen():
        page.find(f'.travel-pin[data-pin-id="{pin["id"]}"]').click()
        page.until(lambda d: d.execute_script(
            "const a = document.getElementById('album'); return a.dataset.settled === 'true' && a.dataset.state === 'ready'"),
            20, "the album never settled")
    step("album", album_screen)

    def delete_pin_question():
        page.find("#album-delete-pin").click()
        page.alert()
    try:  # the pin's place (the geocoder's words), the photos' titles, authors and licences
        masks |= {str(item.get("placeName")) for item in student.pins() if item.get("placeName")}
        photos = student.album(pin["id"]).get("photos") or []
        masks |= {str(photo.get(key)) for photo in photos for key in ("title", "author", "license") if photo.get(key)}
    except Exception:  # noqa: BLE001 — no album, nothing to set aside
        pass
    if step("album-confirm", delete_pin_question):
        page.dismiss_alert("#alert-cancel")
    if page.find("#album-close").is_displayed():
        page.find("#album-close").click()
    page.tab("map")

    def account_screen():
        page.clickable("#account-button").click()
        page.visible("#account")
    if step("account", account_screen):
        close_dialog(page, "#account")

    def classes_sheet():
        page.clickable("#class-button").click()
        page.visible("#classes")
        page.until(lambda d: len(page.find_all("#classes .class-row")) > 0, 10, "the sheet never listed the classes")
        page.until(lambda d: page.find_all(f'#joinable-classes [data-join="{invited}"]'), 10, "the invited class is not offered")
    if step("classes", classes_sheet):
        close_dialog(page, "#classes")

    def settings_screen():
        page.open(f"/#/c/{taught}/settings")
        page.visible("#settings-view")
        page.until(lambda d: len(page.find_all("#members-list > li")) >= 1, 10, "the roster never showed")
        page.until(lambda d: len(page.find_all("#invitations-list > li")) == 1, 10, "the invitation never showed")
    step("class-settings", settings_screen)

    def join_screen():
        page.open(f"/#/join/{invited}/{invite}")
        page.visible("#join-view")
        page.visible("#join-button")
    step("join", join_screen)

    # The administrator: a new class, moderation; then the offline banner.
    sign_out(page)
    step("admin-map", lambda: page.log_in(admin))

    def new_class():
        page.clickable("#class-button").click()
        page.visible("#classes")
        page.clickable("#create-class-link").click()
        page.visible("#create-view")
    step("new-class", new_class)

    def moderation():
        page.open("/#/map")
        page.visible("#main-scene")
        page.clickable("#moderation-button").click()
        page.visible("#moderation")
        page.until(lambda d: page.find_all("#moderation-list > li [data-action]"), 10, "the reported post is not listed")
    if step("moderation", moderation):
        def accounts():
            page.find("#moderation-tab-accounts").click()
            page.until(lambda d: len(page.find_all("#moderation-list > li")) > 0, 10, "no accounts listed")
        step("moderation-accounts", accounts)

        def newest():
            page.find("#moderation-tab-newest").click()
            page.until(lambda d: len(page.find_all("#moderation-list > li [data-action]")) > 0, 10, "no posts listed")
        step("moderation-newest", newest)
        page.js("const d = document.getElementById('moderation'); if (d && d.open) d.close()")

    def reset_page():  # the page a password-reset link opens (reset.html)
        link = class_request(admin, "POST", f"/api/admin/users/{student.key}/reset-link")["url"]
        parts = urllib.parse.urlsplit(link)
        page.open(parts.path + ("?" + parts.query if parts.query else "") + ("#" + parts.fragment if parts.fragment else ""))
        page.visible("#reset-password")
        settle_i18n(page)
    step("reset-password", reset_page)

    def offline_banner():
        page.open("/#/map")
        page.visible("#main-scene")
        page.offline(True)
        page.visible("#offline-banner")
    step("offline", offline_banner)
    page.offline(False)

    result.leftovers = Leftovers(tag, masks, intl_text)
    result.seconds = time.time() - result.started
    return result


WALKS = {}


@pytest.fixture(scope="module", params=LANGUAGES)
def walked(request, server, api, photo_stub):
    tag = request.param
    photo_stub.reset()
    driver = make_driver(lang=BROWSER_LANGUAGE.get(tag, tag))
    try:
        WALKS[tag] = walk(tag, driver, server, api, photo_stub)
        yield WALKS[tag]
    finally:
        driver.quit()


def english_left(result):
    """screen -> [(where, text, English words)], each text under the first screen it shows on."""
    seen, report = set(), {}
    for screen, texts in result.texts.items():
        for where, text in texts:
            found = result.leftovers.english_in(text)
            if found and text not in seen:
                seen.add(text)
                report.setdefault(screen, []).append((where, text, found))
    return report


def write_report(result):
    """test-output/walk-<lang>.txt: what the tests below found, for whoever translates."""
    out = SCREENSHOTS.parent / f"walk-{result.tag}.txt"
    lines = [f"{result.tag}: walked in {result.seconds:.0f} s; texts per screen: "
             + ", ".join(f"{screen} {len(texts)}" for screen, texts in result.texts.items())]
    for screen, items in english_left(result).items():
        lines.append(f"[{screen}]")
        lines += [f"    {where}: {text!r}  <- {', '.join(found)}" for where, text, found in items]
    lines += ["", "cut at 390x844:"] + [f"[{s}] {c}" for s, cuts in result.cut.items() for c in cuts]
    lines += ["", "axe:"] + result.axe + ["", "not reached:"] + result.failures
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_every_screen_was_reached(walked):
    write_report(walked)
    assert walked.html_lang == [walked.tag, "rtl" if walked.tag == "ar" else "ltr"], "the page is not in the browser's language"
    assert not walked.failures, "screens not reached:\n" + "\n".join(walked.failures)


def test_no_english_left(walked):
    if walked.tag == "en":
        pytest.skip("English is the source")
    report = english_left(walked)
    lines = []
    for screen, items in report.items():
        lines.append(f"{screen}:")
        lines += [f"    {where}: {text!r}  ({', '.join(found)})" for where, text, found in items]
    assert not report, f"English left in {walked.tag}:\n" + "\n".join(lines)


def test_axe_finds_nothing_serious(walked):
    assert not walked.axe, f"axe in {walked.tag}:\n" + "\n".join(walked.axe)


def test_nothing_is_cut_on_a_phone(walked):
    if walked.tag not in CUT_CHECKED:
        pytest.skip("English is the layout's measure")
    lines = [f"{screen}: {cut}" for screen, cuts in walked.cut.items() for cut in cuts]
    assert not lines, f"cut at 390x844 in {walked.tag}:\n" + "\n".join(lines)


def test_the_detector_finds_english_and_sets_aside_names_and_addresses():
    french = Leftovers("fr", {"Zainab Okafor", "Nairobi, Kenya"}, "il y a 5 minutes")
    assert {"Delete", "this"} <= set(french.english_in("Delete this post"))
    for text in ("Zainab Okafor · Nairobi, Kenya · example.com · publiée il y a 5 minutes",
                 "https://www.linkedin.com/in/you", "you@example.com", "/c/bio-101", "42 %", "On the Map · GitHub, CSV"):
        assert french.english_in(text) == [], text
    arabic = Leftovers("ar", {"Zainab Okafor"}, "")
    assert arabic.english_in("حذف Zainab Okafor · GitHub · CSV · https://example.com/a · 3") == []
    assert arabic.english_in("حذف Report") == ["Report"]
    assert message_text("{count, plural, one {# student} other {# students}} in {class}").split() == ["student", "students", "in"]
