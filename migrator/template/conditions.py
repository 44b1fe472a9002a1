"""Template stage: the Go condition under which a block takes a branch (top-level blocks only)."""

from __future__ import annotations

import re
from typing import Any

from migrator.template.codec import Codec
from migrator.template.scopes import rebind

VARIABLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")  # a variable a Go expression reads
_ASSIGN = re.compile(r"^\s*\$([A-Za-z_][A-Za-z0-9_]*)\s*(:?=)\s*(.*)$", re.S)


def top_variables(codec: Codec) -> dict[str, str | None]:
    """The variables the template declares at its top (a test there may read them), each with
    its expression when it is declared once (`{{- $g := .Values.gpus }}`), else None."""
    found: dict[str, str | None] = {}
    for action in codec.template.root.neutral:
        assign = _ASSIGN.match(action.body) if action.kind == "assign" else None
        if assign is not None:
            name = assign.group(1)
            found[name] = None if name in found or assign.group(2) == "=" \
                else assign.group(3).strip()
    return found


def condition(codec: Codec, block: Any, failing: int, forced: dict[int, int],
              every: bool = False) -> str | None:
    """A Go expression true when ``block`` takes branch ``failing`` (top-level only).

    Of blocks with the same condition, the first one reached under the ``forced`` choices (the
    others on their first branch) is used; with ``every``, any of them reached under the
    ``forced`` choices whatever the others take (they switch together: forcing one forces them
    all, so the expression is true exactly when one of them takes that branch)."""
    found: list[list[str]] = []
    for twin in codec.template.blocks:
        if codec.canon.get(twin.id, twin.id) != codec.canon.get(block.id, block.id):
            continue
        trail = path_to(codec.template.root, twin, [])
        if trail is not None and all(forced.get(codec.canon.get(a.id, a.id), 0) == c
                                     for a, c in trail
                                     if codec.canon.get(a.id, a.id) in forced
                                     or (c != 0 and not every)):
            terms = _along(trail, block, failing)
            if terms is None or not every:
                return _all(terms) if terms else None
            found.append(terms)
    # a twin whose tests include another's adds nothing to the `or`
    kept = [t for i, t in enumerate(found)
            if not any(set(o) < set(t) or (set(o) == set(t) and j < i)
                       for j, o in enumerate(found))]
    if not kept:
        return None
    return _all(kept[0]) if len(kept) == 1 else "or " + " ".join(f"({_all(t)})" for t in kept)


def _all(terms: list[str]) -> str:
    return terms[0] if len(terms) == 1 else "and " + " ".join(f"({t})" for t in terms)


def _along(path: list[Any], block: Any, failing: int) -> list[str] | None:
    """The tests of branch ``failing`` of ``block``, reached through ``path`` (all must hold)."""
    terms: list[str] = []
    dot = ""  # what `.` stands for inside the `with` bodies on the way (as a Go operand)
    for anc, choice in path:
        if anc.kind not in ("if", "enum", "with"):
            return None
        term = _rebind(_branch_condition(anc, choice), dot)
        if term is None:
            return None
        terms.append(term)
        if anc.kind == "with" and choice == 0:
            # `{{- with X }}`: the body runs with `.` set to X (when X is not empty)
            header = anc.branches[0].header.body if anc.branches[0].header else ""
            bound = _rebind(header[len("with "):].strip(), dot)
            if bound is None or ":=" in bound:
                return None
            dot = bound
    if block.kind not in ("if", "enum", "with", "range"):
        return None
    last = _rebind(_branch_condition(block, failing), dot)
    if last is None:
        return None
    terms.append(last)
    terms = [t for t in terms if t]
    return terms or None


def _rebind(term: str, dot: str) -> str | None:
    """``term`` with ``.`` read as ``dot`` (inside a ``with``); ``dot`` "" is the top."""
    if not dot or not term:
        return term
    return rebind(term, dot)


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
    # (one test alone: the pair of parentheses put around it above, and no more: its own may
    # close it, `not (eq .Values.mode "skip")`)
    return parts[0][1:-1] if len(parts) == 1 and not parts[0].startswith("not") else \
        (parts[0] if len(parts) == 1 else "and " + " ".join(f"({p})" for p in parts))


def path_to(branch: Any, target: Any, trail: list[Any]) -> list[Any] | None:
    for item in branch.items:
        if isinstance(item, int):
            continue
        if item is target:
            return trail
        for i, sub in enumerate(item.branches):
            found = path_to(sub, target, [*trail, (item, i)])
            if found is not None:
                return found
    return None


def trail_of(codec: Codec, line: int) -> list[Any] | None:
    """The blocks around the template line ``line``, outermost first, each with the branch
    holding it; None when no unit is on that line."""
    units = codec.template.units

    def find(branch: Any, trail: list[Any]) -> list[Any] | None:
        for item in branch.items:
            if isinstance(item, int):
                if units[item].line == line:
                    return trail
                continue
            for i, sub in enumerate(item.branches):
                found = find(sub, [*trail, (item, i)])
                if found is not None:
                    return found
        return None

    return find(codec.template.root, [])


def enclosing(codec: Codec, line: int) -> str | None:
    """The Go condition under which the template line ``line`` is rendered, read at the top
    (a ``with``'s value is written out inside it): "" at the top, None when an enclosing
    block is a ``range`` (its condition cannot be lifted)."""
    trail = trail_of(codec, line)
    if trail is None:
        return None
    terms: list[str] = []
    dot = ""  # what `.` stands for inside the `with` bodies on the way (as a Go operand)
    for anc, choice in trail:
        if anc.kind not in ("if", "enum", "with"):
            return None
        term = _rebind(_branch_condition(anc, choice), dot)
        if term is None or ":=" in term:
            return None
        terms.append(term)
        if anc.kind == "with" and choice == 0:
            dot = term  # `{{- with X }}`: the body runs with `.` set to X
    terms = [t for t in terms if t]
    if not terms:
        return ""
    return terms[0] if len(terms) == 1 else "and " + " ".join(f"({t})" for t in terms)
