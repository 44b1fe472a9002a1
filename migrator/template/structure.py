"""Template stage: group a template's lines into units and its control actions into blocks."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from migrator.template.tokens import Action

UnitKind = Literal["blank", "control", "fragment", "line"]
_BLOCK_SCALAR = re.compile(r"(?:^|[:\-]\s)\s*[|>][-+0-9]*\s*(?:#.*)?$")
_DASH_CONTROL = re.compile(r"^(\s*-)\s*(?=\{\{-)")
_OPENERS = {"if", "with", "range"}


class Unsupported(ValueError):
    """A construct this converter cannot carry; ``line`` is 1-based in the template."""

    def __init__(self, message: str, line: int, construct: str = "") -> None:
        super().__init__(message)
        self.line = line
        self.construct = construct
        self.detail: object = None


@dataclass
class Unit:
    """One or more physical lines (more when an action spans lines) and their actions."""

    index: int
    line: int  # 1-based first line
    text: str  # without the final newline
    actions: list[int]  # indices into the action list
    kind: UnitKind = "line"
    in_scalar: bool = False
    quoted_until: int = -1  # a quoted scalar opens here and closes in unit ``quoted_until``
    count: bool = False  # the value is a count (an enum block's COUNT branch): an int stand-in
    # a YAML comment after the unit's control actions (`{{ if X }}  # why`): the text the line
    # renders, so it becomes a comment line of the branch the actions leave open
    comment: str = ""

    @property
    def indent(self) -> int:
        return len(self.text) - len(self.text.lstrip(" "))


@dataclass
class Branch:
    header: Action | None
    items: list[int | Block] = field(default_factory=list)  # unit index or block
    neutral: list[Action] = field(default_factory=list)  # assignments and comments
    # assignments after the branch's last line (a counter stepped at the end of a range
    # body): they stay at the end, after the body, where they take effect
    trailing: list[Action] = field(default_factory=list)


@dataclass
class Block:
    id: int
    kind: str  # if / with / range
    line: int
    branches: list[Branch]
    end: Action | None = None
    fail: str = ""  # enum blocks: the message of the {{ fail }} for any other value
    # guard blocks: on when every block of one of these sets is on
    members: frozenset[frozenset[int]] = frozenset()
    other: int = -1  # enum blocks: the unit as written (for a value none of the branches take)
    # the headers of the with/range bodies its own headers are written in (what `.` reads
    # there), outermost first; a block made by the converter: where its tests read
    scope: tuple[str, ...] = ()

    @property
    def alternatives(self) -> int:
        """Number of choices: the written branches, plus 'nothing' when there is no else."""
        if self.kind == "enum":
            return len(self.branches)
        has_else = len(self.branches) > 1 and self.branches[-1].header is not None \
            and self.branches[-1].header.body.strip() == "else"
        return len(self.branches) if has_else else len(self.branches) + 1

    def headers(self) -> list[Action]:
        return [b.header for b in self.branches if b.header is not None]


@dataclass
class Template:
    text: str
    actions: list[Action]
    units: list[Unit]
    root: Branch
    blocks: list[Block]
    # a Helm template (sprig functions such as add and regexMatch exist) or a plain Go one
    helm: bool = True


def lift_defines(text: str, actions: list[Action]) -> tuple[str, list[str]]:
    """Top-level ``{{ define }}`` blocks (they emit nothing where they stand) are lifted out:
    the text keeps their line count, the definitions go verbatim to the top of the output."""
    spans: list[tuple[int, int]] = []
    depth = 0
    opened: Action | None = None
    for act in actions:
        if act.kind != "control":
            continue
        if act.keyword in ("if", "with", "range", "define", "block"):
            if depth == 0 and act.keyword == "define":
                opened = act
            depth += 1
        elif act.keyword == "end":
            depth -= 1
            if depth == 0 and opened is not None:
                end = act.end
                if text.startswith("\n", end):
                    end += 1
                spans.append((opened.start, end))
                opened = None
    if not spans:
        return text, []
    kept: list[str] = []
    pos = 0
    lifted = []
    for start, end in spans:
        kept.append(text[pos:start])
        kept.append("\n" * text.count("\n", start, end))
        lifted.append(text[start:end].rstrip("\n"))
        pos = end
    kept.append(text[pos:])
    return "".join(kept), lifted


_CALL = re.compile(r'^template\s+"([^"]+)"\s+\.$')
_DEFINE = re.compile(r'^\{\{-?\s*define\s+"([^"]+)"\s*-?\}\}')


def inline_calls(text: str, actions: list[Action], defines: list[str], original: str
                 ) -> tuple[str, list[int]]:
    """``{{ template "x" . }}`` of a template defined in the same file, alone on its line and
    where the dot is the top-level data (outside range/with), is replaced by that definition's
    body: the same text renders there, and the fields it writes can be converted with the job
    around them. Returns the text and, for every line of it, the line of ``text`` it comes
    from (an inlined line: its line in the definition)."""
    bodies: dict[str, str] = {}
    first_line: dict[str, int] = {}  # line of ``original`` where each body starts
    for lifted in defines:
        head = _DEFINE.match(lifted)
        if head is None or not lifted.rstrip().endswith("}}"):
            continue
        end = lifted.rfind("{{")
        body = lifted[head.end():end]
        if lifted[end:].startswith("{{-"):
            body = body.rstrip(" \t\r\n")  # the {{- end }} trims what precedes it
        if lifted[head.end() - 3:head.end()] == "-}}":
            continue  # a trimmed define head: the body's first line break is gone (not kept)
        bodies[head.group(1)] = body
        at = original.find(lifted)
        first_line[head.group(1)] = original.count("\n", 0, max(at, 0) + head.end()) + 1
    calls: list[Action] = []
    depth: list[str] = []
    for act in actions:
        if act.kind == "control":
            if act.keyword in ("if", "with", "range", "define", "block"):
                depth.append(act.keyword)
            elif act.keyword == "end" and depth:
                depth.pop()
            continue
        call = _CALL.match(act.body.strip())
        if call and call.group(1) in bodies and not {"with", "range", "define", "block"} \
                & set(depth):
            line_start = text.rfind("\n", 0, act.start) + 1
            line_end = text.find("\n", act.end)
            line_end = len(text) if line_end < 0 else line_end
            if not (text[line_start:act.start].strip() or text[act.end:line_end].strip()):
                calls.append(act)
    if not calls:
        return text, list(range(1, text.count("\n") + 2))
    out: list[str] = []
    pos = 0
    for act in calls:
        out.append(text[pos:act.start])
        # `{{- "" }}` keeps the call's trimming on the left; the body is rendered as written
        lead = '{{- "" }}' if act.trim_left else ""
        out.append(lead + bodies[_CALL.match(act.body.strip()).group(1)])  # type: ignore[union-attr]
        pos = act.end
    out.append(text[pos:])
    new = "".join(out)
    # line origins: every line of the new text, from the line of ``text`` (or of the
    # definition) it starts with
    origin: list[int] = []
    line, pending, pos = 1, 0, 0
    for piece, name in [(text[pos:act.start], _CALL.match(act.body.strip()).group(1))  # type: ignore[union-attr]
                        for act, pos in zip(calls, [0] + [c.end for c in calls[:-1]],
                                            strict=True)] + [(text[calls[-1].end:], "")]:
        for _ in range(piece.count("\n")):
            origin.append(pending or line)
            pending = 0
            line += 1
        if name:
            body_lines = bodies[name].count("\n")
            if body_lines:
                origin.append(pending or line)
                origin.extend(first_line[name] + i for i in range(1, body_lines))
                pending = first_line[name] + body_lines
    origin.append(pending or line)
    return new, origin


_HELM = re.compile(r"\.(?:Values|Release|Chart|Capabilities|Files|Template)\b|"
                   r"^-?\s*(?:include|required|tpl|toYaml|default)\b|\|\s*(?:quote|default|nindent|"
                   r"indent|toYaml|int|trim)\b")


def is_helm(actions: list[Action]) -> bool:
    """Whether the actions read Helm's objects or functions (a plain Go template, such as
    knavigator's, has neither: no sprig function may be emitted for it)."""
    return any(_HELM.search(a.body) for a in actions if a.text.startswith("{{"))


