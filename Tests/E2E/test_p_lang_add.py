"""Languages on the add-location sheet (js/addLocation.js) and on approval (js/approval.js):
the sheet, its alerts, its preview and its notes in Spanish, German and Arabic, the failure
messages with their translated action, a change of language while the preview shows, and
the waiting banner, the pin button's name and the own row's badge in Arabic, then in French.
Every text is compared with the catalogues, not with words written here."""
import json


from test_n_classes import administrator, as_teacher, post_in_class, unique_slug
from languages import OTHER_TAGS, TAGS, catalogue, fresh

# Two places of the same name and no region or country: the preview names the kind of place
# and the other one's chip says which kind it is (both in the page's language).
TWINS = {"results": [
    {"name": "Lagos", "latitude": 6.45, "longitude": 3.39, "kind": "city",
     "span": {"latitudeDelta": 0.3, "longitudeDelta": 0.3}},
    {"name": "Lagos", "latitude": 6.6, "longitude": 3.5, "kind": "region",
     "span": {"latitudeDelta": 1, "longitudeDelta": 1}},
]}


def message(text, **params):
    """A catalogue message with its plain {placeholders} filled in (no plural or select)."""
    for name, value in params.items():
        text = text.replace("{" + name + "}", value)
    return text


def question_text(messages):
    """The question as the sheet shows it: its line break kept, its asterisks gone."""
    return messages["add.question"].replace("*", "")


