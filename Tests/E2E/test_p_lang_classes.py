"""Classes in other languages: the Classes sheet, the new-class page (with the class options
the settings page shares) and the invitation page in Spanish, Arabic (right to left) and
German (long words), every text from the catalogue; a change of language rewrites what the
scripts wrote (statuses, errors, the address hint, page titles); counts take the language's
plural forms."""
import re
import uuid

from selenium.webdriver.support.ui import Select

from languages import catalogue, fresh, shown_texts
from helpers import User

ADMIN_EMAIL, ADMIN_PASSWORD = "demo@onthemap.local", "onthemap-demo"


def plural_category(tag, n):
    if tag == "ar":
        if n == 0:
            return "zero"
        if n in (1, 2):
            return ["one", "two"][n - 1]
        return "few" if 3 <= n % 100 <= 10 else "many" if 11 <= n % 100 <= 99 else "other"
    if tag == "zh-Hans":
        return "other"
    return "one" if n == 1 else "other"


def fill(message, tag="en", number=str, **params):
    """`message` formatted as js/i18n.js does, for the plain, select and plural arguments these
    tests meet; `number` writes a plural's count (the page's Intl.NumberFormat for digits
    other than 0-9)."""
    def option_body(text, start):
        depth, position = 0, start
        while True:
            if text[position] == "{":
                depth += 1
            elif text[position] == "}":
                depth -= 1
                if depth == 0:
                    return text[start + 1:position], position + 1
            position += 1

    def render(text, count=None):
        out, position = "", 0
        while position < len(text):
            char = text[position]
            if char == "#" and count is not None:
                out += number(count)
                position += 1
                continue
            if char != "{":
                out += char
                position += 1
                continue
            match = re.compile(r"\{\s*(\w+)\s*(?:,\s*(plural|select)\s*,)?").match(text, position)
            name, kind = match.group(1), match.group(2)
            if not kind:
                end = text.index("}", position)
                out += str(params[name])
                position = end + 1
                continue
            position = match.end()
            options = {}
            while True:
                while text[position].isspace():
                    position += 1
                if text[position] == "}":
                    position += 1
                    break
                selector = re.compile(r"[^\s{]+").match(text, position).group(0)
                position += len(selector)
                while text[position].isspace():
                    position += 1
                body, position = option_body(text, position)
                options[selector] = body
            value = params[name]
            if kind == "plural":
                chosen = options.get(f"={value}") or options.get(plural_category(tag, value)) or options["other"]
                out += render(chosen, value)
            else:
                out += render(options.get(str(value), options["other"]), count)
        return out

    return render(message)


def isolated(text):
    return f"\u2068{text}\u2069"


def administrator(api):
    return User(api, "1000000001", ADMIN_EMAIL, ADMIN_PASSWORD, "Demo", "Student")


def as_user(user, method, path, body=None):
    _, answer = user.api.request(method, path, body, headers={"X-Parse-Session-Token": user.session})
    return answer


def set_language(page, tag):
    page.js(f"return import('/js/i18n.js').then(m => m.setLanguage('{tag}'))")
    page.until(lambda d: page.js("return document.documentElement.lang") == tag, 5)


def text_of(page, css):
    return page.js("const e = document.querySelector(arguments[0]); return e ? e.textContent : null", css)


def script_errors(page):
    """The console's errors but the refused requests these tests make on purpose."""
    return [entry for entry in page.console_errors() if "Failed to load resource" not in entry["message"]]


def assert_in_language(page, scope, tag, at_least):
    """Every catalogue-bound text under `scope` is `tag`'s message, most differ from English."""
    messages, english = catalogue(tag), catalogue("en")
    shown = shown_texts(page, scope)
    for key, text in shown["texts"].items():
        assert text == messages[key], f"{key}: {text!r}"
    for key, value in shown["attributes"]:
        assert value == messages[key], f"{key}: {value!r}"
    differing = [key for key in shown["texts"] if messages[key] != english[key]]
    assert len(differing) >= at_least, f"only {len(differing)} texts read differently from English"


