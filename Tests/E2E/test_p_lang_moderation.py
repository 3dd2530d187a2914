"""Moderation in other languages (js/moderation.js; moderation.*, report.*, notices.*): in
Spanish a student reports a post (the reason prompt, its check, the thank-you), the
administrator's Moderation dialog (tabs, badges, buttons, times, the reason prompt, what an
action did, the accounts' count) and, after a switch to French, the same dialog redrawn; the
author reads the moderators' notice in Spanish. In Arabic (right to left) the posts waiting
in a class whose every post waits: the counts on the Moderate button and the Waiting tab
with Arabic plural forms and digits, approving and rejecting, and the rejected author's
notice. In German at phone size the long words fit. Every text is compared with the
catalogue's message, formatted by the page's own formatter."""
from selenium.webdriver.common.by import By

from conftest import DESKTOP, PHONE
from test_m_moderation import answer_reason, moderation_row, sign_out
from test_n_classes import administrator, as_teacher, make_class, post_in_class, unique_slug
from languages import catalogue, fresh


def formatted(page, message, params=None, tag=None):
    """`message` (a catalogue's text) formatted as the page formats it in `tag`."""
    return page.js("return import('/js/i18n.js').then(m => m.formatMessage(arguments[0], arguments[1], arguments[2] || m.language()))",
                   message, params or {}, tag)


def number(page, value):
    """`value` as the page's language writes it (Intl.NumberFormat)."""
    return page.js("return import('/js/i18n.js').then(m => m.formatNumber(arguments[0]))", value)


def set_language(page, tag):
    page.js("return import('/js/i18n.js').then(m => m.setLanguage(arguments[0]))", tag)


def text_of(page, css):
    return page.js("const e = document.querySelector(arguments[0]); return e && e.textContent", css)


def open_moderation(page):
    page.clickable("#moderation-button").click()
    page.visible("#moderation")
    page.until(lambda d: not page.js("return document.getElementById('moderation-status').textContent.endsWith('…')"), 10)


def reason_dialog(page):
    page.visible(".reason-dialog #reason-input")
    return {
        "title": page.find(".reason-dialog h2").text,
        "name": page.find(".reason-dialog").get_attribute("aria-label"),
        "label": page.find(".reason-dialog .field-label").text,
        "placeholder": page.find("#reason-input").get_attribute("placeholder"),
        "buttons": [button.text for button in page.find_all(".reason-dialog .reason-actions button")],
    }


