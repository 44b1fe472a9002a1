"""Template stage: split Go-template and envsubst text into literal text and actions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Dialect = Literal["go", "envsubst"]
Kind = Literal["value", "control", "comment", "assign"]

CONTROL_WORDS = {"if", "else", "end", "range", "with", "define", "block", "break", "continue"}
_ASSIGN = re.compile(r"^\$[A-Za-z0-9_]*\s*:?=")
_ENV = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


class TemplateSyntaxError(ValueError):
    """The text cannot be split into actions (an unclosed ``{{`` or string)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


@dataclass(frozen=True)
class Action:
    """One template action: ``{{ ... }}`` or ``$VAR``/``${VAR}``, with its offsets in the text."""

    start: int
    end: int
    text: str
    body: str
    kind: Kind
    keyword: str = ""
    trim_left: bool = False
    trim_right: bool = False

    @property
    def outputs(self) -> bool:
        return self.kind == "value"


def tokenize(text: str, dialect: Dialect) -> list[Action]:
    """All actions of ``text`` in order; raises TemplateSyntaxError for unparseable actions."""
    return tokenize_go(text) if dialect == "go" else tokenize_envsubst(text)


def tokenize_envsubst(text: str) -> list[Action]:
    return [Action(m.start(), m.end(), m.group(0), m.group(1) or m.group(2) or "", "value")
            for m in _ENV.finditer(text)]


def tokenize_go(text: str) -> list[Action]:
    actions: list[Action] = []
    pos = 0
    while True:
        start = text.find("{{", pos)
        if start < 0:
            return actions
        end = _action_end(text, start)
        raw = text[start:end]
        inner = raw[2:-2]
        trim_left = inner.startswith(("- ", "-\n", "-\t")) or inner == "-"
        trim_right = inner.endswith((" -", "\n-", "\t-"))
        body = inner[1:] if trim_left else inner
        body = body[:-1] if trim_right else body
        body = body.strip()
        actions.append(Action(start, end, raw, body, *_classify(body),
                              trim_left=trim_left, trim_right=trim_right))
        pos = end


def _classify(body: str) -> tuple[Kind, str]:
    if body.startswith("/*"):
        return "comment", "comment"
    if _ASSIGN.match(body):
        return "assign", "assign"
    word = re.split(r"[\s(]", body, maxsplit=1)[0] if body else ""
    if word in CONTROL_WORDS:
        return "control", word
    return "value", word


def _action_end(text: str, start: int) -> int:
    """Offset just past the ``}}`` closing the action at ``start`` (strings, comments skipped)."""
    i = start + 2
    n = len(text)
    while i < n:
        if text.startswith("/*", i) and text[start + 2:i].strip(" -\t\n") == "":
            close = text.find("*/", i + 2)
            if close < 0:
                raise TemplateSyntaxError("unclosed template comment", start)
            i = close + 2
            continue
        ch = text[i]
        if ch == '"' or ch == "'":
            j = i + 1
            while j < n and text[j] != ch:
                if text[j] == "\n":
                    raise TemplateSyntaxError("unterminated string in template action", start)
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise TemplateSyntaxError("unterminated string in template action", start)
            i = j + 1
            continue
        if ch == "`":
            j = text.find("`", i + 1)
            if j < 0:
                raise TemplateSyntaxError("unterminated raw string in template action", start)
            i = j + 1
            continue
        if text.startswith("}}", i):
            return i + 2
        if text.startswith("{{", i):
            raise TemplateSyntaxError("template action opened inside another action", start)
        i += 1
    raise TemplateSyntaxError("unclosed template action", start)
