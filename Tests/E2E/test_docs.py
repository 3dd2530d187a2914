"""The documentation's links and command lines, checked against the repository and the CLI.

No browser and no server: this file asks for no fixture of conftest.py, so none starts.

- Every relative link in every tracked Markdown file (`git ls-files '*.md'`, nothing under
  .build) points to a file or folder that exists, and every `#anchor` (in the same file or
  another Markdown file) matches a heading's GitHub-style slug or an explicit `<a id>`.
- Every `onthemap …` command line in a fenced code block parses with the current CLI:
  `$ONTHEMAP_BIN check-command-line -- <words after onthemap>` exits 0, or 1 with the reason.

Run alone: ONTHEMAP_BIN=.build/debug/onthemap python3 -m pytest Tests/E2E/test_docs.py -q
"""
import html
import os
import re
import shlex
import subprocess
import unicodedata
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target) and ![alt](target); the target may be wrapped in <> and followed by a title.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.IGNORECASE)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")

# Code blocks whose lines are shell commands; other languages (swift, json, …) are not read.
SHELL_BLOCKS = {"", "sh", "bash", "shell", "console", "text"}
# A command line that shows the form of a command rather than one to run: `<key>`, `…`.
PLACEHOLDER = re.compile(r"<[A-Za-z][^<>]*>|…|\.\.\.")
SHELL_OPERATORS = {"&&", "||", ";", "|", "&", "(", ")", ";;", "|&"}
REDIRECTIONS = {">", ">>", "<", "<<", ">&", "&>", "2>", "2>>"}
# Words that may come before `onthemap` on a line and run it.
LAUNCHERS = {"sudo", "exec", "env", "time", "nohup"}


def markdown_files():
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True)
    return sorted(
        ROOT / name for name in listed.stdout.splitlines()
        if name and not name.startswith(".build") and "/.build" not in name and (ROOT / name).exists()
    )


def split_blocks(text):
    """(prose lines, code blocks): prose as (line number, text) outside fences; each code
    block as (language, [(line number, text)])."""
    prose, blocks = [], []
    fence, language, lines = None, "", []
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence, language, lines = match.group(1), match.group(2).lower(), []
            else:
                prose.append((number, line))
        elif line.strip().startswith(fence[0] * len(fence)) and line.strip().strip(fence[0]) == "":
            blocks.append((language, lines))
            fence = None
        else:
            lines.append((number, line))
    if fence is not None:
        blocks.append((language, lines))
    return prose, blocks


def github_slug(heading):
    """The anchor GitHub gives a heading: the text as rendered, lower case, punctuation
    dropped, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    text = html.unescape(text)  # &lt; is the character it names, then dropped as punctuation
    text = text.replace("`", "").lower()
    kept = []
    for character in text:
        category = unicodedata.category(character)
        if character in " -_" or category[0] in "LN" or category == "Mn":
            kept.append(character)
    return "".join(kept).replace(" ", "-")


@lru_cache(maxsize=None)
def anchors(path):
    """Every anchor a Markdown file defines: heading slugs (repeats get -1, -2, …) and
    `<a id>` / `<a name>`."""
    prose, _ = split_blocks(path.read_text(encoding="utf-8"))
    found, seen = set(), {}
    for _, line in prose:
        found.update(HTML_ANCHOR.findall(line))
        match = HEADING.match(line)
        if not match:
            continue
        slug = github_slug(match.group(2))
        if slug in seen:
            seen[slug] += 1
            found.add(f"{slug}-{seen[slug]}")
        else:
            seen[slug] = 0
            found.add(slug)
    return frozenset(found)


def links(path):
    """(line number, target) for every link in the prose of a Markdown file."""
    prose, _ = split_blocks(path.read_text(encoding="utf-8"))
    for number, line in prose:
        definition = REFERENCE_DEFINITION.match(line)
        if definition:
            yield number, definition.group(1)
            continue
        for target in INLINE_LINK.findall(INLINE_CODE.sub("", line)):
            yield number, target


def link_problem(source, target):
    """Why a link from `source` does not resolve, or None."""
    if not target or SCHEME.match(target) or target.startswith("//"):
        return None  # an absolute URL: not ours to check offline
    file_part, _, anchor = target.partition("#")
    file_part = re.sub(r"\?.*$", "", file_part)
    if file_part:
        base = ROOT if file_part.startswith("/") else source.parent
        destination = (base / file_part.lstrip("/")).resolve()
        if not destination.exists():
            return f"{file_part} does not exist"
        try:
            destination.relative_to(ROOT)
        except ValueError:
            return f"{file_part} is outside the repository"
    else:
        destination = source
    if anchor:
        if destination.suffix.lower() != ".md" or destination.is_dir():
            return None  # anchors into code files (#L10) are GitHub's, not headings
        if anchor not in anchors(destination):
            return f"no heading in {destination.relative_to(ROOT)} has the anchor #{anchor}"
    return None


def test_every_relative_link_and_anchor_resolves():
    files = markdown_files()
    assert files, "git ls-files found no Markdown files"
    problems = []
    for path in files:
        for number, target in links(path):
            problem = link_problem(path, target)
            if problem:
                problems.append(f"{path.relative_to(ROOT)}:{number}: ({target}) {problem}")
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_the_slug_rule_matches_githubs():
    assert github_slug("Two commands") == "two-commands"
    assert github_slug("1.2 The response prefix") == "12-the-response-prefix"
    assert github_slug("Sign in with other accounts") == "sign-in-with-other-accounts"
    assert github_slug("`--trusted-proxy` and TLS") == "--trusted-proxy-and-tls"
    assert github_slug("Load under attack: 1,000 clients") == "load-under-attack-1000-clients"


# MARK: command lines

def logical_lines(block_lines):
    """Joins lines continued with a trailing backslash; drops a leading `$ ` prompt."""
    pending, start = "", None
    for number, line in block_lines:
        if start is None:
            start = number
        stripped = line.rstrip()
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        text = (pending + stripped).strip()
        if text.startswith("$ "):
            text = text[2:]
        yield start, text
        pending, start = "", None
    if pending.strip():
        yield start, pending.strip()


def without_comment(line):
    """The line without a shell comment: a `#` at a word's start, outside quotes (shlex
    alone would also cut at a `#` inside a word, such as a URL's fragment)."""
    quote = None
    for index, character in enumerate(line):
        if quote:
            if character == quote:
                quote = None
        elif character in "'\"":
            quote = character
        elif character == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip()
    return line