def build(text: str, actions: list[Action], enums: bool = False, helm: bool | None = None
          ) -> Template:
    """The template's units and blocks; ``helm``: whether the engine is Helm's (None: judged
    from the actions)."""
    units = _units(text, actions)
    _mark_scalars(units, actions, text)
    root, blocks = _blocks(units, actions)
    template = Template(text, actions, units, root, blocks,
                        is_helm(actions) if helm is None else helm)
    _merge_exclusive(root)
    if enums:
        _enum_blocks(template, root)
    _scopes(root, ())
    return template


def _scopes(branch: Branch, scope: tuple[str, ...]) -> None:
    """Each block's ``scope``: the with/range bodies around it."""
    for item in branch.items:
        if isinstance(item, int):
            continue
        item.scope = scope
        for index, sub in enumerate(item.branches):
            head = sub.header.body if sub.header is not None else ""
            inner = (*scope, head) if index == 0 and item.kind in ("with", "range") else scope
            _scopes(sub, inner)


_EQ = re.compile(r'^if\s+eq\s+(?:(\S+)\s+("[^"]*")|("[^"]*")\s+(\S+))\s*$')


def _eq_test(block: Block) -> tuple[str, str] | None:
    """(expression, literal) of a one-branch ``if eq X "lit"`` block."""
    head = block.branches[0].header
    if block.kind != "if" or len(block.branches) != 1 or head is None:
        return None
    match = _EQ.match(head.body)
    if not match:
        return None
    return (match.group(1), match.group(2)) if match.group(1) else (match.group(4),
                                                                   match.group(3))


