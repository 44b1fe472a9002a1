"""Template stage: convert a Helm/Go template or an envsubst file into one of the same dialect."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from migrator import paths
from migrator.check import validate
from migrator.convert.rules.roles import UNDECIDED
from migrator.load import yamlio
from migrator.results import replaced
from migrator.template import roles, structure, unify
from migrator.template.codec import (
    _INT_TOKEN,
    _LINE_FORM,
    HOST_ENTRY,
    LINE_TOKEN,
    STR_TOKEN,
    Codec,
    decode_int,
    fragment_expression,
    go_string,
    indent_of,
    null_test,
)
from migrator.template.conditions import VARIABLE, enclosing, path_to, top_variables
from migrator.template.conditions import condition as _condition
from migrator.template.knowledge import FIELDS
from migrator.template.marks import ENV_MARK, MARK
from migrator.template.scopes import rebound
from migrator.template.structure import Unsupported
from migrator.template.tokens import Action, Dialect, TemplateSyntaxError, tokenize
from migrator.template.worlds import (
    MAX_BRANCH_RUNS,
    MAX_BRANCH_WORK,
    Unconvertible,
    WorldFailed,
    breaking,
    fold,
    interacting,
    lift_escaped,
    refold,
    render_lines,
)

Status = Literal["converted", "unchanged", "failed", "skipped"]
NOT_CARRIED = "Y110"
NOT_COMPUTABLE = "Y111"
KEPT_LEGACY = "Y112"
# errors about a value itself (type, format, schema): when the value is a placeholder, the
# error is the placeholder's, not the job's
_VALUE_CODES = ("K103", "V601", "V602", "V603", "V604", "V605")
VALUE_CHECKED_LATER = "Y113"
VALUE_ASSUMED = "Y130"
# the converter's outputs of every branch world are written in one layout
CANONICAL_LAYOUT = yamlio.Indent(mapping=2, sequence=4, offset=2)
MAX_LEGACY = 16  # conditions that keep the legacy job (each folds the template again)
# all folds of one document together (each fold is capped by worlds.MAX_BRANCH_RUNS and
# MAX_BRANCH_WORK before it starts; each branch kept legacy folds again, and a split converts
# the document a second time, on the same budget): four times one fold's runs, and four times
# its characters converted (arena tfjob, the largest chart: 244 runs of 1.0 M characters)
MAX_TOTAL_RUNS = 12 * MAX_BRANCH_RUNS
_ENV = re.compile(r"\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)")


@dataclass
class Note:
    """A finding about a template, with its line in the template."""

    code: str
    path: str
    message: str
    line: int | None = None
    column: int | None = None
    severity: str = ""
    hint: str = ""


@dataclass
class Outcome:
    status: Status
    text: str
    dialect: Dialect
    notes: list[Note] = field(default_factory=list)
    documents: list[Any] = field(default_factory=list)  # DocumentResults of the reference world
    provenance: list[dict[str, Any]] = field(default_factory=list)
    worlds: int = 0
    # source fields whose value a template action makes: the converter's checks of their value
    # (e.g. whether a command starts torchrun) can only be judged on the rendered job
    value_paths: set[str] = field(default_factory=set)
    # the converted text after its header (MARK, defines, top-level assignments)
    core: str = field(default="", repr=False)


def dialect_of(text: str) -> Dialect | None:
    if "{%" in text or "{#" in text:
        return None
    if "{{" in text:
        return "go"
    if _ENV.search(text):
        return "envsubst"
    return None


def convert_template(text: str, dialect: Dialect | None = None, options: Any = None,
                     render: bool = True) -> Outcome | None:
    """Convert ``text``; None when it is not a template this stage reads (Jinja, unparseable)."""
    origin: list[list[int]] = []
    outcome = _convert_template(text, dialect, options, render, origin)
    if outcome is not None and origin:  # named templates were inlined: lines as written
        lines = origin[0]
        def moved(match: re.Match[str]) -> str:
            number = int(match.group(2))
            return match.group(1) + str(lines[number - 1] if 0 < number <= len(lines)
                                        else number)

        for note in outcome.notes:
            if isinstance(note.line, int) and 0 < note.line <= len(lines):
                note.line = lines[note.line - 1]
            note.message = _LINE_REF.sub(moved, note.message)
        for entry in outcome.provenance:
            if isinstance(entry.get("line"), int) and 0 < entry["line"] <= len(lines):
                entry["line"] = lines[entry["line"] - 1]
    return outcome


_LINE_REF = re.compile(r"(\(line )(\d+)(?=\)| of the original)")


def _convert_template(text: str, dialect: Dialect | None, options: Any, render: bool,
                      origin: list[list[int]], scope: frozenset[str] = frozenset(),
                      helm: bool | None = None,
                      preset: tuple[tuple[int, int], ...] = (),
                      spent: list[int] | None = None,
                      detached: tuple[int, ...] = ()) -> Outcome | None:
    """The outcome for ``text``; ``scope``: variables declared around it (a range's);
    ``helm``: whether the engine is Helm's, as judged for the text around it; ``preset``:
    blocks whose branch the text around the result has chosen (a split, below), and
    ``detached``: the blocks it chose apart from their twins; ``spent``: the conversions and
    characters the document has used already (its budget is shared)."""
    from migrator.convert.plain import convert_plain
    from migrator.convert.rules import contract, launch
    from migrator.settings import ConvertOptions

    dialect = dialect or dialect_of(text)
    if dialect is None:
        return None
    switched = _inline_switch(text) if dialect == "go" else None
    switch: tuple[str, int] | None = None
    source = text
    if switched is not None:  # convert the legacy side; the other side keeps the original
        switch, source = switched[:2], switched[2]
    try:
        actions = tokenize(source, dialect)
        defines: list[str] = []
        if dialect == "go":
            body_text, defines = structure.lift_defines(source, actions)
            if defines:
                actions = tokenize(body_text, dialect)
                inlined, lines = structure.inline_calls(body_text, actions, defines, source)
                if inlined != body_text:
                    body_text = inlined
                    actions = tokenize(body_text, dialect)
                    origin.append(lines)
        else:
            body_text = text
        template = structure.build(body_text, actions, enums=dialect == "go", helm=helm)
    except TemplateSyntaxError:
        return None
    except Unsupported as exc:
        return _refused(text, dialect, exc)
    loop = _lone_range(template) if dialect == "go" else None
    if loop is not None:
        return _convert_loop(text, template, loop, defines, options, render, scope)
    codec = Codec(template, dialect)
    for bid in detached:  # (the blocks the text around it forced apart from their twins)
        codec.detach(bid, [])

    runs = spent if spent is not None else [0, 0]  # conversions, characters converted
    start = list(runs)
    # a refold (a branch kept legacy) meets most worlds of the fold before it again, as the
    # same text (the kept branch was the reference one): each text is converted once
    seen: dict[str, tuple[str, list[Any], bool]] = {}
    process_counts: set[int] = set()  # slots of resources that decide the process count

    def convert(world_text: str) -> tuple[str, list[Any], bool]:
        if world_text in seen:
            return seen[world_text]
        runs[0] += 1  # every fold (one more per branch kept legacy) draws on one budget
        runs[1] += len(world_text)
        if runs[0] > MAX_TOTAL_RUNS or runs[1] > 12 * MAX_BRANCH_WORK:
            raise Unsupported(f"the template's blocks needed more than {runs[0] - 1} branch "
                              "conversions in all (its branches kept failing in turn); decide "
                              "which values the blocks take (render the chart first, "
                              "`check --helm`), or split the template", 0)
        token = validate.UNKNOWN_VALUE.set(_bare_values(codec, world_text))
        actions = contract.TEMPLATE_ACTION.set(_stand_ins(codec))
        hosts = launch.HOST_INDEX.set(codec.host_index)
        layout = yamlio.LAYOUT.set(CANONICAL_LAYOUT)
        try:
            result = convert_plain(world_text, options or ConvertOptions())
        finally:
            yamlio.LAYOUT.reset(layout)
            launch.HOST_INDEX.reset(hosts)
            contract.TEMPLATE_ACTION.reset(actions)
            validate.UNKNOWN_VALUE.reset(token)
        documents = [_undecided(d, world_text) for d in result.documents]
        ok = not any(d.status == "failed" for d in documents)
        process_counts.update(_process_count_from_values(codec, world_text, result.documents))
        if result.text.count("\n") > 20 * world_text.count("\n") + 500:
            raise Unsupported("the converted job grows with a templated number (one entry per "
                              "replica, say), which a template cannot express", 0)
        out = _canonical(result.text) if ok else result.text  # (a failed world's is unused)
        seen[world_text] = (out, documents, ok)
        return seen[world_text]

    forced: dict[int, int] = dict(preset)
    # (Go condition, the world that failed or the blocks that could not be kept apart)
    legacy: list[tuple[str, WorldFailed | Unsupported]] = []
    # a top-level block whose branch fails only because its roles' pod templates differ
    # (P306), which other values may make equal: converted again with that branch chosen
    split: tuple[str, dict[int, int]] | None = None
    split_at = -1  # the entry of `legacy` the split converts again
    dropped_values: list[WorldFailed] = []  # failing enum branches: their value keeps the legacy
    unconditional: WorldFailed | None = None  # the reference world's failure, if it failed
    taken_as_one: list[Note] = []  # pinned counts of 1 that render null (U901 then)
    # a kind switch (`{{ if .Values.useHyperPod }}` HyperPodPyTorchJob `{{ else }}` PyTorchJob):
    # the template is converted with the legacy side chosen; the other side keeps the original
    switches = [] if switch is None else \
        [switch[0] if switch[1] == 1 else f"not ({switch[0]})"]
    switches += _kind_switches(codec, forced, switch)
    try:
        while True:
            try:
                folded = fold(codec, convert, forced, seen)
                break
            except WorldFailed as exc:
                if unconditional is None \
                        and all(v == forced.get(k, 0) for k, v in exc.world.items()):
                    unconditional = exc  # (the values the template writes as they stand)
                blame = _placeholder_blame(codec, exc)
                if blame is not None:
                    pinned = _pin(codec, exc, scope, taken_as_one) \
                        if dialect == "go" and len(legacy) < MAX_LEGACY else None
                    if pinned is None:
                        return _refused(text, dialect, blame)
                    legacy.append((pinned, exc))
                    continue
                if dialect == "go" and len(dropped_values) < MAX_LEGACY \
                        and _drop_enum_branch(codec, forced, exc):
                    dropped_values.append(exc)  # that value joins the others: the legacy job
                    continue
                before = dict(forced)
                found = [e.world for _, e in legacy if isinstance(e, WorldFailed)]
                kept = _keep_legacy(codec, forced, exc, found + [e.world for e in dropped_values],
                                    split is None, convert) if dialect == "go" else None
                if kept is None or len(legacy) >= MAX_LEGACY:
                    # (errors the template's own values already had are not the last block's)
                    shown = unconditional if unconditional is not None \
                        and _errors(exc) <= _errors(unconditional) else exc
                    return _world_failed(text, dialect, codec, shown, dict(preset))
                legacy.append((kept[0], exc))
                if split is None and (kept[1] or not preset):
                    split = _splits(codec, before, forced, kept[0],
                                    [f.code for d in exc.documents for f in d.findings
                                     if getattr(f.severity, "value", "") == "error"], kept[1])
                    split_at = len(legacy) - 1
            except Unsupported as exc:
                before = dict(forced)
                found = [e.world for _, e in legacy if isinstance(e, WorldFailed)]
                apart = _keep_apart(codec, forced, exc, convert,
                                    found + [e.world for e in dropped_values]) \
                    if dialect == "go" and len(legacy) < MAX_LEGACY else None
                if apart is None:
                    raise
                legacy.append((apart, exc))
                if split is None:
                    split = _splits(codec, before, forced, apart, [], True)
                    split_at = len(legacy) - 1
        others = _other_values(codec, forced, scope) + _count_guards(codec, forced, scope) \
            + _process_count_guards(codec, process_counts, scope)
        _merge_neutrals(codec)
        reference = folded.worlds[tuple(sorted(forced.items()))][0]
        measuring = 2 + MAX_NULL_WORLDS  # (the worlds _empty_guards may take)
        if codec.template.helm and dialect == "go" and runs[0] + measuring <= MAX_TOTAL_RUNS \
                and runs[1] + measuring * len(codec.encode(forced).text) <= 4 * MAX_BRANCH_WORK:
            others += _empty_guards(codec, forced, convert, reference, scope)
        body = _decoded(codec, lift_escaped(codec, folded.pieces, forced))
        single = _one_node_count(codec, folded, scope) if dialect == "go" else None
        one_node = None
        if single is not None:
            # one node converts differently (no TF_CONFIG, F532): the template converted with
            # the count pinned to 1 goes first, under a test of the count
            codec.pins[single.id] = "1"
            try:
                one = refold(folded, codec, convert, forced, seen)
            except WorldFailed as exc:
                raise Unsupported("with one node the job does not convert (see the other "
                                  "findings), and the template cannot express it",
                                  single.line, single.action.text) from exc
            finally:
                del codec.pins[single.id]
            body = "\n".join([f'{{{{- if eq (toString ({single.action.body})) "1" }}}}',
                              _decoded(codec, lift_escaped(codec, one.pieces,
                                                           forced)).rstrip("\n"),
                              "{{- else }}", body.rstrip("\n"), "{{- end }}"]) + "\n"
            one_node = one
        for _out, docs in folded.worlds.values():
            dropped = _dropped_fragment(codec, docs)
            if dropped is not None:
                raise dropped
    except Unsupported as exc:
        if isinstance(exc.detail, tuple) and exc.detail[0] == "reference":
            # over the cap: a fragment the reference world already cannot carry comes first
            exc = _dropped_fragment(codec, exc.detail[1]) or exc
        if "interleaved" in str(exc):
            exc = _misaligned_items(template) or exc
        return _refused(text, dialect, exc)
    ref_out, ref_docs = folded.worlds[tuple(sorted(forced.items()))]
    for doc in ref_docs:  # names and paths in the report read as the template writes them
        _untoken_document(codec, doc)
    header = [MARK if dialect == "go" else ENV_MARK, *defines,
              *(a.text for a in template.root.neutral)]
    out_text = "\n".join([*header, body])
    sub = None
    unsplit = ""  # why the values of the split keep the legacy job after all
    if split is not None and (MAX_TOTAL_RUNS - runs[0] < runs[0] - start[0]
                              or 4 * MAX_BRANCH_WORK - runs[1] < runs[1] - start[1]):
        # (its fold switches as many blocks as this one, which took more than is left)
        unsplit = f"the document's {MAX_TOTAL_RUNS} branch conversions would not suffice"
    elif split is not None:
        sub = _convert_template(text, dialect, options, render, [], scope, helm,
                                tuple(sorted(split[1].items())), runs, tuple(codec.detached))
        if sub is None or sub.status != "converted":
            unsplit = next((n.message for n in sub.notes if n.code == NOT_CARRIED), "") \
                if sub is not None else ""
            sub = None
    # the conditions found before the split hold whichever branch it takes; those found after
    # it (and the other values') were found with its other branch chosen
    at = split_at if split is not None else len(legacy)
    opening = switches + [c for c, _ in legacy[:at]] if sub is not None else \
        switches + [c for c, _ in legacy] + [c for c, _, _ in others]
    closing = [c for c, _ in legacy[at + 1:]] + [c for c, _, _ in others] if sub is not None else []
    core = body
    if opening or sub is not None:
        # the named templates are defined once, in the header (a define cannot stand inside an
        # if): the legacy side is the original without them
        original = structure.lift_defines(text, tokenize(text, dialect))[0] if defines else text
        parts = ["{{- if " + _any(opening) + " }}", original.rstrip("\n")] if opening else []
        if sub is not None and split is not None:
            parts += ["{{- else if " + split[0] + " }}" if parts else "{{- if " + split[0] + " }}",
                      sub.core.rstrip("\n")]
        if closing:
            parts += ["{{- else if " + _any(closing) + " }}", original.rstrip("\n")]
        core = "\n".join([*parts, "{{- else }}", body.rstrip("\n"), "{{- end }}"]) + "\n"
        out_text = "\n".join([*header, core])
    if not out_text.endswith("\n") and text.endswith("\n"):
        out_text += "\n"
    notes = _notes(codec, folded)
    if one_node is not None:  # the findings of one node (F532) too
        known = {(n.code, n.path) for n in notes}
        notes.extend(n for n in _notes(codec, one_node) if (n.code, n.path) not in known)
    for index, (cond, failed) in enumerate(legacy):
        if sub is not None and index == at:
            continue  # (converted after all: the notes of that conversion say what it keeps)
        if isinstance(failed, Unsupported):  # blocks kept apart (_keep_apart)
            notes.append(Note(KEPT_LEGACY, "", "for values where {{ " + cond + " }} holds the "
                              f"template still emits the legacy job, because {failed}",
                              failed.line))
            continue
        encoded = codec.encode(failed.world)
        reasons = [_note(f, encoded.lines, codec) for d in failed.documents for f in d.findings]
        errors = [n for n in reasons if n.severity == "error"]
        first = errors[0] if errors else (reasons[0] if reasons else None)
        alike = "" if split is None or index != at else \
            " (for some of these values the roles' templates are alike, but the template " \
            "could not be converted again for them" + (f": {unsplit}" if unsplit else "") + ")"
        notes.append(Note(KEPT_LEGACY, "", "for values where {{ " + cond + " }} holds the "
                          "template still emits the legacy job, because that job cannot be "
                          "converted" + (f": {first.code} {first.message}" if first else "")
                          + alike, first.line if first else None))
        known = {(n.code, n.path) for n in notes}
        notes.extend(n for n in reasons if (n.code, n.path) not in known)
        # the legacy job kept for these values is judged as rendered: its findings move with
        # the other blocks (a Master-only job reports at Master what Master + Worker report at
        # Worker), so the combinations the fold checks are judged for it too
        for world in _variants(codec, folded, failed.world, forced):
            try:
                _out, docs, _ok = convert(codec.encode(world).text)
            except Unsupported:
                break
            lines = codec.encode(world).lines
            known = {(n.code, n.path) for n in notes}
            notes.extend(n for n in (_note(f, lines, codec) for d in docs for f in d.findings)
                         if (n.code, n.path) not in known)
    notes.extend(taken_as_one)
    for failed in dropped_values:  # the findings of the values that joined the others
        encoded = codec.encode(failed.world)
        known = {(n.code, n.path) for n in notes}
        notes.extend(n for n in (_note(f, encoded.lines, codec) for d in failed.documents
                                 for f in d.findings) if (n.code, n.path) not in known)
    for cond, block, reason in others:
        notes.append(Note(KEPT_LEGACY, "", "for values where {{ " + cond + " }} holds the "
                          "template still emits the legacy job, because that job cannot be "
                          f"converted: {reason}", block.line))
        if isinstance(block, structure.Block):
            known = {(n.code, n.path) for n in notes}
            notes.extend(n for n in _other_value_notes(codec, block, forced, convert)
                         if (n.code, n.path) not in known)
    status: Status = "converted" if any(d.status == "converted" for d in ref_docs) else \
        ("skipped" if any(d.status == "skipped" for d in ref_docs) else "unchanged")
    if status != "converted":
        out_text = text
        from migrator.load import detect

        named = [d for d in defines if detect.embeds_legacy_job(d)]
        included = _included_job(codec, forced)
        if included is not None:
            notes.append(included)
        if named and not ref_docs:
            head = named[0].split("}}", 1)[0] + "}}"
            notes.append(Note(NOT_CARRIED, "", "template construct not carried: the legacy job "
                              f"is inside {head}; named templates are not converted (the "
                              "templates that include it are judged where they include it; "
                              "or render the chart first)", 1))
    if sub is not None and split is not None:  # the findings of the values it converts
        seen_notes = {(n.code, n.path, n.message) for n in notes}
        for note in sub.notes:
            if note.code == VALUE_CHECKED_LATER:
                continue
            if note.code == KEPT_LEGACY:  # (within the branch the split chose)
                note.message = note.message.replace(
                    "where {{ ", "where {{ and (" + split[0] + ") (", 1).replace(
                    " }} holds", ") }} holds", 1)
            if (note.code, note.path, note.message) not in seen_notes:
                notes.append(note)
    outcome = Outcome(status, out_text if render else text, dialect, notes, ref_docs,
                      _provenance(codec, ref_out), len(folded.worlds),
                      _value_paths(codec.encode(forced).text)
                      | (sub.value_paths if sub is not None else set()), core)
    if outcome.value_paths:
        outcome.notes.append(Note(VALUE_CHECKED_LATER, "", f"{len(outcome.value_paths)} source "
                                  "fields take their value from template actions; checks of "
                                  "those values (e.g. whether a command starts torchrun) are "
                                  "made on rendered output only ("
                                  + ("run `check --helm`" if dialect == "go" else
                                     "check the file after envsubst") + ")", None))
    return outcome


_SEPARATOR = re.compile(r"(?:[ \t]*\n)*---[ \t]*\n")
_RANGE_VARS = re.compile(r"^range\s+(\$[A-Za-z0-9_]*)\s*(?:,\s*(\$[A-Za-z0-9_]*)\s*)?:?=")


_INLINE_IF = re.compile(r"\{\{-?\s*if\s+((?:[^{}\"]|\"[^\"\n]*\")+?)\s*-?\}\}([^{}\n]*)"
                        r"\{\{-?\s*else\s*-?\}\}([^{}\n]*)\{\{-?\s*end\s*-?\}\}")
_KIND_LINE = re.compile(r"^kind:[ \t]*(.*?)[ \t]*$", re.MULTILINE)


def _inline_switch(text: str) -> tuple[str, int, str] | None:
    """A kind written by an inline if/else (`kind: {{ if C }}HyperPodPyTorchJob{{ else }}
    PyTorchJob{{ end }}`) with a legacy kind on one side only: (its Go test, the legacy side:
    0 the if, 1 the else, the text with every inline if of that test on its legacy side)."""
    from migrator.load import detect

    legacy = set(detect.legacy_kinds())
    for line in _KIND_LINE.finditer(text):
        found = _INLINE_IF.fullmatch(line.group(1))
        if found is None:
            continue
        sides = [found.group(2).strip().strip("\"'"), found.group(3).strip().strip("\"'")]
        if (sides[0] in legacy) == (sides[1] in legacy):
            continue
        test = found.group(1).strip()
        pick = 3 if sides[1] in legacy else 2

        def side(match: re.Match[str], test: str = test, pick: int = pick) -> str:
            return match.group(pick) if match.group(1).strip() == test else match.group(0)

        return test, pick - 2, _INLINE_IF.sub(side, text)
    return None


def _kind_switches(codec: Codec, forced: dict[int, int], inline: tuple[str, int] | None
                   ) -> list[str]:
    """Blocks choosing between a legacy kind and another (`{{- if .Values.useHyperPod }}`
    kind: HyperPodPyTorchJob `{{- else }}` kind: PyTorchJob): forced to the legacy branch
    (blocks of the same test too); the Go tests under which the original is kept."""
    from migrator.load import detect

    legacy = set(detect.legacy_kinds())
    units = codec.template.units
    found: list[str] = []
    for block in codec.template.blocks:
        if block.kind != "if" or codec.canon.get(block.id, block.id) in forced:
            continue
        head = block.branches[0].header
        if inline is not None and head is not None and head.body == f"if {inline[0]}":
            forced[codec.canon.get(block.id, block.id)] = inline[1]  # the inline switch's side
            continue
        kinds = []
        for branch in block.branches:
            written = [m.group(1).strip("\"'") for i in branch.items if isinstance(i, int)
                       for m in [_KIND_LINE.match(units[i].text)] if m]
            kinds.append(written[0] if written else "")
        sides = [k in legacy for k in kinds]
        if not any(sides) or all(sides) or not all(kinds) or len(kinds) != 2 \
                or block.alternatives != 2:
            continue
        pick = sides.index(True)
        cond = _condition(codec, block, 1 - pick, forced)
        if cond is None:
            continue
        forced[codec.canon.get(block.id, block.id)] = pick
        found.append(cond)
    return found


def _lone_range(template: Any) -> tuple[int, int] | None:
    """(body start, body end) offsets when the whole template is one ``range`` (no else) over
    a list of jobs: nothing but the range, its header and end each on a line of its own, and
    template comments or assignments outside it. Its body is converted as a template of its
    own, inside the same range (each iteration renders one job)."""
    items = [i for i in template.root.items
             if not (isinstance(i, int) and not template.units[i].text.strip())]
    if len(items) != 1 or isinstance(items[0], int) or items[0].kind != "range" \
            or len(items[0].branches) != 1 or items[0].end is None:
        return None
    block = items[0]
    head, end, text = block.branches[0].header, block.end, template.text
    if head is None or not head.body.startswith("range "):
        return None
    start = text.find("\n", head.end) + 1
    stop = text.rfind("\n", 0, end.start) + 1
    if start <= 0 or stop < start or text[head.end:start].strip() \
            or text[stop:end.start].strip():
        return None
    return start, stop


def _convert_loop(text: str, template: Any, span: tuple[int, int], defines: list[str],
                  options: Any, render: bool, scope: frozenset[str]) -> Outcome | None:
    """A template that is one range over jobs: its body converted as a template (its lines
    kept: the text before it becomes blank lines), the range around it as written."""
    body_text = template.text
    start, stop = span
    head = next(b for b in template.root.items if not isinstance(b, int)).branches[0].header
    declares = _RANGE_VARS.match(head.body)
    names = {n for n in declares.groups() if n} if declares else set()
    # the document separator each iteration starts with stays in front of both branches
    separator = _SEPARATOR.match(body_text, start)
    if separator is not None:
        start = separator.end()
    inner_text = "\n" * body_text.count("\n", 0, start) + body_text[start:stop]
    inner = _convert_template(inner_text, "go", options, render, [],
                              scope | {n[1:] for n in names}, template.helm)
    if inner is None:
        return None
    if inner.status != "converted":
        inner.text = text
        return inner
    converted = inner.text.split("\n", 1)[1].lstrip("\n") if render else ""
    prefix = body_text[:start]
    if defines:  # lifted definitions left blank lines in the text: they go first
        prefix = "\n".join(defines) + "\n" + prefix.lstrip("\n")
    inner.text = MARK + "\n" + prefix + converted + body_text[stop:] if render else text
    return inner


def _decoded(codec: Codec, pieces: list[Any]) -> str:
    """The template text of a fold: its lines with the control actions back, and every
    action back, read for the with/range bodies its line stands in."""
    scopes: list[tuple[str, ...]] = []
    lines = render_lines(pieces, scopes)
    return codec.decode("\n".join(lines), scopes)


def _refused(text: str, dialect: Dialect, exc: Unsupported) -> Outcome:
    note = Note(NOT_CARRIED, "", f"template construct not carried: {exc}"
                + (f" [{exc.construct}]" if exc.construct else "")
                + ("" if "; decide" in str(exc) else
                   "; decide how the converted template should express it, or render first"),
                exc.line or None)
    if "cannot compute" in str(exc):
        note.code = NOT_COMPUTABLE
    return Outcome("skipped", text, dialect, [note])


def _errors(exc: WorldFailed) -> set[str]:
    return {f.code for d in exc.documents for f in d.findings
            if getattr(f.severity, "value", "") == "error"}


def _world_failed(text: str, dialect: Dialect, codec: Codec, exc: WorldFailed,
                  preset: dict[int, int]) -> Outcome:
    """The template left as it is: the failed world's findings, and a Y110 for each block it
    switched from the branch the template (or the text around it, ``preset``) takes."""
    encoded = codec.encode(exc.world)
    notes: list[Note] = []
    for doc in exc.documents:
        _untoken_document(codec, doc)
        notes.extend(_note(f, encoded.lines, codec) for f in doc.findings)
    switched = [bid for bid, choice in exc.world.items() if choice != preset.get(bid, 0)]
    if switched:
        blocks = {b.id: b for b in codec.template.blocks}
        for bid in switched:
            block = blocks[bid]
            head = block.branches[0].header.text if block.branches[0].header else ""
            notes.append(Note(NOT_CARRIED, "", f"template construct not carried: when {head} "
                              "takes another branch the job cannot be converted (see the other "
                              "findings); the converted template could not express both",
                              block.line))
    return Outcome("failed", text, dialect, notes, list(exc.documents))


def _note(f: Any, lines: list[int], codec: Codec) -> Note:
    line = f.line
    if isinstance(line, int) and 0 < line <= len(lines):
        line = lines[line - 1]
    return Note(f.code, _untoken(codec, f.path), _untoken(codec, f.message), line, f.column,
                getattr(f.severity, "value", str(f.severity)), f.hint)


def _untoken(codec: Codec, text: str) -> str:
    text = _INT_TOKEN.sub(lambda m: next((s.action.text for s in codec.ints
                                          if s.token == m.group(1)), m.group(1)), text or "")
    text = STR_TOKEN.sub(lambda m: codec.by_id[int(m.group(1))].action.text
                         if int(m.group(1)) in codec.by_id else m.group(0), text or "")
    return LINE_TOKEN.sub(lambda m: codec.by_id[int(m.group(1))].action.text
                          if int(m.group(1)) in codec.by_id else m.group(0), text)


def _untoken_document(codec: Codec, doc: Any) -> None:
    """A document's names, output, mappings and values with every placeholder back."""
    doc.source = _untoken_all(codec, doc.source)
    if doc.output:
        doc.output = _untoken_all(codec, doc.output)
    doc.mappings = [(_untoken(codec, a), _untoken(codec, b)) for a, b in doc.mappings]
    doc.values = {_untoken(codec, k): _untoken_all(codec, v) for k, v in doc.values.items()}


def _untoken_all(codec: Codec, value: Any) -> Any:
    """``value`` (a report's names: strings in dicts and lists) with every placeholder back."""
    if isinstance(value, str):
        return _untoken(codec, value)
    if isinstance(value, dict):
        return {k: _untoken_all(codec, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_untoken_all(codec, v) for v in value]
    return value


def _notes(codec: Codec, folded: Any) -> list[Note]:
    seen: dict[tuple[str, str], Note] = {}
    everywhere: set[tuple[str, str]] | None = None
    for world, (_out, docs) in folded.worlds.items():
        encoded = codec.encode(dict(world))
        keys: set[tuple[str, str]] = set()
        for doc in docs:
            for f in doc.findings:
                note = _note(f, encoded.lines, codec)
                key = (note.code, note.path)
                keys.add(key)
                if key not in seen or not world:
                    seen[key] = note
        everywhere = keys if everywhere is None else everywhere & keys
    notes = []
    for key, note in seen.items():
        if everywhere is not None and key not in everywhere:
            note.message += " (only for some values: the field sits in a template block)"
        notes.append(note)
    notes.extend(Note(VALUE_ASSUMED, "", f"{slot.assumed} {slot.action.text} is carried as a "
                      f"number ({slot.action.text} in the converted field), so it must render "
                      "to a positive whole number; auto, gpu and cpu convert differently, "
                      "which envsubst cannot express (render first for those)", slot.line)
                 for slot in codec.by_id.values() if slot.assumed)
    return notes


def _provenance(codec: Codec, ref_out: str) -> list[dict[str, Any]]:
    paths = _line_paths(ref_out.split("\n"))
    found: dict[int, list[str]] = {}
    for i, line in enumerate(ref_out.split("\n")):
        path = _untoken(codec, paths[i])  # (a key written by an action reads as written)
        for match in list(STR_TOKEN.finditer(line)) + list(LINE_TOKEN.finditer(line)):
            found.setdefault(int(match.group(1)), []).append(path)
        for match in _INT_TOKEN.finditer(line):
            decoded = decode_int(int(match.group(1)), codec.ints)
            for slot in decoded[0] if decoded else []:
                found.setdefault(slot.id, []).append(path)
    return [{"action": slot.action.text, "line": slot.line,
             "to": sorted(set(found.get(slot.id, [])))}
            for slot in sorted(codec.by_id.values(), key=lambda s: (s.line, s.id))]


def _line_paths(lines: list[str]) -> list[str]:
    """A dotted path for every line of block-style YAML (from indentation; for reports only)."""
    stack: list[tuple[int, str]] = []
    paths: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped == "---":
            paths.append(".".join(k for _, k in stack))
            if stripped == "---":
                stack = []
            continue
        indent = len(line) - len(line.lstrip(" "))
        body = stripped
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if body.startswith("- "):
            body = body[2:]
            stack.append((indent, "[]"))
            indent += 2
        key = body.split(":", 1)[0].strip("\"'") if ":" in body else ""
        if key:
            stack.append((indent, key))
        paths.append(".".join(k for _, k in stack if k))
    return paths


def _drop_enum_branch(codec: Codec, forced: dict[int, int], exc: WorldFailed) -> bool:
    """When the failing world is one branch of an enum block (nprocPerNode cpu), that branch
    is removed (from its twins too): its value becomes one of the block's other values, for
    which the template keeps the legacy job (_other_values). Whether one was removed."""
    toggled = [k for k, v in exc.world.items() if forced.get(k) != v]
    blocks = {b.id: b for b in codec.template.blocks}
    if len(toggled) != 1 or blocks[toggled[0]].kind != "enum":
        return False
    rep, index = toggled[0], exc.world[toggled[0]]
    twins = [b for b in codec.template.blocks if codec.canon.get(b.id, b.id) == rep]
    if not 0 <= index < len(blocks[rep].branches) or len(blocks[rep].branches) < 2 \
            or not blocks[rep].fail:
        return False
    error = next((f for d in exc.documents for f in d.findings
                  if getattr(f.severity, "value", "") == "error"), None)
    for block in twins:
        removed = block.branches.pop(index)
        value = " ".join(codec.template.units[removed.items[0]].text.split()) \
            if removed.items and isinstance(removed.items[0], int) else "that value"
        block.fail += f"; {value} does not convert here" + \
            (f" ({error.code}: {_untoken(codec, error.message)})" if error else "")
        head = block.branches[0].header
        if index == 0 and head is not None and head.body.startswith("else if "):
            body = head.body[len("else "):]
            block.branches[0].header = Action(-1, -1, "{{- " + body + " }}", body,
                                                        "control", "if")
    return True


def _other_values(codec: Codec, forced: dict[int, int], scope: frozenset[str]
                  ) -> list[tuple[str, Any, str]]:
    """Enum blocks whose other values (no branch of theirs) the top of the template can test:
    for those values the template keeps the legacy job (the rendered job does not convert
    either) instead of failing to render. (Go condition, block, why) each; their ``fail``
    is cleared. Blocks inside a range/with, or testing a variable declared elsewhere, keep it."""
    declared = _declared(codec) | scope
    found: list[tuple[str, Any, str]] = []
    for block in codec.template.blocks:
        if block.kind != "enum" or not block.fail or codec.canon.get(block.id, block.id) \
                in forced:
            continue
        cond = _condition(codec, block, len(block.branches), forced)
        if cond is None or not set(VARIABLE.findall(cond)) <= declared:
            continue
        if all(cond != c for c, _, _ in found):  # twins (same action, same test) once
            found.append((cond, block, block.fail))
        block.fail = ""
    return found


_POSITIVE = "^[1-9][0-9]*$"


def _count_guards(codec: Codec, forced: dict[int, int], scope: frozenset[str]
                  ) -> list[tuple[str, Any, str]]:
    """Replica counts written by an action (`replicas: {{ .Values.workers }}`): the converted
    arithmetic (`numNodes: {{ add 1 (X) }}`) holds for a whole number of at least 1; for 0 or
    a value that is no number the rendered job does not convert (K103, a role's minimum; a
    string), so the template keeps the legacy job for those values (Helm; the test reads the
    rendered text, as the converter does). (Go condition, the count's slot, why) each."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    from migrator.knowledge import catalog

    if not codec.template.helm:
        return []
    try:
        docs = list(YAML(typ="safe", pure=True).load_all(codec.encode(forced).text))
    except YAMLError:
        return []
    declared = _declared(codec) | scope
    legacy = catalog.load().legacy
    found: list[tuple[str, Any, str]] = []
    for doc in docs:
        mapping = legacy.get((str(doc.get("apiVersion")), str(doc.get("kind")))) \
            if isinstance(doc, dict) else None
        specs = paths.get(doc, paths.parse(mapping.replica_specs.path)) if mapping else None
        for role, replica in (specs.items() if isinstance(specs, dict) else []):
            value = replica.get("replicas") if isinstance(replica, dict) else None
            if not isinstance(value, int) or isinstance(value, bool):
                continue
            decoded = decode_int(value, codec.ints)
            if decoded is None or len(decoded[0]) != 1 or decoded[1] != 0:
                continue
            slot = decoded[0][0]
            if slot.id in codec.pins or "{{" not in slot.action.text:
                continue
            count = _lifted(slot, "replica count")  # (inside a with: read at the top)
            if not set(VARIABLE.findall(count)) <= declared:
                continue
            cond = f'not (regexMatch "{_POSITIVE}" (toString ({count})))'
            around = enclosing(codec, slot.line)  # the count's role is written only there
            if around is None or not set(VARIABLE.findall(around)) <= declared:
                continue
            if around:
                cond = f"and ({around}) ({cond})"
            rules = mapping.replica_specs.roles.get(str(role)) if mapping else None
            zero = (f"; 0 {role} replicas is allowed and converts as rendered, differently "
                    "(render that chart and convert the job)"
                    if rules is not None and rules.min_replicas == 0 else "")
            why = (f"{role} replicas {slot.action.text} must render a whole number of at least "
                   f"1 for the converted count (numNodes) to hold (0, a negative number or a "
                   f"word: K103 when rendered){zero}")
            if all(cond != c for c, _, _ in found):
                found.append((cond, slot, why))
    return found


def _lifted(slot: Any, what: str) -> str:
    """The expression of ``slot``'s action read at the top of the template (`.replicas` in
    `with .Values.worker` is `.Values.worker.replicas`; test it only where the with's value
    is not empty: ``enclosing``). Unsupported inside a range (its item has no expression)."""
    body = str(slot.action.body)
    lifted = rebound(body, slot.ctx, ())
    if lifted is None:
        raise Unsupported(f"the {what} {slot.action.text} is read inside "
                          f"{{{{ {slot.ctx[-1]} }}}}, and the values it must have cannot be "
                          "tested at the top of the template", slot.line, slot.action.text)
    return lifted


def _other_value_notes(codec: Codec, block: Any, forced: dict[int, int],
                       convert: Any) -> list[Note]:
    """The findings of the legacy job an enum block keeps for its other values: the world
    where the field holds the action as written (the findings name the action)."""
    rep = codec.canon.get(block.id, block.id)
    twins = [b for b in codec.template.blocks if codec.canon.get(b.id, b.id) == rep
             and b.other >= 0]
    for twin in twins:
        twin.branches.append(structure.Branch(None, [twin.other]))
    try:
        encoded = codec.encode({**forced, rep: len(block.branches) - 1})
        _out, docs, _ok = convert(encoded.text)
    except Unsupported:
        return []
    finally:
        for twin in twins:
            twin.branches.pop()
    return [_note(f, encoded.lines, codec) for d in docs for f in d.findings]


def _any(conds: list[str]) -> str:
    """A Go test true when one of ``conds`` is."""
    return conds[0] if len(conds) == 1 else "or " + " ".join(f"({c})" for c in conds)


def _splits(codec: Codec, before: dict[int, int], forced: dict[int, int], cond: str,
            errors: list[str], chosen: bool) -> tuple[str, dict[int, int]] | None:
    """The condition and the choices to convert the template again with, when the block just
    kept legacy (an ``if`` of two choices, forced to one, kept legacy for the other) is worth
    it (``chosen``: it stands around a role, or fails only beside or together with another
    block; else it is at the top and failed only with errors other values may not have,
    FIELDS.split_codes: its roles' pod templates differ); else None. Its enclosing branches are
    chosen too."""

    added = [k for k in forced if k not in before]
    blocks = {b.id: b for b in codec.template.blocks}
    if len(added) != 1 or blocks[added[0]].kind not in ("if", "with") \
            or blocks[added[0]].alternatives != 2 \
            or forced[added[0]] not in (0, 1):
        return None
    take = 1 - forced[added[0]]
    trail = path_to(codec.template.root, blocks[added[0]], []) or []
    if not chosen and (trail or not errors or not set(errors) <= FIELDS.split_codes):
        return None
    # the second conversion takes the branches around this block: the values kept legacy must
    # be exactly those (one block of that test reached, along its first branches)
    if cond != _condition(codec, blocks[added[0]], take, before) \
            or cond != _condition(codec, blocks[added[0]], take, before, every=True):
        return None
    taken = {**before, added[0]: take}
    for anc, choice in trail:
        rep = codec.canon.get(anc.id, anc.id)
        if anc.kind != "if" or taken.setdefault(rep, choice) != choice:
            return None
    # blocks testing the opposite (`{{- if (not .Values.chief) }}`) take the other branch
    negated, core = _polarity(_test_of(blocks[added[0]]))
    for other in codec.template.blocks:
        rep = codec.canon.get(other.id, other.id)
        if other.kind == "if" and rep not in taken and _test_of(other) \
                and _polarity(_test_of(other)) == (not negated, core):
            taken[rep] = 1 - take
    return cond, taken


def _polarity(test: str) -> tuple[bool, str]:
    """Whether ``test`` is a `not`, and what it tests (`(not (X))`, `not X`: True, `X`)."""
    test = _unwrap(test)
    return (True, _unwrap(test[len("not "):])) if test.startswith("not ") else (False, test)


def _unwrap(test: str) -> str:
    """``test`` without one pair of parentheses around all of it (when they pair)."""
    test = test.strip()
    if not (test.startswith("(") and test.endswith(")")):
        return test
    depth = 0
    for i, char in enumerate(test):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and i < len(test) - 1:
            return test  # `(a) (b)`: the first closes before the end
    return test[1:-1].strip()


def _test_of(block: Any) -> str:
    """The test of an ``if`` block's first branch, as written (spaces collapsed)."""
    head = block.branches[0].header
    body = " ".join(str(head.body).split()) if head is not None else ""
    return body[3:] if body.startswith("if ") else ""


def _keep_legacy(codec: Codec, forced: dict[int, int], exc: WorldFailed,
                 worlds: list[dict[int, int]], splittable: bool = False,
                 convert: Callable[[str], tuple[str, list[Any], bool]] | None = None
                 ) -> tuple[str, bool] | None:
    """Force the block whose branch fails to its other branch; the Go condition of the failure,
    and whether the template is worth converting again with that branch taken (``splittable``:
    no split yet): the block stands around a role, or fails only beside another block.

    None when the failing branch cannot be named by a condition evaluated at the top of the
    template (inside a range/with, or several blocks changed at once). A block told by the
    lines of the failure (two roles' differing fields, or the errors) is forced alone, apart
    from its twins (``worlds``: the worlds kept so far, which follow)."""
    blocks = {b.id: b for b in codec.template.blocks}
    toggled = [k for k, v in exc.world.items() if forced.get(k) != v]
    if len(toggled) > 1:
        return None
    spans = [] if toggled else _spans(codec, codec.template.root, forced, [])
    if not toggled:  # roles that differ only in their values: one, where they render alike
        alike = unify.alike(codec, exc.documents, forced, exc.world, None if convert is None
                            else lambda world: _converts(codec, world, convert),
                            _declared(codec))
        if alike is not None:
            return alike[0] or "false", alike[1] and splittable
    if splittable:  # the block around a role first: the template is converted again with it
        for block in roles.presence(codec, exc.world, exc.documents, spans):
            cond = _condition(codec, block, 0, forced, every=True) \
                if block.alternatives == 2 else None
            if cond is not None:
                forced[codec.canon.get(block.id, block.id)] = 1
                return cond, True
    culprits = roles.culprit(codec, exc.world, exc.documents, spans) if spans else []
    cond = _alone(codec, forced, exc, worlds, culprits, 0) if culprits else None
    if cond is not None:
        return cond, False
    if toggled:
        block, failing = blocks[toggled[0]], exc.world[toggled[0]]
        located = True  # (the twin whose lines hold the errors failed)
    else:
        found = _innermost(codec, exc, forced)
        located = found is not None
        found = found or _writer_of_field(codec, exc, forced)
        if found is None and convert is not None:
            # the block around the error is chosen already (a split): the one beside it
            around = _innermost(codec, exc, {})
            found = _neighbour(codec, forced, exc, around, convert) if around else None
        if found is None:
            return None
        block, failing = found, 0
    if failing < 0:
        return None
    # a block failing only beside another: the template is converted again with it taken
    beside = splittable and not toggled and block.kind == "if" and convert is not None \
        and _neighbour(codec, forced, exc, block, convert) is not None
    twin = _failing_twin(codec, exc, block) if located else None
    cond = _alone(codec, forced, exc, worlds, [twin], failing, convert) \
        if twin is not None else None
    if cond is not None:
        return cond, beside
    # blocks with the same test switch together: the legacy job wherever any of them renders
    keep = 1 if failing == 0 else 0
    cond = _other_branches(codec, block, keep, forced, every=True)
    if cond is None:
        return None
    forced[codec.canon.get(block.id, block.id)] = keep
    return cond, beside


def _converts(codec: Codec, world: dict[int, int],
              convert: Callable[[str], tuple[str, list[Any], bool]]) -> bool:
    """Whether ``world`` converts (a world over the budget does not)."""
    try:
        return convert(codec.encode(world).text)[2]
    except Unsupported:
        return False


def _undecided(document: Any, world_text: str) -> Any:
    """``document`` as failed, with its source text, when --allow-lossy converted it over a
    maximum of two roles' template values that no output stands for (roles.UNDECIDED: the
    rendered job takes the larger); else as it is."""
    if document.status == "failed" or not any(UNDECIDED in str(f.message)
                                               for f in document.findings):
        return document
    lines = world_text.split("\n")[document.line - 1:]
    end = next((i for i, line in enumerate(lines) if i and line.rstrip() == "---"), len(lines))
    return replaced(document, status="failed", text="\n".join(lines[:end]) + "\n")


def _other_branches(codec: Codec, block: Any, keep: int, forced: dict[int, int],
                    every: bool = False) -> str | None:
    """The Go condition under which ``block`` takes any choice but ``keep`` (an `if`/`else if`
    without `else` has three: forced to one, the legacy job is kept for both others)."""
    terms = [_condition(codec, block, i, forced, every)
             for i in range(block.alternatives) if i != keep]
    return _any(list(dict.fromkeys(t for t in terms if t))) if terms and all(terms) else None


def _alone(codec: Codec, forced: dict[int, int], exc: WorldFailed, worlds: list[dict[int, int]],
           blocks: list[Any], failing: int,
           convert: Callable[[str], tuple[str, list[Any], bool]] | None = None) -> str | None:
    """Force ``blocks`` to their other branch apart from their twins (the same test elsewhere,
    which go on switching); the Go condition of any taking branch ``failing``, or None (nothing
    changed). With ``convert``, only when the failed world converts with them alone switched
    (their twins may fail alike: then they are forced together, one condition, one fold)."""
    saved, apart = dict(codec.canon), len(codec.detached)
    kept = [(world, dict(world)) for world in [exc.world, *worlds]]
    # each goes to its last choice (nothing, or its `else`), or to its first if that failed
    other = {b.id: 0 if failing == b.alternatives - 1 else b.alternatives - 1 for b in blocks}
    conds: list[str | None] = []
    for block in blocks:
        codec.detach(block.id, [exc.world, *worlds])
        exc.world[block.id] = failing
        conds.append(_other_branches(codec, block, other[block.id], forced))
    mended = all(conds)
    if mended and convert is not None:
        mended = _converts(codec, {**exc.world, **other}, convert)
    if not mended:
        codec.canon.clear()
        codec.canon.update(saved)
        del codec.detached[apart:]
        for world, before in kept:
            world.clear()
            world.update(before)
        return None
    forced.update(other)
    return _any(list(dict.fromkeys(c for c in conds if c)))


def _failing_twin(codec: Codec, exc: WorldFailed, block: Any) -> Any:
    """Of the blocks switched with ``block`` (the same test), the one whose lines hold every
    error of the failed world, when it has twins; else None."""
    rep = codec.canon.get(block.id, block.id)
    twins = [b for b in codec.template.blocks if codec.canon.get(b.id, b.id) == rep]
    encoded = codec.encode(exc.world)
    lines = {encoded.lines[f.line - 1] for d in exc.documents for f in d.findings
             if getattr(f.severity, "value", "") == "error" and isinstance(f.line, int)
             and 0 < f.line <= len(encoded.lines)}
    if len(twins) < 2 or not lines:
        return None
    units = codec.template.units
    best: tuple[int, Any] | None = None
    for twin in twins:  # (the innermost: a twin may stand in another's else)
        held = [units[u].line for branch in twin.branches for u in _units_of(branch)]
        if held and min(held) <= min(lines) and max(lines) <= max(held) \
                and (best is None or max(held) - min(held) < best[0]):
            best = (max(held) - min(held), twin)
    return best[1] if best else None


def _neighbour(codec: Codec, forced: dict[int, int], exc: WorldFailed, block: Any,
               convert: Callable[[str], tuple[str, list[Any], bool]]) -> Any:
    """The block written just before or after ``block`` whose last choice alone makes the
    failed world convert (the two fail only together: a range one column left of the ``if``
    beside it breaks the YAML only when both write), or None."""
    trail = path_to(codec.template.root, block, [])
    if trail is None:
        return None
    branch = trail[-1][0].branches[trail[-1][1]] if trail else codec.template.root
    items = [item for item in branch.items if not isinstance(item, int)]
    at = next(i for i, item in enumerate(items) if item is block)
    for other in items[max(0, at - 1):at] + items[at + 1:at + 2]:
        rep = codec.canon.get(other.id, other.id)
        if rep in forced or other.kind not in ("if", "with", "range") or other.alternatives != 2:
            continue  # (its other choice is the one forced, and the one the condition names)
        try:
            _out, _docs, ok = convert(codec.encode({**exc.world, rep: 1}).text)
        except Unsupported:
            return None
        if ok:
            return other
    return None


def _keep_apart(codec: Codec, forced: dict[int, int], exc: Unsupported,
                convert: Callable[[str], tuple[str, list[Any], bool]],
                worlds: list[dict[int, int]]) -> str | None:
    """For blocks that do not combine independently (two roles' optional resources merged into
    one maximum, say) or whose fields end up interleaved: force one of them (worlds.interacting)
    off (to its last choice: nothing, or its ``else``); for blocks that break the YAML together
    (worlds.breaking), force the one found to its first branch (alone when its own lines
    break). The Go condition under which it takes another branch, or None."""
    if isinstance(exc, Unconvertible):
        found = breaking(codec, exc, convert, forced)
        if found is None or found[0].kind != "if" or found[0].alternatives != 2:
            return None
        block, failed = found
        branch = failed.world.get(codec.canon.get(block.id, block.id), 0)
        twin = _failing_twin(codec, failed, block) if branch == 1 else None
        cond = _alone(codec, forced, failed, worlds, [twin], branch, convert) \
            if twin is not None else None
        if cond is None and branch == 1:
            cond = _condition(codec, block, 1, forced, every=True)
            if cond is not None:
                forced[codec.canon.get(block.id, block.id)] = 0
        return cond
    pair = interacting(codec, exc, convert, forced)
    if pair is None or pair.kind not in ("if", "with", "range"):
        return None
    block, rep = pair, codec.canon.get(pair.id, pair.id)
    # (a role in a `with` of its own values: its fields mix with the other role's in the
    # TrainJob; the job is converted with the role there, the legacy job kept without it)
    keep = 0 if block.kind == "with" and block.alternatives == 2 \
        and roles.holds_role(codec, block) else block.alternatives - 1
    terms = [_condition(codec, block, i, forced, every=True)
             for i in range(block.alternatives) if i != keep]
    if rep in forced or not terms or not all(terms):
        return None
    forced[rep] = keep
    return _any([t for t in terms if t])


def _innermost(codec: Codec, exc: WorldFailed, forced: dict[int, int]) -> Any:
    """The innermost block (on its first branch) around the first error of a failed world."""
    encoded = codec.encode(exc.world)
    lines = [encoded.lines[f.line - 1] for d in exc.documents for f in d.findings
             if getattr(f.severity, "value", "") == "error" and isinstance(f.line, int)
             and 0 < f.line <= len(encoded.lines)]
    if not lines:
        return None
    target = lines[0]
    best = None
    for block, span in _spans(codec, codec.template.root, forced, []):
        if span[0] <= target <= span[1] and (best is None or span[0] >= best[1][0]):
            best = (block, span)
    return best[0] if best else None


def _writer_of_field(codec: Codec, exc: WorldFailed, forced: dict[int, int]) -> Any:
    """When no block on encloses the first error, the innermost block on that writes the field
    the error names (a Chief whose nodeSelector block is kept off differs from the Workers',
    whose own nodeSelector block writes the field: P306), or None."""
    keys = {re.sub(r"\[.*?\]", "", str(f.path)).rsplit(".", 1)[-1]
            for d in exc.documents for f in d.findings
            if getattr(f.severity, "value", "") == "error" and f.path}
    units = codec.template.units
    best = None
    for block, _span in _spans(codec, codec.template.root, forced, []):
        written = {found.group(1) for u in block.branches[0].items if isinstance(u, int)
                   for found in [_FIELD_KEY.match(units[u].text)] if found}
        if written & keys:
            best = block
    return best


_FIELD_KEY = re.compile(r"\s*(?:-\s+)?([\w.-]+):")


def _spans(codec: Codec, branch: Any, forced: dict[int, int], out: list[Any]) -> list[Any]:
    for item in branch.items:
        if isinstance(item, int):
            continue
        key = codec.canon.get(item.id, item.id)
        if key in forced:
            choice = forced[key]
            if 0 <= choice < len(item.branches):
                _spans(codec, item.branches[choice], forced, out)
            continue
        lines = [codec.template.units[u].line for u in _units_of(item.branches[0])]
        if lines:
            out.append((item, (min(lines), max(lines))))
        _spans(codec, item.branches[0], forced, out)
    return out


def _units_of(branch: Any) -> list[int]:
    found: list[int] = []
    for item in branch.items:
        if isinstance(item, int):
            found.append(item)
        else:
            for sub in item.branches:
                found.extend(_units_of(sub))
    return found


def _canonical(text: str) -> str:
    """The converter's output in one layout (it is written with CANONICAL_LAYOUT, and an
    item's first field is a line of its own), so that worlds differ only where their content
    differs; the lines of block scalars are content and stay as they are."""
    lines: list[str] = []
    scalar = -1  # the indentation of the line that opened the block scalar we are in
    for line in text.split("\n"):
        if scalar >= 0 and (not line.strip() or indent_of(line) > scalar):
            lines.append(line)
            continue
        scalar = indent_of(line) if _BLOCK_SCALAR.search(line) else -1
        item = _ITEM_MAPPING.match(line)
        if item:  # `- key: v` -> `-` + `  key: v`: an item's first field is a line of its own
            lines.append(item.group(1) + "-")
            lines.append(" " * (len(item.group(1)) + 2) + item.group(2))
        elif line.strip() in ("{}", "[]") and lines and lines[-1].endswith(":") \
                and indent_of(lines[-1]) < indent_of(line):
            lines[-1] += " " + line.strip()  # an empty value written on the key's next line
        else:
            lines.append(line if line.strip() else "")  # (a blank line's spaces are noise)
    while len(lines) > 1 and not lines[-1] and not lines[-2] and scalar < 0:
        lines.pop()
    return "\n".join(lines)


# a line opening a block scalar (`key: |`, `- >-`, `args: |2+`)
_BLOCK_SCALAR = re.compile(r"(?:^|[:\s-])[ ]*[|>][-+0-9]*[ ]*$")



_ITEM_MAPPING = re.compile(r"^(\s*)- ((?:[A-Za-z0-9_./-]+|\"[^\"]*\"|'[^']*'):(?: |$).*)$")


def _merge_neutrals(codec: Codec) -> None:
    """A folded block stands for all blocks with its condition: each branch declares the
    variables (and keeps the comments) of every one of them."""
    for block in codec.template.blocks:
        rep = codec.template.blocks[codec.canon.get(block.id, block.id)]
        if rep is block:
            continue
        for mine, theirs in zip(rep.branches, block.branches, strict=False):
            known = {a.text for a in mine.neutral + mine.trailing}
            mine.neutral.extend(a for a in theirs.neutral if a.text not in known)
            mine.trailing.extend(a for a in theirs.trailing if a.text not in known)


_ANY_TOKEN = re.compile(f"{STR_TOKEN.pattern}|{LINE_TOKEN.pattern}")


def _stand_ins(codec: Codec) -> re.Pattern[str]:
    """The stand-ins of ``codec``'s actions: string and line tokens, and the numbers its
    number slots use (only those: a literal 40000 in the template is no action)."""
    numbers = sorted({slot.token for slot in codec.ints}, key=lambda s: (len(s), s))
    if not numbers:
        return _ANY_TOKEN
    return re.compile(f"{_ANY_TOKEN.pattern}|(?<![0-9A-Za-z_.])(?:{'|'.join(numbers)})"
                      "(?![0-9A-Za-z_.])")
# (one line: `\s` and `[^:#]` would run on over the lines after it, quadratic in a block scalar)
_BARE_VALUE = re.compile(r"^[ \t]*(?:- )?(?:[^\s:#'\"][^:#\n]*: +)?(tjmz\d{4}z)[ \t]*$",
                         re.MULTILINE)


def _one_node_count(codec: Codec, folded: Any, scope: frozenset[str]) -> Any:
    """The count slot whose value 1 makes a one-node job (a TF_CONFIG host list written over
    it alone, launch.HOST_INDEX), or None; Unsupported where the template cannot test it."""
    found: dict[int, Any] = {}
    for out, _docs in folded.worlds.values():
        for match in HOST_ENTRY.finditer(out):
            decoded = decode_int(int(match.group(2)), codec.ints)
            if decoded is not None and len(decoded[0]) == 1 and decoded[1] == 0:
                found[decoded[0][0].id] = decoded[0][0]
    if not found:
        return None
    slot = min(found.values(), key=lambda s: s.id)
    declared = _declared(codec) | scope
    if len(found) > 1 or slot.ctx or not codec.template.helm or "{{" not in slot.action.text \
            or not set(VARIABLE.findall(slot.action.body)) <= declared:
        raise Unsupported("one node converts differently (no TF_CONFIG, F532) and the node "
                          f"count {slot.action.text} cannot be tested at the top of the "
                          "template (inside a range or with, or several counts)",
                          slot.line, slot.action.text)
    return slot


def _empty_guards(codec: Codec, forced: dict[int, int],
                  convert: Callable[[str], tuple[str, list[Any], bool]], ref_out: str,
                  scope: frozenset[str]) -> list[tuple[str, Any, str]]:
    """What the converter does with a key whose whole value is a fragment or a scalar when it
    renders empty: more worlds of the reference, every such fragment `{}` (`[]` for a list)
    in one and null in another, and the scalars (`runAsUser: {{ X }}`) null in a third.
    Where the key is then gone from the output (a container's `resources: {}` gives no
    resourcesPerNode, a companion runtime keeps no null) and the value is a plain indented
    fragment or a scalar on its key's line, the decoded key gets an `if` on those renderings
    (Slot.dropped_when); a key kept as written needs none. Outputs that are more than keys
    kept or gone (a parent emptied too, other than to `{}` by its dropped scalars) leave the
    values as they are; scalars are then measured again in halves, within a few worlds.

    A quantity alone whose null makes the job fail (`nvidia.com/gpu: {{ X }}` unset, K103)
    keeps the legacy job for those renderings: (Go condition, slot, why) each, where the top
    of the template can test it."""
    ref = ref_out.split("\n")
    fragments = [s.id for s in codec.by_id.values()
                 if s.kind == "line" and s.keyed and fragment_expression(s.action)]
    dropped: dict[tuple[int, str], set[str]] = {}  # (slot, output key) -> renderings
    kept: set[tuple[int, str, str]] = set()
    spans = _keyed_spans(codec, ref, set(fragments))
    shapes = {sid: "{}" if codec.by_id[sid].shape == "map" else "[]" for sid in codec.by_id}
    # (slot, key) -> (levels, first line, group) -> renderings that drop the lines around it
    around: dict[tuple[int, str], dict[tuple[int, str, frozenset[int]], set[str]]] = {}
    if spans:
        for mode in ("{}", "null"):
            cascades: list[Cascade] = []
            found = _measure(codec, forced, convert, ref, spans, mode, cascades)
            if found is None:
                break
            _tally(found, mode, shapes, dropped, kept)
            for sid, key, levels, first, members in cascades:
                around.setdefault((sid, key), {}).setdefault((levels, first, members), set()) \
                    .update(("null", "") if mode == "null" else (shapes[sid],))
    scalars = _keyed_spans(codec, ref, {s.id for s in codec.by_id.values()
                                        if s.kind != "line" and s.keyed})
    # siblings together (a securityContext's runAsUser, runAsGroup, fsGroup), each parent in a
    # world of its own; a group whose world fails (one null that changes more: a count) is
    # measured again in halves
    siblings: dict[int, dict[int, Span]] = {}
    for start, span in scalars.items():
        siblings.setdefault(_parent_line(ref, start), {})[start] = span
    groups = _joined([siblings[k] for k in sorted(siblings)])[::-1]
    runs = 0
    failing: list[tuple[set[int], list[Any]]] = []
    while groups and runs < MAX_NULL_WORLDS:
        group = groups.pop()
        runs += 1
        found = _measure(codec, forced, convert, ref, group, "null", failed=failing)
        if found is not None:
            _tally(found, "null", shapes, dropped, kept)
            continue
        # (halves of the slots: a slot written in several places, a companion runtime's env
        # value and the TrainJob's, is nulled in all of them at once)
        slots = sorted({span[1] for span in group.values()})
        if len(slots) > 1:
            half = set(slots[len(slots) // 2:])
            groups += [{k: v for k, v in group.items() if v[1] in half},
                       {k: v for k, v in group.items() if v[1] not in half}]
    order = ("{}", "[]", "null", "")
    for (sid, key), values in dropped.items():
        if any((sid, key, v) in kept for v in values):
            continue  # the same key kept in one place and dropped in another: no one test
        codec.by_id[sid].dropped_when[key] = tuple(v for v in order if v in values)
        ways = around.get((sid, key), {})
        if len(ways) == 1:  # (the same lines in every rendering that drops them)
            (levels, first, members), took = next(iter(ways.items()))
            codec.by_id[sid].dropped_with[key] = (levels, first, tuple(sorted(members)),
                                                  tuple(v for v in order if v in took))
    codec.kept_empty = {group for group in codec.kept_empty
                        if all(codec.by_id[sid].dropped_when for sid in group)}
    return _null_failures(codec, failing, _declared(codec) | scope)


def _null_failures(codec: Codec, failing: list[tuple[set[int], list[Any]]],
                   declared: set[str]) -> list[tuple[str, Any, str]]:
    """For each quantity whose null alone made the job fail: the Go condition that it renders
    null where its line renders, the slot, and the first error."""
    found: list[tuple[str, Any, str]] = []
    for slots, documents in failing:
        if len(slots) != 1:
            continue
        slot = codec.by_id[next(iter(slots))]
        if not slot.quantity:  # (a null name or count fails as the rendered job's own values)
            continue
        value = rebound(slot.action.body.strip(), slot.ctx, ())
        where = enclosing(codec, slot.line)
        if value is None or where is None \
                or not set(VARIABLE.findall(value + where)) <= declared:
            continue
        operand = value.split("|", 1)[0].strip()
        if operand and operand in where:
            continue  # (an `if` of the value stands around it: it renders only when set)
        test = null_test(value)
        cond = f"and ({where}) ({test})" if where else _unwrap(test)
        errors = [f for d in documents for f in d.findings
                  if getattr(f.severity, "value", "") == "error"]
        why = f"{errors[0].code} {errors[0].message}" if errors else "it does not convert"
        if all(cond != c for c, _, _ in found):
            found.append((cond, slot, f"when {slot.action.text} renders null, {why}"))
    return found


MAX_NULL_WORLDS = 12  # worlds measuring null scalars (halves of those that change more)


def _joined(groups: list[dict[int, Span]]) -> list[dict[int, Span]]:
    """``groups`` (in order), those holding spans of one slot joined into the first of them:
    a measuring world nulls a slot wherever it is written."""
    out: list[dict[int, Span]] = []
    for group in groups:
        slots = {span[1] for span in group.values()}
        joined = [i for i, g in enumerate(out) if slots & {span[1] for span in g.values()}]
        merged = dict(group)
        for i in joined:
            merged.update(out[i])
        if joined:
            out[joined[0]] = merged
            out = [g for i, g in enumerate(out) if i not in joined[1:]]
        else:
            out.append(merged)
    return out


def _parent_line(lines: list[str], index: int) -> int:
    """The index of the nearest line before ``index`` indented less (-1: none)."""
    depth = indent_of(lines[index])
    for i in range(index - 1, -1, -1):
        if lines[i].strip() and indent_of(lines[i]) < depth:
            return i
    return -1
Span = tuple[int, int, str]  # (end, slot, key line) of a keyed value in the reference output


def _measure(codec: Codec, forced: dict[int, int],
             convert: Callable[[str], tuple[str, list[Any], bool]], ref: list[str],
             spans: dict[int, Span], mode: str, cascades: list[Cascade] | None = None,
             failed: list[tuple[set[int], list[Any]]] | None = None
             ) -> list[tuple[int, str, bool]] | None:
    """The keyed values of ``spans`` rendered empty (``mode`` `{}` or null) in the reference
    world: for each, its slot, its output key and whether the converter dropped the key; None
    when that world does not convert (its slots and documents then go to ``failed``) or
    changes more. Given ``cascades``, the fragments whose keys take lines around them along
    are found too (_align_keys)."""
    empties = {sid: "" if mode == "null" else "{}" if codec.by_id[sid].shape == "map" else "[]"
               for _end, sid, _key in spans.values()}
    codec.empties = empties
    try:
        text = codec.encode(dict(forced)).text
    finally:
        codec.empties = {}
    try:
        out, _docs, ok = convert(text)
    except Unsupported:
        return None
    if not ok:
        if failed is not None:  # (the rendered job does not convert either)
            failed.append((set(empties), list(_docs)))
        return None
    found = _align_keys(ref, out.split("\n"), spans, empties, cascades)
    if found is None:
        return None
    keys, emptied = found
    codec.kept_empty.update(emptied)
    return keys


def _tally(found: list[tuple[int, str, bool]], mode: str, shapes: dict[int, str],
           dropped: dict[tuple[int, str], set[str]], kept: set[tuple[int, str, str]]) -> None:
    """Record which keys a measuring world dropped and which it kept, per rendering
    (``shapes``: the empty value of each slot, `{}` or `[]`)."""
    for sid, key, gone in found:
        renders = ("null", "") if mode == "null" else (shapes[sid],)
        if gone:
            dropped.setdefault((sid, key), set()).update(renders)
        else:
            kept.update((sid, key, v) for v in renders)


def _keyed_spans(codec: Codec, ref: list[str], ids: set[int]) -> dict[int, Span]:
    """Where each keyed value stands in the reference output: key line -> (end, slot, key):
    a fragment under its key, or a scalar on its key's line."""
    spans: dict[int, Span] = {}
    for index, line in enumerate(ref):
        scalar = _scalar_slot(codec, line)
        if scalar is not None and scalar.id in ids:
            spans[index] = (index + 1, scalar.id, line.split(":", 1)[0] + ":")
            continue
        form = _LINE_FORM.match(line)
        if form is None and line.strip() == "-" and index + 1 < len(ref) \
                and indent_of(ref[index + 1]) == indent_of(line) + 2:
            # an item placeholder (`- key: <token>`) as the canonical output writes it: the
            # dash on a line of its own, the item's first field on the next
            form = _LINE_FORM.match(line + " " + ref[index + 1].lstrip(" "))
        if not form or int(form.group(2)) not in ids:
            continue
        slot = codec.by_id[int(form.group(2))]
        start = index - 1 - (len(FIELDS.map_wrappers.get(slot.parent, ()))
                             if slot.shape == "map" else 0)
        end = index + 1
        pad = " " * (len(form.group(1)) + 2)
        while end < len(ref) and ref[end].startswith(pad):
            end += 1
        if slot.shape in ("item", "plain") and start >= 0 and (
                not ref[start].rstrip().endswith(":")
                or (end < len(ref) and indent_of(ref[end]) == len(form.group(1))
                    and ref[end].lstrip().startswith("-"))):
            # among other items of its list (a container's env beside the PYTHONUNBUFFERED
            # the converter adds): rendered empty, its items are gone and the key stays
            # (codec._among_items guards it)
            spans[index] = (end, slot.id, "")
            continue
        if start < 0 or not ref[start].rstrip().endswith(":"):
            continue
        spans[start] = (end, slot.id, ref[start].rstrip())
    return spans


def _scalar_slot(codec: Codec, line: str) -> Any:
    """The keyed scalar slot a line `key: <stand-in>` holds, or None."""
    found = codec.scalar_slot(line)
    slot = found[0] if found else None
    return slot if slot is not None and slot.kind != "line" and slot.keyed else None


def _align_keys(ref: list[str], out: list[str], spans: dict[int, Span], empties: dict[int, str],
                cascades: list[Cascade] | None = None
                ) -> tuple[list[tuple[int, str, bool]], list[frozenset[int]]] | None:
    """For each span of ``ref``: its slot, its key, and whether ``out`` lost the key (True) or
    kept it holding the empty value; and the maps ``out`` writes as `{}` because all their
    entries, scalars, were dropped (their slots). None when ``out`` differs in another way.
    Given ``cascades``, a subtree of ``ref`` that ``out`` lost whole, holding keyed fragments
    and no other stand-in (a built-in TrainJob's runtimePatches entry that held only them), is
    theirs: each is lost, and noted in ``cascades``."""
    found: list[tuple[int, str, bool]] = []
    emptied: list[frozenset[int]] = []
    i = j = 0
    while i < len(ref):
        if i in spans and not spans[i][2]:
            i = spans[i][0]  # (items among others: gone when empty)
            continue
        if i in spans:
            end, sid, key = spans[i]
            kept = (key + " " + empties[sid]).rstrip()
            gone = not (j < len(out) and out[j].rstrip() in (kept, key + " null"))
            found.append((sid, key.strip(), gone))
            j += 0 if gone else 1
            i = end
            continue
        if j < len(out) and out[j].rstrip() == ref[i].rstrip() + " {}":
            entries = _entries(ref, i, spans)
            if entries is None:
                return None
            # a map that held only scalars the converter dropped, written as `{}`
            found.extend((sid, key.strip(), True) for sid, key in entries)
            emptied.append(frozenset(sid for sid, _key in entries))
            i += 1 + len(entries)
            j += 1
            continue
        if j >= len(out) or out[j] != ref[i]:
            lost = _lost_subtree(ref, i, spans) if cascades is not None else None
            if lost is None or cascades is None:
                return None
            end, inside = lost
            group = frozenset(spans[k][1] for k in inside)
            for k in inside:
                levels = _levels(ref, k, i)
                if levels is None:
                    return None
                found.append((spans[k][1], spans[k][2].strip(), True))
                cascades.append((spans[k][1], spans[k][2].strip(), levels,
                                 ref[i].strip(), group))
            i = end
            continue
        i += 1
        j += 1
    return (found, emptied) if j == len(out) else None


# a keyed fragment whose key the converter drops when it renders empty, together with the
# lines around it that it then drops too: (slot, key, levels from the key line up to the
# first line dropped, that line stripped, the slots whose keys were all of what it dropped)
Cascade = tuple[int, str, int, str, frozenset[int]]


def _lost_subtree(ref: list[str], index: int, spans: dict[int, Span]
                  ) -> tuple[int, list[int]] | None:
    """The end of the subtree that ``ref[index]`` opens and the keyed fragment spans in it,
    when every stand-in in it is in one of those spans; else None."""
    end = index + 1
    while end < len(ref) and (not ref[end].strip() or indent_of(ref[end]) > indent_of(ref[index])):
        end += 1
    while end > index + 1 and not ref[end - 1].strip():
        end -= 1  # (blank lines after it are no part of it)
    inside: list[int] = []
    i = index
    while i < end:
        span = spans.get(i)
        if span is not None and span[2] and span[0] <= end and \
                LINE_TOKEN.search("\n".join(ref[i:span[0]])):
            inside.append(i)
            i = span[0]
            continue
        if LINE_TOKEN.search(ref[i]):
            return None
        i += 1
    return (end, inside) if inside else None


def _levels(lines: list[str], index: int, top: int) -> int | None:
    """How many parents up from ``lines[index]`` ``lines[top]`` is (None: it is none)."""
    levels = 0
    while index > top:
        index = _parent_line(lines, index)
        levels += 1
    return levels if index == top else None


def _entries(ref: list[str], index: int, spans: dict[int, Span]) -> list[tuple[int, str]] | None:
    """The (slot, key) of every entry under the key line ``ref[index]`` when all are scalar
    spans of one line each, else None."""
    column = len(ref[index]) - len(ref[index].lstrip(" "))
    entries: list[tuple[int, str]] = []
    i = index + 1
    while i < len(ref) and len(ref[i]) - len(ref[i].lstrip(" ")) > column:
        span = spans.get(i)
        if span is None or span[0] != i + 1 or not span[2].endswith(":"):
            return None
        entries.append((span[1], span[2]))
        i += 1
    return entries or None


def _process_count_from_values(codec: Codec, world_text: str, documents: list[Any]) -> set[int]:
    """The slots of container resources written by an action (``{{ toYaml .Values.resources
    }}``) where torchrun's default process count follows them (contract.py
    ``_cpu_processes``, F537): the world cannot tell a GPU (the count is kept) from a CPU count
    (F505) or neither (F530), both errors, so the rendered values decide whether the job
    converts."""
    lines = world_text.split("\n")
    found: set[int] = set()
    for doc in documents:
        for f in doc.findings:
            if f.code != "F537" \
                    or not isinstance(f.line, int) or not 0 < f.line <= len(lines):
                continue
            start = lines[f.line - 1]
            depth = len(start) - len(start.lstrip())
            block = [start]
            for line in lines[f.line:]:
                if line.strip() and len(line) - len(line.lstrip()) <= depth:
                    break
                block.append(line)
            for line in block:
                for token in _ANY_TOKEN.finditer(line):
                    slot = int(token.group(1) or token.group(2))
                    if slot in codec.by_id:
                        found.add(slot)
    return found


# the JSON of a resources value: a key naming a GPU (transforms.gpu_count: "gpu" in the name)
_GPU_KEY = r'(?i)"[^"]*gpu[^"]*":'
_TO_YAML = re.compile(r"^-?\s*toYaml\s+(?P<value>[^|]+?)\s*(\|.*)?-?$", re.S)


def _process_count_guards(codec: Codec, slots: set[int], scope: frozenset[str]
                          ) -> list[tuple[str, Any, str]]:
    """For resources written by ``toYaml X`` that decide torchrun's default process count:
    the legacy job is kept for values of X that name no GPU (the rendered job is refused:
    F505 with CPUs, F530 without, both errors); X with a GPU converts as the world did.
    (Go condition, the slot, why) each; Unsupported where the condition cannot be written."""
    found: list[tuple[str, Any, str]] = []
    declared = _declared(codec) | scope
    for slot in sorted((codec.by_id[i] for i in slots), key=lambda s: s.id):
        match = _TO_YAML.match(slot.action.body.strip())
        value = match.group("value").strip() if match else ""
        liftable = codec.template.helm and not slot.ctx \
            and value.startswith((".Values", ".Release", "$")) \
            and set(VARIABLE.findall(value)) <= declared
        if not liftable:  # no sprig, or a value relative to a range or with
            raise Unsupported(
                f"the container's resources come from {slot.action.text}, and without "
                "nprocPerNode they decide how many processes torchrun starts on each "
                "node: the node's CPUs under the legacy operator, the resources' CPU "
                "count (F505) or 1 (F530) on Trainer, both errors, the GPU count either "
                "way with a GPU; or set nprocPerNode to a number in the template",
                slot.line, slot.action.text)
        json = f"(toJson ({value}))"
        cond = f"not (regexMatch {go_string(_GPU_KEY)} {json})"
        why = (f"the resources {slot.action.text} name no GPU, so Trainer would start one "
               "process per CPU they state (F505), or 1 without any (F530), where torchrun "
               "started one per CPU of the node; set nprocPerNode to a number to convert those "
               "values too")
        if all(cond != c for c, _, _ in found):
            found.append((cond, slot, why))
    return found



def _bare_values(codec: Codec, world_text: str) -> re.Pattern[str] | None:
    """The stand-ins of ``world_text`` that are a whole plain YAML value (``hostNetwork:
    {{ .Values.x }}``, not quoted in the YAML nor by ``quote``): the action's output decides
    the value's type when the template is rendered, so a type check of the world does not
    judge them (a quoted one renders a string, and is judged as one)."""
    bare = []
    for match in _BARE_VALUE.finditer(world_text):
        slot = codec.by_id.get(int(match.group(1)[4:8]))
        if slot is not None and "quote" not in slot.action.body:
            bare.append(re.escape(match.group(1)))
    return re.compile("|".join(sorted(set(bare)))) if bare else None


def _value_paths(source: str) -> set[str]:
    """Paths (in the converter's notation) of the source scalars that hold a placeholder."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    found: set[str] = set()
    try:
        docs = list(YAML(typ="safe", pure=True).load_all(source))
    except YAMLError:
        return found

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                child = f"{path}.{key}" if path else str(key)
                if _PLACEHOLDER.search(str(key)):
                    found.add(path)
                walk(value, child)
        elif isinstance(node, list):
            for i, item in enumerate(node):
                name = item.get("name") if isinstance(item, dict) else None
                walk(item, f"{path}[name={name}]" if isinstance(name, str) else f"{path}[{i}]")
        elif _PLACEHOLDER.search(str(node)):
            found.add(path)

    for doc in docs:
        walk(doc, "")
    # a container's launch line is judged as command + args together
    for path in list(found):
        for part in (".command", ".args"):
            at = path.rfind(part)
            if at >= 0 and path[at + len(part):at + len(part) + 1] in ("", "["):
                found.update({path[:at] + ".command", path[:at] + ".args"})
    return found


_PLACEHOLDER = re.compile(r"tjm[zl]\d{4}[zl]|(?<![0-9])(?:3\d{8}|[3-8]\d{4})(?![0-9])")


def _placeholder_blame(codec: Codec, exc: WorldFailed) -> Unsupported | None:
    """A world that fails because of the placeholders themselves (a YAML error, a value the
    converter must read) says nothing about the job: the template is not carried. A world
    that also fails for a reason of its own (an error naming no placeholder, not about a value:
    arena tfjob's PS replicas, F512, beside the affinity `include` of the same branch) is a
    real failure of that world: its values keep the legacy job."""
    encoded = codec.encode(exc.world)
    for doc in exc.documents:
        for f in doc.findings:
            raw = f"{f.path} {f.message}"
            if getattr(f.severity, "value", "") == "error" and not _PLACEHOLDER.search(raw) \
                    and f.code not in (*_VALUE_CODES, "Y101", "Y104", "Y105") \
                    and not f.code.startswith("V"):
                return None
    for doc in exc.documents:
        for f in doc.findings:
            if getattr(f.severity, "value", "") != "error":
                continue
            raw = f"{f.path} {f.message}"
            tokens = STR_TOKEN.search(raw) or LINE_TOKEN.search(raw) or _INT_TOKEN.search(raw)
            if f.code == "Y101" and _own_yaml_error(encoded.text):
                continue  # the branch's own text is broken YAML: a real failure of that world
            if f.code in ("Y101", "Y104", "Y105") or (tokens and f.code in _VALUE_CODES):
                line = f.line
                if isinstance(line, int) and 0 < line <= len(encoded.lines):
                    line = encoded.lines[line - 1]
                slot = _slot_of(codec, raw) if tokens else None
                if slot is not None and not line:
                    line = slot.line
                construct = slot.action.text if slot is not None else ""
                if slot is not None and slot.kind == "line":
                    return _fragment_blame(codec, slot, f, line or 0)
                return Unsupported(f"the converter needs the value of a template action "
                                   f"({f.code}: {_untoken(codec, f.message)})"
                                   if f.code not in ("Y101", "Y104", "Y105") else
                                   f"the template's YAML cannot be read with its actions set "
                                   f"aside ({_untoken(codec, f.message)})", line or 0,
                                   construct)
            if f.code in _VALUE_CODES and not tokens:
                # no placeholder named, but the field at fault lies in what a fragment writes
                # (`spec:` over `{{- include "x.podSpec" . | nindent 10 }}`: containers
                # required): that fragment's stand-in is what failed, not the job
                fragment = _fragment_at(codec, f, encoded)
                if fragment is not None:
                    return _fragment_blame(codec, fragment, f, fragment.line)
    return None


def _fragment_blame(codec: Codec, slot: Any, f: Any, line: int) -> Unsupported:
    """Template stage: the refusal of a world that failed on a fragment's stand-in (Y110)."""
    construct = slot.action.text
    why = f"({f.code}: {_untoken(codec, f.message)})"
    called = _CALLED.search(slot.action.body)
    if called is not None:
        return Unsupported(
            f"{construct} writes fields from the named template {called.group(1)}, defined "
            f"elsewhere (not in this file), and the converter needs to read them {why}; render "
            "the chart first (`check --helm`), or write the fields out in this template",
            line, construct)
    return Unsupported(
        f"the converter cannot tell which fields {construct} writes {why}; decide where they "
        "go: write them out in this template (the named template's fields inline), or render "
        "first", line, construct)


# a fragment that calls a named template (`include "x.podSpec" .`, `template "x"`)
_CALLED = re.compile(r"\b(?:include|template)\s+(\"[^\"]*\")")


def _fragment_at(codec: Codec, f: Any, encoded: Any) -> Any:
    """Template stage: the fragment (a line slot of the failed world ``encoded``) whose
    stand-in a finding is about: a field right under the key the fragment fills (required
    there: `spec` over an `include`, `spec.containers`), or a field of its placeholder item
    (`tolerations[0].name`); None when it is about neither."""
    segments = [s for s in re.split(r"[.\[\]]", f.path or "") if s]
    tokens = {int(m.group(1)) for m in LINE_TOKEN.finditer(encoded.text)}
    for sid in sorted(tokens):
        slot = codec.by_id.get(sid)
        if slot is None or slot.kind != "line":
            continue
        key = slot.parent or slot.keyed.strip().rstrip(":").strip("\"'")
        own = {FIELDS.item_key(key), *FIELDS.item_fields.get(key, {})}
        if slot.keyed and len(segments) >= 2 and segments[-2] == key \
                and not segments[-1].isdigit() and "=" not in segments[-1]:
            return slot  # (the fragment is all of the key's value: the field is its)
        if key and len(segments) >= 3 and segments[-3] == key and segments[-2].isdigit() \
                and segments[-1] in own:
            return slot
    return None


def _slot_of(codec: Codec, text: str) -> Any:
    """The slot of the first placeholder in ``text`` (a finding's path or message)."""
    for pattern in (LINE_TOKEN, STR_TOKEN):
        match = pattern.search(text)
        if match and int(match.group(1)) in codec.by_id:
            return codec.by_id[int(match.group(1))]
    match = _INT_TOKEN.search(text)
    found = decode_int(int(match.group(1)), codec.ints) if match else None
    return found[0][0] if found and len(found[0]) == 1 else None


def _own_yaml_error(text: str) -> bool:
    """Whether the YAML error of an encoded world lies in the template's own text: no
    fragment placeholder (the only kind that stands for YAML structure; the others are plain
    words and numbers) on the lines from where the failing construct starts to where it
    fails. Then the same branch, rendered with any values, is broken the same way."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        for _ in YAML(typ="safe", pure=True).load_all(text):
            pass
    except MarkedYAMLError as exc:
        marks = [m.line for m in (exc.context_mark, exc.problem_mark) if m is not None]
        if not marks:
            return False
        lines = text.split("\n")[min(marks):max(marks) + 1]
        return not any(LINE_TOKEN.search(x) for x in lines)
    except YAMLError:
        return False
    return False


_FIXED_COUNT = re.compile(r"replicas must be at least (\d+) and at most (\d+), got (\d+)$")


def _declared(codec: Codec) -> set[str]:
    """The variables the template declares at its top."""
    return set(top_variables(codec))


def _pin(codec: Codec, exc: WorldFailed, scope: frozenset[str] = frozenset(),
         taken_as_one: list[Note] | None = None) -> str | None:
    """A role whose replica count the target fixes (a Master/Chief/Launcher of exactly 1) but
    the template computes: encode the count as that number, and keep the legacy job for the
    other values. The Go condition of those values, or None.

    Only an action outside a range (inside a with: read at the top, where the with's value is
    not empty) whose variables are declared at the top of the template is pinned: the
    condition is evaluated before the job."""
    declared = _declared(codec) | scope
    for doc in exc.documents:
        for f in doc.findings:
            if f.code != "K103" or getattr(f.severity, "value", "") != "error":
                continue
            fixed = _FIXED_COUNT.search(str(f.message))
            if fixed is None or fixed.group(1) != fixed.group(2):
                continue
            found = decode_int(int(fixed.group(3)), codec.ints)
            if found is None or len(found[0]) != 1 or found[1] != 0:
                continue
            slot = found[0][0]
            # (inside a with: its value read at the top, tested only where it is not empty)
            count = rebound(slot.action.body, slot.ctx, ())
            around = enclosing(codec, slot.line) if slot.ctx else ""
            if count is None or around is None or slot.id in codec.pins \
                    or not set(VARIABLE.findall(count + around)) <= declared \
                    or "{{" not in slot.action.text:
                continue
            codec.pins[slot.id] = fixed.group(1)
            # the rendered text is what the converter reads: compare it as text
            text = "toString" if codec.template.helm else "print"  # (no sprig)
            cond = f'ne ({text} ({count})) "{fixed.group(1)}"'
            if codec.template.helm and fixed.group(1) == "1":
                # a count that renders null is left out, and the legacy default is 1 (U901)
                cond = f"and (not {null_test(count)}) ({cond})"
                if taken_as_one is not None:
                    taken_as_one.append(Note(
                        "U901", str(f.path), f"for values where {slot.action.text} renders "
                        f"null, {f.path} is left out (the legacy default, 1)", slot.line))
            return f"and ({around}) ({cond})" if around else cond
    return None


def _variants(codec: Codec, folded: Any, failing: dict[int, int], forced: dict[int, int]
              ) -> list[dict[int, int]]:
    """The failing world of a kept legacy branch with the fold's other blocks switched: all at
    once, every second one, the others (pinned counts keep no world of their own)."""
    if failing is None:
        return []

    blocks = {b.id: b for b in codec.template.blocks}
    # the blocks around the failing one stay as they are (switching them hides it)
    around = {codec.canon.get(a.id, a.id) for b in failing if b in blocks
              for a, _ in (path_to(codec.template.root, blocks[b], []) or [])}
    live = sorted(b for b in folded.moved if b not in forced and b not in failing
                  and b not in around and blocks[b].kind != "guard")
    if not live:
        return []
    return [{**failing, **{b: blocks[b].alternatives - 1 for b in chosen}}
            for chosen in (live, live[::2], live[1::2]) if chosen]


_LAST_SEGMENT = re.compile(r"(?:^|\.)(tjml\d{4}l)$")


_LEGACY_KINDS = ("PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob")


def _included_job(codec: Codec, world: dict[int, int]) -> Note | None:
    """A legacy job inside another object whose fields a template fragment writes (arena
    cron-tfjob: a kubedl Cron's `template: {kind: TFJob, workload: {{ include ... }}}`): the
    converter cannot see the job, and the object around it creates the job itself. Y110
    naming the fragment, its line and why."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        docs = list(YAML(typ="safe", pure=True).load_all(codec.encode(world).text))
    except YAMLError:
        return None

    def fragment(node: Any) -> Any:
        if isinstance(node, dict):
            for key, value in node.items():
                found = LINE_TOKEN.search(str(key))
                if found and int(found.group(1)) in codec.by_id:
                    return codec.by_id[int(found.group(1))]
                inner = fragment(value)
                if inner is not None:
                    return inner
        elif isinstance(node, list):
            for item in node:
                inner = fragment(item)
                if inner is not None:
                    return inner
        return None

    def nested(node: Any, depth: int) -> Any:
        if isinstance(node, dict):
            if depth and node.get("kind") in _LEGACY_KINDS:
                return node
            for value in node.values():
                found = nested(value, depth + 1)
                if found is not None:
                    return found
        return None

    for doc in docs:
        if not isinstance(doc, dict):
            continue
        job = nested(doc, 0)
        slot = fragment(job) if job is not None else None
        if slot is None:
            continue
        outer = f"{doc.get('kind')} ({doc.get('apiVersion')})"
        where = (f"the {job['kind']} inside this {outer} is written by {slot.action.text} "
                 f"(line {slot.line})")
        if str(doc.get("apiVersion", "")).startswith("apps.kubedl.io/") \
                and doc.get("kind") == "Cron":
            why = ("a kubedl Cron creates the job in spec.template on every schedule, and "
                   "Trainer has no cron of its own; the Cron controller creates and tracks "
                   "only the kinds in its own scheme (newEmptyWorkload: scheme.New of the "
                   "template's apiVersion/kind, kubedl controllers/apps/cron_controller.go) "
                   "and reads their status as a kubedl JobStatus, so its template cannot "
                   "hold a TrainJob. Keep this chart on the legacy operator, or schedule the "
                   "TrainJob another way (a Kubernetes CronJob whose pod creates it), and "
                   "convert the named template's job rendered (`convert --helm`)")
        else:
            why = (f"the {doc.get('kind')} creates the job itself, so it would have to create "
                   "a TrainJob, and the converter cannot see the job's fields there; render "
                   "the chart first")
        return Note(NOT_CARRIED, "", f"template construct not carried: {where}: {why}",
                    slot.line)
    return None


def _dropped_fragment(codec: Codec, documents: list[Any]) -> Unsupported | None:
    """A fragment placeholder the converter judged as a field of its own (a pod field it does
    not carry, an unknown key): the converter decided about fields it cannot see, so the
    fragment is not carried (whatever the named template writes would be dropped or kept
    without the converter knowing which)."""
    for doc in documents:
        for f in doc.findings:
            found = _LAST_SEGMENT.search(str(f.path or ""))
            if found is None or getattr(f.severity, "value", "") == "info":
                continue
            slot = codec.by_id.get(int(found.group(1)[4:8]))
            if slot is None:
                continue
            return Unsupported(
                f"the converter cannot tell which fields {slot.action.text} writes "
                f"({f.code}: {_untoken(codec, f.message)}); decide where they go: write them "
                "out in this template (the named template's fields inline), or render first",
                slot.line, slot.action.text)
    return None


def _misaligned_items(template: Any) -> Unsupported | None:
    """A block whose list items start at another column than the item right after the block
    (the chart's own indentation slip: for values that render both, the list is not valid
    YAML or nests one item in the other). The likelier cause of interleaved blocks, named."""
    units = template.units
    for block in template.blocks:
        body = [units[u] for u in _units_of(block.branches[0])]
        first = next((u for u in body if u.kind == "line" and not u.in_scalar
                      and u.text.strip()), None)
        if first is None or not first.text.lstrip().startswith("- "):
            continue
        last = max(u.index for u in body)
        after = next((u for u in units[last + 1:] if u.kind == "line" and not u.in_scalar
                      and u.text.strip() and u.index not in _inside_blocks(template)), None)
        if after is None or not after.text.lstrip().startswith("- ") \
                or after.indent == first.indent:
            continue
        head = block.branches[0].header.text if block.branches[0].header else ""
        return Unsupported(
            f"the list items of {head} start at column {first.indent + 1} (line {first.line}) "
            f"and the item after the block at column {after.indent + 1} (line {after.line}): "
            "for values that render both, the list is not valid YAML or nests one item in the "
            "other, and the block's fields end up interleaved in the converted job; decide "
            "which column the items take (likely the other items'), then convert again",
            first.line, head)
    return None


def _inside_blocks(template: Any) -> set[int]:
    found: set[int] = set()
    for block in template.blocks:
        for branch in block.branches:
            found.update(_units_of(branch))
    return found