def commands(line):
    """The word lists of each simple command on a shell line (operators split them,
    redirections and their targets are dropped)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    current, skip_next = [], False
    for token in lexer:
        if skip_next:
            skip_next = False
        elif token in SHELL_OPERATORS:
            if current:
                yield current
            current = []
        elif token in REDIRECTIONS or re.fullmatch(r"\d?[<>]+&?", token):
            skip_next = True
        else:
            current.append(token)
    if current:
        yield current


def onthemap_words(words):
    """The words after `onthemap` when this simple command runs it, else None. Accepts
    environment assignments, `sudo`/`env`/…, `swift run [options]` and a path to the binary
    before it."""
    index = 0
    while index < len(words):
        word = words[index]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word) or word in LAUNCHERS:
            index += 1
        elif word == "swift" and index + 1 < len(words) and words[index + 1] == "run":
            index += 2
            while index < len(words) and words[index].startswith("-"):
                # `swift run -c release onthemap …`: -c takes a value.
                index += 2 if words[index] in ("-c", "--configuration") else 1
        else:
            break
    if index < len(words) and (words[index] == "onthemap" or words[index].endswith("/onthemap")):
        return words[index + 1:]
    return None


def documented_command_lines():
    """(where, words after onthemap) for every checkable command line in the docs."""
    found = []
    for path in markdown_files():
        _, blocks = split_blocks(path.read_text(encoding="utf-8"))
        for language, block_lines in blocks:
            if language not in SHELL_BLOCKS:
                continue
            for number, line in logical_lines(block_lines):
                line = without_comment(line)
                # Placeholder lines (`<key>`, `…`) show a command's form, not a command to
                # run: their words are not real values, so parsing them would prove nothing.
                if "onthemap" not in line or PLACEHOLDER.search(line):
                    continue
                try:
                    simple_commands = list(commands(line))
                except ValueError:
                    continue  # not shell (an unbalanced quote in sample output)
                for words in simple_commands:
                    arguments = onthemap_words(words)
                    if arguments is not None:
                        found.append((f"{path.relative_to(ROOT)}:{number}", arguments))
    return found


def onthemap_binary():
    binary = Path(os.environ.get("ONTHEMAP_BIN", ROOT / ".build" / "debug" / "onthemap"))
    return binary if binary.is_absolute() else ROOT / binary


def test_every_onthemap_command_line_in_the_docs_parses():
    binary = onthemap_binary()
    if not binary.exists():
        pytest.fail(f"{binary} not found: run `swift build` first or set ONTHEMAP_BIN")
    lines = documented_command_lines()
    assert lines, "no onthemap command line found in the docs' code blocks"
    problems = []
    for where, arguments in lines:
        result = subprocess.run(
            [str(binary), "check-command-line", "--", *arguments],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
        )
        if result.returncode != 0:
            reason = (result.stderr or result.stdout).strip().splitlines()
            problems.append(f"{where}: onthemap {shlex.join(arguments)}: {reason[0] if reason else result.returncode}")
    assert not problems, "command lines that do not parse:\n" + "\n".join(problems)


def test_the_command_reader_finds_what_the_shell_would_run():
    line = without_comment("ONTHEMAP_PORT=9000 swift run -c release onthemap serve --demo  # run it")
    assert [onthemap_words(words) for words in commands(line)] == [["serve", "--demo"]]
    line = "onthemap export --format csv > map.csv && onthemap logout"
    assert [onthemap_words(words) for words in commands(line)] == [["export", "--format", "csv"], ["logout"]]
    assert without_comment("onthemap admin reset-link a@b.c --public-url https://x.org/#top") \
        == "onthemap admin reset-link a@b.c --public-url https://x.org/#top"
    assert onthemap_words(["bash", "Scripts/install.sh"]) is None
    assert PLACEHOLDER.search("onthemap admin disable <account>")
    assert PLACEHOLDER.search("client-id=<client id>,client-secret-env=X")
    assert not PLACEHOLDER.search("onthemap export --format geojson > map.geojson")
