"""The language catalogues (Sources/WebApp/Public/locales/*.json), checked without a browser:
each is valid JSON of flat string messages, every key of another language is one English has,
each message parses (the ICU subset js/i18n.js reads), and it uses the same placeholders and
plural/select arguments as English's, with plural options the language has."""
import json
import re
from pathlib import Path

import pytest

from languages import PLURAL_CATEGORIES, TAGS

LOCALES = Path(__file__).resolve().parents[2] / "Sources" / "WebApp" / "Public" / "locales"
# The server's and command line's catalogues: the same format, the same checks.
SERVER = Path(__file__).resolve().parents[2] / "Sources" / "Localization" / "Catalogues"
SETS = {"web": LOCALES, "server": SERVER}
# The app's languages and each one's CLDR plural categories (Intl.PluralRules; fr, es and pt
# have "many" for a million and more): languages.json, the one list of them.
LANGUAGES = TAGS


def parse(message):
    """The arguments of an ICU-style message: {"name", "count:plural", …} plus, for each plural
    or select, the option selectors it has ({"count:plural": {"one", "other"}}). Follows
    js/i18n.js: an apostrophe quotes a following brace (or # in a plural), '' is one."""
    position = 0
    arguments, options_of = set(), {}

    def literal(in_plural):
        nonlocal position
        while position < len(message):
            char = message[position]
            following = message[position + 1] if position + 1 < len(message) else ""
            if char == "'" and following == "'":
                position += 2
                continue
            if char == "'" and (following in "{}" or (in_plural and following == "#")) and following:
                end = message.find("'", position + 1)
                position = len(message) if end < 0 else end + 1
                continue
            if char in "{}" or (in_plural and char == "#"):
                return
            position += 1

    def skip_space():
        nonlocal position
        while position < len(message) and message[position].isspace():
            position += 1

    def word():
        nonlocal position
        skip_space()
        start = position
        while position < len(message) and not message[position].isspace() and message[position] not in ",{}":
            position += 1
        return message[start:position]

    def expect(char):
        nonlocal position
        skip_space()
        assert position < len(message) and message[position] == char, f"expected {char!r} at {position} in {message!r}"
        position += 1

    def parts(in_plural):
        nonlocal position
        while position < len(message) and message[position] != "}":
            literal(in_plural)
            if position >= len(message) or message[position] == "}":
                return
            if message[position] == "#":
                position += 1
                continue
            position += 1
            argument()

    def argument():
        nonlocal position
        name = word()
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name), f"bad argument name {name!r} in {message!r}"
        skip_space()
        if message[position:position + 1] == "}":
            position += 1
            arguments.add(name)
            return
        expect(",")
        kind = word()
        skip_space()
        if kind == "number" and message[position:position + 1] == "}":
            position += 1
            arguments.add(name)
            return
        assert kind in ("plural", "select"), f"unknown argument type {kind!r} in {message!r}"
        expect(",")
        selectors = set()
        while True:
            skip_space()
            if message[position:position + 1] == "}":
                position += 1
                break
            selector = word()
            assert selector, f"unfinished {kind} in {message!r}"
            selectors.add(selector)
            expect("{")
            parts(kind == "plural")
            expect("}")
        assert "other" in selectors, f"{kind} without other in {message!r}"
        key = f"{name}:{kind}"
        arguments.add(key)
        options_of.setdefault(key, set()).update(selectors)

    parts(False)
    assert position == len(message), f"unexpected '}}' at {position} in {message!r}"
    return arguments, options_of


def load(tag, where="web"):
    with open(SETS[where] / f"{tag}.json", encoding="utf-8") as handle:
        return json.load(handle)


@pytest.mark.parametrize("where", SETS)
def test_every_catalogue_file_is_a_language_we_offer(where):
    assert sorted(path.stem for path in SETS[where].glob("*.json")) == sorted(LANGUAGES)


@pytest.mark.parametrize("where", SETS)
@pytest.mark.parametrize("tag", LANGUAGES)
def test_catalogue_is_flat_json_of_messages_that_parse(tag, where):
    catalogue = load(tag, where)
    assert isinstance(catalogue, dict) and catalogue
    for key, message in catalogue.items():
        assert re.fullmatch(r"[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)+", key), f"{tag}: key {key!r} is not dotted camelCase"
        assert isinstance(message, str) and message.strip(), f"{tag}: {key} is not a message"
        parse(message)


@pytest.mark.parametrize("where", SETS)
@pytest.mark.parametrize("tag", [tag for tag in LANGUAGES if tag != "en"])
def test_catalogue_matches_english(tag, where):
    english, catalogue = load("en", where), load(tag, where)
    unknown = sorted(set(catalogue) - set(english))
    assert not unknown, f"{tag} has keys English does not: {unknown}"
    for key, message in catalogue.items():
        arguments, options_of = parse(message)
        english_arguments, _ = parse(english[key])
        assert arguments == english_arguments, f"{tag}: {key} uses {sorted(arguments)}, English {sorted(english_arguments)}"
        for argument, selectors in options_of.items():
            if argument.endswith(":plural"):
                categories = {selector for selector in selectors if not selector.startswith("=")}
                assert categories <= PLURAL_CATEGORIES[tag], f"{tag}: {key} has plural forms {sorted(categories)}"
        assert "TODO" not in message and "[MT]" not in message, f"{tag}: {key} is not finished"


