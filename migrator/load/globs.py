"""LOAD: gitignore-style globs (--include, --exclude, the config's, .gitignore files) matched in
bounded time.

pathspec turns a glob into a Python regular expression, which backtracks: every ``*`` more in a
pattern multiplies the time of a failing match by the length of a name (a path's depth for a
``**`` segment), so ``**********x`` in a .gitignore took minutes for one file. A run of ``*``
inside a path segment is one ``*`` (as git reads it, so nothing changes), and a pattern with
more than ``MAX_STARS`` wildcards (``MAX_SEGMENT_STARS`` in one segment) is refused: on the
command line and in the config file a usage error, in a .gitignore the pattern is not used and
the file is reported. A .gitignore line is read as git reads it (``git_pattern``: a line
that matches nothing in git is left out, a bracket expression is written out as git's
wildmatch reads it), and all the patterns of a spec are matched at once first (``Matcher``).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from typing import Any

MAX_STARS = 4  # wildcards in one pattern: each ``*`` in a segment, each ``**`` segment but
# a leading one
MAX_SEGMENT_STARS = 3  # ``*`` in one path segment (a name may be 255 characters long)


def spec(patterns: Iterable[str]) -> Any:
    """A ``pathspec.GitIgnoreSpec`` of ``patterns``, each in its normal form (``normal``); the
    caller has refused the patterns that are ``too_complex``. Its matching is ``Matcher``'s."""
    import pathspec

    return Matcher(pathspec.GitIgnoreSpec.from_lines([normal(p) for p in patterns]))


class Matcher:
    """A ``GitIgnoreSpec`` with one expression of all its patterns in front: a name that no
    pattern matches (most names) is told so in one ``re`` match, not one call per pattern
    (2,000 .gitignore lines made a walk several seconds slower). Only a name some pattern
    matches asks the spec (which pattern is last decides: negations, folders)."""

    __slots__ = ("any", "normalize", "spec")

    def __init__(self, spec: Any) -> None:
        from pathspec.util import normalize_file  # (the path as the spec sees it)

        self.spec = spec
        self.any = _any_of(spec)
        self.normalize = normalize_file

    @property
    def patterns(self) -> Any:
        return self.spec.patterns

    def check_file(self, path: str) -> Any:
        """The spec's ``check_file`` (its ``include``: True, False, or None when no pattern
        matched)."""
        path = self.normalize(path)
        if self.any is not None and self.any.match(path) is None:
            return _UNMATCHED
        return self.spec.check_file(path)

    def match_file(self, path: str) -> bool:
        path = self.normalize(path)
        if self.any is not None and self.any.match(path) is None:
            return False
        return bool(self.spec.match_file(path))


class _Unmatched:
    """``check_file``'s answer when no pattern matched."""

    __slots__ = ()
    include = None


_UNMATCHED = _Unmatched()


_ANYWHERE = "^(?:.+/)?"  # how pathspec starts a pattern without a slash


def _any_of(spec: Any) -> re.Pattern[str] | None:
    """One expression that matches where any pattern of ``spec`` does (None when one pattern's
    expression cannot be combined: then every pattern is asked)."""
    anywhere, parts = [], []  # (a pattern without a slash matches in any folder)
    for pattern in getattr(spec, "patterns", ()):
        if getattr(pattern, "include", None) is None:
            continue  # (an empty line, a comment: no expression)
        regex = getattr(pattern, "regex", None)
        source = getattr(regex, "pattern", None)
        if not isinstance(source, str) or not source.startswith("^") or "(?P=" in source:
            return None  # (pathspec searches; only an anchored expression matches alike)
        source = re.sub(r"\(\?P<\w+>", "(?:", source)
        if source.startswith(_ANYWHERE):
            anywhere.append(source[len(_ANYWHERE):])
        else:
            parts.append(source)
    if anywhere:  # one ``(?:.+/)?`` for all: each folder of a path is tried once
        parts.append(_ANYWHERE + "(?:" + "|".join(f"(?:{part})" for part in anywhere) + ")")
    if not parts:
        return re.compile(r"(?!)")
    try:
        return re.compile("|".join(f"(?:{part})" for part in parts))
    except (re.error, RecursionError, OverflowError):
        return None


