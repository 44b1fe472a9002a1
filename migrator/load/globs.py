"""LOAD: gitignore-style globs (--include, --exclude, the config's, .gitignore files) matched in
bounded time.

pathspec turns a glob into a Python regular expression, which backtracks: every ``*`` more in a
pattern multiplies the time of a failing match by the length of a name (a path's depth for a
``**`` segment), so ``**********x`` in a .gitignore took minutes for one file. A run of ``*``
inside a path segment is one ``*`` (as git reads it, so nothing changes), and a pattern with
more than ``MAX_STARS`` wildcards (``MAX_SEGMENT_STARS`` in one segment) is refused: on the
command line and in the config file a usage error, in a .gitignore the pattern is not used and
the file is reported.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

MAX_STARS = 4  # wildcards in one pattern: each ``*`` in a segment, each ``**`` segment but
# a leading one
MAX_SEGMENT_STARS = 3  # ``*`` in one path segment (a name may be 255 characters long)


def spec(patterns: Iterable[str]) -> Any:
    """A ``pathspec.GitIgnoreSpec`` of ``patterns``, each in its normal form (``normal``); the
    caller has refused the patterns that are ``too_complex``."""
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines([normal(p) for p in patterns])


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
