"""Test helpers for reports: the CLI as a process, the Actions runner's command parser,
well-formedness checks for every report format, and the corpus copied N times."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree as ET

from tests.goldens import ROOT

FORMATS = {"json": "r.json", "markdown": "r.md", "html": "r.html", "sarif": "r.sarif",
           "junit": "r.xml"}


@dataclass
class Run:
    """A finished CLI process; output decoded leniently (the tool must not care)."""

    returncode: int
    stdout: str
    stderr: str
    raw_stdout: bytes
    raw_stderr: bytes


def cli(*args: str | os.PathLike[str], cwd: Path | None = None,
        env: dict[str, str] | None = None, stdin: bytes | None = None,
        github: bool = False, summary: Path | None = None) -> Run:
    """Run ``python -m migrator`` as a user would (``github``: as on an Actions runner)."""
    environment = {k: v for k, v in os.environ.items()
                   if not k.startswith(("GITHUB_", "PRE_COMMIT", "NO_COLOR", "FORCE_COLOR"))}
    environment["PYTHONPATH"] = str(ROOT)
    if github:
        environment["GITHUB_ACTIONS"] = "true"
        if summary is not None:
            environment["GITHUB_STEP_SUMMARY"] = str(summary)
    environment.update(env or {})
    argv = [sys.executable, "-m", "migrator", *map(os.fsdecode, args)]
    proc = subprocess.run(argv, input=stdin, capture_output=True, cwd=cwd or ROOT,
                          env=environment, timeout=600, check=False)
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"),
               proc.stderr.decode("utf-8", "replace"), proc.stdout, proc.stderr)


# --- the GitHub Actions runner's view of a step's output ------------------------------------

# The runner reads stdout and stderr line by line (.NET ReadLine: \n, \r or \r\n end a line),
# trims each line (Unicode white space) and treats it as a workflow command when it then
# starts with "::". ``::stop-commands::TOKEN`` stops that until a line ``::TOKEN::``.
LINE_END = re.compile(r"\r\n|\r|\n")
OWN_ANNOTATION = re.compile(
    r"::(error|warning|notice) (file=[^,:\r\n]*,)?(line=\d+,)?(col=\d+,)?title=[A-Z]\d{3}::"
    r"|::notice::\d+ more in the report \(")


def workflow_commands(output: str) -> list[str]:
    """The lines the runner would execute as workflow commands, in order."""
    commands: list[str] = []
    stop_token: str | None = None
    for raw in LINE_END.split(output):
        line = raw.strip()
        if stop_token is not None:
            if line == f"::{stop_token}::":
                stop_token = None
            continue
        if line.startswith("::stop-commands::"):
            stop_token = line[len("::stop-commands::"):]
            continue
        # "::cmd" at the start of a line, or the older "##[cmd]" anywhere in one (the runner
        # tries the latter when a line is not a "::" command)
        if line.startswith("::") or "##[" in line:
            commands.append(line)
    return commands


def injected_commands(output: str) -> list[str]:
    """Workflow commands that are not the tool's own annotations (must always be empty).

    The tool's own ``::error file=F,line=L,col=C,title=CODE::message`` lines are allowed;
    anything else (``::add-mask::``, ``::error::`` without the tool's properties, ...) was
    smuggled in through untrusted text.
    """
    return [line for line in workflow_commands(output) if not OWN_ANNOTATION.match(line)]


def unwrapped(output: str) -> str:
    """Machine output without the tool's own ``::stop-commands::TOKEN`` ... ``::TOKEN::``
    wrapper (written around output holding a line the runner would run, ``##[`` included)."""
    first, _, rest = output.partition("\n")
    if not first.startswith("::stop-commands::"):
        return output
    closing = f"::{first[len('::stop-commands::'):]}::\n"
    assert rest.endswith(closing), output[-200:]
    return rest[:-len(closing)]


def stop_tokens_are_unguessable(output: str, hostile: list[str]) -> None:
    """A ``::stop-commands::`` token the runner obeys never comes from the input (inside a
    stopped region the runner reads nothing but the resume line, so input text that reads
    like a stop command there is inert)."""
    stop_token: str | None = None
    for raw in LINE_END.split(output):
        line = raw.strip()
        if stop_token is not None:
            if line == f"::{stop_token}::":
                stop_token = None
            continue
        if line.startswith("::stop-commands::"):
            stop_token = line[len("::stop-commands::"):]
            assert len(stop_token) >= 16, line
            assert not any(stop_token in text for text in hostile), line


# --- well-formedness per format -------------------------------------------------------------

XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def check_json(text: str) -> object:
    return json.loads(text)


def check_xml(text: str) -> ET.Element:
    assert not XML_FORBIDDEN.search(text), "a character XML 1.0 forbids"
    return ET.fromstring(text.encode("utf-8", "strict"))


VOID = {"meta", "br", "hr", "img", "input", "link", "col", "wbr", "area", "base", "source"}


class _Balance(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key == "id" and value is not None:
                if value in self.ids:
                    self.errors.append(f"duplicate id {value}")
                self.ids.add(value)
            if key in ("href", "src") and value is not None:
                self.links.append(value)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else ''}>")
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()


def check_html(text: str) -> _Balance:
    """Tags balance, ids are unique, internal links resolve, nothing is fetched from outside."""
    assert text.startswith("<!DOCTYPE html>")
    assert not XML_FORBIDDEN.search(text), "a control character in the HTML"
    parser = _Balance()
    parser.feed(text)
    parser.close()
    assert parser.errors == [], parser.errors[:5]
    assert parser.stack == [], parser.stack
    for link in parser.links:
        assert link.startswith("#"), link
        assert link == "#" or link[1:] in parser.ids or "=" in link, link
    return parser


FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def markdown_outside_code(text: str) -> str:
    """The Markdown text with fenced blocks and code spans removed (CommonMark rules)."""
    kept: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                kept.append("")
                continue
            kept.append(line)
        elif match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                and line.strip() == match.group(1):
            fence = None
            kept.append("")
    assert fence is None, "an unclosed code fence"
    return "\n".join(_strip_spans(line) for line in kept)


PUNCTUATION = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _strip_spans(line: str) -> str:
    """The line without code spans and backslash escapes (``\\<`` is literal text)."""
    result, position = [], 0
    while position < len(line):
        char = line[position]
        if char == "\\" and position + 1 < len(line) and line[position + 1] in PUNCTUATION:
            result.append("·")
            position += 2
            continue
        if char != "`":
            result.append(char)
            position += 1
            continue
        run = len(line[position:]) - len(line[position:].lstrip("`"))
        closer = re.compile(r"(?<!`)" + "`" * run + r"(?!`)")
        found = closer.search(line, position + run)
        if found is None:  # a lone backtick run is literal text
            result.append("·" * run)
            position += run
            continue
        result.append("·")
        position = found.end()
    return "".join(result)


ALLOWED_MARKDOWN_TAGS = {"details", "summary", "code", "br", "b", "sub", "sup", "span", "a"}
TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)")


LIVE_REFERENCE = re.compile(r"(?:@|(?<!&)#|\bGH-)\w+", re.I)  # (not an entity: &#96;)


def check_markdown(text: str) -> str:
    """Balanced <details>, closed fences and spans, no HTML but the renderer's own tags."""
    assert "\r" not in text, "a carriage return splits a table row"
    outside = markdown_outside_code(text)
    # GitHub acts on a mention (notifies) and an issue reference (links it back) outside code
    assert LIVE_REFERENCE.search(outside) is None, LIVE_REFERENCE.findall(outside)
    tags = TAG.findall(outside)
    assert {name.lower() for _, name in tags} <= ALLOWED_MARKDOWN_TAGS, \
        sorted({name for _, name in tags} - ALLOWED_MARKDOWN_TAGS)
    for name in ("details", "summary", "code"):
        opened = sum(1 for slash, tag in tags if tag == name and not slash)
        closed = sum(1 for slash, tag in tags if tag == name and slash)
        assert opened == closed, (name, opened, closed)
    depth = 0
    for slash, tag in tags:
        if tag == "details":
            depth += -1 if slash else 1
            assert depth >= 0
    return outside


BRACES = re.compile(r"\{([^{}]*)\}")


def expand_braces(text: str) -> set[str]:
    """Every name written in ``text``'s code spans, with ``{a,b}`` and ``{00..19}`` (shell
    brace expansion) expanded: how the Markdown report folds repeated paths."""
    names: set[str] = set()
    for span in re.findall(r"`+([^`]+)`+", text):
        pending = [span.strip()]
        while pending:
            item = pending.pop()
            match = BRACES.search(item)
            if match is None:
                names.add(item)
                continue
            inner = match.group(1)
            if ".." in inner and "," not in inner:
                low, high = inner.split("..")
                choices = [str(n).zfill(len(low)) for n in range(int(low), int(high) + 1)]
            else:
                choices = inner.split(",")
            pending += [item[:match.start()] + c + item[match.end():] for c in choices]
    return names


# --- the corpus copied N times --------------------------------------------------------------

def corpus_copies(corpus: Path, destination: Path, times: int = 20) -> Path:
    """The corpus copied ``times`` times under ``destination`` (copy-00 ... copy-NN).

    Built once per destination: a marker file says it is complete.
    """
    marker = destination / ".complete"
    if marker.is_file() and marker.read_text() == str(times):
        return destination
    if destination.exists():
        shutil.rmtree(destination)
    destination.mkdir(parents=True)
    for number in range(times):
        shutil.copytree(corpus, destination / f"copy-{number:02d}",
                        ignore=shutil.ignore_patterns(".git"))
    marker.write_text(str(times))
    return destination
