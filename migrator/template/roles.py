"""Template stage: the block whose lines make two roles' pod templates differ (P306)."""

from __future__ import annotations

import difflib
import re
from typing import Any

from migrator import paths
from migrator.load import yamlio
from migrator.template.codec import Codec, World
from migrator.template.knowledge import FIELDS
from migrator.template.structure import Block

# the message of P306 (migrator/convert/rules/roles.py _mismatch): "<other> and <primary> ..."
_ROLES = re.compile(r"^(\S+) and (\S+) templates differ")


def pairs(documents: list[Any]) -> list[tuple[Any, paths.FieldPath, paths.FieldPath, int]]:
    """For a world that fails only because two roles' pod templates differ (FIELDS.split_codes):
    each error's document, its field in the role whose pods would change, the same field in the
    other role, and where the role stands in those paths; [] for any other failure."""
    errors = [(d, f) for d in documents for f in d.findings
              if getattr(f.severity, "value", "") == "error"]
    if not errors or not {f.code for _, f in errors} <= FIELDS.split_codes:
        return []
    found = []
    for document, finding in errors:
        roles = _ROLES.match(str(finding.message))
        if roles is None or not finding.path or not isinstance(document.text, str):
            continue
        other = paths.parse_rendered(str(finding.path))
        if roles.group(1) in other:
            at = other.index(roles.group(1))
            found.append((document, other, (*other[:at], roles.group(2), *other[at + 1:]), at))
    return found


def culprit(codec: Codec, world: World, documents: list[Any],
            spans: list[tuple[Block, tuple[int, int]]]) -> list[Block]:
    """The innermost switched block (``spans``: each with its template lines) holding every
    line one role's differing field has and the other's has not, else the innermost block of
    each such line (a role's resources written by several ``if``s); [] when a line has none.

    Found from the lines, these are instances of blocks (a twin elsewhere, with the same test,
    may write the same field for both roles alike)."""
    lines = codec.encode(world).lines
    for document, other, primary, _at in pairs(documents):
        root = load(document.text)
        if root is None:
            continue
        text = document.text.split("\n")
        fields = _field_lines(root, other), _field_lines(root, primary)
        if fields[0] is None or fields[1] is None:
            continue
        sides = [fields[0], fields[1]]
        mine, theirs = ([text[i].strip() for i in side if i < len(text)] for side in sides)
        differ: list[list[int]] = [[], []]
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, mine, theirs,
                                                           autojunk=False).get_opcodes():
            if tag != "equal":
                differ[0].extend(sides[0][i1:i2])
                differ[1].extend(sides[1][j1:j2])
        sides = [sorted({lines[document.line - 1 + i] for i in side
                         if 0 <= document.line - 1 + i < len(lines)}) for side in differ]
        for side in sides:  # one block for all of a side's lines
            found = _holder(set(side), spans) if side else None
            if found is not None:
                return [found]
        for side in sides:  # else a block for each line
            each = [_holder({line}, spans) for line in side]
            if side and all(each):
                return list({b.id: b for b in each if b is not None}.values())
    return []


def presence(codec: Codec, world: World, documents: list[Any],
             spans: list[tuple[Block, tuple[int, int]]]) -> list[Block]:
    """The innermost switched ``if`` around each of the two roles (the role whose pods would
    change first)."""
    lines = codec.encode(world).lines
    found: list[Block] = []
    for document, other, primary, at in pairs(documents):
        root = load(document.text)
        for role in (other[:at + 1], primary[:at + 1]):
            key = _field_lines(root, role) if root is not None else None
            index = document.line - 1 + key[0] if key else -1
            block = _holder({lines[index]}, [s for s in spans if s[0].kind == "if"]) \
                if 0 <= index < len(lines) else None
            if block is not None and block not in found:
                found.append(block)
    return found


_ROLE_KEY = re.compile(r"^\s*(" + "|".join(sorted({r for roles in FIELDS.enum_keys.values()
                                                     for r in roles})) + r"):\s*$")


def holds_role(codec: Codec, block: Block) -> bool:
    """Whether the first branch of ``block`` writes a replica role's key (`Worker:`)."""
    units = codec.template.units
    return any(isinstance(item, int) and _ROLE_KEY.match(units[item].text)
               for item in block.branches[0].items)


def load(text: str) -> Any:
    try:
        return yamlio.load(text)
    except yamlio.DocumentError:  # (a world the loader refuses names no block)
        return None


def _holder(template: set[int], spans: list[tuple[Block, tuple[int, int]]]) -> Block | None:
    """The innermost block whose lines span all of ``template``."""
    if not template:
        return None
    lo, hi = min(template), max(template)
    best: tuple[Block, tuple[int, int]] | None = None
    for block, (start, end) in spans:
        if start <= lo and hi <= end and (best is None or (start, -end) > (best[1][0],
                                                                          -best[1][1])):
            best = (block, (start, end))
    return best[0] if best else None


def _field_lines(root: Any, path: paths.FieldPath) -> list[int] | None:
    """0-based lines of the field ``path`` in the loaded document ``root`` (its key line and
    every line below it to its last value), [] when the field is absent, None when its parent
    is."""
    parent: Any = root
    for seg in path[:-1]:
        parent = _step(parent, seg)
        if parent is None:
            return None
    last = path[-1] if path else None
    if isinstance(last, str) and isinstance(parent, dict):
        if last not in parent:
            return []
        line, _ = yamlio.position(parent, last)
    elif isinstance(last, int | tuple) and isinstance(parent, list):
        index = _index(parent, last)
        if index is None:
            return []
        line, _ = yamlio.position(parent, index)
        last = index
    else:
        return None
    if line is None:
        return None
    end = max([line - 1, *_lines(parent[last])])
    return list(range(line - 1, end + 1))


def _step(node: Any, seg: Any) -> Any:
    if isinstance(seg, str):
        return node.get(seg) if isinstance(node, dict) else None
    if isinstance(node, list):
        index = _index(node, seg)
        return None if index is None else node[index]
    return None


def _index(items: list[Any], seg: Any) -> int | None:
    if isinstance(seg, int):
        return seg if 0 <= seg < len(items) else None
    key, value = seg
    return next((i for i, item in enumerate(items)
                 if isinstance(item, dict) and str(item.get(key)) == value), None)


def _lines(node: Any) -> list[int]:
    """0-based lines of every key and item below ``node``."""
    found: list[int] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        keys = list(cur) if isinstance(cur, dict) else \
            range(len(cur)) if isinstance(cur, list) else []
        for key in keys:
            line, _ = yamlio.position(cur, key)
            if line is not None:
                found.append(line - 1)
            stack.append(cur[key])
    return found

