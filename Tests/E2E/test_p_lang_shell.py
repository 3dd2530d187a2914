"""The app's shell in other languages (js/tabs.js, students.js, map.js, list.js, search.js,
live.js, connection.js, main.js): the top bar, tabs, map, list and search in Spanish, Arabic
(right to left, its numbers and plural forms) and German; every text compared with
the catalogue, not with words written here. A change of language re-translates what the
scripts wrote (the title, the status lines, the rows, the live indicator, the popup), and the
web app manifest follows the language."""
import json
import re
import urllib.request
import uuid


from languages import OTHER_TAGS, catalogue, fresh, shown_texts

# The regions of index.html this area translates (the waiting banner and Travel are others').
SHELL_SCOPES = ["#offline-banner", "header.main-bar", "#map-view", "#list-view", "#search-view"]


def fill(message, **params):
    """A message without plurals, its placeholders filled."""
    return re.sub(r"\{(\w+)\}", lambda match: str(params[match.group(1)]), message)


def plural(message, category, number):
    """The `category` option of a message that is one plural ("{count, plural, one {…} …}"),
    with # as `number` (already formatted)."""
    body = message[message.index("plural,") + len("plural,"):]
    options = dict(re.findall(r"([=\w]+)\s*\{([^{}]*)\}", body))
    return options.get(category, options["other"]).replace("#", number)


def number(page, tag, value):
    return page.js("return new Intl.NumberFormat(arguments[0]).format(arguments[1])", tag, value)


def plural_category(page, tag, value):
    return page.js("return new Intl.PluralRules(arguments[0]).select(arguments[1])", tag, value)


def students(page, tag, messages, count):
    return plural(messages["students.count"], plural_category(page, tag, count), number(page, tag, count))


def set_language(page, tag):
    page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/js/i18n.js').then((m) => m.setLanguage(arguments[0])).then(() => done(true), (e) => done(String(e)));
    """, tag)


def log_in_with_posts(page, api, first, longitude):
    """A student with a post of their own (no link: a popup and row that say so) in the
    South Pacific, logged in on the map."""
    user = api.create_user(first, uuid.uuid4().hex[:6].capitalize())
    user.object_id = user.post_location("Pitcairn", latitude=-45.5, longitude=longitude, media_url="")
    page.log_in(user)
    page.until(lambda d: page.find("#live-indicator").get_attribute("data-state") == "live", 15, "stream not live")
    return user


def open_popup(page, user):
    """The popup of the student's post (the map zooms to its pin, wherever others crowd)."""
    page.js("return import('/js/state.js').then((m) => m.state.map.reveal(arguments[0]))", user.object_id)
    page.visible(".leaflet-popup .popup-card")


def title_for(messages, tab_key):
    return fill(messages["app.pageTitle"], page=messages[tab_key])