def test_the_shared_cases_parse_and_the_broken_ones_do_not():
    """Tests/MessageFormat/cases.json: what the web app and the server are tested against."""
    cases = json.loads((Path(__file__).resolve().parents[1] / "MessageFormat" / "cases.json").read_text(encoding="utf-8"))
    assert len(cases["format"]) > 20
    for case in cases["format"]:
        arguments, _ = parse(case["message"])
        named = {argument.split(":")[0] for argument in arguments}
        assert named <= set(case["arguments"]) | {"name"}, case["message"]
    for message in cases["refused"]:
        with pytest.raises((AssertionError, IndexError)):
            parse(message)


def test_the_checker_notices_a_mismatch():
    assert parse("{count, plural, one {# student} other {# students}} in {place}")[0] == {"count:plural", "place"}
    assert parse("Don't '{'quoted'}' {name}")[0] == {"name"}
    with pytest.raises(AssertionError):
        parse("{count, plural, one {# student}}")
    with pytest.raises(AssertionError):
        parse("unbalanced {name")


@pytest.mark.parametrize("where", SETS)
@pytest.mark.parametrize("tag", [tag for tag in LANGUAGES if tag != "en"])
def test_catalogue_is_complete(tag, where):
    """Every English message is translated: a key English has and a language lacks would show
    in English there (the app's fallback), which CI does not let through."""
    english, catalogue = load("en", where), load(tag, where)
    absent = [key for key in english if key not in catalogue]
    assert not absent, f"{tag} lacks {len(absent)} keys: {absent[:20]}"


def names_of_keys_in_the_app():
    """Every key a script or page names literally (Scripts/catalogue.py's reading)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("catalogue", LOCALES.parents[3] / "Scripts" / "catalogue.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.used_keys()


def test_every_english_key_is_named_by_the_app():
    """A message nothing shows any more is taken out (`Scripts/catalogue.py remove`), not left
    for translators to keep up."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("catalogue", LOCALES.parents[3] / "Scripts" / "catalogue.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    unused = sorted(set(load("en")) - module.quoted_keys())
    assert not unused, f"keys nothing in the app names: {unused}"


def test_every_key_the_app_names_is_in_english():
    english = load("en")
    unknown = sorted(key for key in names_of_keys_in_the_app() if key not in english)
    assert not unknown, f"keys the scripts or pages name that en.json lacks: {unknown}"


# Latin words a message in a non-Latin script may keep: product and service names, and the
# formats and protocols people know by these letters.
LATIN_ALLOWED = {
    "On", "the", "Map", "OnTheMap", "GitHub", "LinkedIn", "Google", "Facebook", "Apple", "Flickr",
    "Wikimedia", "Commons", "Moodle", "Canvas", "LTI", "CSV", "JSON", "GeoJSON", "URL", "https", "http",
    "OpenStreetMap", "ID", "PWA", "iOS", "Android", "QR", "Travel", "example", "com", "www", "you",
    "Lagos", "Nigeria", "Lyon", "France", "Ctrl", "JavaScript", "Leaflet",
    # Protocol names the server's course-launch and sign-in pages keep (the platform's words).
    "HTTP", "PKCE", "iss",
}


@pytest.mark.parametrize("where", SETS)
@pytest.mark.parametrize("tag", ["zh-Hans", "hi", "ar"])
def test_non_latin_catalogues_keep_no_english_words(tag, where):
    """A Chinese, Hindi or Arabic message with English words in it was left untranslated."""
    for key, message in load(tag, where).items():
        text = re.sub(r"\{[A-Za-z_][A-Za-z0-9_]*\}", "", message)
        text = re.sub(r"[\w.+-]+@[\w.-]+|https?://\S+|`[^`]*`|(?<!-)--[a-z][\w-]*|\b[A-Za-z]+(?:_[A-Za-z]+)+\b", "", text)  # addresses, commands, options, protocol fields
        text = re.sub(r"\b[A-Za-z_][A-Za-z0-9_]*, (plural|select|number)\b", "", text)
        text = re.sub(r"\b(zero|one|two|few|many|other|north|south|east|west)\s*\{", "{", text)
        # A select's options are named by the values the code passes (members, teacher, …).
        selectors = {selector for options in parse(message)[1].values() for selector in options}
        for selector in sorted(selectors, key=len, reverse=True):
            text = re.sub(r"(?<![\w-])" + re.escape(selector) + r"\s*\{", "{", text)
        words = set(re.findall(r"[A-Za-z]{2,}", text)) - LATIN_ALLOWED
        assert not words, f"{tag}: {key} keeps English words {sorted(words)}: {message!r}"
