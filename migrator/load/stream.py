"""LOAD: split a YAML stream into documents as exact text slices, and join them back.

YAML forbids a line that starts with ``---`` or ``...`` (followed by a space or the end of the
line) inside any document content, so cutting at those lines is exact. Each chunk keeps its own
separator line and surrounding comments, so ``join(split(text)) == text`` byte for byte and an
untouched document is emitted exactly as it was read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_START = re.compile(r"---(?:[ \t]|$)")
_END = re.compile(r"\.\.\.(?:[ \t]|$)")
_TRIVIA = re.compile(r"[ \t]*(?:#.*)?$")
_DIRECTIVE = re.compile(r"%")


@dataclass(frozen=True)
class Chunk:
    """One document of a stream: ``head`` + ``body`` + ``tail`` is its exact text.

    ``head`` holds the separator line, directives, blank and comment lines before the content;
    ``tail`` holds the blank and comment lines (and a ``...`` marker) after it. ``line`` is the
    1-based line of the first body line in the whole stream.
    """

    head: str
    body: str
    tail: str
    line: int

    @property
    def text(self) -> str:
        return self.head + self.body + self.tail

    @property
    def has_content(self) -> bool:
        return bool(self.body.strip())


def split(text: str) -> list[Chunk]:
    """Split ``text`` into chunks at document-start markers."""
    lines = text.splitlines(keepends=True)
    groups: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(lines):
        if _START.match(line) and current:
            groups.append((start, current))
            current, start = [], number
        current.append(line)
    if current or not groups:
        groups.append((start, current))
    return [_chunk(first, group) for first, group in groups]


def _chunk(first_line: int, lines: list[str]) -> Chunk:
    begin = 0
    while begin < len(lines) and _is_head_line(lines[begin], begin == 0):
        begin += 1
    end = len(lines)
    while end > begin and _is_tail_line(lines[end - 1]):
        end -= 1
    return Chunk(
        head="".join(lines[:begin]),
        body="".join(lines[begin:end]),
        tail="".join(lines[end:]),
        line=first_line + begin + 1,
    )


def _is_head_line(line: str, first: bool) -> bool:
    bare = line.rstrip("\r\n")
    if first and _START.match(bare):
        return _TRIVIA.match(bare[3:]) is not None
    return _TRIVIA.match(bare) is not None or _DIRECTIVE.match(bare) is not None


def _is_tail_line(line: str) -> bool:
    bare = line.rstrip("\r\n")
    return bool(_TRIVIA.match(bare) or _END.match(bare) or _DIRECTIVE.match(bare))


def join(chunks: list[Chunk]) -> str:
    return "".join(chunk.text for chunk in chunks)