def _merge_exclusive(branch: Branch) -> None:
    """Sibling ``if eq X "a"`` / ``if eq X "b"`` blocks exclude each other: they become one
    if / else-if block (so no world has both on)."""
    items: list[int | Block] = []
    for item in branch.items:
        if not isinstance(item, int):
            for sub in item.branches:
                _merge_exclusive(sub)
            test = _eq_test(item)
            prev = items[-1] if items else None
            chained = isinstance(prev, Block) and prev.kind == "if" and all(
                b.header is not None and b.header.body.startswith(("if eq", "else if eq"))
                for b in prev.branches)
            if test and chained and isinstance(prev, Block):
                tests = [_eq_test(Block(0, "if", 0, [b])) if i == 0 else
                         _eq_test(Block(0, "if", 0, [Branch(Action(
                             -1, -1, "", b.header.body[len("else "):], "control", "if"))]))
                         for i, b in enumerate(prev.branches) if b.header is not None]
                if all(t is not None and t[0] == test[0] and t[1] != test[1] for t in tests):
                    head = item.branches[0].header
                    assert head is not None
                    body = "else " + head.body
                    item.branches[0].header = Action(head.start, head.end, "{{- " + body + " }}",
                                                     body, "control", "else")
                    prev.branches.append(item.branches[0])
                    continue
        items.append(item)
    branch.items = items


_ENUM_LINE = re.compile(r"^(\s*(?:- )?)([A-Za-z]+):[ \t]+([\"']?)(\{\{.*\}\})\3\s*$")
QUOTE_TAIL = re.compile(r"\|\s*s?quote\s*$")  # anchored at a `|`: linear
# the enum value that stands for any positive whole number (enum_fields in templates.yaml)
COUNT = "<count>"
_COUNT_TEST = '{word} regexMatch "^[1-9][0-9]*$" (print ({expr}))'


