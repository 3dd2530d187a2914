"""Languages (js/i18n.js, locales/*.json): the login screen in the browser's first language
(Spanish; Arabic right to left), English exactly as before, the login card's language choice,
a key a catalogue lacks shown in English, and plural forms in English, Arabic and Hindi."""
import json


from languages import catalogue, fresh, shown_texts


def open_login(page, path="/#/login"):
    page.open(path)
    page.visible("#login-email")
    page.until(lambda d: not d.execute_script("return document.documentElement.classList.contains('i18n-pending')"),
               5, "the page stayed hidden")


def html_language(page):
    return page.js("return [document.documentElement.lang, document.documentElement.dir]")


def test_english_login_screen_is_as_before(page):
    open_login(page)
    assert html_language(page) == ["en", "ltr"]
    assert page.driver.title == "Log In · On the Map"
    card = page.js("return document.querySelector('#login-scene .auth-card').innerText")
    for text in ("On the Map", "See where fellow students are learning.", "Email", "Password", "Log In",
                 "Don't have an account? Sign Up"):
        assert text in card
    assert page.find("#login-email").get_attribute("placeholder") == "you@example.com"
    assert page.find("#login-password").get_attribute("placeholder") == "Password"
    # Every converted string is English's message, word for word.
    english = catalogue("en")
    shown = shown_texts(page, "#login-scene")
    assert shown["texts"] and all(english[key] == text for key, text in shown["texts"].items())
    assert all(english[key] == value for key, value in shown["attributes"])
    page.find("#login-button").click()
    page.text_in("#login-error", "Enter your email and password.")
    page.find("#show-signup").click()
    page.visible("#signup-first")
    page.until(lambda d: d.title == "Sign Up · On the Map")
    assert page.find("#signup-password").get_attribute("placeholder") == "At least 8 characters"
    assert [entry for entry in page.driver.get_log("browser") if "i18n" in entry["message"]] == []


def test_spanish_first_shows_the_login_screen_in_spanish(spanish_browser, server, api):
    page = fresh(spanish_browser, server, api)
    assert page.js("return navigator.languages[0]").startswith("es")
    open_login(page)
    spanish, english = catalogue("es"), catalogue("en")
    assert html_language(page) == ["es", "ltr"]
    assert page.driver.title == spanish["login.pageTitle"]
    shown = shown_texts(page, "#login-scene")
    assert len(shown["texts"]) >= 15
    for key, text in shown["texts"].items():
        assert text == spanish[key], key
        # Everything but the app's name reads differently from English.
        assert key == "app.title" or text != english[key], key
    for key, value in shown["attributes"]:
        assert value == spanish[key] and value != english[key], key
    assert page.find("#language-select").get_attribute("value") == "es"
    # Messages the scripts write come from the catalogue too.
    page.find("#login-button").click()
    page.text_in("#login-error", spanish["login.error.missing"])
    page.type_into("#login-email", "nobody-here@example.com")
    page.type_into("#login-password", "not-the-password")
    page.find("#login-button").click()
    page.text_in("#login-error", spanish["login.error.wrong"])
    page.find("#show-signup").click()
    page.visible("#signup-first")
    page.until(lambda d: d.title == spanish["signup.pageTitle"])
    page.find("#signup-button").click()
    page.text_in("#signup-error", spanish["signup.error.missing"])
    # (The refused login is logged as a failed request; no script failed.)
    assert [entry for entry in page.console_errors() if entry["source"] != "network"] == []


def test_arabic_first_is_right_to_left(arabic_browser, server, api):
    page = fresh(arabic_browser, server, api)
    open_login(page)
    arabic = catalogue("ar")
    assert html_language(page) == ["ar", "rtl"]
    assert page.find(".brand-tagline").text == arabic["login.tagline"]
    assert page.find("#login-button").text == arabic["login.button"]
    assert page.js("return getComputedStyle(document.querySelector('.auth-card')).direction") == "rtl"
    page.screenshot("languages-login-ar")


def test_choosing_a_language_translates_at_once_and_is_kept(page):
    open_login(page)
    select = page.find("#language-select")
    options = page.js("""return Array.from(document.querySelectorAll('#language-select option'),
        (option) => [option.value, option.textContent, option.lang])""")
    assert [name for _, name, _ in options] == ["English", "Español", "Français", "Português (Brasil)", "Deutsch",
                                                "简体中文", "हिन्दी", "العربية"]
    assert all(value == lang for value, _, lang in options)
    label = page.js("return document.getElementById('language-select').labels[0].textContent")
    assert label == "Language"
    french = catalogue("fr")
    page.js("const s = arguments[0]; s.value = 'fr'; s.dispatchEvent(new Event('change'));", select)
    page.text_in(".brand-tagline", french["login.tagline"])
    assert html_language(page) == ["fr", "ltr"]
    assert page.driver.title == french["login.pageTitle"]
    assert page.find("#login-email").get_attribute("placeholder") == french["login.emailPlaceholder"]
    assert page.js("return localStorage.getItem('onthemap.language')") == "fr"
    # Kept on this device: the next visit opens in French, whatever the browser prefers.
    page.driver.refresh()
    open_login(page)
    assert page.find(".brand-tagline").text == french["login.tagline"]
    assert page.find("#language-select").get_attribute("value") == "fr"
    # Back to English: word for word what it was.
    page.js("const s = arguments[0]; s.value = 'en'; s.dispatchEvent(new Event('change'));", page.find("#language-select"))
    page.text_in(".brand-tagline", "See where fellow students are learning.")
    assert html_language(page) == ["en", "ltr"]
    assert page.driver.title == "Log In · On the Map"
    assert page.js("return document.querySelector('#login-form .auth-switch:not(.auth-forgot)').textContent") == "Don't have an account? Sign Up"
    assert page.find('#show-forgot').text == "Forgot password?"


