"""Template stage: encode one world of a template as plain YAML with placeholders, and back."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from migrator.template.knowledge import FIELDS
from migrator.template.scopes import Scope, rebound
from migrator.template.structure import QUOTE_TAIL, Block, Branch, Template, Unit, Unsupported
from migrator.template.tokens import Action, Dialect, tokenize_go

SlotKind = Literal["str", "int", "line"]
Shape = Literal["map", "item", "plain"]
STR_TOKEN = re.compile(r"tjmz(\d{4})z")
LINE_TOKEN = re.compile(r"tjml(\d{4})l")
# a fragment's placeholder line: `- <item key>: <token>` (FIELDS.item_keys), `- <token>`,
# `<token>: <token>` or `<token>: "1"`
_LINE_FORM = re.compile(
    r"^(\s*)(?:- (?:[A-Za-z]+: )?)?tjml(\d{4})l(?:: (?:tjml\d{4}l|\"1\"|'1'|1))?\s*$")
# one TF_CONFIG host entry standing for all nodes (launch.HOST_INDEX; the count in the middle)
HOST_ENTRY = re.compile(r'"([^"\n]*?)tjmi(\d+)i([^"\n]*)"')
_INT_TOKEN = re.compile(r"(?<![0-9A-Za-z_.])(3\d{8}|[3-8]\d{4})(?![0-9A-Za-z_.])")
_WHOLE = re.compile(r"^(\s*(?:- )?)([^\s:#][^:#]*?|\"[^\"]*\"|'[^']*'):[ \t]+(\S.*?)\s*$")
# a whole-value action followed by a YAML comment (`numNodes: ${NODE_NUM}  # nodes`): the value is
# the action alone (probe text: the action is \x00)
# (quotes closed: a ``#`` inside them is text)
_COMMENTED = re.compile("^(\x00|\"\x00\"|'\x00')[ \t]+#.*$")
_PROCESS_COUNT = re.compile(r"^(\s*numProcPerNode: )(\d+)\s*$")
_INDENT_FN = re.compile(r"\b(n?indent)\s+(\d+)\b")
# Stand-ins: counts that the engine may add up (replicas) get 30000 + 2^i * 100 (i < 8), so a
# sum of two is unique; other numbers and quantities get 300M + j * 1000 (read back alone).
# Summable stand-ins stay small (30100..42800, pair sums 60300..85600): a converter may expand
# a replica count into one entry per replica.
INT_BASE, INT_STEP, INT_SLOTS, INT_SLACK = 30_000, 100, 8, 49
PLAIN_BASE, PLAIN_STEP, PLAIN_SLOTS = 300_000_000, 1000, 50_000
Ctx = tuple[str, ...]
World = dict[int, int]  # block id -> branch index; -1 = a range body twice


@dataclass
class Slot:
    id: int
    kind: SlotKind
    action: Action
    line: int
    ctx: Ctx
    shape: Shape = "map"
    indent: int = 0  # column the fragment's lines start at (line slots)
    prefix: str = ""  # the text before the action on its template line (line slots)
    parent: str = ""  # the list a placeholder item stands in (line slots)

    @property
    def token(self) -> str:
        if self.kind == "int":
            if self.int_index < 0:
                return str(PLAIN_BASE + self.plain_index * PLAIN_STEP)
            return str(INT_BASE + (2 ** self.int_index) * INT_STEP)
        mark = "l" if self.kind == "line" else "z"
        return f"tjm{mark}{self.id:04d}{mark}"

    int_index: int = -1
    plain_index: int = -1
    # an envsubst placeholder at a field whose conversion depends on its value (nprocPerNode),
    # carried as a count: the field's name (the file must render a positive number there)
    assumed: str = ""
    quantity: bool = False  # stands for a Kubernetes quantity (500m, 4Gi) ...
    counted: bool = False  # ... unless it is also written where a count goes (nprocPerNode)
    # a fragment that is a key's whole value (`resources:` + `{{- toYaml X | nindent 16 }}`),
    # or a scalar that is (`runAsUser: {{ X }}`): the key line, and the trimmed renderings of X
    # for which the converter drops the key (`{}`, `null`: measured by convert._empty_guards;
    # the decoded key then gets an `if`)
    keyed: str = ""
    dropped_when: dict[str, tuple[str, ...]] = field(default_factory=dict)  # by output key
    # the lines around such a key that the converter drops with it (a built-in TrainJob's
    # runtimePatches entry that held only the key), by output key: how many parents up from
    # the key line the first of them is, that line stripped, the slots whose keys were all it
    # held, and the renderings that drop them (convert._empty_guards); the decoded lines get
    # an `if` too
    dropped_with: dict[str, tuple[int, str, tuple[int, ...], tuple[str, ...]]] = \
        field(default_factory=dict)


@dataclass
class Encoded:
    text: str
    lines: list[int]  # template line (1-based) of every line of ``text``


@dataclass
class Codec:
    """Placeholders for the actions of one template, stable across worlds."""

    template: Template
    dialect: Dialect
    slots: dict[tuple[str, str, Ctx], Slot] = field(default_factory=dict)
    by_id: dict[int, Slot] = field(default_factory=dict)
    ints: list[Slot] = field(default_factory=list)
    canon: dict[int, int] = field(default_factory=dict)  # block id -> first block alike
    # int slots encoded as a fixed value (the converter accepts only that value there; for
    # other values the template keeps the legacy job, see convert._pin)
    pins: dict[int, str] = field(default_factory=dict)
    # keyed slots encoded as an empty value (`{}`, `[]`, or "" for null) instead of their
    # placeholder: the worlds that measure what the converter does with an empty fragment
    empties: dict[int, str] = field(default_factory=dict)
    # keyed scalars that are all of a map's entries, where the converter writes the map as
    # `{}` once they are all dropped (a companion runtime's `securityContext: {}`)
    kept_empty: set[frozenset[int]] = field(default_factory=set)
    _around: dict[int, tuple[int, ...]] | None = field(default=None, repr=False)
    _at: Scope = field(default=(), repr=False)  # the with/range bodies of the line decoded
    detached: list[int] = field(default_factory=list)  # blocks switched apart (detach), in order
    # slots written with another's placeholder: two roles' values that the converted job
    # takes as one (the template keeps the legacy job where they render differently, unify)
    alias: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        first: dict[tuple[str, ...], int] = {}
        for block in self.template.blocks:
            # blocks switch together where their tests read the same values: a test in a with
            # body is read as written at the top (`with .nodeSelector` in two roles' withs
            # are two tests)
            heads = [b.header.body if b.header else "" for b in block.branches]
            key = (block.kind, *(rebound(h, block.scope, ()) or h for h in heads))
            self.canon[block.id] = first.setdefault(key, block.id)

    def detach(self, bid: int, worlds: list[World]) -> None:
        """Let block ``bid`` switch apart from its twins (blocks with the same test) from now
        on; ``worlds`` that chose for them go on choosing the same for it and for them."""
        rep = self.canon.get(bid, bid)
        twins = [b.id for b in self.template.blocks
                 if b.id != bid and self.canon.get(b.id, b.id) == rep]
        if not twins:
            return
        self.detached.append(bid)
        self.canon[bid] = bid
        if rep == bid:
            for twin in twins:
                self.canon[twin] = twins[0]
        for world in worlds:  # (each keeps what it chose for both)
            if rep in world:
                world.setdefault(twins[0] if rep == bid else bid, world[rep])

    def slot(self, kind: SlotKind, action: Action, line: int, ctx: Ctx, **extra: object) -> Slot:
        key = (kind, action.text, ctx)
        found = self.slots.get(key)
        if found is not None:
            return self.by_id[self.alias[found.id]] if found.id in self.alias else found
        summable = bool(extra.pop("summable", False))
        powers = sum(1 for s in self.ints if s.int_index >= 0)
        plains = sum(1 for s in self.ints if s.int_index < 0)
        if kind == "int" and not (summable and powers < INT_SLOTS) and plains >= PLAIN_SLOTS:
            return self.slot("str", action, line, ctx)
        new = Slot(len(self.by_id) + 1, kind, action, line, ctx, **extra)  # type: ignore[arg-type]
        if kind == "int":
            if summable and powers < INT_SLOTS:
                new.int_index = powers
            else:
                new.plain_index = plains
            self.ints.append(new)
        self.slots[key] = new
        self.by_id[new.id] = new
        return new

    # -- encoding -------------------------------------------------------------------------
    def encode(self, world: World) -> Encoded:
        out: list[str] = []
        lines: list[int] = []
        self._walk(self.template.root, world, (), out, lines)
        return Encoded("\n".join(out) + "\n", lines)

    def _walk(self, branch: Branch, world: World, ctx: Ctx, out: list[str],
              lines: list[int]) -> None:
        skip_until = -1
        for item in branch.items:
            if isinstance(item, int):
                if item <= skip_until:
                    continue
                unit = self.template.units[item]
                if unit.quoted_until > unit.index and not unit.in_scalar:
                    text = self._quoted(unit, ctx)
                    if text is not None:
                        out.append(text)
                        lines.append(unit.line)
                        skip_until = unit.quoted_until
                        continue
                for offset, text in enumerate(self._unit(unit, ctx)):
                    out.append(text)
                    lines.append(unit.line + offset)
                continue
            choice = world.get(self.canon.get(item.id, item.id), 0)
            if choice == -1:
                body = item.branches[0]
                head = body.header.body if body.header else ""
                self._walk(body, world, (*ctx, head), out, lines)
                self._walk(body, world, (*ctx, head + "#2"), out, lines)
            elif choice < len(item.branches):
                chosen = item.branches[choice]
                inner = ctx
                if choice == 0 and item.kind in ("range", "with") and chosen.header:
                    inner = (*ctx, chosen.header.body)
                self._walk(chosen, world, inner, out, lines)

    def _quoted(self, unit: Unit, ctx: Ctx) -> str | None:
        """A quoted scalar over several lines with actions inside becomes one placeholder (its
        line breaks and the blank lines of its actions are part of its value)."""
        units = self.template.units[unit.index:unit.quoted_until + 1]
        first = min((unit.text.find(q) for q in "'\"" if q in unit.text), default=-1)
        if first < 0 or any(self.template.actions[i].start < 0 for i in unit.actions):
            return None
        acts_before = [i for i in unit.actions
                       if unit.text.find(self.template.actions[i].text) < first]
        if acts_before or not any(u.actions for u in units):
            return None
        last = units[-1].text
        close = last.rfind(unit.text[first])
        text = "\n".join([unit.text[first:]] + [u.text for u in units[1:-1]] + [last[:close + 1]])
        act = Action(-1, -1, text, "", "value")
        slot = self.slot("str", act, unit.line, ctx, indent=first)
        return unit.text[:first] + slot.token + last[close + 1:]

    def _unit(self, unit: Unit, ctx: Ctx) -> list[str]:
        acts = [self.template.actions[i] for i in unit.actions]
        if unit.in_scalar and len(acts) == 1 and acts[0].outputs and not _quoted(acts[0]):
            # a job embedded in a block scalar (a ConfigMap's trial template): a count there is
            # read by the embedded job's converter like any other
            whole = _WHOLE.match(self._inline(unit, acts, ctx, probe=True))
            key = whole.group(2).strip("\"'") if whole else ""
            if whole and _value(whole) == "\x00" and FIELDS.is_int(key) \
                    and self._names_a_field(unit):
                slot = self.slot("int", acts[0], unit.line, ctx,
                                 summable=key in FIELDS.int_fields)
                return [unit.text.replace(acts[0].text, slot.token)]
        if unit.in_scalar or unit.kind == "blank":
            return self._inline(unit, acts, ctx).split("\n")
        if unit.kind == "fragment":
            act = acts[0]
            col = self._column(unit, act)
            indent, shape = self._fragment_geometry(unit, act, col)
            slot = self.slot("line", act, unit.line, ctx, shape=shape, indent=indent,
                             prefix=unit.text[:col], parent=self._list_key(unit, indent))
            key = self._whole_value_of(unit, indent)
            slot.keyed = slot.keyed or key
            if key and slot.id in self.empties:
                return [" " * indent + self.empties[slot.id]]
            return _line_placeholder(slot, indent).split("\n")
        if not _balanced(acts):
            bad = next(a for a in acts if a.kind == "control")
            raise Unsupported(f"the control action {bad.text} shares its line with YAML "
                              "text", unit.line, bad.text)
        whole = _WHOLE.match(self._inline(unit, acts, ctx, probe=True))
        if whole and _value(whole).strip("\"'") == "\x00" and acts[-1].outputs:
            key = whole.group(2).strip("\"'")
            act = acts[-1]
            rest = acts[:-1]
            if _is_subtree(act) and not rest and whole.group(3).strip("\"'") == "\x00":
                col = len(whole.group(1))
                child = col + 2
                form: Shape = "item" if key in FIELDS.list_fields else "map"
                if key in FIELDS.string_lists:
                    form = "plain"
                slot = self.slot("line", act, unit.line, ctx, shape=form, indent=child,
                                 prefix="", parent=key)
                head = unit.text[:unit.text.index(act.text)].rstrip()
                slot.keyed = slot.keyed or head
                if slot.id in self.empties:
                    return [(head + " " + self.empties[slot.id]).rstrip()]
                return [head, *_line_placeholder(slot, child).split("\n")]
            if self.dialect == "envsubst" and not rest \
                    and "<count>" in FIELDS.enum_fields.get(key, ()):
                # no conditionals in envsubst: carried as the number the key takes then
                slot = self.slot("int", act, unit.line, ctx)
                slot.assumed, slot.counted = key, True
                return [unit.text.replace(act.text, slot.token)]
            field_key = self._names_a_field(unit)
            quantity = field_key and (self._parent_key(unit) in FIELDS.quantity_parents
                                      or key in FIELDS.quantity_fields)
            if quantity or unit.count or (field_key and FIELDS.is_int(key) and not _quoted(act)
                                          and _value(whole) == "\x00"):
                slot = self.slot("int", act, unit.line, ctx,
                                 summable=key in FIELDS.int_fields)
                slot.quantity = slot.quantity or quantity
                slot.counted = slot.counted or unit.count or key in FIELDS.process_count_fields
                if self._nulled(slot, whole, act, rest):
                    return [whole.group(1) + whole.group(2) + ":"]
                keyed = _Shifted(unit, rest, self, ctx)
                return [keyed.text.replace(act.text, self.pins.get(slot.id, slot.token))]
            if self._nulled(self.slot("str", act, unit.line, ctx), whole, act, rest):
                return [whole.group(1) + whole.group(2) + ":"]
        return self._inline(unit, acts, ctx).split("\n")

    def _nulled(self, slot: Slot, whole: re.Match[str], act: Action, rest: list[Action]) -> bool:
        """Whether a scalar that is all of a key's value (`runAsUser: {{ X }}`, also `{{ X |
        quote }}`: quote prints nothing for an unset X) is encoded as null in this world (its
        key line is noted: Slot.keyed)."""
        if rest or _value(whole) != "\x00":
            return False
        slot.keyed = slot.keyed or (whole.group(1) + whole.group(2) + ":")
        return slot.id in self.empties

    def _inline(self, unit: Unit, acts: list[Action], ctx: Ctx, probe: bool = False) -> str:
        text = unit.text
        if not acts:
            return text
        base = acts[0].start - text.find(acts[0].text)
        for act in reversed(acts):
            token = "\x00" if probe else self.slot("str", act, unit.line, ctx).token
            text = text[:act.start - base] + token + text[act.end - base:]
        return text

    def _whole_value_of(self, unit: Unit, indent: int) -> str:
        """The key line right above a fragment that is all of that key's value (``resources:``
        over ``{{- toYaml X | nindent 16 }}`` and nothing else under it), or ""."""
        units = self.template.units
        above = units[unit.index - 1] if unit.index > 0 else None
        if above is None or above.kind != "line" or above.in_scalar or above.actions \
                or not re.match(r"^ *[^\s:#'\"-][^:#]*:\s*$", above.text) \
                or above.indent > indent \
                or (above.indent == indent and not self._indentless_key(unit, indent)):
            return ""
        for other in units[unit.index + 1:]:
            if other.kind in ("line", "fragment") and not other.in_scalar \
                    and other.text.strip():
                return above.text if other.indent <= above.indent else ""
        return above.text

    def _list_key(self, unit: Unit, indent: int) -> str:
        """The key of the list a fragment's items belong to."""
        indentless = self._indentless_key(unit, indent)
        if indentless:
            return indentless
        for i in range(unit.index - 1, -1, -1):
            other = self.template.units[i]
            if other.kind == "line" and not other.in_scalar and other.indent < indent:
                text = other.text.strip()
                text = text[2:] if text.startswith("- ") else text
                return text.split(":", 1)[0].strip("\"'") if text.endswith(":") else ""
        return ""

    def _names_a_field(self, unit: Unit) -> bool:
        """Whether the key of ``unit``'s line is a field, whose name tells the type of its
        value, rather than an entry of a string map (a label ``gpu-topology`` is no count)."""
        return self._parent_key(unit) not in FIELDS.string_maps

    def _parent_key(self, unit: Unit) -> str:
        """The key of the mapping that holds ``unit``'s line (within its block scalar when it
        is in one: the lines of an embedded job), or "". Lines of a block that ended before it
        are passed over (a `range` one column left of the `if` after it holds it only in the
        worlds where both write: broken YAML there)."""
        units = self.template.units
        indent = unit.indent + (2 if unit.text.lstrip().startswith("- ") else 0)
        around = self._enclosing().get(unit.index, ())
        for i in range(unit.index - 1, -1, -1):
            other = units[i]
            if other.kind != "line" or other.text.lstrip().startswith("#"):
                continue  # a YAML comment line is no key, whatever its column
            if not set(self._enclosing().get(i, ())) <= set(around):
                continue
            if other.in_scalar != unit.in_scalar:
                if unit.in_scalar:  # the scalar's own key line: nothing holds the line in it
                    return ""
                continue
            if other.indent < indent:
                text = other.text.strip()
                if text.startswith("- "):
                    text = text[2:]
                return text.split(":", 1)[0].strip("\"'") if text.endswith(":") else ""
        return ""

    def _enclosing(self) -> dict[int, tuple[int, ...]]:
        """The blocks around each unit (by unit index), outermost first."""
        if self._around is None:
            found: dict[int, tuple[int, ...]] = {}

            def walk(branch: Branch, chain: tuple[int, ...]) -> None:
                for item in branch.items:
                    if isinstance(item, int):
                        found[item] = chain
                    else:
                        for sub in item.branches:
                            walk(sub, (*chain, item.id))

            walk(self.template.root, ())
            self._around = found
        return self._around

    def _column(self, unit: Unit, act: Action) -> int:
        return unit.text.find(act.text)

    def _fragment_geometry(self, unit: Unit, act: Action, col: int) -> tuple[int, Shape]:
        fn = _INDENT_FN.search(act.body)
        if fn and fn.group(1) == "nindent":
            indent = int(fn.group(2))
        elif fn:
            indent = (0 if act.trim_left else col) + int(fn.group(2))
        else:
            indent = col
        return indent, self._shape_near(unit, indent)

    def _indentless_key(self, unit: Unit, indent: int) -> str:
        """The key of a list whose items start at its own column (an indentless sequence,
        `env:` over `{{- toYaml X | nindent N }}` with N the column of `env:`) when a fragment
        at ``indent`` is among its items, or "". Only a key known to hold a list
        (FIELDS.list_fields, FIELDS.string_lists) is read so: a fragment at the column of any
        other key writes that key's siblings."""
        deeper = False  # lines passed over below a column-``indent`` item not yet met
        for i in range(unit.index - 1, -1, -1):
            other = self.template.units[i]
            if other.kind != "line" or other.in_scalar or not other.text.strip() \
                    or other.text.lstrip().startswith("#"):
                continue
            if other.indent > indent:
                deeper = True
                continue
            if other.indent < indent:
                return ""
            text = other.text.strip()
            if text == "-" or text.startswith("- "):
                deeper = False  # an item of the same list, written out
                continue
            key = text[:-1].strip().strip("\"'") if text.endswith(":") else ""
            if deeper or other.actions or not key:
                return ""
            return key if key in FIELDS.list_fields or key in FIELDS.string_lists else ""
        return ""

    def _shape_near(self, unit: Unit, indent: int) -> Shape:
        units = self.template.units
        indentless = self._indentless_key(unit, indent)
        if indentless:
            return "plain" if indentless in FIELDS.string_lists else "item"
        for step in (1, -1):
            i = unit.index + step
            while 0 <= i < len(units):
                other = units[i]
                if other.kind in ("line",) and not other.in_scalar:
                    if other.indent == indent:
                        return "item" if other.text.lstrip().startswith("- ") else "map"
                    if other.indent < indent:
                        if step == -1 and other.text.rstrip().endswith(":"):
                            key = other.text.strip().lstrip("- ").rstrip(":").strip("\"'")
                            if key in FIELDS.string_lists:
                                return "plain"
                            return "item" if key in FIELDS.list_fields else "map"
                        break
                i += step
        return "map"

    # -- decoding -------------------------------------------------------------------------
    def decode(self, text: str, scopes: list[Scope] | None = None) -> str:
        """Put every action back in converted text; raises Unsupported when one was mangled.
        ``scopes``: the with/range bodies each line of ``text`` stands in (render_lines); an
        action read in other bodies is written for the line's (``act``)."""
        out: list[str] = []
        raw = text.split("\n")
        lines, at = _join_items(raw, scopes if scopes and len(scopes) == len(raw) else None)
        skip = -1
        starts: list[int] = []  # where each line's output begins in ``out``
        ends: dict[int, str] = {}  # line -> the `end` of lines guarded with a fragment before it
        opened: set[int] = set()  # the first lines of those
        for index, line in enumerate(lines):
            if index in ends:
                out.append(ends.pop(index))
            starts.append(len(out))
            if index <= skip:
                continue
            self._at = at[index]
            form = _LINE_FORM.match(line)
            if form:
                slot = self.by_id.get(int(form.group(2)))
                if slot is None or slot.kind != "line":
                    raise Unsupported("unknown placeholder in the converted output", 0)
                column = len(form.group(1))
                wrappers = FIELDS.map_wrappers.get(slot.parent, ()) if slot.shape == "map" \
                    else ()
                for key in reversed(wrappers):  # the wrapper keys held only the placeholder
                    if not out or out[-1].strip() != f"{key}:" or \
                            len(out[-1]) - len(out[-1].lstrip(" ")) != column - 2:
                        raise Unsupported("the converter rewrote the text around a template "
                                          "fragment", slot.line, slot.action.text)
                    out.pop()
                    column -= 2
                    if index + 1 < len(lines) and lines[index + 1].startswith(" " * (column + 2)):
                        raise Unsupported("the converter added fields next to a template "
                                          "fragment", slot.line, slot.action.text)
                guard = _empty_guard(slot, self.act(slot), out[-1] if out else "", column)
                key_index = index - 1 - len(wrappers)
                # the placeholder item's other fields (item_fields) go with it
                pad = len(form.group(1)) + 2
                while index + 1 < len(lines) and lines[index + 1].startswith(" " * pad) \
                        and _extra_field(lines[index + 1], slot):
                    index += 1
                skip = index
                among = _among_items(slot, self.act(slot), out, lines[index + 1:], column)
                guard = "" if among else guard  # (the key stays for the items beside it)
                if guard:
                    self._guard_around(slot, out[-1], lines, key_index, starts, out, ends,
                                       opened)
                    out.insert(len(out) - 1, guard)
                elif among:
                    out.append(among)
                out.append(self._fragment(slot, column))
                if guard or among:
                    lead = guard or among
                    out.append(lead[:len(lead) - len(lead.lstrip())] + "{{- end }}")
                continue
            if LINE_TOKEN.search(line):
                slot = self.by_id.get(int(LINE_TOKEN.search(line).group(1)))  # type: ignore[union-attr]
                raise Unsupported("the converter rewrote the text around a template fragment",
                                  slot.line if slot else 0, slot.action.text if slot else "")
            count = _PROCESS_COUNT.match(line)
            found = decode_int(int(count.group(2)), self.ints) if count else None
            if count and found and len(found[0]) == 1 and not found[1] \
                    and found[0][0].quantity and not found[0][0].counted:
                out.append(count.group(1) + self._rounded(found[0][0]))
                continue
            guard = self._null_guard(line)
            line = HOST_ENTRY.sub(self._hosts_back, line)
            line = _INT_TOKEN.sub(self._int_back, line)
            line = STR_TOKEN.sub(self._str_back, line)
            if not guard:
                out.append(line)
                continue
            lead = guard[:len(guard) - len(guard.lstrip())]
            out.extend([guard, line, lead + "{{- end }}"])
            emptied = self._emptied_map(lines, index)
            if emptied:  # the entries' guards wrote nothing: the `{}` goes on the map's line
                out.append(lead + "{{- if " + emptied + " }} {}{{- end }}")
        out.extend(ends[i] for i in sorted(ends))
        self._at = ()
        return "\n".join(out)

    def _guard_around(self, slot: Slot, key_line: str, lines: list[str], key: int,
                      starts: list[int], out: list[str], ends: dict[int, str],
                      opened: set[int]) -> None:
        """An `if` around the lines the converter drops together with ``slot``'s key when
        its fragment and those of its group render empty (Slot.dropped_with): opened before
        the first of them in ``out``, and closed (``ends``) where they end. None where those
        lines hold a control action or another fragment (they may then hold more than was
        measured)."""
        found = slot.dropped_with.get(key_line.strip())
        if found is None or key < 0 or lines[key].strip() != key_line.strip():
            return
        levels, first_line, group, renders = found
        top = key
        for _ in range(levels):
            depth = indent_of(lines[top])
            top = next((i for i in range(top - 1, -1, -1)
                        if lines[i].strip() and indent_of(lines[i]) < depth), -1)
            if top < 0 or lines[top].lstrip().startswith("{{"):
                return
        head = lines[top].strip()
        item = head == "-" or head.startswith("- ")
        if top in opened or not (head == first_line or (first_line == "-" and item)):
            return
        end = top + 1
        while end < len(lines) and (not lines[end].strip()
                                    or indent_of(lines[end]) > indent_of(lines[top])):
            end += 1
        while end > top + 1 and not lines[end - 1].strip():
            end -= 1
        tests: list[str] = []
        for sid in group:
            member = self.by_id.get(sid)
            expr = fragment_expression(self.act(member)) if member is not None else ""
            if not expr:
                return
            values = " ".join('"' + v + '"' for v in renders)
            tests.append("(has (trim (" + expr + ")) (list " + values + "))")
        for i in range(top, end):
            if lines[i].lstrip().startswith("{{") or any(
                    int(m.group(1)) not in group for m in LINE_TOKEN.finditer(lines[i])):
                return
        lead = " " * indent_of(lines[top])
        test = tests[0] if len(tests) == 1 else "(and " + " ".join(tests) + ")"
        at = starts[top]
        out.insert(at, lead + "{{- if not " + test + " }}")
        for i in range(top, len(starts)):
            starts[i] += 1
        opened.add(top)
        ends[end] = lead + "{{- end }}"

    def act(self, slot: Slot) -> Action:
        """``slot``'s action as it reads on the line being decoded: written in with bodies the
        line is not in (the converted job moved it out of them), ``.`` and the with's
        variables are written out (`.replicas` in `with .Values.worker` is
        `.Values.worker.replicas` there). Unsupported where that cannot be written (a range's
        item outside the range)."""
        act = slot.action
        if slot.ctx == self._at or "{{" not in act.text:
            return act
        parts: list[str] = []
        pos = 0
        for inner in tokenize_go(act.text):
            body = rebound(inner.body, slot.ctx, self._at)
            if body is None:
                where = next((c for c in reversed(slot.ctx) if c not in self._at), "")
                raise Unsupported(f"the action {act.text} reads what {{{{ {where} }}}} binds "
                                  "(its `.` or variables), and "
                                  "the converted job writes its field outside that block, "
                                  "where it cannot be read", slot.line, act.text)
            parts.append(act.text[pos:inner.start])
            parts.append(inner.text.replace(inner.body, body, 1) if inner.body else inner.text)
            pos = inner.end
        parts.append(act.text[pos:])
        text = "".join(parts)
        if text == act.text:
            return act
        body = tokenize_go(text)[0].body if act.body and text.startswith("{{") else act.body
        return Action(act.start, act.end, text, body, act.kind, act.keyword, act.trim_left,
                      act.trim_right)

    def scalar_slot(self, line: str) -> tuple[Slot, str] | None:
        """The slot a line `key: <stand-in>` holds and its key line, or None."""
        found = _SCALAR_LINE.match(line)
        if found is None:
            return None
        token = found.group(3)
        slot: Slot | None = None
        if STR_TOKEN.fullmatch(token):
            slot = self.by_id.get(int(token[4:8]))
        elif _INT_TOKEN.fullmatch(token):  # (a bounded stand-in: any digits are no int here)
            ints = decode_int(int(token), self.ints)
            slot = ints[0][0] if ints and len(ints[0]) == 1 and not ints[1] else None
        return None if slot is None else (slot, found.group(1) + found.group(2) + ":")

    def _null_slot(self, line: str) -> tuple[Slot, str] | None:
        """The slot and key of a line `key: <stand-in>` whose key the converter drops when
        the slot renders null (Slot.dropped_when), or None."""
        found = self.scalar_slot(line)
        if found is None or not found[0].dropped_when.get(found[1].strip()) \
                or not found[0].action.body:
            return None
        return found

    def _null_guard(self, line: str) -> str:
        """``{{- if not (...) }}`` around a key whose scalar the converter drops when it renders
        null (`runAsUser: {{ X }}` with X unset renders `runAsUser:`)."""
        found = self._null_slot(line)
        if found is None:
            return ""
        slot, key = found
        test = _null_test(self.act(slot))
        return key[:len(key) - len(key.lstrip())] + "{{- if not " + test + " }}"

    def _emptied_map(self, lines: list[str], index: int) -> str:
        """When ``lines[index]`` is the last entry of a map whose entries are all guarded
        scalars that the converter writes as `{}` once all are dropped (Codec.kept_empty): the
        test that they all render null; else ""."""
        column = indent_of(lines[index])
        if index + 1 < len(lines) and lines[index + 1].strip() \
                and indent_of(lines[index + 1]) >= column:
            return ""
        slots: list[Slot] = []
        for i in range(index, -1, -1):
            if indent_of(lines[i]) < column:
                if not lines[i].rstrip().endswith(":"):
                    return ""
                break
            found = self._null_slot(lines[i])
            if found is None or indent_of(lines[i]) != column:
                return ""
            slots.append(found[0])
        if frozenset(s.id for s in slots) not in self.kept_empty:
            return ""
        tests = [_null_test(self.act(s)) for s in reversed(slots)]
        return tests[0] if len(tests) == 1 else "and " + " ".join(tests)

    def host_index(self, count: int) -> str | None:
        """The index text of the one host entry that stands for a templated node count
        (launch.HOST_INDEX), or None for a count of its own."""
        return f"tjmi{count}i" if decode_int(count, self.ints) is not None else None

    def _hosts_back(self, match: re.Match[str]) -> str:
        """A TF_CONFIG host entry standing for every node: the entries written by a loop
        over the templated count, comma-separated as JSON (``"h-0","h-1"``)."""
        count = int(match.group(2))
        if self.dialect == "envsubst" or not self.template.helm:
            found = decode_int(count, self.ints)
            slot = found[0][0] if found else None
            raise Unsupported("the TF_CONFIG the converter writes lists one host per node and "
                              "the node count comes from a template action: the list needs a "
                              "loop over the count (`range until`), which only Helm has",
                              slot.line if slot else 0, slot.action.text if slot else "")
        pre, post = self._go_print(match.group(1)), self._go_print(match.group(3))
        # the entry's parts are evaluated before the loop (`range` rebinds the dot)
        return ("{{ $tjmHost := " + pre + " }}{{ $tjmPort := " + post + " }}"
                "{{ range $node := until (int (" + self._expression_of(count) + ")) }}"
                '{{ if $node }},{{ end }}"{{ $tjmHost }}{{ $node }}{{ $tjmPort }}"{{ end }}')

    def _expression_of(self, value: int) -> str:
        """The Go expression a stand-in (or a sum of them) decodes to."""
        text = self._int_back(_INT_TOKEN.match(str(value)))  # type: ignore[arg-type]
        if not text.startswith("{{"):
            return text
        inner = text[2:-2]
        return inner.strip("-").strip()

    def _go_print(self, text: str) -> str:
        """``print`` of ``text``'s literal parts and the actions its placeholders stand for."""
        parts: list[str] = []
        pos = 0
        for found in _PRINTED_TOKEN.finditer(text):
            if found.start() > pos:
                parts.append(go_string(text[pos:found.start()]))
            if found.group(1) is not None:
                slot = self.by_id.get(int(found.group(1)))
                if slot is None or "\n" in slot.action.text or not slot.action.body:
                    raise Unsupported("unknown placeholder in the converted output", 0)
                parts.append("(" + self.act(slot).body + ")")
            else:
                parts.append("(" + self._expression_of(int(found.group(2))) + ")")
            pos = found.end()
        if pos < len(text):
            parts.append(go_string(text[pos:]))
        return "print " + " ".join(parts or ['""'])

    def _rounded(self, slot: Slot) -> str:
        """A process count the converter made from a quantity (nprocPerNode cpu: the CPU
        limit rounded up, at least 1), as the template computes it (Helm only)."""
        if self.dialect == "envsubst" or not self.template.helm \
                or not slot.action.text.startswith("{{"):
            raise Unsupported(f"the process count is the CPU quantity {slot.action.text} rounded "
                              "up (nprocPerNode cpu), which this template cannot compute",
                              slot.line, slot.action.text)
        body = self.act(slot).body
        quoted = QUOTE_TAIL.search(body)
        value = f"print ({body[:quoted.start()].rstrip() if quoted else body})"
        return (f'{{{{ if regexMatch "^[0-9]+m$" ({value}) }}}}{{{{ max 1 (ceil (divf '
                f'(trimSuffix "m" ({value})) 1000)) }}}}{{{{ else }}}}{{{{ max 1 (ceil '
                f"(float64 ({value}))) }}}}{{{{ end }}}}")

    def _str_back(self, match: re.Match[str]) -> str:
        slot = self.by_id.get(int(match.group(1)))
        if slot is None:
            raise Unsupported("unknown placeholder in the converted output", 0)
        text = self.act(slot).text
        if "\n" not in text:
            return text
        # a multi-line quoted scalar: its continuation lines move with it (folding ignores
        # their indentation, YAML only needs them deeper than the key)
        delta = match.start() - slot.indent
        lines = text.split("\n")
        moved = [lines[0]]
        for cont in lines[1:]:
            if delta >= 0:
                moved.append(" " * delta + cont)
            else:
                cut = min(-delta, len(cont) - len(cont.lstrip(" ")))
                moved.append(cont[cut:])
        return "\n".join(moved)

    def _int_back(self, match: re.Match[str]) -> str:
        value = int(match.group(1))
        found = decode_int(value, self.ints)
        if found is None:
            return match.group(1)
        used, constant = found
        if len(used) == 1 and constant == 0:
            return self.act(used[0]).text
        if self.dialect == "envsubst" or not self.template.helm:
            names = " + ".join(s.action.text for s in used)
            engine = "envsubst" if self.dialect == "envsubst" else \
                "a plain Go template (no Helm: no sprig functions such as add)"
            raise Unsupported(f"the converted value is the sum {names}"
                              f"{f' + {constant}' if constant else ''}, which {engine} cannot "
                              "compute", used[0].line, used[0].action.text)
        terms = [f"({_expression(self.act(s))})" for s in used]
        if constant:
            terms.insert(0, str(constant))
        inner = terms[0]
        for term in terms[1:]:
            inner = f"add {inner} {term}" if not inner.startswith("add ") else f"{inner} {term}"
        if not inner.startswith("add "):
            inner = f"add {inner}"
        return "{{ " + inner + " }}"

    def _fragment(self, slot: Slot, column: int) -> str:
        act = self.act(slot)
        fn = _INDENT_FN.search(act.body)
        if column == slot.indent:
            if fn is not None and fn.group(1) == "nindent" and not act.trim_left \
                    and not slot.prefix.strip():
                # unmoved: as written (an untrimmed nindent renders a blank line first, which
                # under a `|-` header is part of the scalar's value)
                return slot.prefix + act.text
            if fn is None or fn.group(1) == "nindent":
                return " " * column + "{{- " + act.body + " }}" if fn else slot.prefix + act.text
            return slot.prefix + act.text
        if fn is None or len(_INDENT_FN.findall(act.body)) != 1:
            raise Unsupported("a template fragment without nindent/indent would have to move "
                              "to another depth", slot.line, act.text)
        body = act.body[:fn.start(2)] + str(column) + act.body[fn.end(2):]
        if fn.group(1) == "nindent":
            return " " * column + "{{- " + body + " }}"
        return "{{ " + body + " }}"


class _Shifted:
    """A unit's text with some of its actions (the key's) replaced by string tokens."""

    def __init__(self, unit: Unit, acts: list[Action], codec: Codec, ctx: Ctx) -> None:
        self.text = codec._inline(unit, acts, ctx) if acts else unit.text


# a string or number stand-in inside a printed value (``Codec._go_print``)
_PRINTED_TOKEN = re.compile(STR_TOKEN.pattern + "|" + _INT_TOKEN.pattern)
_KEY_LINE = re.compile(r"^( *)[^\s:#'\"-][^:#]*:\s*$")
# `key: <stand-in>` on a line of its own (a scalar that is all of a key's value)
_SCALAR_LINE = re.compile(r"^( *)([^\s:#'\"-][^:#]*): (tjmz\d{4}z|\d+)\s*$")
_INDENT_PIPE = re.compile(r"^(.*?)\s*\|\s*n?indent\s+\d+\s*$", re.DOTALL)
_INDENT_CALL = re.compile(r"^n?indent\s+\d+\s+(.*)$", re.DOTALL)


def fragment_expression(act: Action) -> str:
    """The pipeline a fragment indents (``toYaml .Values.resources`` of ``toYaml
    .Values.resources | nindent 16``), or "" when the action is no plain indented value."""
    body = act.body.strip()
    found = _INDENT_PIPE.match(body) or _INDENT_CALL.match(body)
    return found.group(1).strip() if found and found.group(1).strip() else ""


def _among_items(slot: Slot, act: Action, before: list[str], after: list[str],
                 column: int) -> str:
    """Template stage (decoding): ``{{- if not (has (trim (X)) (list "[]" "null" "")) }}``
    around a list fragment that the converted job gives other items of the same list (a
    container's `env:` fragment beside the PYTHONUNBUFFERED the converter adds): rendered
    empty (`[]`, or `null` for an unset value) next to them it would be broken YAML, where the
    rendered job's `env: []` converts to those items alone; "" when it stands alone. ``act``:
    the slot's action as written where the fragment lands (Codec.act: out of a with)."""
    expr = fragment_expression(act)
    if slot.shape not in ("item", "plain") or not expr:
        return ""
    previous = next((line for line in reversed(before) if line.strip()), "")
    following = next((line for line in after if line.strip()), "")
    beside = indent_of(previous) >= column or (
        indent_of(following) == column and following.lstrip().startswith("-"))
    if not beside:
        return ""
    return " " * column + "{{- if not (has (trim (" + expr + ')) (list "[]" "null" "")) }}'


def _empty_guard(slot: Slot, act: Action, key_line: str, column: int) -> str:
    """``{{- if not (has (trim (X)) (list ...)) }}`` around a key whose fragment renders a
    value the converter drops the key for (``resources: {}`` gives no resourcesPerNode)."""
    key = _KEY_LINE.match(key_line)
    expr = fragment_expression(act)
    dropped = slot.dropped_when.get(key_line.strip()) if key else None
    if not dropped or key is None or not expr or len(key.group(1)) + 2 != column:
        return ""
    values = " ".join('"' + v + '"' for v in dropped)
    return key.group(1) + "{{- if not (has (trim (" + expr + ")) (list " + values + ")) }}"


# YAML's spellings of null: a scalar key rendering one of them holds null
NULLS = ("null", "Null", "NULL", "~", "")


def _null_test(act: Action) -> str:
    """Whether a scalar action renders null (null_test)."""
    return null_test(act.body.strip())


def null_test(expr: str) -> str:
    """Whether the Go expression ``expr`` renders null: nothing (an unset value prints as
    nothing in Helm, and `toString` of it is `<nil>`) or a YAML spelling of null."""
    values = " ".join(go_string(v) for v in NULLS)
    return (f'(or (kindIs "invalid" ({expr})) '
            f"(has (trim (toString ({expr}))) (list {values})))")


def indent_of(line: str) -> int:
    """The spaces a line starts with."""
    return len(line) - len(line.lstrip(" "))


def go_string(text: str) -> str:
    """``text`` as a Go string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _extra_field(line: str, slot: Slot) -> bool:
    key = line.strip().split(":", 1)[0]
    return key in FIELDS.item_fields.get(slot.parent, {})


def _join_items(lines: list[str], scopes: list[Scope] | None = None
                ) -> tuple[list[str], list[Scope]]:
    """``-`` on a line of its own followed by the item's first field becomes ``- field`` again
    (worlds are compared with items split; a control line after the dash keeps it split); the
    scope of each line kept (the field's)."""
    out: list[str] = []
    at: list[Scope] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == "-" and i + 1 < len(lines):
            nxt = lines[i + 1]
            pad = len(line) - 1
            if nxt.startswith(" " * (pad + 2)) and nxt[pad + 2:pad + 3] not in (" ", "") \
                    and not nxt.lstrip().startswith("{{"):
                out.append(line + " " + nxt[pad + 2:])
                at.append(scopes[i + 1] if scopes else ())
                i += 2
                continue
        out.append(line)
        at.append(scopes[i] if scopes else ())
        i += 1
    return out, at


def decode_int(value: int, ints: list[Slot]) -> tuple[list[Slot], int] | None:
    """Which stand-ins (one or two) plus a small constant make ``value``."""
    for slot in ints:
        rest = value - int(slot.token)
        if abs(rest) <= INT_SLACK:
            return [slot], rest
    powers = [s for s in ints if s.int_index >= 0]
    for i, first in enumerate(powers):
        for second in powers[i:]:
            rest = value - 2 * INT_BASE - (2 ** first.int_index + 2 ** second.int_index) * INT_STEP
            if abs(rest) <= INT_SLACK:
                return [first, second], rest
    return None


def _balanced(acts: list[Action]) -> bool:
    """Control actions that open and close within one line stay inline (opaque text)."""
    depth = 0
    for act in acts:
        if act.kind != "control":
            continue
        if act.keyword in ("if", "with", "range"):
            depth += 1
        elif act.keyword == "end":
            depth -= 1
        elif act.keyword != "else":
            return False
        if depth < 0:
            return False
    return depth == 0


def _expression(act: Action) -> str:
    return act.body


def _quoted(act: Action) -> bool:
    return "quote" in act.body or (act.text.startswith("$") and False)


def _is_subtree(act: Action) -> bool:
    return act.text.startswith("{{") and bool(re.search(r"\b(toYaml|nindent|indent)\b",
                                                          act.body))


def _value(whole: re.Match[str]) -> str:
    """The value of a ``_WHOLE`` match, without a comment after a whole-value action."""
    return _COMMENTED.sub(r"\1", whole.group(3))


def _line_placeholder(slot: Slot, indent: int) -> str:
    pad = " " * indent
    wrappers = FIELDS.map_wrappers.get(slot.parent, ()) if slot.shape == "map" else ()
    if wrappers:
        lines = []
        for depth, key in enumerate(wrappers):
            lines.append(" " * (indent + 2 * depth) + f"{key}:")
        inner = " " * (indent + 2 * len(wrappers))
        return "\n".join([*lines, f'{inner}{slot.token}: "1"'])
    if slot.shape == "item":
        extra = FIELDS.item_fields.get(slot.parent, {})
        lines = [f"{pad}- {FIELDS.item_key(slot.parent)}: {slot.token}"]
        for key, value in extra.items():
            text = value.replace("{token}", slot.token) if isinstance(value, str) \
                else str(value) if isinstance(value, int) else "{}"
            lines.append(f"{pad}  {key}: {text}")
        return "\n".join(lines)
    if slot.shape == "plain":
        return f"{pad}- {slot.token}"
    return f"{pad}{slot.token}: {slot.token}"


def blocks_in(branch: Branch) -> list[Block]:
    return [item for item in branch.items if isinstance(item, Block)]
