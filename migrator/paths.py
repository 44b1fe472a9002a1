"""BOTTOM: field paths: tuples of keys and list selectors, rendered as ``a.b[0].c[name=x]``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

Segment = str | int | tuple[str, str]
FieldPath = tuple[Segment, ...]


def render(path: FieldPath) -> str:
    """Render a path in the report's dotted syntax."""
    out = ""
    for seg in path:
        if isinstance(seg, int):
            out += f"[{seg}]"
        elif isinstance(seg, tuple):
            out += f"[{seg[0]}={seg[1]}]"
        else:
            out += f".{seg}" if out else seg
    return out


def parse(dotted: str) -> FieldPath:
    """Parse a plain dotted path (no selectors), as used in mapping files."""
    return tuple(dotted.split(".")) if dotted else ()


def parse_rendered(text: str) -> FieldPath:
    """Parse ``a.b[0].c`` (keys and indices; ``[name=x]`` selectors are kept as tuples)."""
    parts: list[Segment] = []
    for piece in re.findall(r"[^.\[\]]+|\[[^\]]*\]", text):
        if piece.startswith("["):
            inner = piece[1:-1]
            if inner.isdigit():
                parts.append(int(inner))
            else:
                key, _, value = inner.partition("=")
                parts.append((key, value))
        else:
            parts.append(piece)
    return tuple(parts)


def get(node: Any, path: FieldPath) -> Any:
    """Value at ``path`` (plain keys and indices only), or None when absent."""
    cur = node
    for seg in path:
        if isinstance(seg, str) and isinstance(cur, dict):
            cur = cur.get(seg)
        elif isinstance(seg, int) and isinstance(cur, list) and 0 <= seg < len(cur):
            cur = cur[seg]
        else:
            return None
    return cur


def has(node: Any, path: FieldPath) -> bool:
    """True when every key of ``path`` exists (the value may be null)."""
    cur = node
    for seg in path:
        in_map = isinstance(seg, str) and isinstance(cur, dict) and seg in cur
        in_list = isinstance(seg, int) and isinstance(cur, list) and 0 <= seg < len(cur)
        if in_map or in_list:
            cur = cur[seg]
        else:
            return False
    return True


def uncovered_leaves(node: Any, covered: set[FieldPath],
                     base: FieldPath = ()) -> Iterator[FieldPath]:
    """Every leaf path below ``node`` (empty maps and lists count as leaves) that no path in
    ``covered`` is a prefix of; covered subtrees are not walked."""
    if base in covered:
        return
    if isinstance(node, dict):
        if not node:
            yield base
        for key, value in node.items():
            yield from uncovered_leaves(value, covered, (*base, str(key)))
    elif isinstance(node, list):
        if not node:
            yield base
        for i, value in enumerate(node):
            yield from uncovered_leaves(value, covered, (*base, i))
    else:
        yield base
