"""Template stage: convert every branch world of a template and fold the outputs back into one."""

from __future__ import annotations

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


def visible_blocks(branch: Branch, parent: Block | None, out: dict[int, Block | None]) -> None:
    """Blocks reached through first branches only (else branches get a scope of their own)."""
    for item in branch.items:
        if isinstance(item, int):
            continue
        out[item.id] = parent
        visible_blocks(item.branches[0], item, out)


def _has_blocks(branch: Branch) -> bool:
    return any(not isinstance(item, int) for item in branch.items)


@dataclass
class _Scope:
    ref: list[str]
    order: list[int]
    regions: dict[int, tuple[int, int]]
    alts: dict[int, list[list[Piece]]]
    live: set[int]

    def assemble(self, lo: int, hi: int, blocks: dict[int, Block]) -> list[Piece]:
        for bid in self.live:
            b0, b1 = self.regions[bid]
            if not (lo <= b0 and b1 <= hi) and b0 < hi and lo < b1:
                raise _interact(blocks[bid], blocks[bid])
        inside = [b for b in self.order if lo <= self.regions[b][0] and self.regions[b][1] <= hi]
        return _assemble(self.ref, lo, hi, inside, self.regions, self.alts, blocks)


def fold(codec: Codec, convert: Converter) -> Folded:
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
        visible_blocks(branch, None, parents)
        # blocks with the same condition switch together: the first one stands for all
        twins = {bid: codec.canon.get(bid, bid) for bid in parents}
        parents = {bid: (blocks[twins[p.id]] if p is not None else None)
                   for bid, p in parents.items() if twins[bid] == bid}
        regions: dict[int, tuple[int, int]] = {}
        alts: dict[int, list[list[Piece]]] = {}
        for bid in parents:
            block = blocks[bid]
            outs = [ref] + [run({**base, bid: alt}) for alt in range(1, block.alternatives)]
            start, end = _diff_region(outs)
            regions[bid] = (start, len(ref) - end)
            alts[bid] = []
            for alt in range(1, block.alternatives):
                out = outs[alt]
                lo, hi = start, len(out) - end
                if alt < len(block.branches) and _has_blocks(block.branches[alt]):
                    sub = scope({**base, bid: alt}, block.branches[alt])
                    alts[bid].append(sub.assemble(lo, hi, blocks))
                else:
                    alts[bid].append(list(out[lo:hi]))
        live = {bid for bid in parents
                if regions[bid][0] != regions[bid][1] or any(alts[bid])}
        for bid in live:
            anc = parents[bid]
            while anc is not None and anc.id not in live:
                anc = parents[anc.id]
            if anc is not None:
                a0, a1 = regions[anc.id]
                b0, b1 = regions[bid]
                if not (a0 <= b0 and b1 <= a1):
                    raise _interact(blocks[bid], anc)
        order = sorted(live, key=lambda b: (regions[b][0], -regions[b][1]))
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                a0, a1 = regions[a]
                b0, b1 = regions[b]
                nested = (a0 <= b0 and b1 <= a1) or (b0 <= a0 and a1 <= b1)
                if not nested and b0 < a1 and a0 < b1:
                    raise _interact(blocks[b], blocks[a])
        return _Scope(ref, order, regions, alts, live)

    top = scope({}, codec.template.root)
    folded.pieces = top.assemble(0, len(top.ref), blocks)
    for bid in top.live:
        folded.moved[bid] = top.regions[bid][0]
    _verify(folded, run, blocks, top.live, codec)
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


def _diff_region(outs: list[list[str]]) -> tuple[int, int]:
    shortest = min(len(o) for o in outs)
    start = 0
    while start < shortest and all(o[start] == outs[0][start] for o in outs):
        start += 1
    end = 0
    while end < shortest - start and all(o[len(o) - 1 - end] == outs[0][len(outs[0]) - 1 - end]
                                         for o in outs):
        end += 1
    return start, end


def _assemble(ref: list[str], lo: int, hi: int, order: list[int],
              regions: dict[int, tuple[int, int]], hunks: dict[int, list[list[Piece]]],
              blocks: dict[int, Block]) -> list[Piece]:
    pieces: list[Piece] = []
    cur = lo
    i = 0
    inside = [b for b in order if lo <= regions[b][0] and regions[b][1] <= hi]
    while i < len(inside):
        bid = inside[i]
        start, end = regions[bid]
        if start < cur:
            i += 1
            continue
        pieces.extend(ref[cur:start])
        nested = [b for b in inside if b != bid and start <= regions[b][0]
                  and regions[b][1] <= end and regions[b] != (start, end)
                  or (b != bid and regions[b] == (start, end) and inside.index(b) > i)]
        first = _assemble(ref, start, end, nested, regions, hunks, blocks) if nested \
            else list(ref[start:end])
        branches: list[list[Piece]] = [first] + [list(h) for h in hunks[bid]]
        pieces.append(Cond(blocks[bid], branches))
        cur = end
        i += 1
    pieces.extend(ref[cur:hi])
    return pieces


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
        out.append(pad + "{{- end }}")
    return out


def _control(action: Any) -> str:
    return "{{- " + action.body + " }}"


def _first_indent(lines: list[Any]) -> int:
    for line in lines:
        if isinstance(line, str) and line.strip():
            return len(line) - len(line.lstrip(" "))
    return 0


def _verify(folded: Folded, run: Callable[[World], list[str]], blocks: dict[int, Block],
            live: set[int], codec: Codec) -> None:
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
        got = run(world)
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
