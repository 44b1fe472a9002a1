"""Template stage: convert every branch world of a template and fold the outputs back into one."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Callable, Union

from migrator.template.codec import STR_TOKEN, Codec, World
from migrator.template.structure import Block, Branch, Unsupported

Converter = Callable[[str], tuple[str, list[Any], bool]]  # text -> (output, documents, ok)


@dataclass
class Cond:
    block: Block
    branches: list[list[Union[str, "Cond"]]]  # one piece list per alternative


Piece = Union[str, Cond]


@dataclass
class Folded:
    pieces: list[Piece]
    worlds: dict[tuple[tuple[int, int], ...], tuple[str, list[Any]]] = field(default_factory=dict)
    moved: dict[int, int] = field(default_factory=dict)  # block id -> first output line (0-based)


def visible_blocks(branch: Branch, parent: Block | None, out: dict[int, Block | None],
                   forced: World | None = None, canon: dict[int, int] | None = None) -> None:
    """Blocks reached through first branches only (else branches get a scope of their own);
    a forced block is not a choice: its forced branch is followed instead."""
    for item in branch.items:
        if isinstance(item, int):
            continue
        key = canon.get(item.id, item.id) if canon else item.id
        if forced and key in forced:
            choice = forced[key]
            if 0 <= choice < len(item.branches):
                visible_blocks(item.branches[choice], parent, out, forced, canon)
            continue
        out[item.id] = parent
        visible_blocks(item.branches[0], item, out, forced, canon)


def _has_blocks(branch: Branch) -> bool:
    return any(not isinstance(item, int) for item in branch.items)


@dataclass
class Region:
    """Lines ``start:end`` of a scope's reference output that one block's branches change."""

    block: int
    start: int
    end: int
    alts: list[list[Piece]]


@dataclass
class _Scope:
    ref: list[str]
    regions: list[Region]
    parents: dict[int, Block | None]

    def assemble(self, lo: int, hi: int, blocks: dict[int, Block]) -> list[Piece]:
        inside = []
        for region in self.regions:
            if lo <= region.start and region.end <= hi:
                inside.append(region)
            elif region.start < hi and lo < region.end:
                raise _interact(blocks[region.block], blocks[region.block])
        return self._assemble(lo, hi, inside, blocks)

    def _ancestor(self, a: int, b: int) -> bool:
        anc = self.parents.get(b)
        while anc is not None:
            if anc.id == a:
                return True
            anc = self.parents.get(anc.id)
        return False

    def _inside(self, r: Region, outer: Region) -> bool:
        return self._ancestor(outer.block, r.block) and outer.start <= r.start \
            and r.end <= outer.end

    def _assemble(self, lo: int, hi: int, regions: list[Region],
                  blocks: dict[int, Block]) -> list[Piece]:
        tops = [r for r in regions if not any(o is not r and self._inside(r, o) for o in regions)]
        tops.sort(key=lambda r: (r.start, r.end))
        for x, y in zip(tops, tops[1:]):
            if y.start < x.end:
                raise _interact(blocks[y.block], blocks[x.block])
        pieces: list[Piece] = []
        cur = lo
        for top in tops:
            pieces.extend(self.ref[cur:top.start])
            inner = [r for r in regions if r is not top and self._inside(r, top)]
            first = self._assemble(top.start, top.end, inner, blocks)
            pieces.append(Cond(blocks[top.block], [first] + [list(a) for a in top.alts]))
            cur = top.end
        pieces.extend(self.ref[cur:hi])
        return pieces


def _hunks(ref: list[str], outs: list[list[str]]) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """Changed ranges of ``ref`` (merged over every alternative) and the matching ranges of each."""
    codes = [difflib.SequenceMatcher(None, ref, out, autojunk=False).get_opcodes()
             for out in outs]
    spans: list[list[int]] = []
    for ops in codes:
        for tag, i1, i2, _j1, _j2 in ops:
            if tag != "equal":
                spans.append([i1, i2])
    spans.sort()
    merged: list[list[int]] = []
    for span in spans:
        if merged and span[0] <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], span[1])
        else:
            merged.append(list(span))
    result = []
    for start, end in merged:
        result.append((start, end, [(_map(ops, start, True, len(out)), _map(ops, end, False, len(out)))
                                    for ops, out in zip(codes, outs)]))
    return result


def _map(ops: list[tuple[str, int, int, int, int]], pos: int, start: bool, size: int) -> int:
    equal = [op for op in ops if op[0] == "equal"]
    if start:
        for _tag, i1, i2, j1, j2 in equal:
            if i1 <= pos < i2:
                return j1 + pos - i1
        for _tag, i1, i2, j1, j2 in equal:
            if i2 == pos:
                return j2
        return 0 if pos == 0 else size
    for _tag, i1, i2, j1, _j2 in equal:
        if i1 == pos:
            return j1
    for _tag, i1, i2, j1, _j2 in equal:
        if i1 < pos <= i2:
            return j1 + pos - i1
    return size


def fold(codec: Codec, convert: Converter, forced: World | None = None) -> Folded:
    forced = dict(forced or {})
    blocks = {b.id: b for b in codec.template.blocks}
    folded = Folded([])

    def run(world: World) -> list[str]:
        key = tuple(sorted(world.items()))
        if key not in folded.worlds:
            text = codec.encode(world).text
            out, docs, ok = convert(text)
            if not ok:
                raise WorldFailed(world, docs)
            folded.worlds[key] = (out, docs)
        return folded.worlds[key][0].split("\n")

    def scope(base: World, branch: Branch) -> _Scope:
        ref = run(base)
        parents: dict[int, Block | None] = {}
        visible_blocks(branch, None, parents, forced, codec.canon)
        # blocks with the same condition switch together: the first one stands for all
        twins = {bid: codec.canon.get(bid, bid) for bid in parents}
        parents = {bid: (blocks[twins[p.id]] if p is not None else None)
                   for bid, p in parents.items() if twins[bid] == bid}
        regions: list[Region] = []
        for bid in parents:
            block = blocks[bid]
            outs = [run({**base, bid: alt}) for alt in range(1, block.alternatives)]
            subs: dict[int, _Scope] = {}
            for alt in range(1, block.alternatives):
                if alt < len(block.branches) and _has_blocks(block.branches[alt]):
                    subs[alt] = scope({**base, bid: alt}, block.branches[alt])
            for start, end, spans in _hunks(ref, outs):
                alts: list[list[Piece]] = []
                for alt, (lo, hi) in enumerate(spans, start=1):
                    if alt in subs:
                        alts.append(subs[alt].assemble(lo, hi, blocks))
                    else:
                        alts.append(list(outs[alt - 1][lo:hi]))
                regions.append(Region(bid, start, end, alts))
        return _Scope(ref, regions, parents)

    top = scope(dict(forced), codec.template.root)
    folded.pieces = top.assemble(0, len(top.ref), blocks)
    live = {r.block for r in top.regions}
    for region in top.regions:
        folded.moved.setdefault(region.block, region.start)
    _verify(folded, run, blocks, live, codec, forced)
    return folded


class WorldFailed(Exception):
    def __init__(self, world: World, documents: list[Any]) -> None:
        super().__init__("a branch world did not convert")
        self.world = world
        self.documents = documents


def _interact(a: Block, b: Block) -> Unsupported:
    head = a.branches[0].header.text if a.branches[0].header else ""
    other = b.branches[0].header.text if b.branches[0].header else ""
    return Unsupported(f"the fields of {head} (line {a.line}) and {other} (line {b.line}) end up "
                       "interleaved in the converted job, so the block cannot travel as one",
                       a.line, head)


def evaluate(pieces: list[Piece], world: World, retoken: Callable[[str, Block], str] | None = None
             ) -> list[str]:
    out: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
            continue
        choice = world.get(piece.block.id, 0)
        if choice == -1:
            body = evaluate(piece.branches[0], world, retoken)
            out.extend(body)
            out.extend(retoken(line, piece.block) if retoken else line for line in body)
        else:
            out.extend(evaluate(piece.branches[choice], world, retoken))
    return out


def render_lines(pieces: list[Piece]) -> list[str]:
    """The folded output as template text lines, with the control actions put back."""
    out: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
            continue
        block = piece.block
        body = render_lines(piece.branches[0])
        pad = " " * _first_indent(body or [x for b in piece.branches for x in b
                                          if isinstance(x, str)])
        out.append(pad + _control(block.branches[0].header))
        out.extend(pad + "{{- " + a.body + " }}" for a in block.branches[0].neutral)
        out.extend(body)
        for alt, lines in enumerate(piece.branches[1:], start=1):
            if alt < len(block.branches):
                out.append(pad + _control(block.branches[alt].header))
                out.extend(pad + "{{- " + a.body + " }}" for a in block.branches[alt].neutral)
            elif lines:
                out.append(pad + "{{- else }}")
            out.extend(render_lines(lines))
        if block.fail:
            out.append(pad + "{{- else }}")
            out.append(pad + "{{- fail " + _go_string(block.fail) + " }}")
        out.append(pad + "{{- end }}")
    return out


def _go_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _control(action: Any) -> str:
    return "{{- " + action.body + " }}"


def _first_indent(lines: list[Any]) -> int:
    for line in lines:
        if isinstance(line, str) and line.strip():
            return len(line) - len(line.lstrip(" "))
    return 0


def _verify(folded: Folded, run: Callable[[World], list[str]], blocks: dict[int, Block],
            live: set[int], codec: Codec, forced: World) -> None:
    """Worlds the fold was not built from must come out as the fold predicts."""
    checks: list[World] = []
    if live:
        checks.append({b: blocks[b].alternatives - 1 for b in live})
        ordered = sorted(live)
        checks.append({b: blocks[b].alternatives - 1 for b in ordered[::2]})
        checks.append({b: blocks[b].alternatives - 1 for b in ordered[1::2]})
    ranges = [b for b in sorted(live) if blocks[b].kind == "range"]
    if ranges:
        checks.append({b: -1 for b in ranges})
    for world in checks:
        # a block nested in a block that is off does not matter; -1 needs every ancestor on
        expected = evaluate(folded.pieces, world, lambda line, blk: _retoken(codec, line, blk))
        got = run({**forced, **world})
        if expected != got:
            bad = _first_difference(expected, got)
            culprit = blocks[min(world)] if world else None
            line = culprit.line if culprit else 0
            raise Unsupported("the template's blocks do not combine independently in the "
                              f"converted job (output line {bad + 1} differs when several "
                              "blocks change together)", line,
                              culprit.branches[0].header.text if culprit and
                              culprit.branches[0].header else "")


def _first_difference(a: list[str], b: list[str]) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def _retoken(codec: Codec, line: str, block: Block) -> str:
    head = block.branches[0].header.body if block.branches[0].header else ""

    def swap(match: Any) -> str:
        slot = codec.by_id[int(match.group(1))]
        if head not in slot.ctx:
            return str(match.group(0))
        ctx = tuple(c + "#2" if c == head else c for c in slot.ctx)
        twin = codec.slots.get((slot.kind, slot.action.text, ctx))
        return twin.token if twin else str(match.group(0))

    return STR_TOKEN.sub(swap, line)