def set_language(page, tag):
    page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/js/i18n.js').then((m) => m.setLanguage(arguments[0])).then(() => done(true));
    """, tag)


def open_sheet(page):
    page.clickable("#add-location-button").click()
    page.visible("#add-location")
    page.visible("#add-place")


def sheet_texts(page):
    return page.js("""
        const text = (css) => document.querySelector(css).textContent;
        return {
          title: text('#add-title'), cancel: text('#add-cancel'),
          question: document.querySelector('#add-form .add-question').innerText,
          strong: text('#add-form .add-question strong'),
          place: text('#add-form .field-label'), link: document.querySelectorAll('#add-form .field-label')[1].textContent,
          placePlaceholder: document.getElementById('add-place').placeholder,
          open: text('#add-open-link'), openTitle: document.getElementById('add-open-link').title,
          find: text('#add-find .button-label'), busy: text('#add-busy span:last-child'),
          back: text('#add-back'), finish: text('#add-finish .button-label'),
        };
    """)


def expected_sheet(messages, updating=False):
    return {
        "title": messages["add.title.update" if updating else "add.title.add"], "cancel": messages["common.cancel"],
        "question": question_text(messages), "strong": messages["add.question"].split("*")[1],
        "place": messages["add.place.label"], "link": messages["add.link.label"],
        "placePlaceholder": messages["add.place.placeholder"],
        "open": messages["add.openLink"], "openTitle": messages["add.openLink.title"],
        "find": messages["add.find"], "busy": messages["add.busy"],
        "back": messages["add.back"], "finish": messages["add.finish.replace" if updating else "add.finish"],
    }


def test_the_sheet_its_alerts_and_preview_in_spanish_then_french(spanish_browser, server, api):
    page = fresh(spanish_browser, server, api)
    spanish, french, english = catalogue("es"), catalogue("fr"), catalogue("en")
    page.log_in(api.create_user("Sofía", "Lengua"))
    button = page.find("#add-location-button")
    assert button.get_attribute("aria-label") == spanish["approval.addLabel"] != english["approval.addLabel"]
    open_sheet(page)
    shown = sheet_texts(page)
    assert shown == expected_sheet(spanish)
    assert all(shown[name] != value for name, value in expected_sheet(english).items()), shown
    assert page.find("#add-replace-note").is_displayed() is False

    # The alerts of the form, each from the catalogue.
    page.find("#add-find").click()
    assert page.alert() == (spanish["add.placeNeeded.title"], spanish["add.placeNeeded.message"])
    page.dismiss_alert()
    page.type_into("#add-place", "Lagos")
    page.type_into("#add-link", "no es un enlace")
    page.find("#add-open-link").click()
    assert page.alert() == (spanish["add.invalidLink.title"], message(spanish["add.invalidLink.message"], link="no es un enlace"))
    page.dismiss_alert()
    page.type_into("#add-link", "")
    page.find("#add-open-link").click()
    assert page.alert() == (spanish["add.invalidLink.title"], spanish["add.linkFirst.message"])
    page.dismiss_alert()

    # A failure names what failed in Spanish, inside the shared failure sentence.
    page.type_into("#add-link", "https://example.com/sofia")
    page.offline(True)
    page.find("#add-find").click()
    title, text = page.alert()
    assert title == spanish["failure.network.title"]
    assert text == message(spanish["failure.network.message"], what=spanish["add.failure.finding"])
    page.dismiss_alert()
    page.offline(False)

    # Nothing found, then the preview: the kind of place and the other chip in Spanish.
    page.fake_server_error("/api/geocode", status=200, body='{"results": []}')
    page.find("#add-find").click()
    assert page.alert() == (spanish["add.notFound.title"], message(spanish["add.notFound.message"], place="Lagos"))
    page.dismiss_alert()
    page.fake_server_error("/api/geocode", status=200, body=json.dumps(TWINS))
    page.find("#add-find").click()
    page.visible("#add-preview")
    assert page.find("#preview-detail").text.strip() == "· " + spanish["add.placeKind.city"]
    assert page.find("#preview-alternatives .alternatives-label").text == spanish["add.alternatives"]
    chip = page.find("#preview-alternatives .chip")
    assert chip.text == message(spanish["add.alternative.withKind"], name="Lagos", kind=spanish["add.placeKind.region"])
    assert chip.get_attribute("dir") == "auto"
    assert page.find("#preview-map").get_attribute("aria-label") == spanish["add.previewMap"]
    assert page.find("#add-finish").text == spanish["add.finish"]
    page.screenshot("lang-add-preview-es", sizes=((390, 844),))

    # French while the preview shows: what the script wrote is said again in French.
    set_language(page, "fr")
    page.text_in("#preview-alternatives .alternatives-label", french["add.alternatives"])
    assert page.find("#preview-detail").text.strip() == "· " + french["add.placeKind.city"]
    assert page.find("#preview-alternatives .chip").text == message(
        french["add.alternative.withKind"], name="Lagos", kind=french["add.placeKind.region"])
    assert page.find("#add-title").text == french["add.title.add"]
    assert page.find("#add-finish").text == french["add.finish"]
    assert page.find("#add-back").text == french["add.back"]
    assert page.find("#preview-map").get_attribute("aria-label") == french["add.previewMap"]
    assert page.find("#add-location-button").get_attribute("aria-label") == french["approval.addLabel"]
    page.find("#add-back").click()
    page.visible("#add-form")
    assert sheet_texts(page) == expected_sheet(french)
    page.find("#add-cancel").click()
    page.gone("#add-location")
    assert [entry for entry in page.console_errors() if entry["source"] != "network"] == []


def test_replacing_in_german_says_where_and_keeps_long_words_inside(spanish_browser, server, api):
    page = fresh(spanish_browser, server, api)
    german = catalogue("de")
    user = api.create_user("Greta", "Lang")
    user.post_location("Accra, Ghana", latitude=5.6, longitude=-0.19)
    page.log_in(user)
    set_language(page, "de")
    page.clickable("#add-location-button").click()
    title, text = page.alert()
    assert title == german["add.replace.title"]
    assert text == message(german["add.replace.message"], place="Accra, Ghana")
    assert page.find("#alert-ok").text == german["add.replace.overwrite"]
    assert page.find("#alert-cancel").text == german["common.cancel"]
    page.dismiss_alert("#alert-ok")
    page.visible("#add-place")
    assert sheet_texts(page) == expected_sheet(german, updating=True)
    assert page.find("#add-replace-note").text == message(german["add.note.replacing"], place="Accra, Ghana")
    assert page.find("#add-place").get_attribute("dir") == "auto"
    # The German words fit the phone-sized sheet: nothing overflows its buttons or fields.
    page.viewport((390, 844))
    overflowing = page.js("""
        return [...document.querySelectorAll('#add-location button, #add-location .field-label, #add-location h2, #add-location h3')]
          .filter((e) => e.offsetParent && e.scrollWidth > e.clientWidth + 1).map((e) => e.id || e.className);
    """)
    page.screenshot("lang-add-sheet-de", sizes=((390, 844),))
    assert overflowing == []
    # Offline, finishing is refused in German, naming what was not sent.
    page.fake_server_error("/api/geocode", status=200, body=json.dumps(TWINS))
    page.find("#add-find").click()
    page.visible("#add-preview")
    assert page.find("#add-finish").text == german["add.finish.replace"]
    page.offline(True)
    page.find("#add-finish").click()
    assert page.alert() == (german["offline.refused.title"],
                            message(german["offline.refused.message"], what=german["add.offline.posting"]))
    page.dismiss_alert()
    page.offline(False)
    page.find("#add-cancel").click()
    page.gone("#add-location")


def test_waiting_for_approval_in_arabic_then_french(arabic_browser, server, api):
    arabic, french, english = catalogue("ar"), catalogue("fr"), catalogue("en")
    teacher = administrator(api)
    slug = unique_slug("lang-appr")
    code = as_teacher(teacher, "POST", "/api/classes",
                      {"slug": slug, "name": "Approved Posts", "precision": "exact", "approval": "all"})["invite_code"]
    student = api.create_user("Amal", "Waiting")
    as_teacher(student, "POST", f"/api/classes/{slug}/join", {"code": code})
    post_in_class(student, slug, "Lagos, Nigeria", 6.45, 3.39)

    page = fresh(arabic_browser, server, api)
    page.log_in(student)
    page.open(f"/#/c/{slug}/map")
    page.map_ready()
    page.text_in("#waiting-text", arabic["approval.banner"], 15)
    assert page.js("return [document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
    button = page.find("#add-location-button")
    assert button.get_attribute("aria-label") == arabic["approval.addLabelWaiting"] == button.get_attribute("title")
    page.tab("list")
    page.text_in("#student-list .row-waiting", arabic["approval.badge"])
    page.screenshot("lang-add-waiting-ar", sizes=((390, 844),))

    # Moving it: the question, the note and the confirmation say it waits, in Arabic.
    page.tab("map")
    page.clickable("#add-location-button").click()
    title, text = page.alert()
    assert (title, text) == (arabic["add.replace.title"], message(arabic["add.replace.waiting"], place="Lagos, Nigeria"))
    page.dismiss_alert("#alert-ok")
    page.visible("#add-place")
    note = message(arabic["add.note.both"],
                   replacing=message(arabic["add.note.replacing"], place="Lagos, Nigeria"),
                   approval=arabic["add.note.stillWaiting"])
    assert page.find("#add-replace-note").text == note
    assert sheet_texts(page) == expected_sheet(arabic, updating=True)

    # French: the sheet's note, the banner, the pin button's name and the badge follow.
    set_language(page, "fr")
    page.text_in("#waiting-text", french["approval.banner"])
    assert page.find("#add-replace-note").text == message(
        french["add.note.both"], replacing=message(french["add.note.replacing"], place="Lagos, Nigeria"),
        approval=french["add.note.stillWaiting"])
    assert sheet_texts(page) == expected_sheet(french, updating=True)
    assert page.find("#add-location-button").get_attribute("aria-label") == french["approval.addLabelWaiting"]
    page.find("#add-cancel").click()
    page.gone("#add-location")
    page.tab("list")
    page.text_in("#student-list .row-waiting", french["approval.badge"])
    assert french["approval.badge"] != english["approval.badge"]
    assert [entry for entry in page.console_errors() if entry["source"] != "network"] == []


def test_every_add_and_approval_message_is_translated():
    """No browser: each add.* and approval.* message reads differently from English in every
    language but where it is only placeholders."""
    english = catalogue("en")
    keys = [key for key in english if key.startswith(("add.", "approval."))]
    assert len(keys) >= 60
    for tag in OTHER_TAGS:
        messages = catalogue(tag)
        same = [key for key in keys if messages[key] == english[key] and key not in ("add.note.both", "add.alternative.withKind")]
        assert not same, f"{tag}: {same}"


def test_the_question_keeps_its_bold_word_and_line_break_in_every_language():
    """No browser: the sheet's question has one line break and one word in bold everywhere."""
    for tag in TAGS:
        text = catalogue(tag)["add.question"]
        assert text.count("*") == 2 and text.count("\n") == 1, tag