def git_pattern(line: str) -> str | None:
    """A .gitignore ``line`` as pathspec can read it, with git's meaning; None when git's
    pattern matches nothing (``!`` alone, a trailing ``\\``, an unclosed ``[``, a bracket
    of reversed ranges only: wildmatch.c in git v2.39.5, ``dowild``, lines 69-77 and 179-263)."""
    pattern = line.rstrip("\n\r")
    if pattern.startswith("#") or not pattern.strip():
        return pattern
    body = pattern[1:] if pattern.startswith("!") else pattern
    stripped = body.rstrip(" ")  # (git trims trailing spaces unless escaped)
    if len(body) > len(stripped) and stripped.endswith("\\") and \
            (len(stripped) - len(stripped.rstrip("\\"))) % 2:
        stripped += " "  # an escaped space stays
    if not stripped or (len(stripped) - len(stripped.rstrip("\\"))) % 2:
        return None  # nothing left, or a trailing backslash: git never matches
    out = _brackets(stripped)
    if out is None:
        return None
    return (pattern[0] if pattern.startswith("!") else "") + out


def ignore_spec(patterns: list[str]) -> Any:
    """``spec`` of a .gitignore's ``patterns`` (``git_pattern``'s); a pattern pathspec still
    cannot read is left out (never an error: one bad line does not stop a walk)."""
    try:
        return spec(patterns)
    except Exception:  # (pathspec's errors differ by version)
        return spec([p for p in patterns if _readable(p)])


def _readable(pattern: str) -> bool:
    try:
        spec([pattern])
    except Exception:  # (as above)
        return False
    return True


