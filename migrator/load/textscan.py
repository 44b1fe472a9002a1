"""LOAD stage: find legacy jobs in text that is not a manifest of its own - string values
of any YAML document, shell heredocs (``kubectl apply -f - <<EOF``), test snapshots.

Detection is textual (an ``apiVersion: kubeflow.org/...`` line and a legacy ``kind:`` line in
the same text), so a templated or broken job is still found; converting is left to the
callers, which report what they could not convert.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from migrator.load import detect
from migrator.results import FrozenValue, _set

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only

SHELL_SUFFIXES = (".sh", ".bash", ".zsh")
SNAPSHOT_SUFFIXES = (".snap",)
_HEREDOC = re.compile(r"<<(?P<dash>-?)[ \t]*(?P<quote>['\"]?)(?P<word>[A-Za-z_][A-Za-z0-9_]*)"
                      r"(?P=quote)")


@functools.cache
def _api() -> re.Pattern[str]:
    """An ``apiVersion: <legacy group>/`` line (mappings/kinds.yaml ``legacyGroups``), or
    such an entry of a flow mapping (JSON)."""
    groups = "|".join(map(re.escape, detect.legacy_groups()))
    return re.compile(r"(?:^[ \t]*(?:-[ \t]*)?|[{,][ \t]*)[\"']?apiVersion[\"']?[ \t]*:[ \t]*"
                      r"(?:[!&][^\s,\[\]{}]*[ \t]+)*[\"']?(?:" + groups + r")/", re.M)


def legacy_jobs(text: str) -> list[tuple[int, str]]:
    """(0-based line, kind) of each legacy job written out in ``text``: in block or flow
    (JSON) style, its names quoted or tagged; spelled with escapes (``detect.unescaped``)
    when nothing is found otherwise (a line break escaped away then shifts the lines that
    follow)."""
    if not detect.is_candidate(text):
        return []
    found = _jobs(text)
    if not found:
        decoded = detect.unescaped(text)
        found = _jobs(decoded) if decoded is not text else found
    return found


def _jobs(text: str) -> list[tuple[int, str]]:
    if _api().search(text) is None:
        return []
    found: list[tuple[int, str]] = []
    line = done = 0  # lines counted up to ``done`` once (linear in the text, not per match)
    for match in detect.legacy_kind_line().finditer(text):
        line += text.count("\n", done, match.start())
        done = match.start()
        found.append((line, match["kind"]))
    return found


@fields_only
class Heredoc(FrozenValue):
    """A here-document: its body is ``lines[first:last]``; ``lines[last]`` is the
    delimiter line (or the end of the text when the delimiter is missing). A frozen value
    written by hand: see migrator/results.py."""

    FIELDS = ("first", "last", "body", "strip_tabs", "quoted")
    first: int
    last: int
    body: str
    strip_tabs: bool  # <<- : leading tabs are removed from each body line
    quoted: bool  # <<'EOF' : the shell expands nothing in the body

    def __init__(self, first: int, last: int, body: str, strip_tabs: bool,
                 quoted: bool) -> None:
        _set(self, "first", first)
        _set(self, "last", last)
        _set(self, "body", body)
        _set(self, "strip_tabs", strip_tabs)
        _set(self, "quoted", quoted)


def opens_heredoc(line: str) -> bool:
    """Whether a line starts a here-document (``cat <<EOF > job.yaml``)."""
    return _HEREDOC.search(line) is not None


def heredocs(text: str) -> tuple[list[str], list[Heredoc]]:
    """The text's lines (with their ends) and its here-documents, in order."""
    lines = text.splitlines(keepends=True)
    found: list[Heredoc] = []
    number = 0
    while number < len(lines):
        pending = list(_HEREDOC.finditer(lines[number]))
        number += 1
        for match in pending:
            first = number
            strip = bool(match["dash"])
            while number < len(lines):
                bare = lines[number].rstrip("\r\n")
                if (bare.lstrip("\t") if strip else bare) == match["word"]:
                    break
                number += 1
            body = "".join(lines[first:number])
            found.append(Heredoc(first, number, body, strip, bool(match["quote"])))
            number += 1
    return lines, found


@fields_only
class Hit(FrozenValue):
    """A legacy job found inside a string value."""

    FIELDS = ("path", "line", "kind")
    path: tuple[str | int, ...]
    line: int  # 1-based line in the document's text (best effort: the value's first line)
    kind: str

    def __init__(self, path: tuple[str | int, ...], line: int, kind: str) -> None:
        _set(self, "path", path)
        _set(self, "line", line)
        _set(self, "kind", kind)


def in_strings(root: Any, line_offset: int = 0) -> Iterator[Hit]:
    """Legacy jobs written out in the string values of a loaded (ruamel) document."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        items: list[tuple[str | int, Any]]
        if isinstance(node, dict):
            items = [(str(k), v) for k, v in node.items()]
        elif isinstance(node, list):
            items = list(enumerate(node))
        else:
            continue
        for key, value in reversed(items):
            if isinstance(value, str):
                base = value_line(node, key)
                for offset, kind in legacy_jobs(value):
                    yield Hit((*path, key), line_offset + base + offset, kind)
            else:
                stack.append((value, (*path, key)))


def value_line(node: Any, key: str | int) -> int:
    """The 1-based line where the text of ``node[key]`` starts (a block scalar's content
    starts on the line after its indicator)."""
    lc = getattr(node, "lc", None)
    if lc is None:
        return 1
    original: Any = key if isinstance(node, list) else next(
        (k for k in node if str(k) == key), key)
    try:
        line, _ = lc.item(original) if isinstance(node, list) else lc.value(original)
        value = node[original]
    except (KeyError, IndexError, TypeError, AttributeError):
        return 1
    block = type(value).__name__ in ("LiteralScalarString", "FoldedScalarString")
    return int(line) + (2 if block else 1)