def run_module(page, script):
    """Runs `script` (an async function body given `i18n`, the page's js/i18n.js) in the page."""
    return page.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/js/i18n.js').then(async (i18n) => done(await (async () => { %s })()))
            .catch((error) => done({ error: String(error) }));
    """ % script)


def test_a_key_missing_from_a_catalogue_falls_back_to_english(page):
    open_login(page)
    result = run_module(page, """
        const warnings = [];
        const english = await i18n.loadCatalogue('en');
        const spanish = await i18n.loadCatalogue('es');
        delete spanish['login.tagline'];
        const t = i18n.createTranslator({ locale: 'es', messages: spanish, fallback: english,
                                          warn: (text) => warnings.push(text) });
        return {
          present: t('login.button'),
          missing: t('login.tagline'),
          again: t('login.tagline'),
          placeholder: t('providers.continueWith', { provider: 'GitHub' }),
          unknown: t('no.such.key'),
          warnings,
        };
    """)
    assert "error" not in result, result
    assert result["present"] == catalogue("es")["login.button"]
    assert result["missing"] == result["again"] == "See where fellow students are learning."
    assert result["placeholder"] == "Continuar con GitHub"
    assert result["unknown"] == "no.such.key"
    # Reported once per key, not on every use.
    assert len(result["warnings"]) == 2 and "login.tagline" in result["warnings"][0]
    # Without a warn function of its own, a translator reports through console.warn.
    page.driver.get_log("browser")
    run_module(page, """
        i18n.createTranslator({ locale: 'de', messages: {}, fallback: { 'x.y': 'X' } })('x.y');
        return true;
    """)
    logged = [entry for entry in page.driver.get_log("browser") if "x.y" in entry["message"]]
    assert len(logged) == 1 and logged[0]["level"] == "WARNING"


def test_plural_forms_in_english_arabic_and_hindi(page):
    open_login(page)
    counts = [0, 1, 2, 3, 11, 100, 1234]
    result = run_module(page, """
        const counts = %s;
        const out = {};
        for (const tag of ['en', 'ar', 'hi']) {
          const messages = await i18n.loadCatalogue(tag);
          out[tag] = counts.map((count) => [
            i18n.formatMessage(messages['students.count'], { count }, tag),
            new Intl.NumberFormat(tag).format(count),
            new Intl.PluralRules(tag).select(count),
          ]);
        }
        const exact = '{count, plural, =0 {No students} one {# student} other {# students}}';
        out.exact = [0, 1, 5].map((count) => i18n.formatMessage(exact, { count }, 'en'));
        out.select = ['teacher', 'student', 'other'].map((role) =>
          i18n.formatMessage('{role, select, teacher {Teacher {name}} other {Student {name}}}', { role, name: 'Ada' }, 'en'));
        out.quoted = i18n.formatMessage("Don't '{'name'}' {name}, {n}", { name: 'Ada', n: 12345 }, 'en');
        out.quotedPlural = i18n.formatMessage("{count, plural, other {# '#'}}", { count: 3 }, 'en');
        out.missingParam = i18n.formatMessage('Hello {name}', {}, 'en');
        return out;
    """ % json.dumps(counts))
    assert "error" not in result, result
    english = [text for text, _, _ in result["en"]]
    assert english == ["0 students", "1 student", "2 students", "3 students", "11 students", "100 students",
                       "1,234 students"]
    arabic = {count: (text, number, category) for count, (text, number, category) in zip(counts, result["ar"])}
    # Arabic has all six forms.
    assert [arabic[count][2] for count in (0, 1, 2, 3, 11, 100)] == ["zero", "one", "two", "few", "many", "other"]
    assert arabic[0][0] == "لا يوجد طلاب"
    assert arabic[1][0] == "طالب واحد"
    assert arabic[2][0] == "طالبان"
    assert arabic[3][0] == f"{arabic[3][1]} طلاب"
    assert arabic[11][0] == f"{arabic[11][1]} طالبًا"
    assert arabic[100][0] == f"{arabic[100][1]} طالب"
    hindi = {count: (text, number, category) for count, (text, number, category) in zip(counts, result["hi"])}
    assert hindi[0][2] == "one" and hindi[1][2] == "one" and hindi[2][2] == "other"
    assert all(hindi[count][0] == f"{hindi[count][1]} छात्र" for count in counts)
    assert hindi[1234][1] == "1,234"
    assert result["exact"] == ["No students", "1 student", "5 students"]
    assert result["select"] == ["Teacher Ada", "Student Ada", "Student Ada"]
    assert result["quoted"] == "Don't {name} Ada, 12,345"
    assert result["quotedPlural"] == "3 #"
    assert result["missingParam"] == "Hello {name}"