def _enum_blocks(template: Template, branch: Branch) -> None:
    """A Go action at an enum field becomes one branch per allowed value (a virtual block).

    The converter's result depends on the value there (``nprocPerNode: 4`` becomes
    numProcPerNode, ``auto`` nothing), so each value is a world of its own; ``<count>`` is a
    branch for every positive number, whose value stays the action (an int stand-in). The
    value is compared as the text the action renders (``print``: a number and a string compare
    alike), with a ``quote`` around it set aside (the converter reads the quoted text)."""
    from migrator.template.knowledge import FIELDS

    for pos, item in enumerate(branch.items):
        if not isinstance(item, int):
            for sub in item.branches:
                _enum_blocks(template, sub)
            continue
        unit = template.units[item]
        if not unit.in_scalar and len(unit.actions) == 1:
            keyed = _enum_key(template, unit)
            if keyed is not None:
                branch.items[pos] = keyed
                continue
        match = _ENUM_LINE.match(unit.text)
        if unit.kind != "line" or unit.in_scalar or not match or len(unit.actions) != 1:
            continue
        values = FIELDS.enum_fields.get(match.group(2))
        act = template.actions[unit.actions[0]]
        if not values or act.text != match.group(4) or not act.outputs:
            continue
        quoted = QUOTE_TAIL.search(act.body)
        expr = act.body[:quoted.start()].rstrip() if quoted else act.body
        if not expr or "quote" in expr:
            continue
        # as written (`eq (X) "All"`) unless the value may be a number or was quoted
        subject = f"print ({expr})" if quoted or match.group(3) or COUNT in values else expr
        head = match.group(1) + match.group(2) + ": "
        branches = []
        if not template.helm:  # no regexMatch: a number is one of the other values
            values = tuple(v for v in values if v != COUNT)
        for i, value in enumerate(values):
            word = "if" if i == 0 else "else if"
            copy = Unit(len(template.units), unit.line, head + value, [], "line")
            if value == COUNT:
                body = _COUNT_TEST.format(word=word, expr=expr)
                text = "{{ " + expr + " }}"
                action = Action(-1, -1 + len(text), text, expr, "value", expr.split(" ")[0])
                template.actions.append(action)
                copy = Unit(len(template.units), unit.line, head + text,
                            [len(template.actions) - 1], "line", count=True)
            else:
                body = f'{word} eq ({subject}) "{value}"'
                if not quoted:
                    copy.text = unit.text.replace(act.text, value)
            header = Action(-1, -1, "{{- " + body + " }}", body, "control", "if")
            template.units.append(copy)
            branches.append(Branch(header, [copy.index]))
        block = Block(len(template.blocks), "enum", unit.line, branches, other=unit.index)
        shown = ", ".join("a positive number" if v == COUNT else (v or '""') for v in values)
        block.fail = (f"{match.group(2)} must be one of {shown} "
                      f"(line {unit.line} of the original template)")
        template.blocks.append(block)
        branch.items[pos] = block


# one way to split a line (a lazy `{{ *(.*?) *}}` split a blank run n^2 ways: cubic)
_ENUM_KEY = re.compile(r"^( *)(\{\{.*\}\}):\s*$")
_INDENT_TAIL = re.compile(r"\|\s*indent\s+(\d+)\s*$")  # anchored at a `|`: linear


def _enum_key(template: Template, unit: Unit) -> Block | None:
    """``{{ X | indent 4 }}:`` under a replica-spec key: one branch per role (enum_keys)."""
    from migrator.template.knowledge import FIELDS

    match = _ENUM_KEY.match(unit.text)
    act = template.actions[unit.actions[0]]
    if match is None or match.group(2) != act.text or not act.outputs:
        return None
    tail = _INDENT_TAIL.search(act.body)
    expr = act.body[:tail.start()].rstrip() if tail else act.body
    column = len(match.group(1)) + (int(tail.group(1)) if tail else 0)
    parent = ""
    for other in reversed(template.units[:unit.index]):
        if other.kind == "line" and not other.in_scalar and other.text.strip() \
                and other.indent < column:
            parent = other.text.strip().rstrip(":") if other.text.rstrip().endswith(":") else ""
            break
    roles = FIELDS.enum_keys.get(parent, ())
    written = {u.text.strip()[:-1] for u in template.units
               if u.kind == "line" and not u.actions and u.text.strip().endswith(":")
               and u.indent == column}
    values = [r for r in roles if r not in written]
    if not values or "quote" in expr:
        return None
    branches = []
    for i, value in enumerate(values):
        word = "if" if i == 0 else "else if"
        body = f'{word} eq ({expr}) "{value}"'
        header = Action(-1, -1, "{{- " + body + " }}", body, "control", "if")
        copy = Unit(len(template.units), unit.line, " " * column + value + ":", [], "line")
        template.units.append(copy)
        branches.append(Branch(header, [copy.index]))
    block = Block(len(template.blocks), "enum", unit.line, branches)
    block.fail = (f"the replica role {act.text} under {parent} must be one of "
                  f"{', '.join(values)} (line {unit.line} of the original template)")
    template.blocks.append(block)
    return block


