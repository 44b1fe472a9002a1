"""Template stage: convert every branch world of a template and fold the outputs back into one."""

from __future__ import annotations

import difflib
import itertools
import math
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from migrator.template.codec import (
    _INT_TOKEN,
    LINE_TOKEN,
    STR_TOKEN,
    Codec,
    World,
    decode_int,
    go_string,
    indent_of,
)
from migrator.template.conditions import _branch_condition, condition, path_to
from migrator.template.knowledge import FIELDS
from migrator.template.scopes import Scope, rebound
from migrator.template.structure import Block, Branch, Unsupported
from migrator.template.tokens import Action

Converter = Callable[[str], tuple[str, list[Any], bool]]  # text -> (output, documents, ok)


@dataclass
class Cond:
    block: Block
    branches: list[list[str | Cond]]  # one piece list per alternative


Piece = str | Cond


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
    nests: set[tuple[int, int]] = field(default_factory=set)  # (outer, inner) somewhere

    def assemble(self, lo: int, hi: int, blocks: dict[int, Block]) -> list[Piece]:
        inside = []
        for region in self.regions:
            if lo <= region.start and region.end <= hi:
                inside.append(region)
            elif region.start < hi and lo < region.end:
                raise _interact(blocks[region.block], blocks[region.block])
        return self._assemble(lo, hi, inside, blocks)

    def _ancestor(self, a: int, b: int) -> bool:
        if (a, b) in self.nests:
            return True
        anc = self.parents.get(b)
        while anc is not None:
            if anc.id == a:
                return True
            anc = self.parents.get(anc.id)
        return False

    def _inside(self, r: Region, outer: Region) -> bool:
        if not (outer.start <= r.start and r.end <= outer.end) or r is outer:
            return False
        if self._ancestor(outer.block, r.block):
            return True
        # twins may nest differently in different places (a range inside an if in limits,
        # beside it in requests): strict containment of real lines decides there
        return r.start < r.end and (outer.start, outer.end) != (r.start, r.end) \
            and not self._ancestor(r.block, outer.block)

    def _assemble(self, lo: int, hi: int, regions: list[Region],
                  blocks: dict[int, Block]) -> list[Piece]:
        tops = [r for r in regions if not any(o is not r and self._inside(r, o) for o in regions)]
        tops.sort(key=lambda r: (r.start, r.end))
        for x, y in itertools.pairwise(tops):
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


MAX_GUARD_ROUNDS = 12
# The fold converts the whole document once per branch world, so its cost is (branch runs) x
# (document size). A document needing more branch runs than this is refused up front (Y110,
# template left byte-identical, nothing converted) instead of taking minutes. The converted
# corpus charts plan at most 74 (arena mpijob/pytorchjob); arena tfjob (121) is refused here.
MAX_BRANCH_RUNS = 80
# Each run converts the whole template, so the runs a document may take also shrink with its
# length: at most this many characters converted over all of them (~3 s per million here; the
# largest corpus chart, arena's pytorchjob, plans 74 runs of 24 KB: 1.8 M). A template of many
# jobs (each run converts them all) took minutes before (hostile-input attack 12).
MAX_BRANCH_WORK = 2_000_000


def _still_switched(codec: Codec, forced: World | None = None) -> tuple[set[int], int]:
    """The blocks a fold with ``forced`` still switches (the first of each condition) and the
    characters of template text it converts per run: a forced block's other branches are gone
    from every world (a role kept legacy for the values that enable it costs nothing)."""
    forced = forced or {}
    found: set[int] = set()
    size = [0]

    def walk(branch: Branch) -> None:
        for item in branch.items:
            if isinstance(item, int):
                size[0] += len(codec.template.units[item].text) + 1
                continue
            key = codec.canon.get(item.id, item.id)
            if key in forced:
                if 0 <= forced[key] < len(item.branches):
                    walk(item.branches[forced[key]])
                continue
            found.add(key)
            for sub in item.branches:
                walk(sub)

    walk(codec.template.root)
    return found, size[0]


def planned_runs(codec: Codec, forced: World | None = None) -> int:
    """Converter runs the fold needs at least: the reference world, every other branch of each
    live block (blocks with the same condition switch together) and a second iteration per
    range; leaf blocks, when there are at least BATCH_MIN of them, by batches (code_length)."""
    outer = {codec.canon.get(b.id, b.id) for b in codec.template.blocks
             if any(_has_blocks(branch) for branch in b.branches)}
    blocks = {b.id: b for b in codec.template.blocks}
    runs, leaves = 1, 0
    for bid in sorted(_still_switched(codec, forced)[0]):
        block = blocks[bid]
        if _batchable(block, outer):
            leaves += 1
        else:
            runs += block.alternatives - 1 + (block.kind == "range")
    return runs + (code_length(leaves) if leaves >= BATCH_MIN else leaves)


