"""Languages on a class's settings page (js/classSettings.js, index.html's settings-view): a
teacher whose browser reads Spanish sees the whole page in Spanish (the texts of the page, the
sentences the script writes, the accessible names of each member's controls and of an
invitation's, the course roster with its relative time and date, a confirmation's buttons); choosing French, then German,
re-translates what the script wrote at once; Arabic reads right to left, with its plural forms
and its digits as Intl writes them. Every expected text comes from the catalogues (locales/*.json)."""
import re
import uuid

import pytest

from languages import catalogue
from conftest import Page, make_driver
from helpers import add_member
from test_n_classes import administrator, as_teacher, make_class, unique_slug


# The course roster a course platform would give (the settings page asks /course-roster):
# answered in the page itself, synced two hours ago, one of three on the map.
FAKE_ROSTER = """
(() => {
  const roster = () => ({
    synced_at: new Date(Date.now() - 2 * 3600 * 1000).toISOString(),
    members: [
      { name: 'Ana Ruiz', on_map: true, member: true, roles: ['Learner'], course_role: 'student' },
      { name: 'Bruno Díaz', on_map: false, member: true, roles: ['Learner'], course_role: 'student' },
      { name: 'Chen Wei', on_map: false, member: false, roles: ['Instructor'], course_role: 'teacher' },
    ],
  });
  const realFetch = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input.url;
    if (String(url).includes('/course-roster')) {
      return Promise.resolve(new Response(JSON.stringify(roster()), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    }
    return realFetch(input, init);
  };
})();
"""


SAME_IN_GERMAN = {"classOptions.name", "classOptions.precision.region.title", "settings.invite.link", "settings.members.column.name"}


def isolated(tag, text):
    """A name inside a sentence as the page isolates it (Arabic page, or a right-to-left name)."""
    return f"\u2068{text}\u2069" if tag == "ar" or re.search(r"[\u0590-\u08FF]", text) else text


def browser_for(lang):
    driver = make_driver(lang=lang)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_ROSTER})
    return driver


@pytest.fixture(scope="module")
def spanish_browser():
    driver = browser_for("es")
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def arabic_browser():
    driver = browser_for("ar,en")
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def settings_class(api):
    """A class the server's administrator teaches, by town with first posts approved, with two
    students (three members in all) and an address invited as a moderator. Returns the
    teacher, the class's slug and the invited address."""
    teacher = administrator(api)
    slug = unique_slug("lang-settings")
    make_class(teacher, slug, "Geografía 1", precision="city", approval="new-members")
    for first, last in (("Kim", "Kept"), ("ليلى", "حسن")):
        student = api.create_user(first, last)
        add_member(teacher, slug, student)
    guest = f"guest.{uuid.uuid4().hex[:8]}@example.com"
    as_teacher(teacher, "POST", f"/api/classes/{slug}/members", {"email": guest, "role": "moderator"})
    return teacher, slug, guest


def open_settings(driver, server, api, teacher, slug):
    page = Page(driver, server, api)
    page.offline(False)
    driver.get(server + "/health")
    driver.delete_all_cookies()
    driver.execute_script("localStorage.clear(); sessionStorage.clear();")
    page.log_in(teacher)
    page.open(f"/#/c/{slug}/settings")
    page.visible("#settings-view")
    page.until(lambda d: len(page.find_all("#members-list > li")) == 3, 15, "the roster never showed")
    page.until(lambda d: len(page.find_all("#invitations-list > li")) == 1, 15, "the invitation never showed")
    page.visible("#course-roster-section", 15)
    page.until(lambda d: page.find("#course-roster-count").text, 10, "the course roster never showed")
    return page


def translate(page, key, params=None):
    """The message as the page's i18n.js formats it now (the catalogue's, with its numbers)."""
    return page.js("return import('/js/i18n.js').then((m) => m.t(arguments[0], arguments[1] || {}))", key, params)


def set_language(page, tag):
    page.js("return import('/js/i18n.js').then((m) => m.setLanguage(arguments[0]))", tag)
    page.until(lambda d: page.js("return document.documentElement.lang") == tag, 10, f"the page never became {tag}")


def shown_texts(page):
    """Each visible data-i18n element's key and text under the settings page, and its
    data-i18n-attr attributes."""
    return page.js("""
        const texts = [];
        for (const element of document.querySelectorAll('#settings-view [data-i18n]')) {
          if (element.closest('[hidden]')) continue;
          texts.push([element.dataset.i18n, element.textContent]);
        }
        return texts;
    """)


