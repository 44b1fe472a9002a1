"""LOAD: split a YAML stream into documents as exact text slices, and join them back.

YAML forbids a line that starts with ``---`` or ``...`` (followed by a space or the end of the
line) inside any document content, so cutting at those lines is exact. Each chunk keeps its own
separator line and surrounding comments, so ``join(split(text)) == text`` byte for byte and an
untouched document is emitted exactly as it was read.
"""

from __future__ import annotations

import functools
import re

from migrator.results import FrozenValue, _set


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(document start, document end, trivia) line patterns, compiled on first use (every
    run imports this module; a run over files without Kubeflow documents never splits)."""
    return (re.compile(r"---(?:[ \t]|$)"), re.compile(r"\.\.\.(?:[ \t]|$)"),
            re.compile(r"[ \t]*(?:#.*)?$"))


class Chunk(FrozenValue):
    """One document of a stream: ``head`` + ``body`` + ``tail`` is its exact text.

    ``head`` holds the separator line, directives, blank and comment lines before the content;
    ``tail`` holds the blank and comment lines (and a ``...`` marker) after it. ``line`` is the
    1-based line of the first body line in the whole stream. (A frozen value written by hand:
    a generated dataclass costs its methods' compilation at every start-up.)
    """

    FIELDS = ("head", "body", "tail", "line")
    head: str
    body: str
    tail: str
    line: int

    def __init__(self, head: str, body: str, tail: str, line: int) -> None:
        _set(self, "head", head)
        _set(self, "body", body)
        _set(self, "tail", tail)
        _set(self, "line", line)

    @property
    def text(self) -> str:
        return self.head + self.body + self.tail

    @property
    def has_content(self) -> bool:
        return bool(self.body.strip())


def split(text: str) -> list[Chunk]:
    """Split ``text`` into chunks at document-start markers."""
    start_line = _patterns()[0]
    lines = text.splitlines(keepends=True)
    groups: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(lines):
        if start_line.match(line) and current:
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
    start, _, trivia = _patterns()
    bare = line.rstrip("\r\n")
    if first and start.match(bare):
        return trivia.match(bare[3:]) is not None
    return trivia.match(bare) is not None or bare.startswith("%")


def _is_tail_line(line: str) -> bool:
    _, end, trivia = _patterns()
    bare = line.rstrip("\r\n")
    return bool(trivia.match(bare) or end.match(bare) or bare.startswith("%"))


def join(chunks: list[Chunk]) -> str:
    return "".join(chunk.text for chunk in chunks)