def _brackets(pattern: str) -> str | None:
    """``pattern`` with each bracket expression as git reads it (``dowild``) written out as a
    set pathspec copies into its expression unchanged; None when a bracket can match nothing
    (git's pattern then never matches) or is not closed (git aborts the match)."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            out.append(pattern[index:index + 2])
            index += 2
            continue
        if char != "[":
            out.append(char)
            index += 1
            continue
        index += 1
        negated = index < len(pattern) and pattern[index] in "!^"
        index += negated
        chars: set[str] = set()
        ranges: list[tuple[str, str]] = []
        previous = ""
        first = True
        while True:
            if index >= len(pattern):
                return None
            member = pattern[index]
            if member == "]" and not first:
                index += 1
                break
            first = False
            index += 1
            if member == "\\":
                if index >= len(pattern):
                    return None
                member = pattern[index]
                index += 1
            elif member == "-" and previous and index < len(pattern) and pattern[index] != "]":
                high = pattern[index]
                index += 1
                if high == "\\":
                    if index >= len(pattern):
                        return None
                    high = pattern[index]
                    index += 1
                if previous < high:  # (its low end is a member already; reversed: only it)
                    ranges.append((previous, high))
                chars.add(high if previous <= high else previous)
                previous = ""
                continue
            elif member == "[" and pattern.startswith(":", index):
                end = pattern.find("]", index + 1)
                if end == -1:
                    return None
                if pattern[end - 1] == ":" and end - 1 > index:  # [:name:]
                    named = _CLASSES.get(pattern[index + 1:end - 1])
                    if named is None:
                        return None  # a malformed class: git aborts the match
                    chars.update(named)
                    previous = ""
                    index = end + 1
                    continue
            chars.add(member)
            previous = member
        written = _set(negated, chars, ranges)
        if written is None:
            return None
        out.append(written)
    return "".join(out)


_SPECIAL = frozenset("]-^![\\&~|/")  # never the end of a range written out (``_set``)


def _set(negated: bool, chars: set[str], ranges: list[tuple[str, str]]) -> str | None:
    """A bracket as pathspec reads it and copies it into a Python expression (only doubling
    backslashes): ``]`` first, ``-`` last, ``!`` and ``^`` never first, no doubled ``-&~|``,
    no ``[`` before ``:=.``. A bracket never matches ``/``. None when it matches nothing."""
    spans: list[tuple[int, int]] = sorted((ord(low), ord(high)) for low, high in ranges)
    merged: list[list[int]] = []
    for low, high in spans:
        if merged and low <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    singles = {c for c in chars if not any(low <= ord(c) <= high for low, high in merged)}
    parts: list[str] = []
    for low, high in merged:
        while low <= high and chr(low) in _SPECIAL:
            singles.add(chr(low))
            low += 1
        while high >= low and chr(high) in _SPECIAL:
            singles.add(chr(high))
            high -= 1
        if low < high:
            parts.append(f"{chr(low)}-{chr(high)}")
        elif low == high:
            singles.add(chr(low))
    singles.discard("/")  # (pathspec splits a pattern at each ``/``, brackets too)
    if not singles and not parts:
        return "?" if negated else None  # (a bracket never matches ``/``)
    if not negated and not parts and len(singles) == 1:
        return "\\" + singles.pop()  # one character: no bracket
    plain = sorted(c for c in singles if c not in _SPECIAL)
    body = ("]" if "]" in singles else "") + "".join(parts) + "".join(plain)
    body += "".join(c for c in "&~|/\\![^" if c in singles)
    if body[:1] in ("!", "^", "["):  # (a NUL is in no name: a first ``!`` must not negate)
        body = "\0" + body
    return "[" + ("!" if negated else "") + body + ("-" if "-" in singles else "") + "]"


_PRINTABLE = "".join(map(chr, range(32, 127)))
_CLASSES = {  # git's character classes (wildmatch.c's, over ASCII)
    "alnum": string.ascii_letters + string.digits, "alpha": string.ascii_letters,
    "blank": " \t", "cntrl": "".join(map(chr, range(32))) + chr(127), "digit": string.digits,
    "graph": _PRINTABLE[1:], "lower": string.ascii_lowercase, "print": _PRINTABLE,
    "punct": string.punctuation, "space": " \t\n\r\f\v", "upper": string.ascii_uppercase,
    "xdigit": string.hexdigits,
}


def too_complex(pattern: str) -> bool:
    """Whether matching ``pattern`` could take too long (more wildcards than allowed)."""
    total = 0
    # a leading ``**`` is the "anywhere" every pattern without a slash has: not counted
    previous_globstar = True
    for segment in normal(pattern).removeprefix("!").removeprefix("/").split("/"):
        if segment == "**":
            total += 0 if previous_globstar else 1  # ``**/**`` is one (pathspec merges them)
            previous_globstar = True
            continue
        previous_globstar = False
        stars = _stars(segment)
        if stars > MAX_SEGMENT_STARS:
            return True
        total += stars
    return total > MAX_STARS


def shown(pattern: str) -> str:
    """The pattern as a message quotes it: at most 80 characters (it may come from a file)."""
    return pattern if len(pattern) <= 80 else pattern[:77] + "..."


def normal(pattern: str) -> str:
    """``pattern`` with each run of ``*`` inside a path segment written as one ``*`` (git reads
    them alike); a segment of stars alone stays ``**`` (any number of folders)."""
    if "**" not in pattern:
        return pattern
    negated = "!" if pattern.startswith("!") else ""
    return negated + "/".join(_normal_segment(segment)
                              for segment in pattern[len(negated):].split("/"))


def _normal_segment(segment: str) -> str:
    if segment and set(segment) == {"*"}:
        return "**" if len(segment) > 1 else "*"
    out: list[str] = []
    for token in _tokens(segment):
        if token == "*" and out and out[-1] == "*":
            continue
        out.append(token)
    return "".join(out)


def _stars(segment: str) -> int:
    return sum(1 for token in _tokens(segment) if token == "*")


def _tokens(segment: str) -> list[str]:
    """The segment's characters, an escaped character (``\\*``) and a bracket expression
    (``[*]``) each as one token: only a bare ``*`` token is a wildcard."""
    tokens: list[str] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "\\" and index + 1 < len(segment):
            tokens.append(segment[index:index + 2])
            index += 2
            continue
        if char == "[":
            start = index + 1
            if start < len(segment) and segment[start] in "!^":
                start += 1
            end = segment.find("]", start + 1)  # a ``]`` first in the brackets is literal
            if end != -1:
                tokens.append(segment[index:end + 1])
                index = end + 1
                continue
        tokens.append(char)
        index += 1
    return tokens