def _units(text: str, actions: list[Action]) -> list[Unit]:
    units: list[Unit] = []
    pos, line, a = 0, 1, 0
    n = len(text)
    while pos < n:
        end = text.find("\n", pos)
        end = n if end < 0 else end
        mine: list[int] = []
        while a < len(actions) and actions[a].start < end:
            if actions[a].end > end:  # the action spans lines: the unit grows
                nxt = text.find("\n", actions[a].end)
                end = n if nxt < 0 else nxt
            mine.append(a)
            a += 1
        chunk = text[pos:end]
        comment = _comment_after(chunk, pos, mine, actions)
        head = chunk[:len(chunk) - len(comment)]
        dash = _DASH_CONTROL.match(head)
        if dash and mine and actions[mine[0]].start == pos + dash.end() \
                and _kind(head[dash.end():], pos + dash.end(), mine, actions) == "control":
            # `- {{- if x }}`: an item whose fields sit in the block below
            units.append(Unit(len(units), line, dash.group(1), [], "line"))
            units.append(Unit(len(units), line, chunk[dash.end():], mine, "control",
                              comment=comment))
        else:
            kind = _kind(head, pos, mine, actions)
            units.append(Unit(len(units), line, chunk, mine, kind,
                              comment=comment if kind == "control" else ""))
        line += chunk.count("\n") + 1
        pos = end + 1
    return units


def _comment_after(chunk: str, pos: int, mine: list[int], actions: list[Action]) -> str:
    """The YAML comment after the line's last action when none of its actions writes a value
    (`{{ if X }}  # why`), or "": with the actions rendering nothing, it is a comment line."""
    if not mine or any(actions[i].outputs for i in mine):
        return ""
    tail = chunk[actions[mine[-1]].end - pos:]
    return tail if tail.lstrip(" \t").startswith("#") else ""


def _kind(chunk: str, pos: int, mine: list[int], actions: list[Action]) -> UnitKind:
    if not mine:
        return "blank" if not chunk.strip() else "line"
    rest = chunk
    for i in reversed(mine):
        act = actions[i]
        rest = rest[:act.start - pos] + rest[act.end - pos:]
    if rest.strip():
        return "line"
    values = [actions[i] for i in mine if actions[i].outputs]
    if not values:
        return "control"
    if len(mine) == 1:
        return "fragment"
    return "line"


def _mark_scalars(units: list[Unit], actions: list[Action], text: str) -> None:
    """Units inside a YAML block scalar (``|``/``>``) are scalar text: their actions are inline."""
    owner: int | None = None
    quote = ""
    opener: Unit | None = None
    for unit in units:
        if quote:  # inside a quoted scalar that spans lines: everything is scalar text
            unit.in_scalar = True
            if _closes(_plain(unit, actions), quote):
                quote = ""
                if opener is not None:
                    opener.quoted_until = unit.index
            continue
        if owner is not None:
            if unit.kind == "blank" or unit.indent > owner:
                unit.in_scalar = True
                continue
            owner = None
        if unit.kind == "line" and _BLOCK_SCALAR.search(_plain(unit, actions)):
            owner = unit.indent
        elif unit.kind == "line":
            quote = _opens(_plain(unit, actions))
            opener = unit if quote else None