def max_runs(codec: Codec, forced: World | None = None) -> int:
    """The branch runs this document may take: MAX_BRANCH_RUNS, fewer for a long template
    (MAX_BRANCH_WORK characters converted in all; only the text a run converts counts)."""
    return max(1, min(MAX_BRANCH_RUNS, MAX_BRANCH_WORK // max(1, _size(codec, forced))))


def _size(codec: Codec, forced: World | None) -> int:
    """Characters of template text one branch run converts (at most)."""
    return _still_switched(codec, forced)[1] if forced else len(codec.template.text)


def too_many_runs(codec: Codec, forced: World | None = None) -> Unsupported | None:
    """The refusal for a document with more branch worlds than it may take, or None."""
    runs = planned_runs(codec, forced)
    if runs <= max_runs(codec, forced):
        return None
    return _over_cap(codec, str(runs), forced)


def _over_cap(codec: Codec, runs: str, forced: World | None = None) -> Unsupported:
    """The refusal of a document whose blocks need ``runs`` branch conversions."""
    count = len(_still_switched(codec, forced)[0])
    first = codec.template.blocks[0] if codec.template.blocks else None
    head = first.branches[0].header.text if first and first.branches[0].header else ""
    limit = max_runs(codec, forced)
    size = "" if limit == MAX_BRANCH_RUNS else \
        f" for a template of {_size(codec, forced) // 1024} KB"
    return Unsupported(f"{count} conditional/range blocks need {runs} branch conversions, more "
                       f"than the limit of {limit} per document{size}; decide which "
                       "values the blocks take (render the chart first, `check --helm`), or "
                       "split the template so that each file has fewer blocks",
                       first.line if first else 0, head)
Change = tuple[int, int, int, int]

# Batched branch worlds: a scope with at least BATCH_MIN leaf blocks (an if/with of two
# choices with no block inside) switches many of them at once. Block i gets a code, a set of
# w of k worlds (all codes the same size w, so no union or overlap of two codes is another
# code); world j switches the blocks whose code holds j. A line of the reference output that
# changes in exactly the worlds of one code belongs to that block. k grows with log(blocks),
# so a scope of n such blocks costs about log2(n) + 2 conversions instead of n. What the
# codes cannot attribute is converted block by block as before, and the regions found must
# predict every batched world exactly, or the whole scope falls back to one block at a time.
BATCH_MIN = 8


def _batchable(block: Block, outer: set[int]) -> bool:
    return block.kind in ("if", "with") and block.alternatives == 2 and block.id not in outer \
        and not any(_has_blocks(branch) for branch in block.branches)


def code_length(count: int) -> int:
    """Worlds needed to give ``count`` blocks distinct codes of one size (k choose k//2)."""
    k = 1
    while math.comb(k, k // 2) < count:
        k += 1
    return k


def _batched(ref: list[str], batch: list[int], base: World, run: Callable[[World], list[str]]
             ) -> tuple[list[Region], list[int], list[tuple[World, list[str]]]] | None:
    """Regions of the batched blocks, the blocks left to convert alone, and the batched
    worlds with their outputs (to check the regions against); None when a batched world does
    not convert (the blocks are then converted alone, which names the one that fails)."""
    k = code_length(len(batch))
    codes = [frozenset(c) for c in itertools.combinations(range(k), k // 2)][:len(batch)]
    owner = dict(zip(codes, batch, strict=True))
    code_of = dict(zip(batch, codes, strict=True))
    checks: list[tuple[World, list[str]]] = []
    changes: list[list[Change]] = []
    for j in range(k):
        flipped = {bid: 1 for bid in batch if j in code_of[bid]}
        try:
            out = run({**base, **flipped})
        except WorldFailed:
            _culprit(list(flipped), base, run)  # raises the failure of one block alone
            return None  # only blocks together fail: each is converted alone
        checks.append((flipped, out))
        changes.append(_changes(ref, out))
    lines: list[set[int]] = [set() for _ in ref]
    gaps: dict[int, set[int]] = {}
    for j, found in enumerate(changes):
        for i1, i2, _j1, _j2 in found:
            if i1 == i2:
                gaps.setdefault(i1, set()).add(j)
            for i in range(i1, i2):
                lines[i].add(j)
    unresolved: set[int] = set()
    # segments in reference order: (start, end, code); a gap is an empty segment
    segments: list[tuple[int, int, frozenset[int]]] = []
    for i in range(len(ref) + 1):
        if i in gaps:
            segments.append((i, i, frozenset(gaps[i])))
        if i < len(ref) and lines[i]:
            segments.append((i, i + 1, frozenset(lines[i])))
    merged: list[tuple[int, int, frozenset[int]]] = []
    for seg in segments:
        if seg[2] not in owner:  # no block's code: blocks that act together
            unresolved.update(b for c, b in owner.items() if c <= seg[2])
            continue
        if merged and merged[-1][2] == seg[2] and merged[-1][1] == seg[0]:
            merged[-1] = (merged[-1][0], seg[1], seg[2])
        else:
            merged.append(seg)
    regions: list[Region] = []
    for start, end, code in merged:
        bid = owner[code]
        alt = _alternative(start, end, code, changes, checks)
        if alt is None:
            unresolved.add(bid)
        else:
            regions.append(Region(bid, start, end, [alt]))
    regions = [r for r in regions if r.block not in unresolved]
    return regions, sorted(unresolved), checks


def _culprit(group: list[int], base: World, run: Callable[[World], list[str]]) -> None:
    """Halve a batch whose world fails down to one block and convert it alone: its failure
    (WorldFailed) is the one the block-by-block fold would meet, at about log2 of the cost.
    Returns when no single block fails on its own."""
    while len(group) > 1:
        for part in (group[:len(group) // 2], group[len(group) // 2:]):
            try:
                run({**base, **dict.fromkeys(part, 1)})
            except WorldFailed:
                group = part
                break
        else:
            return
    run({**base, group[0]: 1})


def _alternative(start: int, end: int, code: frozenset[int], changes: list[list[Change]],
                 checks: list[tuple[World, list[str]]]) -> list[Piece] | None:
    """What a block's region becomes when the block is switched: the change of a batched world
    that is exactly this region, or a deletion that covers it."""
    for j in sorted(code):
        for i1, i2, j1, j2 in changes[j]:
            if (i1, i2) == (start, end):
                return list(checks[j][1][j1:j2])
            if j1 == j2 and i1 <= start and end <= i2 and start < end:
                return []
    return None


def _iterations(codec: Codec, block: Block, ref: list[str], twice: list[str]
                ) -> list[tuple[int, int]] | None:
    """The lines one iteration of a range body produces, found by running the body twice:
    every change must be an insertion equal to the lines just before (or after) it."""
    found = []
    for i1, i2, j1, j2 in _changes(ref, twice):
        if i1 != i2:
            return None
        inserted = twice[j1:j2]
        k = len(inserted)
        before = [_retoken(codec, line, block) for line in ref[max(i1 - k, 0):i1]]
        after = [_retoken(codec, line, block) for line in ref[i1:i1 + k]]
        if before == inserted:
            found.append((i1 - k, i1))
        elif after == inserted:
            found.append((i1, i1 + k))
        else:
            return None
    return found or None  # ref i1:i2 became alt j1:j2


def _hunks(ref: list[str], outs: list[list[str]]) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """Changed ranges of ``ref`` (merged over every alternative) and the matching ranges of each."""
    changes = [_changes(ref, out) for out in outs]
    spans = sorted([c[0], c[1]] for cs in changes for c in cs)
    merged: list[list[int]] = []
    for span in spans:
        if merged and span[0] <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], span[1])
        else:
            merged.append(list(span))
    result = []
    for start, end in merged:
        mapped = []
        for cs in changes:
            lo = start + sum((j2 - j1) - (i2 - i1) for i1, i2, j1, j2 in cs
                             if i2 < start or (i2 == start and i1 < start))
            hi = end + sum((j2 - j1) - (i2 - i1) for i1, i2, j1, j2 in cs if i1 <= end)
            mapped.append((lo, hi))
        result.append((start, end, mapped))
    return result


def _changes(ref: list[str], out: list[str]) -> list[Change]:
    """The line changes from ``ref`` to ``out``; a pure insertion or deletion is slid (within
    equal lines) to where it starts and ends on whole YAML entries."""
    # the lines both start and end with are equal: only the middle is compared (difflib is
    # quadratic in runs of equal lines, a block scalar of thousands)
    head, tail = 0, 0
    while head < min(len(ref), len(out)) and ref[head] == out[head]:
        head += 1
    while tail < min(len(ref), len(out)) - head and ref[-1 - tail] == out[-1 - tail]:
        tail += 1
    ops = difflib.SequenceMatcher(None, ref[head:len(ref) - tail], out[head:len(out) - tail],
                                  autojunk=False).get_opcodes()
    raw = [(i1 + head, i2 + head, j1 + head, j2 + head)
           for tag, i1, i2, j1, j2 in ops if tag != "equal"]
    result: list[Change] = []
    for k, (i1, i2, j1, j2) in enumerate(raw):
        lo_limit = result[-1][1] if result else 0
        hi_limit = raw[k + 1][0] if k + 1 < len(raw) else len(ref)
        if j1 == j2 and i1 < i2:  # deletion of ref lines
            lines, start, stop = ref, i1, i2
        elif i1 == i2 and j1 < j2:  # insertion of out lines
            lines, start, stop = out, j1, j2
        else:
            result.append((i1, i2, j1, j2))
            continue
        best = (_score(lines, start, stop), 0, 0)
        shift = 0
        while i1 + shift - 1 >= lo_limit and start + shift - 1 >= 0 \
                and lines[start + shift - 1] == lines[stop + shift - 1]:
            shift -= 1
            best = max(best, (_score(lines, start + shift, stop + shift), -abs(shift), shift))
        shift = 0
        while i2 + shift + 1 <= hi_limit and stop + shift < len(lines) \
                and lines[start + shift] == lines[stop + shift]:
            shift += 1
            best = max(best, (_score(lines, start + shift, stop + shift), -abs(shift), shift))
        d = best[2]
        result.append((i1 + d, i2 + d, j1 + d, j2 + d))
    return result


def _score(lines: list[str], start: int, stop: int) -> tuple[bool, bool, bool]:
    def indent(line: str) -> int:
        return len(line) - len(line.lstrip(" "))
    body = [line for line in lines[start:stop] if line.strip()]
    if not body:
        return (False, False, False)
    first = indent(body[0])
    whole = first == min(indent(line) for line in body)
    after = lines[stop] if stop < len(lines) else ""
    closed = not after.strip() or indent(after) <= first
    return (whole, closed, body[0].lstrip().startswith("- "))


def fold(codec: Codec, convert: Converter, forced: World | None = None,
         known: Collection[str] = ()) -> Folded:
    """Convert the branch worlds of ``codec``'s template and fold them into one; ``known``:
    world texts converted before (by an earlier fold of the same template), which are free."""
    forced = dict(forced or {})
    refused = too_many_runs(codec, forced)
    blocks = {b.id: b for b in codec.template.blocks}
    folded = Folded([])
    run = _runner(codec, convert, forced, known, folded)

    if refused is not None:
        # over the cap: only the reference world is converted, so that a construct failing
        # on its own is named (with its line) rather than the block count
        run(dict(forced))
        refused.detail = ("reference", folded.worlds[tuple(sorted(forced.items()))][1])
        raise refused

    nests: set[tuple[int, int]] = set()

    def collect(branch: Branch, chain: list[int]) -> None:
        for item in branch.items:
            if isinstance(item, int):
                continue
            rep = codec.canon.get(item.id, item.id)
            nests.update((outer, rep) for outer in chain if outer != rep)
            for sub in item.branches:
                collect(sub, [*chain, rep])

    collect(codec.template.root, [])

    def scope(base: World, branch: Branch) -> _Scope:
        ref = run(base)
        seen: dict[int, Block | None] = {}
        visible_blocks(branch, None, seen, base, codec.canon)  # (chosen in base: followed)
        # blocks with the same condition switch together: the first one (codec.canon) names
        # them all, visible or not
        parents: dict[int, Block | None] = {}
        for bid, parent in seen.items():
            rep = codec.canon.get(bid, bid)
            if rep not in parents:
                parents[rep] = blocks[codec.canon.get(parent.id, parent.id)] if parent else None
        outer = {o for o, _ in nests}
        batch = [bid for bid in parents if _batchable(blocks[bid], outer)]
        if len(batch) < BATCH_MIN:
            batch = []
        regions: list[Region] = []
        checks: list[tuple[World, list[str]]] = []
        singles: list[int] = [bid for bid in parents if bid not in batch]
        groups = [batch] if batch else []
        while groups:
            group = groups.pop()
            if len(group) < BATCH_MIN:
                singles += group
                continue
            found = _batched(ref, group, base, run)
            if found is None:
                # blocks that fail only together (a list item whose every field is in an
                # if): each half of the batch (in template order) is batched on its own
                half = len(group) // 2
                groups.extend([group[half:], group[:half]])
                continue
            regions.extend(found[0])
            singles += found[1]
            checks.extend(found[2])
        for bid in singles:
            regions.extend(single(base, ref, bid))
        if checks:
            # the batched worlds must come out as the regions predict; otherwise every block
            # of the scope is converted alone after all
            try:
                pieces = _Scope(ref, regions, parents, nests).assemble(0, len(ref), blocks)
                # an item emptied by several blocks prints as `- ` where the fold has `-`: the
                # same YAML, so lines are compared without trailing blanks
                agree = all([x.rstrip() for x in evaluate(pieces, world)]
                            == [x.rstrip() for x in out] for world, out in checks)
            except Unsupported:
                agree = False
            if not agree:
                regions = [r for bid in parents for r in single(base, ref, bid)]
        regions = _clipped(regions, parents, ref, blocks)
        return _Scope(ref, _held(regions, parents, ref, blocks, codec), parents, nests)

    def single(base: World, ref: list[str], bid: int) -> list[Region]:
        """The regions of one block, from converting each of its other branches."""
        block = blocks[bid]
        if block.kind == "range" and len(block.branches) == 1:
            found = _iterations(codec, block, ref, run({**base, bid: -1}))
            if found is not None:
                return [Region(bid, lo, hi, [[]]) for lo, hi in found]
        outs = [run({**base, bid: alt}) for alt in range(1, block.alternatives)]
        subs: dict[int, _Scope] = {}
        for alt in range(1, block.alternatives):
            if alt < len(block.branches) and _has_blocks(block.branches[alt]):
                subs[alt] = scope({**base, bid: alt}, block.branches[alt])
        regions = []
        for start, end, spans in _hunks(ref, outs):
            alts: list[list[Piece]] = []
            for alt, (lo, hi) in enumerate(spans, start=1):
                if alt in subs:
                    alts.append(subs[alt].assemble(lo, hi, blocks))
                else:
                    alts.append(list(outs[alt - 1][lo:hi]))
            regions.append(Region(bid, start, end, alts))
        return regions

    top = scope(dict(forced), codec.template.root)
    pairs = _interleaved(top, blocks)
    if pairs:
        refused = _interact(blocks[pairs[0][0]], blocks[pairs[0][1]])
        refused.detail = ("interleaved", pairs)
        raise refused
    folded.pieces = top.assemble(0, len(top.ref), blocks)
    live = {r.block for r in top.regions}
    for region in top.regions:
        folded.moved.setdefault(region.block, region.start)
    _settle(folded, run, blocks, live, codec, forced)
    return folded


def _runner(codec: Codec, convert: Converter, forced: World, known: Collection[str],
            folded: Folded) -> Callable[[World], list[str]]:
    """The output lines of a branch world, converted once into ``folded.worlds``; past twice
    the document's planned runs (max_runs: the batches that disagree are converted again block
    by block), Unsupported; WorldFailed when the world does not convert."""
    limit = 2 * max_runs(codec, forced)
    fresh = [0]

    def run(world: World) -> list[str]:
        key = tuple(sorted(world.items()))
        if key not in folded.worlds:
            text = codec.encode(world).text
            if text not in known:
                if fresh[0] >= limit:
                    # batched worlds that disagree fall back to one block at a time: the
                    # plan under the cap does not bound what the fallback converts, this does
                    raise _over_cap(codec, f"more than {limit}", forced)
                fresh[0] += 1
            out, docs, ok = convert(text)
            if not ok:
                raise WorldFailed(world, docs)
            folded.worlds[key] = (out, docs)
        return folded.worlds[key][0].split("\n")

    return run


def _settle(folded: Folded, run: Callable[[World], list[str]], blocks: dict[int, Block],
            live: set[int], codec: Codec, forced: World) -> None:
    """Check the fold against worlds it was not built from, guarding what they show."""
    for attempt in range(MAX_GUARD_ROUNDS + 1):
        try:
            _verify(folded, run, blocks, live, codec, forced)
            break
        except Unsupported as exc:
            if attempt == MAX_GUARD_ROUNDS or exc.detail is None \
                    or not _guard(folded, exc.detail, codec, forced):
                raise


def refold(base: Folded, codec: Codec, convert: Converter, forced: World,
           known: Collection[str] = ()) -> Folded:
    """The fold of the same template under another encoding (a count pinned to 1), derived
    from ``base``: the lines that change in the worlds ``base`` was checked with are replaced
    where they stand, and the result is checked as a fold is. Where a change cannot be placed
    (it straddles blocks) or the check fails, the template is folded anew."""
    blocks = {b.id: b for b in codec.template.blocks}
    live = set(base.moved)
    derived = Folded(_copy(base.pieces), moved=dict(base.moved))
    run = _runner(codec, convert, forced, known, derived)
    try:
        for world, must in [({}, True), *((w, m) for w, m in _checks(codec, blocks, live)
                                          if -1 not in w.values())]:
            try:
                got = run({**forced, **world})
            except WorldFailed:
                if must:
                    raise
                continue
            if not _substitute(derived.pieces, world, evaluate(derived.pieces, world), got):
                raise Unsupported("a change straddles blocks", 0)
        _settle(derived, run, blocks, live, codec, forced)
    except (Unsupported, WorldFailed):
        return fold(codec, convert, forced, known)
    return derived


def _copy(pieces: list[Piece]) -> list[Piece]:
    """The piece lists and conditions of a fold, copied (blocks are shared)."""
    return [p if isinstance(p, str) else Cond(p.block, [_copy(b) for b in p.branches])
            for p in pieces]


def _substitute(pieces: list[Piece], world: World, expected: list[str], got: list[str]) -> bool:
    """Make ``pieces`` evaluate to ``got`` in ``world`` by replacing the lines that differ
    where they stand; False when a change spans lines of different piece lists."""
    flat: list[tuple[list[Piece], int]] = []
    _owners(pieces, world, flat)
    edits: list[tuple[list[Piece], int, int, list[str]]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, expected, got,
                                                      autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i1 < i2:
            lst, first = flat[i1]
            if all(flat[i] == (lst, first + i - i1) for i in range(i1, i2)):
                edits.append((lst, first, first + i2 - i1, got[j1:j2]))
            elif j1 == j2 or i2 - i1 == j2 - j1:  # line by line, wherever each one stands
                edits.extend((*flat[i], flat[i][1] + 1, got[j1 + i - i1:j1 + i - i1 + 1]
                              if j1 < j2 else []) for i in range(i1, i2))
            else:
                return False
        elif i1 > 0:  # an insertion after the line before it
            lst, before = flat[i1 - 1]
            edits.append((lst, before + 1, before + 1, got[j1:j2]))
        else:
            return False
    for lst, start, end, lines in sorted(edits, key=lambda e: (id(e[0]), -e[1])):
        lst[start:end] = lines
    return True


class WorldFailed(Exception):
    def __init__(self, world: World, documents: list[Any]) -> None:
        super().__init__("a branch world did not convert")
        self.world = world
        self.documents = documents


class Unconvertible(Unsupported):
    """A combination of blocks the fold was checked with whose YAML breaks (FIELDS.broken_codes:
    a key two blocks write); ``world`` and the converter's ``documents`` of it."""

    def __init__(self, world: World, documents: list[Any]) -> None:
        super().__init__("the template's blocks write broken YAML together", 0)
        self.world = world
        self.documents = documents


def breaking(codec: Codec, exc: Unconvertible, convert: Converter, forced: World
             ) -> tuple[Block, WorldFailed] | None:
    """The block whose branch breaks the combination once added to blocks that did not (the
    world's switched blocks in template order, bisected), with the smallest world that fails."""
    blocks = {b.id: b for b in codec.template.blocks}
    switched = sorted((b for b in exc.world if b not in forced and b in blocks),
                      key=lambda b: (blocks[b].line, b))
    failed = WorldFailed(exc.world, exc.documents)
    lo, hi = 0, len(switched)  # the reference converts; the whole world does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        world = {**forced, **{b: exc.world[b] for b in switched[:mid]}}
        _out, docs, ok = convert(codec.encode(world).text)
        if ok:
            lo = mid
        else:
            hi, failed = mid, WorldFailed(world, docs)
    return (blocks[switched[hi - 1]], failed) if switched else None


class Uncombined(Unsupported):
    """Blocks that do not combine independently; ``detail``: (the world that shows it, the
    lines the fold predicts, the lines converted); ``pieces``: the fold."""

    pieces: list[Piece]


def interacting(codec: Codec, exc: Unsupported, convert: Converter, forced: World
                ) -> Block | None:
    """Of blocks that do not combine independently (or end up interleaved): one that changes
    the output otherwise than the fold predicts once added to blocks that did not (the world's
    switched blocks in template order, bisected: a few conversions); None when none shows."""
    blocks = {b.id: b for b in codec.template.blocks}
    if isinstance(exc.detail, tuple) and exc.detail[0] == "interleaved":
        return blocks[exc.detail[1][0][1]]
    if not isinstance(exc, Uncombined) or not isinstance(exc.detail, tuple):
        return None
    world = exc.detail[0]
    switched = sorted((b for b in world if b not in forced), key=lambda b: (blocks[b].line, b))

    def differs(count: int) -> bool:
        sub = {b: world[b] for b in switched[:count]}
        out, _docs, ok = convert(codec.encode({**forced, **sub}).text)
        return ok and evaluate(exc.pieces, sub, lambda line, blk: _retoken(codec, line, blk)) \
            != out.split("\n")

    lo, hi = 0, len(switched)  # the reference agrees; the whole world does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if differs(mid):
            hi = mid
        else:
            lo = mid
    return blocks[switched[hi - 1]] if switched else None


def _clipped(regions: list[Region], parents: dict[int, Block | None], ref: list[str],
             blocks: dict[int, Block]) -> list[Region]:
    """``regions``, where a block inside a range deletes, switched off, the key line above the
    range's items too (a companion runtime leaves an emptied ``env:`` out; the range's region,
    one iteration, holds only its items): that block's region is cut down to the range's, and
    the key line stays outside both, for ``_guard`` to write under the test of whether any
    iteration writes an item. Without the cut, the two regions end up interleaved."""
    out: list[Region] = []
    for region in regions:
        inner = None
        if all(not alt for alt in region.alts):  # (switched, it only deletes lines)
            anc = parents.get(region.block)
            while anc is not None and inner is None:
                rep = anc.id
                if blocks[rep].kind == "range":
                    inner = next((r for r in regions if r.block == rep
                                  and region.start <= r.start < r.end <= region.end
                                  and (r.start, r.end) != (region.start, region.end)
                                  and _parent_keys(ref, region.start, r.start, r.end)
                                  and r.end == region.end), None)
                anc = parents.get(rep)
        out.append(region if inner is None else
                   Region(region.block, inner.start, inner.end, [[] for _ in region.alts]))
    return out


def _parent_keys(ref: list[str], start: int, lo: int, hi: int) -> bool:
    """Whether ``ref[start:lo]`` are key lines (``env:``) each above the lines ``lo:hi``."""
    body = [indent_of(line) for line in ref[lo:hi] if line.strip()]
    keys = [line for line in ref[start:lo] if line.strip()]
    return bool(body) and bool(keys) and all(
        line.rstrip().endswith(":") and not line.lstrip().startswith("- ")
        and indent_of(line) < min(body) for line in keys)


def _held(regions: list[Region], parents: dict[int, Block | None], ref: list[str],
          blocks: dict[int, Block], codec: Codec) -> list[Region]:
    """``regions``, and for each one of a block without twins a region of every ``if`` around
    it that holds none of its lines (switched, that ``if`` changed nothing there in the
    reference world: a field the converter drops, an `else` that writes the same), so that its
    test still guards what the block inside writes; on its other branches, those lines are the
    reference's."""
    out = list(regions)
    size: dict[int, int] = {}
    for block in codec.template.blocks:
        rep = codec.canon.get(block.id, block.id)
        size[rep] = size.get(rep, 0) + 1
    for region in regions:
        # (a block with twins elsewhere writes there whatever the if around this one takes)
        anc = parents.get(region.block) if size.get(region.block, 1) == 1 else None
        while anc is not None:
            rep = codec.canon.get(anc.id, anc.id)
            if blocks[rep].kind == "if" \
                    and not any(r.block == rep and r.start <= region.start
                                and region.end <= r.end for r in out):
                out.append(Region(rep, region.start, region.end,
                                  [list(ref[region.start:region.end])
                                   for _ in range(1, blocks[rep].alternatives)]))
            anc = parents.get(rep)
    return out


def _interleaved(top: _Scope, blocks: dict[int, Block]) -> list[tuple[int, int]]:
    """Every pair of blocks whose regions of the reference output overlap without one holding
    the other (their fields end up interleaved), in template order."""
    pairs = []
    for x, y in itertools.combinations(sorted(top.regions, key=lambda r: (r.start, r.end)), 2):
        if x.block != y.block and y.start < x.end and x.start < y.end \
                and not top._inside(x, y) and not top._inside(y, x):
            pair = tuple(sorted((x.block, y.block), key=lambda b: (blocks[b].line, b)))
            if pair not in pairs:
                pairs.append(pair)
    return pairs  # type: ignore[return-value]


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
        if piece.block.kind == "guard":
            on = _on(piece.block, world)
            choice = 0 if on else 1
        else:
            choice = world.get(piece.block.id, 0)
        if choice == -1:
            body = evaluate(piece.branches[0], world, retoken)
            out.extend(body)
            out.extend(retoken(line, piece.block) if retoken else line for line in body)
        else:
            out.extend(evaluate(piece.branches[choice], world, retoken))
    return out


def lift_escaped(codec: Codec, pieces: list[Piece], forced: World,
                 around: frozenset[int] = frozenset()) -> list[Piece]:
    """``pieces`` where a block's lines stand outside a ``with`` it is written in (its other
    branches change lines the ``with`` itself does not: arena tfjob's successPolicy enum in the
    companion's Job): its tests read ``.`` as the with's value, so they are lifted to the top
    (conditions.condition), and the first branch is what the lines are when the with is off.
    ``{{ if C1 }}`` b1 ... ``{{ else }}`` b0, Ck the lifted test of branch k. Unsupported where
    a test cannot be lifted (reading a field of ``.``)."""

    out: list[Piece] = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
            continue
        rep = codec.canon.get(piece.block.id, piece.block.id)
        inner = around | {rep}
        branches = [lift_escaped(codec, b, forced, inner) for b in piece.branches]
        twins = [] if piece.block.kind == "guard" else \
            [b for b in codec.template.blocks if codec.canon.get(b.id, b.id) == rep]
        block = _standing(codec, piece.block, twins, around)
        # (a twin written where its withs are around it reads the same values)
        escaped = [[(a, c) for a, c in path_to(codec.template.root, twin, []) or []
                    if a.kind == "with" and codec.canon.get(a.id, a.id) not in around]
                   for twin in twins]
        if not twins or not all(escaped) or all(
                forced.get(codec.canon.get(a.id, a.id)) == c for way in escaped for a, c in way):
            # (withs forced on: the block stays what it is, its header reading their values
            # where it stands, render_lines; a range stays a range)
            out.append(Cond(block, branches))
            continue
        block = piece.block
        tests = [condition(codec, block, k, forced) for k in range(1, len(branches))]
        if block.fail or None in tests or any(b.neutral or b.trailing for b in block.branches):
            head = block.branches[0].header.text if block.branches[0].header else ""
            raise Unsupported(f"the lines {head} switches stand outside the with it is "
                              "written in, and its test cannot be lifted there",
                              block.line, head)
        heads = [Branch(Action(-1, -1, "{{- " + f"{word} {test}" + " }}", f"{word} {test}",
                               "control", "if"))
                 for word, test in zip(["if"] + ["else if"] * len(tests), tests, strict=False)]
        lifted = Block(block.id, "if", block.line, heads)
        out.append(Cond(lifted, [*branches[1:], branches[0]]))
    return out


def _standing(codec: Codec, block: Block, twins: list[Block], around: frozenset[int]) -> Block:
    """Of ``block`` (a fold's region: the lines its twins change, written with the first of
    them) and its ``twins``, the one whose lines the region stands in, inside the blocks
    ``around`` it: every range it is written in is around (a range's variables are read
    nowhere else), and the most of its withs and ranges are. Its header reads where it stands
    (`range $values` in the preferred terms' range is not the one in the required terms'
    range, whose `$values` is not bound there); ``block`` itself when no twin stands better."""
    if len(twins) < 2:
        return block

    def fit(twin: Block) -> int | None:
        way = [a for a, _c in path_to(codec.template.root, twin, []) or []
               if a.kind in ("with", "range")]
        inside = [codec.canon.get(a.id, a.id) in around for a in way]
        if any(a.kind == "range" and not here for a, here in zip(way, inside, strict=True)):
            return None
        return sum(inside)

    fits = [(fit(twin), twin) for twin in twins]
    best = max((f for f, _t in fits if f is not None), default=None)
    if best is None or fit(block) == best:
        return block
    return next(twin for f, twin in fits if f == best)


def render_lines(pieces: list[Piece], scopes: list[Scope] | None = None, at: Scope = ()
                 ) -> list[str]:
    """The folded output as template text lines, with the control actions put back; the
    with/range bodies each line stands in are appended to ``scopes`` (a block's tests are
    written for the bodies they stand in: `with .nodeSelector` moved out of `with
    .Values.worker` reads `.Values.worker.nodeSelector`)."""
    out: list[str] = []
    into = scopes if scopes is not None else []

    def emit(lines: list[str], where: Scope) -> None:
        out.extend(lines)
        into.extend([where] * len(lines))

    for piece in pieces:
        if isinstance(piece, str):
            emit([piece], at)
            continue
        block = piece.block
        head = block.branches[0].header
        inner = (*at, head.body) if block.kind in ("with", "range") and head is not None else at
        own = (*block.scope, head.body) if block.kind in ("with", "range") and head is not None \
            else block.scope
        body_scopes: list[Scope] = []
        body = render_lines(piece.branches[0], body_scopes, inner)
        pad = " " * _first_indent(body or [x for b in piece.branches for x in b
                                          if isinstance(x, str)])
        if isinstance(block, Guard) and block.prelude:
            if block.scope != at:
                raise Unsupported("a key the converted job writes only when a range writes "
                                  "an item stands in another with body than that range",
                                  block.line)
            emit([pad + block.prelude], at)
        emit([pad + _control(head, block, block.scope, at)], at)
        emit([pad + _control(a, block, own, inner) for a in block.branches[0].neutral], inner)
        out.extend(body)
        into.extend(body_scopes)
        emit([pad + _control(a, block, own, inner) for a in block.branches[0].trailing], inner)
        alts = list(piece.branches[1:])
        if block.kind == "enum" and not block.fail:
            # trailing values that write nothing, with nothing for other values: the same
            while alts and not any(str(x).strip() for x in render_lines(alts[-1], [], at)):
                alts.pop()
        for alt, lines in enumerate(alts, start=1):
            if alt < len(block.branches):
                emit([pad + _control(block.branches[alt].header, block, block.scope, at)], at)
                emit([pad + _control(a, block, block.scope, at)
                      for a in block.branches[alt].neutral], at)
            elif lines:
                emit([pad + "{{- else }}"], at)
            alt_scopes: list[Scope] = []
            alt_lines = render_lines(lines, alt_scopes, at)
            out.extend(alt_lines)
            into.extend(alt_scopes)
            if alt < len(block.branches):
                emit([pad + _control(a, block, block.scope, at)
                      for a in block.branches[alt].trailing], at)
        if block.fail:
            emit([pad + "{{- else }}", pad + "{{- fail " + go_string(block.fail) + " }}"], at)
        emit([pad + "{{- end }}"], at)
    return out


def _control(action: Any, block: Block | None = None, written: Scope = (), at: Scope = ()
             ) -> str:
    """An action written again on a line of its own (a comment's `*/` must end it: Helm
    refuses `*/ }}`), for the with/range bodies ``at`` where it was written in ``written``."""
    body = str(action.body)
    if body.startswith("/*"):
        return "{{- " + body + "}}"
    moved = rebound(body, written, at)
    if moved is None:
        line = block.line if block is not None else 0
        raise Unsupported(f"the converted job writes the lines of {action.text} outside "
                          f"{{{{ {next((w for w in written if w not in at), '')} }}}}, whose "
                          "`.` its test reads and cannot be written there", line, action.text)
    return "{{- " + moved + " }}"


def _first_indent(lines: list[Any]) -> int:
    for line in lines:
        if isinstance(line, str) and line.strip():
            return len(line) - len(line.lstrip(" "))
    return 0


def _verify(folded: Folded, run: Callable[[World], list[str]], blocks: dict[int, Block],
            live: set[int], codec: Codec, forced: World) -> None:
    """Worlds the fold was not built from must come out as the fold predicts."""
    for world, must in _checks(codec, blocks, live):
        # a block nested in a block that is off does not matter; -1 needs every ancestor on
        try:
            got = run({**forced, **world})  # first: it creates the second iteration's tokens
        except WorldFailed as failed:
            if must:
                raise
            if any(f.code in FIELDS.broken_codes for d in failed.documents for f in d.findings):
                raise Unconvertible(failed.world, failed.documents) from failed
            continue  # (an item all of whose fields are off: values no chart gives)
        expected = evaluate(folded.pieces, world, lambda line, blk: _retoken(codec, line, blk))
        if expected != got:
            bad = _first_difference(expected, got)
            culprit = blocks[min(world)] if world else None
            line = culprit.line if culprit else 0
            err = Uncombined("the template's blocks do not combine independently in the "
                             f"converted job (output line {bad + 1} differs when several "
                             "blocks change together)", line,
                             culprit.branches[0].header.text if culprit and
                             culprit.branches[0].header else "")
            err.detail = (world, expected, got)
            err.pieces = folded.pieces
            raise err
    for world in _exhaustive(folded, codec, blocks, forced):
        try:
            got = run({**forced, **world})
        except WorldFailed as failed:
            # values that give this world render a job that does not convert: the legacy job
            # is kept for them (the block that breaks it is found by bisecting)
            raise Unconvertible(failed.world, failed.documents) from failed
        expected = evaluate(folded.pieces, world)
        if expected != got:
            culprit = blocks[min(world)] if world else None
            err = Uncombined("the template's blocks do not combine independently in the "
                             "converted job (output line "
                             f"{_first_difference(expected, got) + 1} differs for one "
                             "combination of their values)", culprit.line if culprit else 0,
                             culprit.branches[0].header.text if culprit and
                             culprit.branches[0].header else "")
            err.detail = (world, expected, got)
            err.pieces = folded.pieces
            raise err


def _exhaustive(folded: Folded, codec: Codec, blocks: dict[int, Block], forced: World
                ) -> list[World]:
    """The worlds some values give that the fold has not converted yet, when they are few
    enough (EXHAUSTIVE_WORLDS, and within the document's runs); else none."""
    every = _feasible_worlds(codec, blocks, forced)
    if every is None:
        return []
    fresh = [w for w in every if tuple(sorted({**forced, **w}.items())) not in folded.worlds]
    if len(fresh) > min(EXHAUSTIVE_WORLDS, max_runs(codec, forced) - len(folded.worlds)):
        return []
    return fresh


# Every combination of values the blocks can take (not only the ones the fold is checked with):
# a block whose effect another block hides in the reference world (requests written only when
# the Master's `if` is off), an `else` a repeated test never reaches, an `else if` whose test
# an `if` elsewhere shares. Each test is split into atoms (`not` peeled off; `eq X "a"` and
# `eq X "b"` exclude each other) and the blocks' choices are derived from every assignment of
# them; when the distinct worlds fit in EXHAUSTIVE_WORLDS, each one is converted and must come
# out as the fold predicts (or fail to convert: then the legacy job is kept for it).
EXHAUSTIVE_WORLDS = 48
MAX_ATOM_COMBINATIONS = 4096


def _atom(test: str) -> tuple[str, bool]:
    """The atom a test reads and whether the test holds when the atom does."""
    text, positive = " ".join(test.split()), True
    while True:
        if text.startswith("(") and _closing(text) == len(text) - 1:
            text = text[1:-1].strip()
        elif text.startswith("not ") and _single_operand(text[4:].strip()):
            text, positive = text[4:].strip(), not positive
        else:
            return text, positive


def _closing(text: str) -> int:
    """The index of the parenthesis closing the one ``text`` opens with (-1: none)."""
    depth, quote = 0, ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _single_operand(text: str) -> bool:
    """Whether ``text`` is one operand of `not` (a parenthesised pipeline or a bare field)."""
    if text.startswith("("):
        return _closing(text) == len(text) - 1
    return bool(text) and not any(c.isspace() for c in text)


_EQ_LITERAL = re.compile(r'^eq (\S+) ("(?:[^"\\]|\\.)*")$')


def _branch_tests(block: Block) -> list[str] | None:
    """The test of each written branch of an if/with/range ("" for an `else`), or None."""
    tests: list[str] = []
    for branch in block.branches:
        body = " ".join(str(branch.header.body).split()) if branch.header else ""
        if body == "else":
            tests.append("")
        elif body.startswith(("if ", "with ")) and ":=" not in body:
            tests.append(body.split(" ", 1)[1])
        elif body.startswith("else if "):
            tests.append(body[len("else if "):])
        elif body.startswith("range ") and block.kind == "range":
            tests.append(_range_subject(block))
        else:
            return None
    return tests


def _feasible_worlds(codec: Codec, blocks: dict[int, Block], forced: World
                     ) -> list[World] | None:
    """Every world some values give (forced blocks at their forced choice), or None when the
    blocks' tests are too many to enumerate or one cannot be read."""
    tests: dict[int, list[tuple[str, bool]]] = {}
    free: dict[int, int] = {}  # enum blocks: any of their values
    for block in codec.template.blocks:
        if block.kind == "enum":
            free[block.id] = block.alternatives
            continue
        found = _branch_tests(block)
        if found is None or not found or found[0] == "":
            return None
        # (a test inside a with or range reads what it binds: its own atom there)
        scope = "".join(f"{codec.canon.get(a.id, a.id)}|"
                        for a, _c in path_to(codec.template.root, block, []) or []
                        if a.kind in ("with", "range"))
        tests[block.id] = [(scope + _atom(t)[0], _atom(t)[1]) if t else ("", True)
                           for t in found]
    atoms = sorted({a for ts in tests.values() for a, _p in ts if a})
    combinations = 2 ** len(atoms) * math.prod(free.values())
    if combinations > MAX_ATOM_COMBINATIONS:
        return None
    equal: dict[str, tuple[str, str]] = {}
    for atom in atoms:
        match = _EQ_LITERAL.match(atom.rsplit("|", 1)[-1])
        if match:
            equal[atom] = (atom.rsplit("|", 1)[0] + match.group(1), match.group(2))
    trails = {b.id: path_to(codec.template.root, b, []) or [] for b in codec.template.blocks}
    found_worlds: dict[tuple[tuple[int, int], ...], World] = {}
    enums = sorted(free)
    for bits in itertools.product((False, True), repeat=len(atoms)):
        truth = dict(zip(atoms, bits, strict=True))
        said: dict[str, str] = {}  # an operand equal to one literal is equal to no other
        if any(said.setdefault(*equal[a]) != equal[a][1] for a in atoms
               if truth[a] and a in equal):
            continue
        for values in itertools.product(*(range(free[e]) for e in enums)):
            choice = dict(zip(enums, values, strict=True))
            for bid, ts in tests.items():
                choice[bid] = next((i for i, (a, p) in enumerate(ts)
                                    if not a or truth[a] == p), blocks[bid].alternatives - 1)

            def reached(bid: int, choice: dict[int, int] = choice) -> bool:
                return all(choice[a.id] == c for a, c in trails[bid])

            world: World = {}
            consistent = True
            for block in codec.template.blocks:
                if not reached(block.id):
                    continue
                rep = codec.canon.get(block.id, block.id)
                want = forced.get(rep, forced.get(block.id))
                if want is not None:
                    consistent = consistent and want == choice[block.id]
                    continue
                if world.setdefault(rep, choice[block.id]) != choice[block.id]:
                    consistent = False  # (twins that read other values: not one world)
            if not consistent:
                continue
            world = {b: c for b, c in world.items() if c != 0}
            found_worlds.setdefault(tuple(sorted(world.items())), world)
    return list(found_worlds.values())


def _checks(codec: Codec, blocks: dict[int, Block], live: set[int]
            ) -> list[tuple[World, bool]]:
    """The worlds a fold is checked with, each with whether it must convert: every live block
    switched, every other one (twice), every range run twice, and each range empty; and, where
    blocks nest, all but the outermost switched, and the innermost alone (these two may fail
    to convert: a list item whose every field is in an if)."""

    checks: list[tuple[World, bool]] = []
    if live:
        ordered = sorted(live)
        checks.append(({b: blocks[b].alternatives - 1 for b in live}, True))
        checks.append(({b: blocks[b].alternatives - 1 for b in ordered[::2]}, True))
        checks.append(({b: blocks[b].alternatives - 1 for b in ordered[1::2]}, True))
        # (an outer `if` switched off hides what the blocks inside it do together: the whole
        # job in an if, two sibling ifs that leave their key empty)
        paths = {b: {codec.canon.get(a.id, a.id)
                     for a, _c in path_to(codec.template.root, blocks[b], []) or []}
                 for b in ordered}
        outer = set().union(*paths.values()) & live
        inner = [b for b in ordered if b not in outer]
        top = {b for b in ordered if not paths[b] & live}
        if outer:
            checks.append(({b: blocks[b].alternatives - 1 for b in ordered if b not in top},
                           False))
            checks.append(({b: blocks[b].alternatives - 1 for b in inner}, False))
    ranges = [b for b in sorted(live) if blocks[b].kind == "range"]
    if ranges:
        checks.append((dict.fromkeys(ranges, -1), True))
        checks.extend(({b: 1}, True) for b in ranges)
    return [(_possible(codec, blocks, w), must) for w, must in checks]


def _possible(codec: Codec, blocks: dict[int, Block], world: World) -> World:
    """``world`` without the empty ranges it cannot have: a `range` over X inside the body of
    an `{{ if X }}` (labels built by a range inside an if on the same map) has at least one
    item whenever that if is on, so it stays at its reference (one item) there."""

    out = dict(world)
    for bid, choice in world.items():
        block = blocks.get(bid)
        if block is None or block.kind != "range" or choice != 1:
            continue
        subject = _range_subject(block)
        # (every place of that range: one under another test is empty where that test holds)
        twins = [b for b in codec.template.blocks if codec.canon.get(b.id, b.id) == bid]
        if subject and all(_held_by_its_if(codec, twin, subject, out) for twin in twins):
            del out[bid]
    return out


def _held_by_its_if(codec: Codec, block: Block, subject: str, world: World) -> bool:
    """Whether ``block`` (a range over ``subject``) stands inside an on ``if`` of it."""
    for anc, branch in path_to(codec.template.root, block, []) or []:
        rep = codec.canon.get(anc.id, anc.id)
        if anc.kind == "if" and branch == 0 and world.get(rep, 0) == 0 \
                and _if_subject(anc) == subject:
            return True
    return False


def _range_subject(block: Block) -> str:
    head = block.branches[0].header
    body = str(head.body).strip() if head is not None else ""
    expr = body[len("range"):].split(":=", 1)[-1] if body.startswith("range") else ""
    return expr.strip().strip("()").strip()


def _if_subject(block: Block) -> str:
    head = block.branches[0].header
    body = str(head.body).strip() if head is not None else ""
    return body[len("if"):].strip().strip("()").strip() if body.startswith("if ") else ""


def _first_difference(a: list[str], b: list[str]) -> int:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
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

    def swap_int(match: Any) -> str:
        found = decode_int(int(match.group(1)), codec.ints)
        if found is None or len(found[0]) != 1:
            return str(match.group(0))
        slot = found[0][0]
        if head not in slot.ctx:
            return str(match.group(0))
        ctx = tuple(c + "#2" if c == head else c for c in slot.ctx)
        twin = codec.slots.get((slot.kind, slot.action.text, ctx))
        return str(int(twin.token) + found[1]) if twin else str(match.group(0))

    return _INT_TOKEN.sub(swap_int, LINE_TOKEN.sub(swap, STR_TOKEN.sub(swap, line)))


def _guard(folded: Folded, detail: Any, codec: Codec, forced: World) -> bool:
    """Lines the converter leaves out once everything under them is gone (an empty ``volumes:``,
    a patch with nothing to patch) are wrapped in ``if or (...)`` of the blocks under them."""

    world, expected, got = detail
    owners: list[tuple[list[Piece], int]] = []
    flat: list[tuple[list[Piece], int]] = []
    _owners(folded.pieces, world, flat)
    if len(flat) != len(expected):
        return False
    emptied: dict[tuple[int, int], str] = {}  # a key the converter keeps as `key: {}`
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, expected, got,
                                                      autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        at = _emptied(expected[i1:i2], got[j1:j2]) if tag == "replace" else None
        if at is not None:
            emptied[id(flat[i1 + at][0]), flat[i1 + at][1]] = got[j1]
        elif tag != "delete":
            return False
        owners.extend(flat[i1:i2])
    if not owners:
        return False
    blocks = {b.id: b for b in codec.template.blocks}
    guards = 0

    def nesting(bid: int) -> tuple[int, int]:
        """How deep a block is written (a canonical id may be a twin's elsewhere), then its id."""
        return len(path_to(codec.template.root, blocks[bid], []) or []), bid
    # each list from its end (a guard replaces lines after it), the lists in output order (the
    # guards are numbered in it: an order of memory addresses changed them from run to run)
    rank: dict[int, int] = {}
    for lst, _index in owners:
        rank.setdefault(id(lst), len(rank))
    for lst, index in sorted(owners, key=lambda o: (rank[id(o[0])], -o[1])):
        key = (id(lst), index)
        line = lst[index]
        assert isinstance(line, str)
        depth = indent_of(line)
        end = index + 1
        while end < len(lst):
            head = _head(lst[end])
            if head is not None and indent_of(head) <= depth:
                break
            end += 1
        while end > index + 1 and isinstance(lst[end - 1], str) and not str(lst[end - 1]).strip():
            end -= 1
        chains: set[frozenset[int]] = set()
        for item in lst[index + 1:end]:
            if isinstance(item, Cond):
                chains.update(_writers(item))
        if not chains:
            # a leaf that goes with its parent is covered by the parent's guard
            if any(other is lst and j < index and indent_of(str(lst[j])) < depth
                   for other, j in owners):
                continue
            return False
        # a member's own test, as written: the guard stands right around it (in the same
        # range or with body, under the same ifs), where that test reads the same values; a
        # test lifted to the top may be a twin's (same test, another place: Nova SFT's env
        # range under the initContainer's if), or impossible (inside a range). A block that
        # writes lines only through blocks inside it (`if gt $gpus 0` around `if nvidiaPath`)
        # writes them when all of them hold.
        # each test reads where its block stands (a test lifted to the top: at the top); the
        # guard's test is written for the bodies all of them stand in
        # blocks inside a range (or with) read what it binds (an item): whether they write in
        # any of its iterations is found by running it before the guard (_pre_pass), where
        # that can be written; else the range's own test (not empty) stands for them
        # (a member is the twin standing where the guard stands: a range's `$values` in the
        # preferred terms' range is that range's, not the required terms' one)
        around = _around_list(folded.pieces, lst, codec) or frozenset()
        runs: dict[frozenset[int], str] = {}
        for chain in chains:
            if _cut(chain, blocks, nesting) != chain:
                flag = "$tjmAny" + "_".join(str(m) for m in sorted(chain))
                run = _pre_pass(codec, blocks, sorted(chain, key=nesting), flag)
                if run is not None:
                    runs[chain] = run
        while True:
            chained: list[list[tuple[str, Scope]]] = []
            members: set[frozenset[int]] = set()
            for chain in sorted(chains, key=lambda c: (
                    sorted(c if c in runs else _cut(c, blocks, nesting)), sorted(c))):
                top = blocks[min(chain, key=nesting)]
                if chain in runs:
                    members.add(chain)
                    chained.append([("$tjmAny" + "_".join(str(m) for m in sorted(chain)),
                                     top.scope)])
                    continue
                cut = _cut(chain, blocks, nesting)
                if cut in members:
                    continue  # (another chain inside the same range: one test)
                members.add(cut)
                tests: list[tuple[str, Scope]] = []
                for m in sorted(cut, key=nesting):
                    twins = [b for b in codec.template.blocks
                             if codec.canon.get(b.id, b.id) == m]
                    member = _standing(codec, blocks[m], twins, around | chain)
                    own = _branch_condition(member, 0)
                    test = own or condition(codec, blocks[m], 0, forced)
                    if not test:
                        return False
                    tests.append((test, member.scope if own else ()))
                chained.append(tests)
            common = _common([where for tests in chained for _t, where in tests])
            # (a pre-pass is written where the range's header reads as written)
            moved_out = [c for c in runs if blocks[min(c, key=nesting)].scope != common]
            if not moved_out:
                break
            for chain in moved_out:
                del runs[chain]
        prelude = "".join(runs[c] for c in sorted(runs, key=sorted))
        conds = []
        for tests in chained:
            moved = [rebound(t, where, common) for t, where in tests]
            if None in moved:
                return False
            conds.append(str(moved[0]) if len(moved) == 1 else
                         "and " + " ".join(f"({t})" for t in moved))
        text = conds[0] if len(conds) == 1 else "or " + " ".join(f"({c})" for c in conds)
        header = Action(-1, -1, "{{- if " + str(text) + " }}", f"if {text}", "control", "if")
        guard = Guard(-1 - guards, "guard", 0, [Branch(header)], members=frozenset(members),
                      scope=common, prelude=prelude)
        guards += 1
        # `key: {}` is what the guard writes when off only if it is off in the world that
        # showed it (else the blocks inside it decide, in a later round)
        empty: list[Piece] = [emptied[key]] if key in emptied and not _on(guard, world) else []
        lst[index:end] = [Cond(guard, [lst[index:end], empty])]
    return True


@dataclass
class Guard(Block):
    """A guard block (``_guard``); ``prelude``: the actions written before its ``if``, which
    set the variables its test reads (``_pre_pass``)."""

    prelude: str = ""


_ASSIGNS = re.compile(r"^\s*\$[A-Za-z0-9_]*\s*=(?!=)")


def _pre_pass(codec: Codec, blocks: dict[int, Block], chain: list[int], flag: str
              ) -> str | None:
    """Go template actions that set ``flag`` to whether the blocks of ``chain`` (outermost
    first, nested in one another) all hold in some iteration of the ranges among them: the
    template's blocks from the outermost to the innermost, as written (with the declarations
    their tests may read), around an assignment of ``flag`` alone.
    ``{{- $f := false }}{{- range $k, $v := .Values.env }}{{- if $v }}{{- $f = true }}...``.
    None where that cannot be written: a block that is no if, with or range, a member off the
    innermost's path, or an assignment (run twice, it would count twice)."""
    inner = blocks[chain[-1]]
    trail = path_to(codec.template.root, inner, [])
    ids = [codec.canon.get(a.id, a.id) for a, _b in trail or []]
    if trail is None or (len(chain) > 1 and chain[0] not in ids):
        return None
    steps = [*trail[ids.index(chain[0]):], (inner, 0)] if len(chain) > 1 else [(inner, 0)]
    on_path = {codec.canon.get(b.id, b.id) for b, _c in steps}
    if not set(chain) <= on_path:
        return None
    text = "{{- " + flag + " := false }}"
    for k, (block, choice) in enumerate(steps):
        if block.kind not in ("if", "with", "range") or choice >= len(block.branches):
            return None
        for branch in block.branches[:choice + 1]:
            if branch.header is None:
                return None
            text += "{{- " + branch.header.body.strip() + " }}"
        own = block.branches[choice]
        actions = [str(a.body).strip() for a in own.neutral + own.trailing]
        if any(_ASSIGNS.match(a) for a in actions):
            return None
        if k < len(steps) - 1:
            text += "".join("{{- " + a + " }}" for a in actions[:len(own.neutral)]
                            if ":=" in a and not a.startswith("/*"))
    return text + "{{- " + flag + " = true }}" + "{{- end }}" * len(steps)


def _around_list(pieces: list[Piece], target: list[Piece], codec: Codec,
                 around: frozenset[int] = frozenset()) -> frozenset[int] | None:
    """The blocks (canonical ids) of the pieces around the piece list ``target`` inside
    ``pieces``, or None when it is not there."""
    if pieces is target:
        return around
    for piece in pieces:
        if isinstance(piece, Cond):
            inner = around | {codec.canon.get(piece.block.id, piece.block.id)}
            for branch in piece.branches:
                found = _around_list(branch, target, codec, inner)
                if found is not None:
                    return found
    return None


def _common(scopes: list[Scope]) -> Scope:
    """The bodies every one of ``scopes`` stands in (their common start)."""
    if not scopes:
        return ()
    first = scopes[0]
    size = 0
    while size < len(first) and all(len(s) > size and s[size] == first[size] for s in scopes):
        size += 1
    return first[:size]


def _emptied(expected: list[str], got: list[str]) -> int | None:
    """Where in ``expected`` a key stands whose entries are all gone, which the converter
    writes as ``key: {}`` (``got``; a companion runtime's container ``resources:``) rather than
    leaving out; the other lines are gone too. None when the change is not that."""
    if len(got) != 1:
        return None
    for index, line in enumerate(expected):
        head = line.rstrip()
        if head.endswith(":") and got[0] == head + " {}":
            return index
    return None


def _writers(cond: Cond) -> set[frozenset[int]]:
    """The sets of blocks under which ``cond`` writes a line: its block when its first branch
    has a line of its own (or holds a block that writes in another branch too), else its block
    with each such set of the blocks inside."""
    if cond.block.kind == "guard":
        return set(cond.block.members)
    first = cond.branches[0]
    if any(_written(x) for x in first):
        return {frozenset({cond.block.id})}
    return {chain | {cond.block.id} for x in first if isinstance(x, Cond) for chain in _writers(x)}


def _written(piece: Piece) -> bool:
    """A line of the piece itself, or a block that writes lines in a branch other than its
    first (its enclosing block writes them whichever branch it takes)."""
    if isinstance(piece, str):
        return bool(piece.strip())
    return _head(Cond(piece.block, [[], *piece.branches[1:]])) is not None


def _cut(chain: frozenset[int], blocks: dict[int, Block],
         nesting: Callable[[int], tuple[int, int]]) -> frozenset[int]:
    """A set of nested blocks up to its first (outermost) with or range: the tests inside one
    read what it rebinds, so its own (not empty) stands for them."""
    ordered = sorted(chain, key=nesting)
    for i, bid in enumerate(ordered):
        if blocks[bid].kind in ("with", "range"):
            return frozenset(ordered[:i + 1])
    return chain


def _on(block: Block, world: World) -> bool:
    """Whether a guard's lines are written in ``world``: every block of one of its sets is on."""
    return any(all(world.get(m, 0) in (0, -1) for m in chain) for chain in block.members)


def _owners(pieces: list[Piece], world: World, out: list[tuple[list[Piece], int]]) -> None:
    """Where every line of ``evaluate(pieces, world)`` comes from (no range repeats here)."""
    for index, piece in enumerate(pieces):
        if isinstance(piece, str):
            out.append((pieces, index))
            continue
        if piece.block.kind == "guard":
            on = _on(piece.block, world)
            choice = 0 if on else 1
        else:
            choice = max(world.get(piece.block.id, 0), 0)
        _owners(piece.branches[choice], world, out)



def _head(piece: Piece) -> str | None:
    """The first non-blank line a piece can produce (a block: its first branch)."""
    if isinstance(piece, str):
        return piece if piece.strip() else None
    for branch in piece.branches:
        for item in branch:
            head = _head(item)
            if head is not None:
                return head
    return None
