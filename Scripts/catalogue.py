#!/usr/bin/env python3
"""The message catalogues, edited safely: the web app's (Sources/WebApp/Public/locales/<tag>.json)
or, with --server, the server's and command line's (Sources/Localization/Catalogues/<tag>.json).

  python3 Scripts/catalogue.py add FILE [--server]   merge FILE's messages into every catalogue
  python3 Scripts/catalogue.py missing [--server]    keys English has that a language lacks
  python3 Scripts/catalogue.py unused                web app English keys no script or page names
  python3 Scripts/catalogue.py remove KEY… [--server] take keys out of every catalogue

FILE is JSON: {"key": {"en": "…", "es": "…", …}, …}, every language of LANGUAGES given.
A new key goes after the last key that shares its first segment ("account.…" beside the
other account keys), or at the end; an existing key is replaced in place. The catalogues are
written under a lock, so several people (or scripts) adding keys at once never lose one."""
import fcntl
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = ROOT / "Sources" / "WebApp" / "Public"
LOCALES = PUBLIC / "locales"
SERVER_CATALOGUES = ROOT / "Sources" / "Localization" / "Catalogues"
# The app's languages, English first: languages.json, the one list of them.
LANGUAGES = [language["tag"] for language in json.loads((PUBLIC / "languages.json").read_text(encoding="utf-8"))]
KEY = re.compile(r"[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)+")


def read(tag):
    with open(LOCALES / f"{tag}.json", encoding="utf-8") as handle:
        return json.load(handle)


def write(tag, catalogue):
    text = json.dumps(catalogue, ensure_ascii=False, indent=2) + "\n"
    temporary = LOCALES / f".{tag}.json.tmp"
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(LOCALES / f"{tag}.json")


def placed(catalogue, key, message):
    """The catalogue with `key` set: in place when it exists, else beside its group."""
    if key in catalogue:
        catalogue[key] = message
        return catalogue
    group = key.split(".")[0] + "."
    items = list(catalogue.items())
    at = max((index for index, (name, _) in enumerate(items) if name.startswith(group)), default=len(items) - 1)
    items.insert(at + 1, (key, message))
    return dict(items)


def add(path):
    entries = json.loads(Path(path).read_text(encoding="utf-8"))
    problems = []
    for key, messages in entries.items():
        if not KEY.fullmatch(key):
            problems.append(f"{key}: not a dotted camelCase key")
        missing = [tag for tag in LANGUAGES if not isinstance(messages.get(tag), str) or not messages[tag].strip()]
        if missing:
            problems.append(f"{key}: no message for {', '.join(missing)}")
    if problems:
        sys.exit("nothing written:\n  " + "\n  ".join(problems))
    with open(Path(tempfile.gettempdir()) / "onthemap-catalogue.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for tag in LANGUAGES:
            catalogue = read(tag)
            for key, messages in entries.items():
                catalogue = placed(catalogue, key, messages[tag])
            write(tag, catalogue)
    print(f"{len(entries)} keys written to {len(LANGUAGES)} catalogues")


def missing():
    english = read("en")
    gaps = 0
    for tag in LANGUAGES[1:]:
        absent = [key for key in english if key not in read(tag)]
        gaps += len(absent)
        for key in absent:
            print(f"{tag}: {key}")
    return 1 if gaps else 0


def used_keys():
    """Every key a script or page names: t('key'), data-i18n="key", data-i18n-attr="a:key"."""
    keys = set()
    for path in list(PUBLIC.glob("js/*.js")) + list(PUBLIC.glob("*.html")):
        text = path.read_text(encoding="utf-8")
        keys.update(re.findall(r"""\bt\(\s*['"]([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)+)['"]""", text))
        keys.update(key for key in re.findall(r'data-i18n="([^"]+)"', text) if KEY.fullmatch(key))
        for attributes in re.findall(r'data-i18n-attr="([^"]+)"', text):
            keys.update(pair.split(":", 1)[1].strip() for pair in attributes.split(";") if ":" in pair and KEY.fullmatch(pair.split(":", 1)[1].strip()))
    return keys


def quoted_keys():
    """Every quoted string in a script that looks like a key: a key a script hands to t()
    through a variable (`t(done ? 'a.b' : 'a.c')`, a table of keys) still counts as used."""
    keys = set(used_keys())
    for path in PUBLIC.glob("js/*.js"):
        keys.update(re.findall(r"""['"`]([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)+)['"`]""", path.read_text(encoding="utf-8")))
    return keys


def unused():
    english = read("en")
    for key in sorted(set(english) - quoted_keys()):
        print(key)
    return 0


def remove(keys):
    """Takes `keys` out of every catalogue (a message nothing shows any more)."""
    with open(Path(tempfile.gettempdir()) / "onthemap-catalogue.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for tag in LANGUAGES:
            catalogue = read(tag)
            for key in keys:
                catalogue.pop(key, None)
            write(tag, catalogue)
    print(f"{len(keys)} keys removed from {len(LANGUAGES)} catalogues")


if __name__ == "__main__":
    arguments = [argument for argument in sys.argv[1:] if argument != "--server"]
    if "--server" in sys.argv:
        LOCALES = SERVER_CATALOGUES
    command = arguments[0] if arguments else ""
    if command == "add" and len(arguments) == 2:
        add(arguments[1])
    elif command == "missing":
        sys.exit(missing())
    elif command == "unused":
        sys.exit(unused())
    elif command == "remove" and len(arguments) > 1:
        remove(arguments[1:])
    else:
        sys.exit(__doc__)