_VALUE_START = re.compile(r"^\s*(?:- +)?(?:[^\s'\"#][^:#]*:[ \t]+|- +|)(['\"])")


def _opens(text: str) -> str:
    """The quote character of a quoted scalar that starts on this line and does not end on it."""
    match = _VALUE_START.match(text)
    if not match:
        return ""
    quote = match.group(1)
    rest = text[match.end():]
    return "" if _closes(rest, quote) else quote


def _closes(text: str, quote: str) -> bool:
    i = 0
    while i < len(text):
        ch = text[i]
        if quote == '"' and ch == "\\":
            i += 2
            continue
        if ch == quote:
            if quote == "'" and text[i + 1:i + 2] == "'":
                i += 2
                continue
            return True
        i += 1
    return False


def _plain(unit: Unit, actions: list[Action]) -> str:
    """The unit's text with every action replaced by a short word (for syntax tests)."""
    text = unit.text
    if not unit.actions:
        return text
    base = actions[unit.actions[0]].start - text.find(actions[unit.actions[0]].text)
    for i in reversed(unit.actions):
        act = actions[i]
        text = text[:act.start - base] + "x" + text[act.end - base:]
    return text


def _blocks(units: list[Unit], actions: list[Action]) -> tuple[Branch, list[Block]]:
    root = Branch(None)
    stack: list[tuple[Block | None, Branch]] = [(None, root)]
    blocks: list[Block] = []
    placed: list[tuple[Branch, Action, int, int]] = []  # assignment, items before it, line
    for unit in units[:]:  # (comment units are appended on the way)
        if unit.in_scalar or unit.kind != "control":
            if unit.kind != "blank" or unit.in_scalar:
                stack[-1][1].items.append(unit.index)
            continue
        for i in unit.actions:
            act = actions[i]
            if act.kind in ("assign", "comment"):
                stack[-1][1].neutral.append(act)
                if act.kind == "assign" and stack[-1][0] is not None:
                    placed.append((stack[-1][1], act, len(stack[-1][1].items), unit.line))
                continue
            word = act.keyword
            if word in _OPENERS:
                branch = Branch(act)
                block = Block(len(blocks), word, unit.line, [branch])
                blocks.append(block)
                stack[-1][1].items.append(block)
                stack.append((block, branch))
            elif word == "else":
                open_block = stack[-1][0]
                if open_block is None:
                    raise Unsupported("{{ else }} without an open block", unit.line, act.text)
                branch = Branch(act)
                open_block.branches.append(branch)
                stack[-1] = (open_block, branch)
            elif word == "end":
                open_block = stack[-1][0]
                if open_block is None:
                    raise Unsupported("{{ end }} without an open block", unit.line, act.text)
                open_block.end = act
                stack.pop()
            else:
                raise Unsupported(f"the '{word}' action is not carried by the converter",
                                  unit.line, act.text)
        if unit.comment:
            # a unit of its own (appended: indices stay positions), where the line renders it
            units.append(Unit(len(units), unit.line, unit.comment, [], "line"))
            stack[-1][1].items.append(len(units) - 1)
    if len(stack) > 1:
        unclosed = stack[-1][0]
        assert unclosed is not None
        raise Unsupported("a template block is never closed with {{ end }}", unclosed.line,
                          unclosed.branches[0].header.text if unclosed.branches[0].header
                          else "")
    for branch, act, before, line in placed:
        if before == 0 or not branch.items:
            continue
        if before == len(branch.items):
            branch.neutral.remove(act)
            branch.trailing.append(act)
        elif re.search(r"\$[A-Za-z_0-9]*\s*=(?!=)", act.body) and ":=" not in act.body:
            # a variable changed between the branch's fields: the converted branch's fields
            # are in another order, so the change could not keep its place
            raise Unsupported("the assignment changes a variable between the fields of a "
                              "block, and the converted fields are in another order; decide "
                              "where the converted template should change it (or render "
                              "first)", line, act.text)
    return root, blocks
