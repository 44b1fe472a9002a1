"""Template stage: the Go condition under which a block takes a branch (top-level blocks only)."""

from __future__ import annotations

from typing import Any

from migrator.template.codec import Codec


def condition(codec: Codec, block: Any, failing: int, forced: dict[int, int]) -> str | None:
    """A Go expression true exactly when ``block`` takes branch ``failing`` (top-level only).

    Of blocks with the same condition, the one reachable under the ``forced`` choices is used."""
    path = None
    for twin in codec.template.blocks:
        if codec.canon.get(twin.id, twin.id) != codec.canon.get(block.id, block.id):
            continue
        trail = _path_to(codec.template.root, twin, [])
        if trail is not None and all(forced.get(codec.canon.get(a.id, a.id), 0) == c
                                     for a, c in trail
                                     if codec.canon.get(a.id, a.id) in forced or c != 0):
            path = trail
            break
    if path is None:
        return None
    terms: list[str] = []
    for anc, choice in path:
        if anc.kind not in ("if", "enum"):
            return None
        terms.append(_branch_condition(anc, choice))
    if block.kind not in ("if", "enum", "with", "range"):
        return None
    terms.append(_branch_condition(block, failing))
    terms = [t for t in terms if t]
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else "and " + " ".join(f"({t})" for t in terms)


def _branch_condition(block: Any, index: int) -> str:
    conds = []
    for branch in block.branches:
        body = branch.header.body if branch.header else ""
        for word in ("else if ", "if ", "with "):
            if body.startswith(word):
                conds.append(body[len(word):].strip())
                break
        else:
            if body.startswith("range "):
                expr = body[len("range "):]
                conds.append(expr.split(":=", 1)[1].strip() if ":=" in expr else expr.strip())
            else:
                conds.append("")
    parts = [f"not ({c})" for c in conds[:index] if c]
    if index < len(conds) and conds[index]:
        parts.append(f"({conds[index]})")
    if not parts:
        return ""
    return parts[0].strip("()") if len(parts) == 1 and not parts[0].startswith("not") else \
        (parts[0] if len(parts) == 1 else "and " + " ".join(f"({p})" for p in parts))


def _path_to(branch: Any, target: Any, trail: list[Any]) -> list[Any] | None:
    for item in branch.items:
        if isinstance(item, int):
            continue
        if item is target:
            return trail
        for i, sub in enumerate(item.branches):
            found = _path_to(sub, target, [*trail, (item, i)])
            if found is not None:
                return found
    return None