def test_spanish_shell_then_french(spanish_browser, server, api):
    page = fresh(spanish_browser, server, api)
    spanish, english, french = catalogue("es"), catalogue("en"), catalogue("fr")
    user = log_in_with_posts(page, api, "Lengua", -160.5)
    assert page.js("return [document.documentElement.lang, document.documentElement.dir]") == ["es", "ltr"]
    assert page.driver.title == title_for(spanish, "tabs.map") == "Mapa · On the Map"

    # Every data-i18n text and attribute of the shell is Spanish's message, none English's
    # (but the app's name and the offline banner's placeholder, hidden).
    shown = shown_texts(page, SHELL_SCOPES)
    assert len(shown["texts"]) >= 9 and len(shown["attributes"]) >= 10
    for key, text in shown["texts"].items():
        assert text == spanish[key], key
        assert key == "app.title" or text != english[key], key
    for key, value in shown["attributes"]:
        assert value == spanish[key] and value != english[key], key
    # Accessible names as a screen reader hears them.
    assert page.find("#account-button").get_attribute("aria-label") == spanish["shell.account"]
    assert page.find("#refresh-button").get_attribute("aria-label") == spanish["shell.refresh"]
    assert page.find("#tab-list").text == spanish["tabs.list"]
    assert page.find("#logout-button").text == spanish["shell.logout"]
    assert page.find("#live-indicator").get_attribute("aria-label") == spanish["live.state.live"]
    count = page.marker_count()
    assert page.find("#map-status").text == students(page, "es", spanish, count)

    # The popup of a post without a link.
    open_popup(page, user)
    page.text_in(".leaflet-popup .popup-card", spanish["map.popup.noLink"])

    # The list: rows and footer in Spanish, the title with the tab's name.
    page.tab("list")
    page.until(lambda d: len(page.list_rows()) > 0, 10)
    assert page.driver.title == title_for(spanish, "tabs.list")
    row = page.find('#student-list > li[data-own="true"]')
    time_text = row.find_element("css selector", ".row-time").text
    assert time_text == fill(spanish["list.updated"], time=spanish["time.justNow"]) or time_text.startswith("actualizado hace")
    assert row.find_element("css selector", ".row-host").text == spanish["list.noLink"]
    # One's own row says "You" and has Edit, never Report (test_g_my_pin.py); others' have Report.
    assert row.find_element("css selector", ".you-badge").text == spanish["mine.you"]
    assert row.find_element("css selector", ".edit-own").text == spanish["mine.edit"]
    assert row.find_elements("css selector", ".report-button") == []
    for report in page.find_all('#student-list > li:not([data-own]) .report-button')[:1]:
        assert report.text == spanish["list.report"]
        assert report.get_attribute("title") == spanish["list.reportTitle"]

    # Search: the hint, then nothing found.
    page.tab("search")
    assert page.find("#search-footer").text == spanish["search.hint"]
    page.type_into("#search-input", "zzz-nadie-" + uuid.uuid4().hex[:6])
    page.text_in("#search-footer", spanish["search.empty"])

    # French, at once: what the scripts wrote is re-written.
    page.tab("list")
    set_language(page, "fr")
    assert page.js("return document.documentElement.lang") == "fr"
    assert page.driver.title == title_for(french, "tabs.list")
    assert page.find("#tab-map").text == french["tabs.map"]
    assert page.find("#live-indicator").get_attribute("aria-label") == french["live.state.live"]
    assert page.find("#map-status").get_attribute("textContent") == students(page, "fr", french, page.marker_count())
    row = page.find('#student-list > li[data-own="true"]')
    assert row.find_element("css selector", ".row-host").text == french["list.noLink"]
    assert row.find_element("css selector", ".row-time").text.startswith(french["list.updated"].split("{")[0])
    assert row.find_element("css selector", ".you-badge").text == french["mine.you"]
    assert row.find_element("css selector", ".remove-own").text == french["mine.removeMe"]
    footer = page.find("#list-footer").text
    assert footer == "" or footer == students(page, "fr", french, len(page.list_rows()))
    assert page.find("#search-footer").get_attribute("textContent") == french["search.empty"]
    assert page.find("#search-input").get_attribute("placeholder") == french["search.placeholder"]
    # The manifest follows the language; each exists, named with the brand and, but in
    # English, what it is in the language (the home screen's short name is the brand).
    assert page.find('link[rel="manifest"]').get_attribute("href").endswith("/manifest.fr.webmanifest")
    for tag in OTHER_TAGS:
        with urllib.request.urlopen(f"{server}/manifest.{tag}.webmanifest", timeout=10) as response:
            manifest = json.loads(response.read())
        assert manifest["short_name"] == "On the Map"
        assert manifest["name"].startswith("On the Map") and manifest["name"] != "On the Map"
        assert manifest["lang"] == tag and manifest["description"] and "See where" not in manifest["description"]
    # Back to English: word for word as before.
    set_language(page, "en")
    assert page.driver.title == "List · On the Map"
    assert page.find("#tab-search").text == "Search"
    assert page.find('link[rel="manifest"]').get_attribute("href").endswith("/manifest.webmanifest")
    assert page.find('#student-list > li[data-own="true"] .row-host').text == "no link"
    assert [entry for entry in page.console_errors() if entry["source"] != "network"] == []