def test_classes_sheet_and_new_class_in_spanish_then_french_and_german(spanish_browser, server, api):
    es, fr = catalogue("es"), catalogue("fr")
    teacher = administrator(api)
    slug = f"hist-{uuid.uuid4().hex[:8]}"
    as_user(teacher, "POST", "/api/classes", {"slug": slug, "name": "Historia 7", "precision": "region", "approval": "all"})
    page = fresh(spanish_browser, server, api)
    page.log_in(teacher)
    assert page.js("return document.documentElement.lang") == "es"

    # The Classes sheet.
    page.clickable("#class-button").click()
    page.visible("#classes")
    page.until(lambda d: page.find_all(f'#my-classes a.class-row[data-slug="{slug}"]'), 10, "the sheet never listed the class")
    assert_in_language(page, "#classes", "es", at_least=4)
    mine = len(page.find_all("#my-classes > li"))
    page.until(lambda d: text_of(page, "#classes-status") == fill(es["classes.count"], "es", count=mine), 5,
               f"the status says {text_of(page, '#classes-status')!r}")
    role = text_of(page, f'#my-classes a.class-row[data-slug="{slug}"] .class-row-role')
    for key in ("classOptions.role.teacher", "classOptions.precision.region.short", "classOptions.approval.all.short"):
        assert es[key] in role, f"{es[key]!r} not in {role!r}"
    settings = page.find(f'#my-classes a[href="#/c/{slug}/settings"]')
    assert settings.text == es["classes.settings"]
    assert settings.get_attribute("aria-label") == fill(es["classes.settingsOf"], "es", **{"class": "Historia 7"})
    shown_now = page.find('#my-classes a.class-row[aria-current="true"] .class-row-role').text
    assert es["classes.shownNow"] in shown_now

    # A new language rewrites the open sheet.
    set_language(page, "fr")
    page.until(lambda d: text_of(page, "#classes-status") == fill(fr["classes.count"], "fr", count=mine), 5)
    assert text_of(page, "#classes-title") == fr["classes.title"]
    assert page.find(f'#my-classes a[href="#/c/{slug}/settings"]').text == fr["classes.settings"]
    set_language(page, "es")

    # The new-class page: every fixed text, the shared options and the placeholders.
    page.clickable("#create-class-link").click()
    page.visible("#create-view")
    assert_in_language(page, "#create-view", "es", at_least=20)
    assert text_of(page, "#class-back-label") == es["classPage.back"]
    assert page.driver.title == fill(es["app.pageTitle"], "es", page=es["create.pageTitle"])
    assert Select(page.find("#create-visibility")).first_selected_option.text == es["classOptions.visibility.members"]
    page.find("#create-button").click()
    page.text_in("#create-error", es["create.error.missing"])
    page.type_into("#create-name", "Geografía Física")
    page.until(lambda d: text_of(page, "#create-slug-hint") == fill(es["create.slugHint"], "es", address="/c/geografia-fisica"), 5)

    # French at once: the page, what the script wrote (the error, the hint, the title).
    set_language(page, "fr")
    assert_in_language(page, "#create-view", "fr", at_least=20)
    page.until(lambda d: text_of(page, "#create-error") == fr["create.error.missing"], 5)
    assert text_of(page, "#create-slug-hint") == fill(fr["create.slugHint"], "fr", address="/c/geografia-fisica")
    assert page.driver.title == fill(fr["app.pageTitle"], "fr", page=fr["create.pageTitle"])
    assert text_of(page, "#class-back-label") == fr["classPage.back"]

    # German's long words stay inside the page.
    set_language(page, "de")
    assert_in_language(page, "#create-view", "de", at_least=20)
    overflowing = page.js("""
        return [...document.querySelectorAll('#create-view, #create-view .choice, #create-view .field, #create-view select')]
          .filter((element) => element.scrollWidth > element.clientWidth + 1)
          .map((element) => element.id || element.className);""")
    assert overflowing == [], f"German overflows: {overflowing}"

    # In Spanish again, the class is made and its settings open.
    set_language(page, "es")
    new_slug = f"geo-{uuid.uuid4().hex[:8]}"
    page.type_into("#create-slug", new_slug)
    page.find("#create-button").click()
    page.visible("#settings-view")
    assert page.driver.current_url.endswith(f"#/c/{new_slug}/settings")
    assert script_errors(page) == []