def written(page):
    """What the script wrote: the introduction, the hints and labels it sets."""
    return page.js("""
        const text = (id) => document.getElementById(id).textContent;
        const label = (id) => document.getElementById(id).querySelector('.button-label').textContent;
        return {
          intro: text('settings-intro'), members: text('members-hint'), invite: text('invite-hint'),
          newLink: label('invite-new'), archive: label('archive-button'), archiveState: text('archive-state'),
          rosterCount: text('course-roster-count'), rosterSynced: text('course-roster-synced'),
          onMapTitle: text('course-roster-on-map-title'), back: text('class-back-label'), title: document.title,
          statuses: [...document.querySelectorAll('#course-roster-section .course-roster-status')].map((n) => n.textContent),
          badges: [...document.querySelectorAll('#course-roster-section .member-role')].map((n) => n.textContent),
          roleLabels: [...document.querySelectorAll('#members-list .member-role-select')].map((n) => n.getAttribute('aria-label')),
          removeLabels: [...document.querySelectorAll('#members-list [data-remove]')].map((n) => [n.textContent, n.getAttribute('aria-label')]),
          options: [...document.querySelectorAll('#members-list .member-role-select option')].map((n) => n.textContent),
          invitedRoles: [...document.querySelectorAll('#invitations-list .member-role')].map((n) => n.textContent),
          withdrawLabels: [...document.querySelectorAll('#invitations-list [data-withdraw]')].map((n) => [n.textContent, n.getAttribute('aria-label')]),
        };
    """)


def member_names(page):
    return page.js("return [...document.querySelectorAll('#members-list .member-who strong > span[dir=auto]')].map((n) => n.textContent)")


def check_language(page, tag, slug, guest):
    """Everything on the page in `tag`: the static texts, and what the script wrote."""
    messages, english = catalogue(tag), catalogue("en")
    assert page.js("return document.documentElement.lang") == tag
    shown = shown_texts(page)
    assert len(shown) >= 30, shown
    for key, text in shown:
        assert text == messages[key], (tag, key, text)
    # Everything reads differently from English, but words German shares with it.
    same = [key for key, text in shown if text == english[key] and key not in SAME_IN_GERMAN]
    assert not same, (tag, same)

    now = written(page)
    assert now["title"] == translate(page, "settings.pageTitle", {"name": isolated(tag, "Geografía 1")})
    assert now["back"] == messages["settings.back"]
    for key, params in (("settings.intro.role", {"role": "teacher"}), ("settings.intro.precision", {"precision": "city"}),
                        ("settings.intro.approval", {"approval": "new-members"})):
        assert translate(page, key, params) in now["intro"], (tag, key, now["intro"])
    assert slug in now["intro"]
    assert now["members"] == translate(page, "settings.members.hintManager", {"count": 3})
    assert now["invite"] == messages["settings.invite.hint"]
    assert now["newLink"] == messages["settings.invite.new"]
    assert now["archive"] == messages["settings.end.archive"]
    assert now["archiveState"] == messages["settings.end.open"]
    assert now["rosterCount"] == translate(page, "settings.roster.count", {"onMap": 1, "total": 3})
    assert now["onMapTitle"] == translate(page, "settings.roster.onMapTitle", {"count": 1})
    assert sorted(now["statuses"]) == sorted([messages["settings.roster.onMap"], messages["settings.roster.noLocation"],
                                              messages["settings.roster.notInClass"]])
    assert messages["classOptions.role.teacher"] in now["badges"] and messages["classOptions.role.student"] in now["badges"]
    # The roster's time: two hours ago and the date, as Intl writes them in this language.
    ago, date = page.js("""
        const time = Date.parse(document.querySelector('#course-roster-synced time').getAttribute('datetime'));
        return [new Intl.RelativeTimeFormat(arguments[0], { numeric: 'auto' }).format(-2, 'hour'),
                new Intl.DateTimeFormat(arguments[0], { dateStyle: 'long', timeStyle: 'short' }).format(time)];
    """, tag)
    assert page.find("#course-roster-synced time").text == ago
    assert now["rosterSynced"] == translate(page, "settings.roster.synced", {"time": ago, "date": date})
    # Each member's controls are named in the language.
    names = member_names(page)
    assert len(names) == 3
    assert now["roleLabels"] == [translate(page, "settings.members.roleOf", {"name": isolated(tag, name)}) for name in names]
    assert now["removeLabels"] == [[messages["settings.members.remove"],
                                    translate(page, "settings.members.removeLabel", {"name": isolated(tag, name)})] for name in names]
    assert set(now["options"]) == {messages["classOptions.role.teacher"], messages["classOptions.role.moderator"],
                                   messages["classOptions.role.student"]}
    # So are the invitation's: its role, and its Withdraw button naming the address.
    assert now["invitedRoles"] == [messages["classOptions.role.moderator"]]
    assert now["withdrawLabels"] == [[messages["settings.invitations.withdraw"],
                                      translate(page, "settings.invitations.withdrawLabel", {"email": isolated(tag, guest)})]]
    return now


