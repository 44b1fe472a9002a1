"""Template stage: what ``.`` and the variables read in a with body, written out for another
place (a value or a test whose lines the converted job moves out of the with they were in)."""

from __future__ import annotations

import re

Scope = tuple[str, ...]  # the headers of the with/range bodies around a place, outermost first
_NAME = re.compile(r"\$[A-Za-z0-9_]*")
_CHAIN = re.compile(r"(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_SIMPLE = re.compile(r"^(?:\$[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
                     r"|(?:\.[A-Za-z_][A-Za-z0-9_]*)+)$")
_DECLARES = re.compile(r"^\$([A-Za-z0-9_]+)\s*:=\s*(.+)$", re.S)


def rebind(term: str, dot: str, variables: dict[str, str | None] | None = None) -> str | None:
    """``term`` (Go template code) as written where ``.`` is ``dot`` (a Go operand; ``.``: as
    it is) and the ``variables`` are their expressions (None: not available there, and the
    term reads it: None). Strings are left alone; ``$`` is the top in both places."""
    names = variables or {}
    if dot == "." and not names:
        return term
    out: list[str] = []
    i, n = 0, len(term)
    while i < n:
        ch = term[i]
        if ch in "\"'`":
            j = i + 1
            while j < n and term[j] != ch:
                j += 2 if term[j] == "\\" and ch != "`" else 1
            out.append(term[i:j + 1])
            i = j + 1
            continue
        if ch == "$":
            name = _NAME.match(term, i)
            assert name is not None
            key = name.group(0)[1:]
            if key and key in names:
                value = names[key]
                if value is None:
                    return None
                out.append(_operand(value))
            else:
                out.append(name.group(0))
            i = name.end()
            chain = _CHAIN.match(term, i)
            assert chain is not None
            out.append(chain.group(0))
            i = chain.end()
            continue
        if ch == "." and (i == 0 or not (term[i - 1].isalnum() or term[i - 1] in "_)]")):
            chain = _CHAIN.match(term, i)
            assert chain is not None
            if chain.group(0):
                out.append(_field_of(dot, chain.group(0)))
                i = chain.end()
            else:
                out.append(_operand(dot))
                i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _operand(expr: str) -> str:
    return expr if expr == "." or _SIMPLE.match(expr) else f"({expr})"


def _field_of(dot: str, chain: str) -> str:
    if dot == ".":
        return chain
    return dot + chain if _SIMPLE.match(dot) else f"({dot}){chain}"


def rebound(term: str, written: Scope, at: Scope) -> str | None:
    """``term``, written inside the bodies ``written``, as it reads inside the bodies ``at``
    (some of them, in the same order: the others are ``with`` bodies its lines left in the
    converted job, whose value ``.`` is then written out). None when it cannot be (a ``range``
    body left: its item has no expression; ``at`` holding a body ``written`` does not)."""
    if written == at:
        return term
    present: list[int] = []
    for index, head in enumerate(written):
        if len(present) < len(at) and at[len(present)] == head:
            present.append(index)
    if len(present) != len(at):
        return None
    dot = "."
    variables: dict[str, str | None] = {}
    for index, head in enumerate(written):
        if index in present:  # the same body there: `.` and its variables are as written
            dot = "."
            # (what the variables of bodies left before it stand for reads another `.`)
            variables = dict.fromkeys(variables)
            for name in re.findall(r"\$([A-Za-z0-9_]+)", head.split(":=", 1)[0]):
                variables.pop(name, None)  # declared again by this header
            continue
        if not head.startswith("with "):
            return None
        expr = head[len("with "):].strip()
        declared = _DECLARES.match(expr)
        if declared is not None:
            expr = declared.group(2).strip()
        value = rebind(expr, dot, variables)
        if value is None:
            return None
        if declared is not None:
            variables[declared.group(1)] = value
        dot = value
    return rebind(term, dot, variables)