def test_invitation_and_sheet_in_arabic(arabic_browser, server, api):
    ar, es = catalogue("ar"), catalogue("es")
    teacher = administrator(api)
    slug = f"bio-{uuid.uuid4().hex[:8]}"
    view = as_user(teacher, "POST", "/api/classes", {"slug": slug, "name": "Biology 101", "visibility": "server"})
    code = view["invite_code"]
    student = api.create_user("Noor", "Haddad")
    page = fresh(arabic_browser, server, api)
    page.log_in(student)
    assert page.js("return [document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]

    # A members-only class's map, and one that does not exist: each says why in an alert.
    closed = f"chem-{uuid.uuid4().hex[:8]}"
    as_user(teacher, "POST", "/api/classes", {"slug": closed, "name": "Chemistry", "visibility": "members"})
    page.open(f"/#/c/{closed}/map")
    title, message = page.alert()
    assert title == ar["classes.notMember.title"]
    assert message == fill(ar["classes.notMember.message"], "ar", **{"class": closed})
    page.dismiss_alert()
    missing = f"none-{uuid.uuid4().hex[:8]}"
    page.open(f"/#/c/{missing}/map")
    title, message = page.alert()
    assert title == ar["classes.noSuchClass.title"]
    assert message == fill(ar["classes.noSuchClass.message"], "ar", **{"class": missing})
    page.dismiss_alert()

    # A stale link: the failure in Arabic, then in Spanish after a change of language.
    page.open(f"/#/join/{closed}/not-the-code")
    page.visible("#join-view")
    page.until(lambda d: text_of(page, "#join-error") == ar["join.error.invalidInvite"], 10,
               f"the error says {text_of(page, '#join-error')!r}")
    set_language(page, "es")
    page.until(lambda d: text_of(page, "#join-error") == es["join.error.invalidInvite"], 5)
    assert text_of(page, "#join-title") == es["join.title"]
    assert page.driver.title == fill(es["app.pageTitle"], "es", page=es["join.pageTitle"])
    set_language(page, "ar")

    # The invitation itself.
    page.open(f"/#/join/{slug}/{code}")
    page.visible("#join-button")
    assert text_of(page, "#join-title") == fill(ar["join.heading"], "ar", **{"class": "Biology 101"})
    assert text_of(page, "#join-text") == fill(ar["join.invited"], "ar", **{"class": isolated("Biology 101"), "visibility": "server"})
    assert text_of(page, "#join-button .button-label") == fill(ar["join.button"], "ar", **{"class": "Biology 101"})
    assert text_of(page, "#join-cancel") == ar["join.cancel"]
    assert text_of(page, "#class-back-label") == ar["classPage.back"]
    assert page.driver.title == fill(ar["app.pageTitle"], "ar", page=fill(ar["join.heading"], "ar", **{"class": "Biology 101"}))
    assert page.find("#join-title").get_attribute("dir") == "auto"
    set_language(page, "es")
    page.until(lambda d: text_of(page, "#join-text") == fill(es["join.invited"], "es", **{"class": isolated("Biology 101"), "visibility": "server"}), 5)
    assert text_of(page, "#join-button .button-label") == fill(es["join.button"], "es", **{"class": "Biology 101"})
    set_language(page, "ar")
    page.until(lambda d: text_of(page, "#join-button .button-label") == fill(ar["join.button"], "ar", **{"class": "Biology 101"}), 5)

    page.find("#join-button").click()
    page.visible("#main-scene")
    page.text_in("#class-name", "Biology 101")
    page.until(lambda d: page.find("#class-button").get_attribute("title") == fill(
        ar["classes.buttonTitle"], "ar", about="role", role=ar["classOptions.role.student"], **{"class": "Biology 101"}), 10,
        f"the class button says {page.find('#class-button').get_attribute('title')!r}")

    # The sheet: the count in Arabic's plural forms, the rows' words.
    page.clickable("#class-button").click()
    page.visible("#classes")
    page.until(lambda d: page.find_all(f'#my-classes a.class-row[data-slug="{slug}"]'), 10)
    assert_in_language(page, "#classes", "ar", at_least=3)
    mine = len(page.find_all("#my-classes > li"))
    arabic_number = lambda n: page.js("return new Intl.NumberFormat('ar').format(arguments[0])", n)  # noqa: E731
    page.until(lambda d: text_of(page, "#classes-status") == fill(ar["classes.count"], "ar", number=arabic_number, count=mine), 5,
               f"the status says {text_of(page, '#classes-status')!r}")
    role = text_of(page, f'#my-classes a.class-row[data-slug="{slug}"] .class-row-role')
    assert ar["classOptions.role.student"] in role and ar["classes.shownNow"] in role
    assert page.find(f'#my-classes a.class-row[data-slug="{slug}"] .class-row-name').get_attribute("dir") == "auto"
    assert script_errors(page) == []