def test_spanish_then_french_then_german(spanish_browser, server, api, settings_class):
    teacher, slug, guest = settings_class
    page = open_settings(spanish_browser, server, api, teacher, slug)
    spanish = catalogue("es")
    now = check_language(page, "es", slug, guest)
    assert now["members"].startswith("3 ")
    assert page.js("return document.documentElement.dir") == "ltr"
    assert page.find("#delete-class-slug").text == slug

    # Messages the script writes on an action: an empty email, a confirmation's buttons.
    page.find("#member-add").click()
    page.text_in("#members-error", spanish["settings.add.missing"])
    page.find("#invite-revoke").click()
    page.visible("#alert")
    assert page.find("#alert-title").text == spanish["settings.invite.revokeTitle"]
    assert page.find("#alert-message").text == spanish["settings.invite.revokeMessage"]
    assert page.find("#alert-ok").text == spanish["settings.invite.revokeOk"]
    assert page.find("#alert-cancel").text == spanish["common.cancel"]
    page.find("#alert-cancel").click()
    page.gone("#alert")
    # Typing a wrong address and pressing Enter says what is missing, in Spanish.
    page.type_into("#delete-class-confirm", "not-it\n")
    page.text_in("#delete-class-error", spanish["settings.delete.typeSlug"].split("{slug}")[0])

    # French chosen: what the script wrote is re-translated at once, the form keeps its values.
    page.type_into("#class-name-input", "Géographie 1 (brouillon)")
    set_language(page, "fr")
    check_language(page, "fr", slug, guest)
    assert page.find("#class-name-input").get_attribute("value") == "Géographie 1 (brouillon)"

    # German, whose long words must fit as well.
    set_language(page, "de")
    now = check_language(page, "de", slug, guest)
    assert page.find("#invite-copy").text == catalogue("de")["settings.invite.copy"]
    overflowing = page.js("""
        return [...document.querySelectorAll('#settings-view button, #settings-view .field-label, #settings-view h2')]
          .filter((n) => n.offsetParent && n.scrollWidth > n.clientWidth + 1).map((n) => n.id || n.textContent);
    """)
    assert overflowing == [], overflowing
    set_language(page, "es")
    # No key of this page was missing from a catalogue (i18n.js warns once for each).
    missing = [entry["message"] for entry in spanish_browser.get_log("browser")
               if "i18n" in entry["message"] and ('"settings.' in entry["message"] or '"classOptions.' in entry["message"])]
    assert missing == [], missing


def test_arabic_reads_right_to_left_with_its_plural_forms(arabic_browser, server, api, settings_class):
    teacher, slug, guest = settings_class
    page = open_settings(arabic_browser, server, api, teacher, slug)
    assert page.js("return [document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
    now = check_language(page, "ar", slug, guest)
    # Arabic's plural forms (three is "few"), its digits as Intl writes them for Arabic.
    one, three = page.js("const f = new Intl.NumberFormat('ar'); return [f.format(1), f.format(3)]")
    assert now["members"].startswith(f"{three} أعضاء")
    assert one in now["rosterCount"] and f"{three} أعضاء" in now["rosterCount"]
    # The class's address inside an Arabic sentence is isolated, and so are names.
    assert f"\u2068/c/{slug}\u2069" in now["intro"]
    assert all("\u2068" in label for label in now["roleLabels"])
    assert f"\u2068{guest}\u2069" in now["withdrawLabels"][0][1]
    assert page.find("#settings-title").get_attribute("dir") == "auto"
    assert "ليلى حسن" in member_names(page)
    # A confirmation in Arabic names the member.
    page.find("#members-list [data-remove]").click()
    page.visible("#alert")
    assert page.find("#alert-ok").text == catalogue("ar")["settings.members.remove"]
    assert page.find("#alert-title").text.endswith("؟")
    page.find("#alert-cancel").click()
    page.gone("#alert")
