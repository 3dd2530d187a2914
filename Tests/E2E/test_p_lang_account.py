"""Languages in the account dialog, sign-in methods, "Your data" and the password-reset page:
Spanish, Arabic (right to left, its plural forms and digits) and German (long words) read
from the catalogues; the messages the scripts word are worded again when the language
changes; and the language kept with the account (GET /api/account's `account.language`,
PUT /api/account/language) wins over the browser's after signing in."""
import json

import pytest
from selenium.webdriver.common.keys import Keys

from languages import catalogue, fresh
from helpers import HTTPFailure

NEW_PASSWORD = "a-brand-new-pass-phrase"
# A provider the page's fetch says is linked, and one it says is not (the test server has none).
IDENTITIES = {"has_password": True, "identities": [
    {"provider": "school", "name": "School Account", "linked": True, "email": "ana@school.example"},
    {"provider": "github", "name": "GitHub", "linked": False},
]}


def formatted(page, message, params, tag):
    """`message` (a catalogue's) formatted by js/i18n.js for `tag`, as the page would."""
    return page.driver.execute_async_script("""
        const [message, params, tag, done] = arguments;
        import('/js/i18n.js').then((i18n) => done(i18n.formatMessage(message, params, tag)))
            .catch((error) => done('error: ' + error));
    """, message, params, tag)


def set_language(page, tag):
    page.js("return import('/js/i18n.js').then((i18n) => i18n.setLanguage(arguments[0]))", tag)
    page.until(lambda d: d.execute_script("return document.documentElement.lang") == tag, 5, f"the page never became {tag}")


def text_of(page, css):
    return page.js("return document.querySelector(arguments[0]).textContent", css)


def shown_texts(page, scope):
    """Each data-i18n key under `scope` with its text."""
    return page.js("""
        const texts = {};
        for (const element of document.querySelector(arguments[0]).querySelectorAll('[data-i18n]')) {
          texts[element.dataset.i18n] = element.textContent;
        }
        return texts;
    """, scope)


def assert_translated(page, scope, tag, at_least, same_in_english=("app.title",)):
    messages, english = catalogue(tag), catalogue("en")
    texts = shown_texts(page, scope)
    assert len(texts) >= at_least, texts
    for key, text in texts.items():
        assert text == messages[key], key
        assert key in same_in_english or text != english[key], f"{key} reads as in English"


def fake_identities(page):
    page.fake_server_error("/api/account/identities", 200, json.dumps(IDENTITIES))


def open_account(page):
    page.clickable("#account-button").click()
    page.visible("#account")


def open_delete_step(page):
    page.find("#delete-account").location_once_scrolled_into_view
    page.clickable("#delete-account").click()
    page.visible("#delete-form")


def script_errors(page):
    return [entry for entry in page.console_errors() if entry["source"] != "network"]


def test_account_dialog_in_spanish_then_french(spanish_browser, server, api):
    page = fresh(spanish_browser, server, api)
    es, fr = catalogue("es"), catalogue("fr")
    user = api.create_user("Ana", "Keys")
    api.log_in(user.email, user.password)  # another device, signed out by the password change
    page.log_in(user)
    fake_identities(page)
    open_account(page)
    assert page.js("return document.documentElement.lang") == "es"
    assert_translated(page, "#account", "es", 30)
    # What the script writes, and the accessible names.
    assert page.find("#password-title").text == es["account.password.changeTitle"]
    assert page.find("#password-button").text == es["account.password.changeButton"]
    assert page.find("#account-close").accessible_name == es["common.close"]
    assert page.find("#account").accessible_name == es["account.title"]
    assert page.find("#current-password").accessible_name == es["account.password.current"]
    assert page.find("#new-password").get_attribute("placeholder") == es["signup.passwordPlaceholder"]
    select = page.find("#account-language")
    assert select.accessible_name == es["language.label"]
    assert select.get_attribute("value") == "es"
    assert page.js("return Array.from(document.querySelectorAll('#account-language option'), (o) => o.textContent)") == [
        "English", "Español", "Français", "Português (Brasil)", "Deutsch", "简体中文", "हिन्दी", "العربية"]
    # The sign-in methods: each row and button in Spanish, the email isolated.
    page.until(lambda d: len(page.find_all("#identities-list li")) == 2)
    rows = page.js("return Array.from(document.querySelectorAll('#identities-list li > span'), (s) => s.textContent)")
    assert rows == [formatted(page, es["providers.linkedAs"], {"provider": "School Account", "email": "\u2068ana@school.example\u2069"}, "es"),
                    formatted(page, es["providers.notLinked"], {"provider": "GitHub"}, "es")]
    buttons = page.find_all("#identities-list button")
    assert [button.text for button in buttons] == [es["providers.unlink"], es["providers.link"]]
    assert buttons[0].accessible_name == formatted(page, es["providers.unlinkLabel"], {"provider": "School Account"}, "es")

    # Messages the script words: a missing password, then "1 other device" as a plural.
    page.find("#password-button").click()
    page.text_in("#password-error", es["account.password.error.missing"])
    page.type_into("#current-password", user.password)
    page.type_into("#new-password", NEW_PASSWORD + Keys.ENTER)
    changed = formatted(page, es["account.password.changed"], {"count": 1}, "es")
    page.text_in("#password-done", changed)
    assert changed == "Contraseña cambiada. Se cerró la sesión en otro dispositivo."
    assert page.find("#password-button").text == es["account.password.changeButton"]

    # Another language: everything the script wrote is worded again.
    set_language(page, "fr")
    page.text_in("#password-title", fr["account.password.changeTitle"])
    assert text_of(page, "#password-done") == formatted(page, fr["account.password.changed"], {"count": 1}, "fr")
    assert page.find("#account-language").get_attribute("value") == "fr"
    assert page.find("#password-button").text == fr["account.password.changeButton"]
    assert_translated(page, "#account", "fr", 30)
    assert page.js("return document.querySelector('#identities-list li > span').textContent") == formatted(
        page, fr["providers.linkedAs"], {"provider": "School Account", "email": "\u2068ana@school.example\u2069"}, "fr")
    assert page.find("#identities-list button").accessible_name == formatted(
        page, fr["providers.unlinkLabel"], {"provider": "School Account"}, "fr")

    # The delete step, and a refusal said in French.
    open_delete_step(page)
    assert page.find("#delete-password").accessible_name == fr["myData.confirm.password"]
    assert fr["myData.confirm.undone"] in page.find("#delete-form").text
    page.type_into("#delete-password", "not-my-password" + Keys.ENTER)
    page.text_in("#delete-error", fr["myData.error.wrongPassword"])
    assert script_errors(page) == []


