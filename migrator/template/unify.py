"""Template stage: two roles whose pod templates differ only in their template values (P306),
written with one role's values under a test that the two render alike."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from migrator.template import roles
from migrator.template.codec import _INT_TOKEN, LINE_TOKEN, STR_TOKEN, Codec, Slot, World
from migrator.template.conditions import VARIABLE, condition, enclosing, top_variables, trail_of
from migrator.template.scopes import rebind, rebound

_TOKEN = re.compile(f"{STR_TOKEN.pattern}|{LINE_TOKEN.pattern}|{_INT_TOKEN.pattern}")
# a fragment's indentation is where its lines stand, not its value
_INDENT = re.compile(r"\s*\|\s*n?indent\s+\d+\s*$")


def alike(codec: Codec, documents: list[Any], forced: World, world: World,
          converts: Callable[[World], bool] | None, declared: set[str]
          ) -> tuple[str, bool] | None:
    """For a world that fails only because two roles' pod templates differ (FIELDS.split_codes)
    where every difference is one placeholder for another (`toYaml .Values.master.resources`
    against `toYaml .Values.worker.resources`): the second role's slots take the first's
    placeholders in ``codec`` (Codec.alias), and the Go condition under which some pair renders
    differently (the legacy job stays there) is returned, "" when every pair reads the same
    values, with False (the test reads only the variables ``declared`` at the top of the
    template). None when the roles differ otherwise, or a pair's values do not
    render together (under the same tests, or under blocks ``forced`` to hold them) and
    cannot be made to (``codec`` is left as it was).

    The blocks around one value are forced to hold it (the legacy job kept where they do not)
    when the failed ``world`` with them switched does not convert either; when it does, they
    are forced alone (no placeholder shared yet), with True: the template is worth converting
    again with them switched (a role in a `with` of its own values, whose job converts
    without that role too)."""
    if not codec.template.helm:
        return None  # (a plain Go template has no toYaml to compare values with)
    pairs: dict[int, int] = {}
    for document, other, primary, at in roles.pairs(documents):
        root = roles.load(document.text)
        first, second = (_role(root, path[:at + 1]) for path in (primary, other))
        if first is None or second is None or not _match(codec, first, second, pairs):
            return None
    if not pairs or any(s in codec.alias for s in pairs):
        return None
    names = top_variables(codec)  # (one declared twice: no test is written with it)
    terms: list[str] = []
    hold: dict[int, int] = {}  # blocks to force so that both values render together
    for second, first in sorted(pairs.items()):
        mine, theirs = codec.by_id[first], codec.by_id[second]
        values = _value(mine, names), _value(theirs, names)
        if None in values or mine.kind != theirs.kind:
            return None
        open_ = [_open(codec, slot, forced) for slot in (mine, theirs)]
        if None in open_:
            return None
        where = [enclosing(codec, slot.line) if blocks else "" for slot, blocks
                 in zip((mine, theirs), open_, strict=True)]
        if None in where or not set(VARIABLE.findall(" ".join(
                str(t) for t in [*values, *where]))) <= declared:
            return None  # (a variable of the pod spec: the test stands before the job)
        # (one role's value written where only the other's renders would be wrong: the two
        # render together, under the same tests, or the blocks around one are forced to hold it
        # where the other's are already)
        if where[0] != where[1]:
            if all(open_) or not any(open_):
                return None
            hold.update(next(blocks for blocks in open_ if blocks) or {})
            where = ["", ""]
        if values[0] != values[1]:
            tests = [where[0]] if where[0] else []
            tests.append("ne " + " ".join(f"(toYaml ({_bare(v)}))" for v in values if v))
            terms.append(tests[0] if len(tests) == 1 else
                         "and " + " ".join(f"({t})" for t in dict.fromkeys(tests)))
    blocks = {b.id: b for b in codec.template.blocks}
    offs = [condition(codec, blocks[rep], 1 - choice, forced, every=True)
            for rep, choice in hold.items()]
    if None in offs:
        return None
    if hold and (converts is None
                 or converts({**world, **{rep: 1 - choice for rep, choice in hold.items()}})):
        # (without them the job converts: those values are converted again, on their own)
        if len(hold) != 1 or converts is None:
            return None
        forced.update(hold)
        return str(offs[0]), True
    forced.update(hold)
    codec.alias.update(pairs)
    # the legacy job where they do not hold it: first, where the values read may be unset
    terms = [str(off) for off in offs] + terms
    return ("" if not terms else terms[0] if len(terms) == 1 else
            "or " + " ".join(f"({t})" for t in dict.fromkeys(terms))), False


def _open(codec: Codec, slot: Slot, forced: World) -> dict[int, int] | None:
    """The blocks around ``slot``'s line not yet forced to hold it, each with the branch that
    does ({} when all are); None when one cannot be forced (not an `if` or `with` of two
    choices, or forced to another branch)."""
    trail = trail_of(codec, slot.line)
    if trail is None:
        return None
    found: dict[int, int] = {}
    for block, choice in trail:
        rep = codec.canon.get(block.id, block.id)
        if forced.get(rep) == choice:
            continue
        if rep in forced or block.kind not in ("if", "with") or block.alternatives != 2:
            return None
        found[rep] = choice
    return found


def _role(root: Any, path: tuple[Any, ...]) -> Any:
    """The replica spec at ``path`` without its count (the counts are the job's shape)."""
    node = root
    for seg in path:
        node = node.get(seg) if isinstance(node, dict) and isinstance(seg, str) else None
    if not isinstance(node, dict):
        return None
    return {k: v for k, v in node.items() if k != "replicas"}


def _match(codec: Codec, mine: Any, theirs: Any, pairs: dict[int, int]) -> bool:
    """Whether ``theirs`` is ``mine`` with placeholders of other slots (each recorded in
    ``pairs``: their slot -> mine; a slot of theirs stands for one of mine, and none of mine
    is one of theirs)."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        if len(mine) != len(theirs):
            return False
        return all(_match(codec, a, b, pairs) and _match(codec, mine[a], theirs[b], pairs)
                   for a, b in zip(mine, theirs, strict=True))
    if isinstance(mine, list) and isinstance(theirs, list):
        return len(mine) == len(theirs) and all(
            _match(codec, a, b, pairs) for a, b in zip(mine, theirs, strict=True))
    if isinstance(mine, dict | list) or isinstance(theirs, dict | list):
        return False
    if type(mine) is not type(theirs) and not (isinstance(mine, int | str)
                                               and isinstance(theirs, int | str)):
        return False
    a, b = str(mine), str(theirs)
    if a == b:
        return True
    split_a, split_b = _TOKEN.split(a), _TOKEN.split(b)
    tokens_a, tokens_b = _tokens(a), _tokens(b)
    if len(tokens_a) != len(tokens_b) or _TOKEN.sub("", a) != _TOKEN.sub("", b) \
            or len(split_a) != len(split_b):
        return False
    for x, y in zip(tokens_a, tokens_b, strict=True):
        slot_x, slot_y = _slot(codec, x), _slot(codec, y)
        if slot_x is None or slot_y is None:
            return False
        if slot_x.id == slot_y.id:
            continue
        if pairs.setdefault(slot_y.id, slot_x.id) != slot_x.id or slot_y.id in pairs.values():
            return False
    return True


def _tokens(text: str) -> list[str]:
    return [m.group(0) for m in _TOKEN.finditer(text)]


def _slot(codec: Codec, token: str) -> Slot | None:
    """The slot a placeholder stands for (an int: exactly its own, no sum)."""
    found = STR_TOKEN.fullmatch(token) or LINE_TOKEN.fullmatch(token)
    if found is not None:
        return codec.by_id.get(int(found.group(1)))
    return next((s for s in codec.ints if s.token == token), None)


def _bare(value: str) -> str:
    """``value`` without a `toYaml` of its own (the test writes each side as YAML)."""
    return value[len("toYaml "):].strip() if value.startswith("toYaml ") else value


def _value(slot: Slot, names: dict[str, str | None]) -> str | None:
    """What the slot's action renders, as a Go operand read at the top of the template, its
    variables declared once there written out (``names``: the test reads as it stands alone);
    None when it cannot be (inside a range)."""
    body = slot.action.body.strip()
    if slot.kind == "line":
        body = _INDENT.sub("", body)
    top = rebound(body, slot.ctx, ())
    return None if top is None else rebind(top, ".", names) if names else top