def test_report_and_moderate_in_spanish_then_french(spanish_browser, server, api):
    es, fr, en = catalogue("es"), catalogue("fr"), catalogue("en")
    admin = administrator(api)
    author = api.create_user("Paco", "Relojes")
    post = author.post_location(map_string="Sevilla", media_url="https://spam.example/relojes")
    reporter = api.create_user("Rita", "Denuncia")
    page = fresh(spanish_browser, server, api)

    # The student reports the post from the list: the prompt, its check and the thanks in Spanish.
    page.log_in(reporter)
    page.tab("list")
    page.clickable(f'#student-list > li[data-object-id="{post}"] [data-report-id]').click()
    assert reason_dialog(page) == {
        "title": es["report.title"], "name": es["report.title"], "label": es["moderation.reason.label"],
        "placeholder": es["report.placeholder"], "buttons": [es["common.cancel"], es["common.ok"]],
    }
    assert es["report.title"] != en["report.title"]
    page.find("#reason-ok").click()
    page.text_in(".reason-dialog .form-error", es["moderation.reason.missing"])
    answer_reason(page, "Vende relojes")
    assert page.alert() == (es["report.done.title"], es["report.done.message"])
    page.dismiss_alert()
    sign_out(page)

    # The administrator's dialog: its frame, the reported row, its buttons and badges.
    page = fresh(spanish_browser, server, api)
    page.log_in(admin)
    button = page.visible("#moderation-button")
    assert button.find_element(By.CSS_SELECTOR, ".moderation-label").text == es["moderation.button"]
    open_moderation(page)
    assert page.find("#moderation-title").text == es["moderation.title"]
    assert page.find("#moderation-close").text == es["common.close"]
    assert page.find(".moderation-tabs").get_attribute("aria-label") == es["moderation.tabs.label"]
    labels = [tab.text.split("\n")[0] for tab in page.find_all(".moderation-tab .tab-label")]
    assert labels == [es[f"moderation.tab.{view}"] for view in ("waiting", "reported", "newest", "accounts")]
    page.find("#moderation-tab-reported").click()
    row = moderation_row(page, "object-id", post)
    page.until(lambda d: formatted(page, es["moderation.badge.reports"], {"count": 1, "reasons": "Vende relojes"}) in
               moderation_row(page, "object-id", post).text, 10, "no Spanish report badge")
    row = moderation_row(page, "object-id", post)
    assert formatted(page, es["moderation.posted"], {"time": es["time.justNow"]}) in row.text
    assert row.find_element(By.CSS_SELECTOR, "strong").get_attribute("dir") == "auto"
    assert row.find_element(By.CSS_SELECTOR, "bdi").text == "Sevilla"
    assert [b.text for b in row.find_elements(By.CSS_SELECTOR, ".moderation-actions button")] == [
        es["moderation.action.hide"], es["moderation.action.delete"], es["moderation.action.disableAuthor"]]
    visually_hidden = row.find_element(By.CSS_SELECTOR, "a .visually-hidden").get_attribute("textContent")
    assert visually_hidden.strip() == es["moderation.newTab"]

    # Hiding it: the prompt, what it did, the hidden badge.
    row.find_element(By.CSS_SELECTOR, '[data-action="hide"]').click()
    shown = reason_dialog(page)
    assert (shown["title"], shown["placeholder"]) == (es["moderation.hide.title"], es["moderation.reason.placeholder"])
    answer_reason(page, "Publicidad no permitida")
    page.text_in("#moderation-done", formatted(page, es["moderation.done.hide"], {"name": "Paco Relojes"}))
    page.text_in(f'#moderation-list > li[data-object-id="{post}"]',
                 formatted(page, es["moderation.badge.hidden"], {"reason": "Publicidad no permitida"}))
    row = moderation_row(page, "object-id", post)
    assert row.find_element(By.CSS_SELECTOR, '[data-action="unhide"]').text == es["moderation.action.unhide"]

    # Accounts: the count in words and the language's digits, the administrator's badge.
    page.find("#moderation-tab-accounts").click()
    admin_row = moderation_row(page, "key", admin.key)
    accounts = len(page.find_all("#moderation-list > li"))
    assert page.find("#moderation-status").text == formatted(page, es["moderation.accountCount"], {"count": accounts})
    assert number(page, accounts) in page.find("#moderation-status").text
    assert es["moderation.badge.administrator"] in admin_row.text
    assert admin_row.find_element(By.CSS_SELECTOR, '[data-action="reset"]').text == es["moderation.resetLink.button"]

    # A switch to French redraws the dialog, the list shown and the Moderate button.
    set_language(page, "fr")
    page.text_in("#moderation-title", fr["moderation.title"])
    page.until(lambda d: page.find("#moderation-status").text ==
               formatted(page, fr["moderation.accountCount"], {"count": accounts}), 10, "the count stayed Spanish")
    assert [tab.text.split("\n")[0] for tab in page.find_all(".moderation-tab .tab-label")] == [
        fr[f"moderation.tab.{view}"] for view in ("waiting", "reported", "newest", "accounts")]
    assert page.find("#moderation-close").text == fr["common.close"]
    assert page.find(".moderation-tabs").get_attribute("aria-label") == fr["moderation.tabs.label"]
    assert fr["moderation.badge.administrator"] in moderation_row(page, "key", admin.key).text
    assert text_of(page, "#moderation-button .moderation-label") == fr["moderation.button"]
    page.find("#moderation-close").click()
    page.gone("#moderation")
    sign_out(page)

    # The author reads why, in Spanish.
    page = fresh(spanish_browser, server, api)
    page.log_in(author)
    assert page.alert() == (es["notices.title"],
                            formatted(page, es["notices.hidden"], {"place": "Sevilla", "reason": "Publicidad no permitida"}))
    page.dismiss_alert()
    sign_out(page)


