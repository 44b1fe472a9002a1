"""LOAD: bound how deeply a YAML text nests, before any parser sees it (linear, no parsing)."""

from __future__ import annotations

import re

MAX_DEPTH = 200
# A text whose nesting bound (see nesting_bound) exceeds this is refused before it is parsed:
# the bound may overstate the depth a little, never understate it, and parsing stays fast up
# to here (libyaml's C recursion crashes the process at some ten thousand levels; the pure
# loader takes seconds at a thousand).
MAX_SCANNED_DEPTH = 2 * MAX_DEPTH

_BLOCK_SCALAR = re.compile(r"(?:^|[ :-])[|>][-+0-9]*[ ]*(?:#.*)?$")
_SPECIAL = re.compile(r"[\[\]{}'\"#:]")
_INDICATORS = re.compile(r"(?:[-?:](?:[ ]+|$))+")
_LEADING = re.compile(r"(?m)^[ ?:-]*")
_INDICATOR = re.compile(r"[-?:](?=[ ]|$)")


def nesting_bound(text: str, stop: int) -> int:
    """An upper bound of how deeply the collections of a YAML text nest, found in one pass
    without parsing: open block collections (by indentation, and the ``- ``/``? `` indicators
    that open one on the same line), plus open flow brackets outside quoted scalars and
    comments (block scalar contents are skipped). It may exceed the true depth by a few
    levels, never fall short of it. Returns as soon as the bound exceeds ``stop``.

    Linear in the length of the text, so a document nested deeper than a parser can take
    (libyaml's C recursion ends in a segmentation fault) is refused before it is parsed.
    """
    quick = text.count("[") + text.count("{") + 1 + \
        2 * max(map(len, _LEADING.findall(text)), default=0)
    if quick <= stop:  # a level takes a bracket or a column of indentation (two levels at
        return quick   # most: a sequence may sit at its key's column)
    blocks: list[int] = []  # open block collections: their column (~column: a sequence)
    flow = 0  # open flow collections, across lines
    quote = ""  # an open quoted scalar, across lines
    scalar_indent = -1  # inside a block scalar: lines more indented than this
    deepest = 0
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if scalar_indent >= 0:
            if not stripped.strip() or indent > scalar_indent:
                continue
            scalar_indent = -1
        position = 0
        key = 0  # 1 when a mapping key on this line may open a collection on the next
        if not quote and flow == 0:
            if not stripped or stripped.startswith("#"):
                continue
            if indent == 0 and stripped.startswith(("---", "...")):
                blocks.clear()
                continue
            dash = stripped.startswith("-") and stripped[1:2] in ("", " ")
            while blocks and (blocks[-1] if blocks[-1] >= 0 else ~blocks[-1]) > indent:
                blocks.pop()
            if blocks and (blocks[-1] == ~indent or (blocks[-1] == indent and not dash)):
                blocks.pop()  # the same collection (a sequence at its key's column nests)
            blocks.append(~indent if dash else indent)
            position = indent
            leading = _INDICATORS.match(line, indent)
            if leading:  # "- - x", "- key: x", "? x": each indicator opens a collection
                for indicator in _INDICATOR.finditer(leading.group(), 1):
                    column = indent + indicator.start()
                    blocks.append(~column if indicator.group() == "-" else column)
                position = leading.end()
                if position < len(line) and line[position] != "#":
                    blocks.append(position)  # the item's content (a mapping, perhaps)
        length = len(line)
        while position < length:
            if quote:
                end = line.find(quote, position)
                while end > 0 and quote == '"' and _escaped(line, end):
                    end = line.find(quote, end + 1)
                if end < 0:
                    break  # the quoted scalar goes on on the next line
                if quote == "'" and line.startswith("''", end):
                    position = end + 2
                    continue
                quote = ""
                position = end + 1
                continue
            match = _SPECIAL.search(line, position)
            if match is None:
                break
            char = match.group()
            position = match.end()
            if char in "[{":
                flow += 1
                if len(blocks) + flow > deepest:
                    deepest = len(blocks) + flow
                    if deepest > stop:
                        return deepest
            elif char in "]}":
                flow = max(0, flow - 1)
            elif char == "#":
                if match.start() == 0 or line[match.start() - 1] in " \t":
                    break
            elif char == ":":
                if flow == 0 and (position == length or line[position] == " "):
                    key = 1
            elif match.start() == 0 or line[match.start() - 1] in " \t[{,:-?":
                quote = char
        if len(blocks) + flow + key > deepest:
            deepest = len(blocks) + flow + key
            if deepest > stop:
                return deepest
        if not quote and flow == 0 and ("|" in line or ">" in line) and \
                _BLOCK_SCALAR.search(line):
            scalar_indent = indent
    return deepest


def _escaped(line: str, index: int) -> bool:
    backslashes = 0
    while index - backslashes - 1 >= 0 and line[index - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1