def test_arabic_shell_is_right_to_left(arabic_browser, server, api):
    page = fresh(arabic_browser, server, api)
    arabic = catalogue("ar")
    user = log_in_with_posts(page, api, "Arabiya", -125.5)
    assert page.js("return [document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
    assert page.driver.title == title_for(arabic, "tabs.map")
    shown = shown_texts(page, SHELL_SCOPES)
    for key, text in shown["texts"].items():
        assert text == arabic[key], key
    for key, value in shown["attributes"]:
        assert value == arabic[key], key
    assert [page.find(f"#tab-{tab}").text for tab in ("map", "list", "search", "travel")] == \
        [arabic[f"tabs.{tab}"] for tab in ("map", "list", "search", "travel")]
    assert page.find("#map").get_attribute("aria-label") == arabic["map.label"]
    # The count as Arabic writes it, in the plural form Arabic uses for it.
    count = page.marker_count()
    status = page.find("#map-status").text
    assert status == students(page, "ar", arabic, count)
    # A cluster's name, where the map draws one.
    label = page.js("const c = document.querySelector('#map .cluster'); return c && c.getAttribute('aria-label')")
    if label:
        assert label.endswith("كبّر الخريطة"), label
    # The popup.
    open_popup(page, user)
    page.text_in(".leaflet-popup .popup-card", arabic["map.popup.noLink"])
    assert page.find(".leaflet-popup .popup-name").get_attribute("dir") == "auto"
    # The sources in the map's corner, read right to left around their Latin names.
    attribution = fill(arabic["map.attribution.basemap"], naturalEarth="Natural Earth", geoNames="GeoNames")
    page.until(lambda d: attribution in page.find(".leaflet-control-attribution").get_attribute("textContent"), 10)
    assert page.js("""return getComputedStyle(document.querySelector('.leaflet-control-attribution span[dir="auto"]')).direction""") == "rtl"
    page.screenshot("languages-shell-ar")

    # The offline banner, with the kept copy's date in Arabic: the device has no network (the
    # browser says so), so the banner blames the network, not the server.
    page.offline(True)
    page.js("return import('/js/connection.js').then((m) => m.noteAnswer('2026-03-05T09:30:00Z'))")
    page.visible("#offline-banner")
    date = page.js("""return new Intl.DateTimeFormat('ar', { dateStyle: 'medium', timeStyle: 'short' })
        .format(new Date('2026-03-05T09:30:00Z'))""")
    assert page.find("#offline-text").get_attribute("textContent") == fill(arabic["offline.keptAsOf"], date=date)
    page.offline(False)
    page.js("return import('/js/connection.js').then((m) => m.noteAnswer(null))")
    page.gone("#offline-banner")
    # Back online the app refreshes what it shows: let it finish.
    page.until(lambda d: page.find("#refresh-button").is_enabled(), 15, "the refresh never finished")
    # A write refused offline: the message in Arabic around the caller's words. (The browser
    # only says it has no network, so nothing else the app does fails meanwhile.)
    page.js("Object.defineProperty(navigator, 'onLine', { get: () => false, configurable: true })")
    try:
        page.js("import('/js/connection.js').then((m) => m.refuseWhileOffline('نشر موقعك'))")
        title, message = page.alert()
        assert title == arabic["offline.refused.title"]
        assert message == fill(arabic["offline.refused.message"], what="نشر موقعك")
        page.dismiss_alert()
    finally:
        page.js("delete navigator.onLine")

    # The list, and the live indicator when the language changes under it.
    page.tab("list")
    page.until(lambda d: len(page.list_rows()) > 0, 10)
    assert page.find("#student-list").get_attribute("aria-label") == arabic["list.label"]
    own = page.find('#student-list > li[data-own="true"]')
    assert own.find_element("css selector", ".row-host").text == arabic["list.noLink"]
    assert own.find_element("css selector", ".row-name").get_attribute("dir") == "auto"
    set_language(page, "es")
    spanish = catalogue("es")
    assert page.js("return document.documentElement.dir") == "ltr"
    assert page.find("#live-indicator").get_attribute("aria-label") == spanish["live.state.live"]
    assert page.find('#student-list > li[data-own="true"] .row-host').text == spanish["list.noLink"]
    assert page.find("#student-list").get_attribute("aria-label") == spanish["list.label"]


def test_german_shell_with_long_words(german_browser, server, api):
    page = fresh(german_browser, server, api)
    german = catalogue("de")
    log_in_with_posts(page, api, "Sprache", -92.5)
    assert page.driver.title == title_for(german, "tabs.map") == "Karte · On the Map"
    assert page.find("#logout-button").text == german["shell.logout"]
    assert page.find("#add-location-button").get_attribute("aria-label") == german["shell.addLocation"]
    count = page.marker_count()
    assert page.find("#map-status").text == students(page, "de", german, count)
    if count >= 1000:
        assert "." in number(page, "de", count)
    page.tab("list")
    page.until(lambda d: len(page.list_rows()) > 0, 10)
    own = page.find('#student-list > li[data-own="true"]')
    assert own.find_element("css selector", ".row-time").text.startswith("aktualisiert ")
    page.tab("search")
    assert page.find("#search-footer").text == german["search.hint"]
    assert page.find("#search-input").get_attribute("aria-label") == german["search.placeholder"]
    # Nothing in the top bar is cut: each tab's name fits its button.
    page.viewport((390, 844))
    try:
        clipped = page.js("""return [...document.querySelectorAll('#tabs .tab, #logout-button')]
            .filter((e) => e.offsetParent && e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent)""")
        page.screenshot("languages-shell-de", sizes=((390, 844),))
    finally:
        page.viewport((1280, 800))
    assert clipped == [], clipped


def test_too_many_failed_logins_are_said_in_the_page_language(german_browser, server, api):
    """The login throttle's answer is the Udacity protocol's, in English for the old apps; the
    login form says it in the page's language, with the wait the server's Retry-After gave."""
    from selenium.webdriver.common.keys import Keys

    page = fresh(german_browser, server, api)
    german = catalogue("de")
    user = api.create_user("Zu", "Viele")
    page.open("/#/login")
    page.visible("#login-email")
    page.type_into("#login-email", user.email)
    said = []
    for attempt in range(14):
        page.js("document.getElementById('login-error').textContent = ''")
        page.type_into("#login-password", f"not-the-password-{attempt}" + Keys.ENTER)
        page.until(lambda d: page.find("#login-error").text and page.find("#login-button").is_enabled(), 15,
                   "the login form said nothing")
        said.append(page.find("#login-error").text)
        if said[-1] != german["login.error.wrong"]:
            break
    before, after = german["login.error.tooMany"].split("{wait}")
    message = said[-1]
    assert message.startswith(before) and message.endswith(after), said
    assert re.fullmatch(r"\d+ Sekunden?|\d+ Minuten?", message[len(before):len(message) - len(after)]), message
    assert "Too many" not in message
    assert said[:5] == [german["login.error.wrong"]] * 5, said