def test_posts_waiting_counted_approved_and_rejected_in_arabic(arabic_browser, server, api):
    ar = catalogue("ar")
    admin = administrator(api)
    slug = unique_slug("arab")
    code = make_class(admin, slug, "Arabic", approval="all")["invite_code"]
    authors = [api.create_user("Layla", "Waits"), api.create_user("Omar", "Waits")]
    for author, (place, lat, lng) in zip(authors, [("Cairo", 30.04, 31.24), ("Rabat", 34.02, -6.83)]):
        as_teacher(author, "POST", f"/api/classes/{slug}/join", {"code": code})
        post_in_class(author, slug, place, lat, lng)
    page = fresh(arabic_browser, server, api)
    page.log_in(admin)
    page.open(f"/#/c/{slug}/map")
    page.map_ready()
    assert page.js("return [document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]

    # Two posts wait: Arabic's dual, in Arabic digits, on the button and its title.
    page.until(lambda d: page.find_all("#moderation-button .moderation-count"), 10, "no count on Moderate")
    two = number(page, 2)
    badge = "#moderation-button .moderation-count"
    assert text_of(page, f"{badge} [aria-hidden]") == two
    assert text_of(page, f"{badge} .visually-hidden:last-child") == formatted(page, ar["moderation.waitingCount"], {"count": 2, "shown": two})
    assert formatted(page, ar["moderation.waitingCount"], {"count": 2, "shown": two}) != formatted(
        page, ar["moderation.waitingCount"], {"count": 5, "shown": number(page, 5)}), "the dual is its own form"
    assert page.find("#moderation-button").get_attribute("title") == formatted(
        page, ar["moderation.buttonTitleWaiting"], {"count": 2, "shown": two})

    # The dialog opens on Waiting, its count and rows in Arabic.
    open_moderation(page)
    assert page.find("#moderation-tab-waiting").get_attribute("aria-selected") == "true"
    assert text_of(page, "#moderation-tab-waiting .tab-count .visually-hidden:last-child") == formatted(
        page, ar["moderation.tabWaitingCount"], {"count": 2, "shown": two})
    rows = page.find_all("#moderation-list > li")
    assert len(rows) == 2
    for row in rows:
        assert ar["moderation.badge.waiting"] in row.text
        assert formatted(page, ar["moderation.sent"], {"time": ar["time.justNow"]}) in row.text
        assert [b.text for b in row.find_elements(By.CSS_SELECTOR, ".moderation-actions button")][:2] == [
            ar["moderation.action.approve"], ar["moderation.action.reject"]]

    page.screenshot("moderation-arabic-waiting", sizes=(PHONE,))

    # Approve the one, reject the other with a reason.
    first = rows[0].find_element(By.CSS_SELECTOR, "strong").text
    rows[0].find_element(By.CSS_SELECTOR, '[data-action="approve"]').click()
    page.text_in("#moderation-done", formatted(page, ar["moderation.done.approve"], {"name": first}))
    one = number(page, 1)
    page.until(lambda d: text_of(page, f"{badge} .visually-hidden:last-child") ==
               formatted(page, ar["moderation.waitingCount"], {"count": 1, "shown": one}), 10, "the count did not drop")
    row = page.find_all("#moderation-list > li")[0]
    second = row.find_element(By.CSS_SELECTOR, "strong").text
    place = row.find_element(By.CSS_SELECTOR, ".moderation-who > span > bdi").text
    row.find_element(By.CSS_SELECTOR, '[data-action="reject"]').click()
    assert reason_dialog(page)["title"] == ar["moderation.reject.title"]
    answer_reason(page, "انشر مكان دراستك")
    page.text_in("#moderation-done", formatted(page, ar["moderation.done.reject"], {"name": second}))
    page.text_in("#moderation-status", ar["moderation.empty.waiting"])
    page.find("#moderation-close").click()
    page.gone("#moderation")
    page.until(lambda d: not page.find_all(badge), 10)
    assert page.find("#moderation-button").get_attribute("title") == ar["moderation.button"]
    sign_out(page)

    # The rejected author reads the notice in Arabic, their reason isolated in the sentence.
    rejected = next(author for author in authors if author.name == second)
    page = fresh(arabic_browser, server, api)
    page.log_in(rejected)
    page.open(f"/#/c/{slug}/map")
    assert page.alert() == (ar["notices.title"],
                            formatted(page, ar["notices.rejected"], {"place": place, "reason": "انشر مكان دراستك"}))
    page.dismiss_alert()
    sign_out(page)


def test_long_german_words_fit_at_phone_size(german_browser, server, api):
    de = catalogue("de")
    admin = administrator(api)
    author = api.create_user("Grete", "Gemeldet")
    post = author.post_location(map_string="Wuppertal")
    as_teacher(api.create_user("Udo", "Melder"), "POST", f"/api/locations/{post}/report", {"reason": "Werbung"})
    page = fresh(german_browser, server, api)
    page.log_in(admin)
    page.viewport(PHONE)
    try:
        open_moderation(page)
        page.find("#moderation-tab-reported").click()
        row = moderation_row(page, "object-id", post)
        page.until(lambda d: formatted(page, de["moderation.badge.reports"], {"count": 1, "reasons": "Werbung"}) in
                   moderation_row(page, "object-id", post).text, 10, "no German report badge")
        row = moderation_row(page, "object-id", post)
        assert [b.text for b in row.find_elements(By.CSS_SELECTOR, ".moderation-actions button")] == [
            de["moderation.action.hide"], de["moderation.action.delete"], de["moderation.action.disableAuthor"]]
        page.find("#moderation-tab-accounts").click()
        moderation_row(page, "key", author.key)
        # No tab, button or badge is cut: what it holds fits in it, and the rows do not scroll sideways.
        cut = page.js("""
            return [...document.querySelectorAll('#moderation .moderation-tab, #moderation-list button, #moderation-list .badge, #moderation-list > li')]
              .filter((e) => e.offsetParent && e.scrollWidth > e.clientWidth + 1)
              .map((e) => e.textContent);""")
        assert cut == [], f"cut at phone size: {cut}"
        assert de["moderation.resetLink.button"] in moderation_row(page, "key", author.key).text
        page.screenshot("moderation-german-accounts", sizes=(PHONE,))
    finally:
        page.viewport(DESKTOP)
    sign_out(page)