def test_account_dialog_in_arabic_plural_digits_and_session_ended(arabic_browser, server, api):
    page = fresh(arabic_browser, server, api)
    ar = catalogue("ar")
    user = api.create_user("Omar", "Keys")
    others = [api.log_in(user.email, user.password)[1] for _ in range(3)]
    page.log_in(user)
    open_account(page)
    assert page.js("return [document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
    assert page.js("return getComputedStyle(document.getElementById('account')).direction") == "rtl"
    assert_translated(page, "#account", "ar", 30)
    assert page.find("#account-name").get_attribute("dir") == "auto"
    page.screenshot("languages-account-ar")
    page.type_into("#current-password", user.password)
    page.type_into("#new-password", NEW_PASSWORD + Keys.ENTER)
    # Three: Arabic's "few" form, the number in Arabic's digits.
    changed = formatted(page, ar["account.password.changed"], {"count": 3}, "ar")
    three = page.js("return new Intl.NumberFormat('ar').format(3)")
    assert f"{three} أجهزة أخرى" in changed
    page.text_in("#password-done", changed)
    assert all(not api.session_alive(session) for session in others)

    # Logged out elsewhere meanwhile: the alert says what did not happen, in Arabic.
    user.password = NEW_PASSWORD
    _, session = api.log_in(user.email, user.password)
    api.request("DELETE", "/api/session?all=1", headers={"X-Parse-Session-Token": session}, udacity=True)
    page.find("#download-data").location_once_scrolled_into_view
    page.clickable("#download-data").click()
    title, message = page.alert()
    assert (title, message) == (ar["account.sessionEnded.title"], ar["myData.sessionEnded.download"])
    page.dismiss_alert()
    page.visible("#login-email")


def test_reset_page_in_german_then_french(german_browser, server, api):
    page = fresh(german_browser, server, api)
    de, fr = catalogue("de"), catalogue("fr")
    page.open("/reset.html")  # no token: the link is incomplete
    page.visible("#reset-form")
    page.until(lambda d: not d.execute_script("return document.documentElement.classList.contains('i18n-pending')"),
               5, "the page stayed hidden")
    assert page.js("return document.documentElement.lang") == "de"
    assert page.driver.title == de["reset.pageTitle"]
    assert_translated(page, "#reset-scene", "de", 6)
    assert page.find("#reset-password").accessible_name == de["reset.newPassword"]
    assert page.find("#reset-confirm").accessible_name == de["reset.confirm"]
    page.text_in("#reset-error", de["reset.error.incomplete"])
    page.type_into("#reset-password", "short")
    page.find("#reset-button").click()
    page.text_in("#reset-error", de["reset.error.tooShort"])
    page.screenshot("languages-reset-de")
    set_language(page, "fr")
    page.text_in("#reset-error", fr["reset.error.tooShort"])
    assert page.driver.title == fr["reset.pageTitle"]
    assert page.find("#reset-button").text == fr["reset.button"]
    assert script_errors(page) == []


def test_german_confirmations_and_deletion(german_browser, server, api):
    page = fresh(german_browser, server, api)
    de, es = catalogue("de"), catalogue("es")
    user = api.create_user("Jo", "Geht")
    page.log_in(user)
    open_account(page)
    # "Log out of all devices" asks first, in German.
    page.find("#logout-everywhere").location_once_scrolled_into_view
    page.clickable("#logout-everywhere").click()
    title, message = page.alert()
    assert (title, message) == (de["account.devices.confirmTitle"], de["account.devices.confirmMessage"])
    assert page.find("#alert-ok").text == de["account.devices.confirmButton"]
    assert page.find("#alert-cancel").text == de["common.cancel"]
    page.dismiss_alert("#alert-cancel")
    open_delete_step(page)
    assert_translated(page, "#delete-form", "de", 12)
    page.screenshot("languages-account-delete-de")
    page.find("#delete-password").send_keys(Keys.ENTER)
    page.text_in("#delete-error", de["myData.error.missingPassword"])
    page.type_into("#delete-password", user.password + Keys.ENTER)
    page.visible("#login-email")
    page.text_in("#login-note", de["myData.deleted"])
    # The note on the login screen follows the language too.
    set_language(page, "es")
    page.text_in("#login-note", es["myData.deleted"])


def answer_with_language(page, tag):
    """Makes the page's fetch add `language: tag` to GET /api/account's account (the server's
    answer otherwise), and answer PUT /api/account/language 200."""
    page.js("""
        const tag = arguments[0];
        window.__realFetch = window.__realFetch || window.fetch;
        window.fetch = async (url, init = {}) => {
          const path = new URL(String(url), location.href).pathname;
          if (path === '/api/account' && (!init.method || init.method === 'GET')) {
            const answer = await (await window.__realFetch(url, init)).json();
            answer.account.language = tag;
            return new Response(JSON.stringify(answer), { status: 200, headers: { 'Content-Type': 'application/json' } });
          }
          return window.__realFetch(url, init);
        };
    """, tag)


def test_the_accounts_language_wins_after_signing_in(page, api):
    user = api.create_user("Lin", "Follows")
    page.open("/#/login")
    page.visible("#login-email")
    assert page.js("return document.documentElement.lang") == "en"
    answer_with_language(page, "es")
    page.type_into("#login-email", user.email)
    page.type_into("#login-password", user.password + Keys.ENTER)
    page.visible("#main-scene")
    page.until(lambda d: d.execute_script("return document.documentElement.lang") == "es", 5,
               "the account's language was not followed")
    assert page.js("return localStorage.getItem('onthemap.language')") == "es"
    assert text_of(page, "#account-title") == catalogue("es")["account.title"]


def test_a_choice_the_server_does_not_keep_stays_on_this_device(page, api):
    de = catalogue("de")
    user = api.create_user("Kai", "Keeps")
    page.log_in(user)
    page.fake_server_error("/api/account/language", 500)
    open_account(page)
    select = page.find("#account-language")
    assert select.get_attribute("value") == "en"
    page.js("const s = arguments[0]; s.value = 'de'; s.dispatchEvent(new Event('change'));", select)
    page.until(lambda d: d.execute_script("return document.documentElement.lang") == "de", 5)
    page.text_in("#account-language-error", de["account.language.error.notSaved"])
    assert page.find("#account-title").text == de["account.title"]
    assert page.js("return localStorage.getItem('onthemap.language')") == "de"


def language_route_exists(api):
    user = api.create_user("Probe", "Language")
    try:
        api.request("PUT", "/api/account/language", {"language": "en"}, headers={"X-Parse-Session-Token": user.session})
    except HTTPFailure as failure:
        if failure.status == 404:
            return False
        raise
    return True


def test_the_account_keeps_its_language_for_every_device(page, api):
    if not language_route_exists(api):
        pytest.skip("this server has no PUT /api/account/language yet")
    user = api.create_user("Mia", "Everywhere")
    page.log_in(user)
    open_account(page)
    select = page.find("#account-language")
    page.js("const s = arguments[0]; s.value = 'de'; s.dispatchEvent(new Event('change'));", select)
    page.until(lambda d: d.execute_script("return document.documentElement.lang") == "de", 5)
    token = {"X-Parse-Session-Token": api.log_in(user.email, user.password)[1]}
    page.until(lambda d: api.request("GET", "/api/account", headers=token)[1]["account"].get("language") == "de", 5,
               "the choice was not kept with the account")
    assert not page.find("#account-language-error").is_displayed()
    # Another device (this one, forgetting its own choice) opens in the account's language.
    page.find("#account-close").click()
    page.find("#logout-button").click()
    page.visible("#login-email")
    page.js("localStorage.removeItem('onthemap.language')")
    page.driver.refresh()
    page.visible("#login-email")
    assert page.js("return document.documentElement.lang") == "en"
    page.type_into("#login-email", user.email)
    page.type_into("#login-password", user.password + Keys.ENTER)
    page.visible("#main-scene")
    page.until(lambda d: d.execute_script("return document.documentElement.lang") == "de", 5,
               "the account's language was not followed")
    # null: the account forgets it; the device keeps what it shows.
    status, answer = api.request("PUT", "/api/account/language", {"language": None}, headers=token)
    assert status == 200 and (answer or {}).get("language") is None
    assert api.request("GET", "/api/account", headers=token)[1]["account"].get("language") is None
    try:
        api.request("PUT", "/api/account/language", {"language": "xx"}, headers=token)
        raise AssertionError("a language the server does not offer was kept")
    except HTTPFailure as failure:
        assert failure.status == 400 and json.loads(failure.body)["error"]["code"] == "invalid_language"
