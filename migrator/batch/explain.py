"""BATCH: ``trainjob-migrate explain-diff FILE``: how each converted job's pods and outcomes differ.

For every legacy job in a file: convert it (as ``--allow-lossy`` would, to show what would be
written), then let the simulator of both controllers (``migrator.simulate``, written from the
upstream sources) say what the legacy operator created and what Trainer will create from the
TrainJob and its runtime (the companion runtime, one given with ``--runtimes``, or a default
runtime of the target), how each lifecycle scenario ends on each side, and which finding of the
document names each difference.

A batch that writes a review report asks for the same comparison of each file it converts
(``annotate``, in the process that converts the file): it reuses that conversion, and converts
again (as ``--allow-lossy``) only the documents an error blocked.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import click
from ruamel.yaml.error import YAMLError

from migrator.check import runtimefiles
from migrator.convert.text import convert_text
from migrator.knowledge.catalog import Catalog
from migrator.load import stream, yamlio
from migrator.report.safety import neutralise, printable
from migrator.results import (
    FileResult,
    PodComparison,
    PodDifference,
    TextResult,
    Unreadable,
    exit_code,
)
from migrator.settings import ConvertOptions
from migrator.simulate import run as simulate
from migrator.simulate.compare import Difference
from migrator.template.marks import ENV_MARK, MARK

# A review report simulates jobs of up to this many pods (legacy side); explain-diff, asked for
# one file, simulates as many as the simulator builds. Simulating a pod costs about 2 ms.
REVIEW_PODS = 256
# Aspects the simulator reports about the job as a whole, not about a pod's spec.
JOB_ASPECTS = ("pods", "outcome", "selectors", "suspend")


@dataclass
class Explanation:
    """The simulated comparison of one converted document (or why a job has none)."""

    line: int
    title: str
    runtime: str
    judged: simulate.Judged | None = None
    notes: list[str] = field(default_factory=list)
    refused: list[Any] = field(default_factory=list)  # errors that block ``convert``
    compared: bool = True  # False: not converted even as --allow-lossy would (nothing to show)

    @property
    def differences(self) -> list[tuple[Difference, tuple[str, ...]]]:
        """Every simulated difference with the codes of the findings that name it."""
        return list(self.judged.named) if self.judged is not None else []

    @property
    def unnamed(self) -> list[Difference]:
        """Differences no finding of the document names (the simulator's verdict)."""
        return self.judged.unnamed if self.judged is not None else []


def explain(text: str, catalog: Catalog, options: ConvertOptions, *,
            refusals: bool = False, max_pods: int | None = None) -> list[Explanation]:
    """Convert ``text`` as ``--allow-lossy`` would and simulate each converted job
    (``refusals``: also a job even that does not convert, with its errors)."""
    return compare(text, convert_text(text, options=replace(options, allow_lossy=True)),
                   catalog, options, refusals=refusals, max_pods=max_pods)


def compare(text: str, result: TextResult, catalog: Catalog, options: ConvertOptions, *,
            refusals: bool = False, max_pods: int | None = None) -> list[Explanation]:
    """The simulated comparison of each converted legacy job of ``result``, the conversion of
    ``text`` (rendered, as ``--allow-lossy`` would convert it); ``refusals``: also each legacy
    job that did not convert even so (``Explanation.compared`` False); ``max_pods``: a job
    whose legacy side has more pods is not simulated (a note says so)."""
    if _templated(result.text):
        return []  # a template's jobs exist once rendered (explain-diff says so)
    target = catalog.target(options.target)
    lines = {chunk.line for chunk in stream.split(text)}
    given = {key: info.doc for key, info in
             runtimefiles.from_files(options.runtime_files).items() if info.doc is not None}
    large = _large(text, result, max_pods)
    judged = {j.line: j for j in simulate.judge(text, _without(result, large), target.version,
                                                 given.values())}
    explanations = []
    for doc in result.documents:
        source = doc.source
        if doc.line not in lines or catalog.legacy.get(
                (source.get("apiVersion"), source.get("kind"))) is None:  # type: ignore[arg-type]
            continue  # a document inside another one (Markdown, templates), or not legacy
        title = f"{source.get('kind')}/{source.get('name')}"
        refused = [f for f in doc.findings if f.severity.value == "error" and not f.waived]
        if doc.status != "converted":  # refused even as --allow-lossy converts: say why
            if refused and refusals:
                explanations.append(Explanation(doc.line, title, "none", refused=refused,
                                                compared=False))
            continue
        item = judged.get(doc.line)
        if doc.line in large:
            explanations.append(Explanation(
                doc.line, title, "not simulated", refused=refused,
                notes=[f"{large[doc.line]} pods: review reports simulate jobs of up to "
                       f"{max_pods} pods; run `explain-diff` on this file"]))
        elif item is not None:
            explanations.append(_explanation(item, doc.text, given, target.version, refused))
    return explanations


def _large(text: str, result: TextResult, max_pods: int | None) -> dict[int, int]:
    """The lines of converted documents whose legacy job has more than ``max_pods`` pods
    (the replicas of its roles, as written; a role without a count is one pod)."""
    if max_pods is None:
        return {}
    converted = {doc.line for doc in result.documents if doc.status == "converted"}
    out = {}
    for chunk in stream.split(text):
        if chunk.line not in converted:
            continue
        try:
            spec = yamlio.plain(yamlio.load(chunk.body)).get("spec")
        except (yamlio.DocumentError, YAMLError, AttributeError):
            continue
        roles = [replica for key, holder in (spec.items() if isinstance(spec, dict) else ())
                 if str(key).endswith("ReplicaSpecs") and isinstance(holder, dict)
                 for replica in holder.values()]
        pods = sum(r.get("replicas", 1) if isinstance(r, dict) and isinstance(
            r.get("replicas", 1), int) else 1 for r in roles)
        if pods > max_pods:
            out[chunk.line] = pods
    return out


def _without(result: TextResult, lines: dict[int, int]) -> TextResult:
    if not lines:
        return result
    return replace(result, documents=[d for d in result.documents if d.line not in lines])


def _explanation(item: simulate.Judged, written: str, given: dict[tuple[str, str], Any],
                 version: str, refused: list[Any]) -> Explanation:
    """An explanation of a judged document: its title with the TrainJob's, the runtime it
    was simulated with and where that runtime comes from."""
    outputs = _outputs(written)
    name = next((o.get("metadata", {}).get("name") for o in outputs
                 if o.get("kind") == "TrainJob"), None)
    title = f"{item.title} → TrainJob/{name}"
    sim = item.simulation
    if sim is None:
        return Explanation(item.line, title, "not simulated", item, refused=refused,
                           notes=[f"behaviour not simulated: {item.why_not}"])
    kind, _, runtime = sim.runtime.partition("/")
    if any(o.get("kind") == kind and o.get("metadata", {}).get("name") == runtime
           for o in outputs):
        label = f"companion {kind} {runtime}"
    elif (kind, runtime) in given:
        label = f"{kind} {runtime} (--runtimes)"
    else:
        label = f"{kind} {runtime} (Trainer {version} default)"
    notes = [*sim.notes, *(str(n) for n in sim.trainer.extras.get("notes") or ())]
    return Explanation(item.line, title, label, item, list(dict.fromkeys(notes)), refused)


def _outputs(text: str) -> list[dict[str, Any]]:
    from ruamel.yaml import YAML

    return [o for o in YAML(typ="safe", pure=True).load_all(text) if isinstance(o, dict)]


_MEMO: dict[bytes, dict[int, PodComparison]] = {}  # by file text, within one run


def forget() -> None:
    """Start a run: comparisons remembered by an earlier run (other options) are dropped."""
    _MEMO.clear()


def annotate(text: str, result: TextResult, options: ConvertOptions, *,
             plain: bool) -> TextResult:
    """``result`` (the conversion of ``text`` with ``options``) with the effective-pod
    comparison of each converted job on its document (``DocumentResult.effective``), for the
    review reports. Only a result that changed is compared.

    ``plain``: ``result`` is the rendered conversion of a plain YAML stream (``convert_plain``),
    whose documents are reused: only those an error blocked are converted again, as
    ``--allow-lossy`` converts them. Otherwise the text is converted again (templates, pages
    and scripts, rendered charts, validation results). A comparison that fails is left out:
    it is an aid, never worth losing a report over. Copies of a file (overlays, generated
    trees) are compared once per run.
    """
    if not result.changed:
        return result
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
    found = _MEMO.get(key)
    if found is None:
        found = _MEMO[key] = _comparisons(text, result if plain else None, options)
    if not found:
        return result
    return replace(result, documents=[replace(d, effective=found[d.line]) if d.line in found
                                      else d for d in result.documents])


def _comparisons(text: str, converted: TextResult | None,
                 options: ConvertOptions) -> dict[int, PodComparison]:
    from migrator.knowledge import catalog

    try:
        loaded = catalog.load()
        lossy = _as_lossy(text, converted, loaded, options) if converted is not None else None
        items = explain(text, loaded, options, max_pods=REVIEW_PODS) if lossy is None else \
            compare(text, lossy, loaded, options, max_pods=REVIEW_PODS)
    except Exception:  # the comparison is an aid; never lose a report over it
        return {}
    return {item.line: PodComparison(
        tuple(PodDifference(group, f"[{group}] {change}  [{_codes(codes)}]", codes)
              for group, change, codes in _lines(item)),
        tuple(item.notes)) for item in items}


def _as_lossy(text: str, converted: TextResult, catalog: Catalog,
              options: ConvertOptions) -> TextResult | None:
    """What ``--allow-lossy`` makes of a plain stream, from its rendered conversion: the
    same documents, but those an error blocked converted again as ``--allow-lossy`` does
    (documents convert one by one, and the option only decides whether an error blocks).
    None when the documents do not line up with the stream's chunks."""
    if options.allow_lossy:
        return converted
    chunks = stream.split(text)
    if [d.index for d in converted.documents] != list(range(len(chunks))):
        return None
    from migrator.convert import document

    lossy = replace(options, allow_lossy=True)
    documents = [document.process(chunks[doc.index], doc.index, catalog, lossy)
                 if doc.status == "failed" else doc for doc in converted.documents]
    return TextResult("".join(d.text for d in documents), documents)


def run(files: tuple[str, ...], options: ConvertOptions) -> int:
    """``explain-diff FILES``: print each converted job's differences; the exit code."""
    from migrator.knowledge import catalog
    from migrator.load import sources

    github = os.environ.get("GITHUB_ACTIONS") == "true"

    def say(line: str, err: bool = False) -> None:
        """One line from input text: escaped for a terminal, never a workflow command."""
        line = printable(line)
        click.echo(neutralise(line) if github else line, err=err)

    unreadable: list[FileResult] = []
    for name in files:
        read = sources.read(name, name)
        if isinstance(read, Unreadable):
            say(f"{name}: error Y102 {read.message}", err=True)
            unreadable.append(FileResult(name, name, unreadable=read))
            continue
        result = convert_text(read.text, options=replace(options, allow_lossy=True))
        items = compare(read.text, result, catalog.load(), options, refusals=True)
        for item in items:
            for line in describe(name, item):
                say(line)
        for line in _not_compared(name, result, {item.line for item in items}):
            say(line)
    return exit_code(unreadable)


def _not_compared(name: str, result: TextResult, compared: set[int]) -> list[str]:
    """A line for each legacy job nothing was said of (a converted template, whose jobs exist
    once rendered; a job convert leaves as it is), so that no job is answered with silence."""
    from migrator.knowledge import catalog

    kinds = {kind for _, kind in catalog.load().legacy}
    out = []
    for doc in result.documents:
        source = doc.source
        if doc.line in compared or source.get("kind") not in kinds:
            continue
        title = "/".join(str(part) for part in (source.get("kind"), source.get("name")) if part)
        if doc.status == "converted" and _templated(result.text):
            out.append(f"{name}:{doc.line}: {title}: {TEMPLATE}")
            continue
        first = max(doc.findings, key=lambda f: f.severity.rank, default=None)
        why = f" ({first.code}: {first.message})" if first is not None else ""
        out.append(f"{name}:{doc.line}: {title}: not converted here{why}; there are no "
                   "pods to compare")
    return out


def _templated(text: str) -> bool:
    """Whether ``text`` is a template the template stage converted (its first-line mark)."""
    return text.startswith((MARK, ENV_MARK))


TEMPLATE = ("a template; its jobs exist once rendered: render it (`helm template`, `envsubst`) "
            "and run explain-diff on the rendered jobs")


def describe(name: str, item: Explanation) -> list[str]:
    """The lines of one job's comparison: its title and runtime, whether ``convert`` would
    refuse it, the notes, then per role one short line per difference (``+`` added, ``-``
    removed, ``~`` changed), pod counts, how each scenario ends on each side and which pods a
    selector reaches, each with the codes of the findings that name it."""
    if not item.compared:
        first = item.refused[0]
        return [f"{name}:{item.line}: {item.title}: convert refuses this job ({first.code}: "
                f"{first.message}); there are no pods to compare"]
    lines = [f"{name}:{item.line}: {item.title} (runtime: {item.runtime})"]
    if item.refused:
        first = item.refused[0]
        refusing = ", ".join(dict.fromkeys(f.code for f in item.refused))
        from migrator import waivers

        choices = waivers.CHOICES.get(first.code)
        allow = f"{first.code}={'|'.join(choices)}" if choices else first.code
        lines.append(f"  convert would refuse this job ({refusing}: {first.message}); shown as "
                     f"--allow-lossy (or --allow {allow}) would convert it")
    lines += [f"  note: {note}" for note in item.notes]
    if item.judged is None or item.judged.simulation is None:
        return lines
    heading = None
    for group, change, codes in _lines(item):
        if group != heading:
            heading = group
            lines.append(f"  {group}:")
        lines.append(f"    {change}  [{_codes(codes)}]")
    if heading is None:
        lines.append("  no difference in pods or outcomes (simulated from the upstream "
                     "controllers)")
    return lines


def _lines(item: Explanation) -> list[tuple[str, str, tuple[str, ...]]]:
    """(group, line, codes) of every difference of a simulated job: the pods' differences per
    role (a difference shared by several pods of the role once, naming the pods when not all
    of them), then pod counts, each scenario's ending, selectors and suspension."""
    judged = item.judged
    if judged is None or judged.simulation is None:
        return []
    sim = judged.simulation
    roles = {pod.identity: pod.group for pod in sim.trainer.pods}
    roles.update({pod.identity: pod.group for pod in sim.legacy.pods})
    members: dict[str, list[str]] = {}
    for identity, role in roles.items():
        members.setdefault(role, []).append(identity)
    shared: dict[tuple[str, str, str, str | None, str | None, tuple[str, ...]],
                 list[str]] = {}
    for difference, codes in judged.named:
        if difference.aspect in JOB_ASPECTS:
            continue
        role = roles.get(difference.identity, difference.identity)
        last = _last_key(difference.path)
        key = (role, difference.aspect, difference.path, _value(difference.legacy, last),
               _value(difference.trainer, last), codes)
        shared.setdefault(key, []).append(difference.identity)
    out: list[tuple[str, str, tuple[str, ...]]] = []
    spans = {role: _span(pods) for role, pods in members.items()}  # once, not per difference
    for (role, _, path, before, after, codes), identities in shared.items():
        pods = members.get(role, identities)
        group = f"{role} ({spans[role] if role in members else _span(identities)})"
        text = _change(path, before, after)
        if len(identities) < len(pods):
            text += f" (only {_span(identities)})"
        out.append((group, text, codes))
    out.sort(key=lambda line: line[0])
    return out + _job_lines(judged)


def _job_lines(judged: simulate.Judged) -> list[tuple[str, str, tuple[str, ...]]]:
    sim = judged.simulation
    assert sim is not None
    named = list(judged.named)
    out: list[tuple[str, str, tuple[str, ...]]] = []
    counts = (_counts(sim.legacy.pods), _counts(sim.trainer.pods))
    if counts[0] != counts[1]:
        out.append(("pods", f"{_tally(counts[0])} -> {_tally(counts[1])}",
                    _union(codes for d, codes in named if d.aspect == "pods")))
    for before, after in sim.outcomes:
        mine = [codes for d, codes in named
                if d.aspect == "outcome" and d.path.startswith(f"{before.scenario}: ")]
        if mine:
            out.append(("outcomes", f"{before.scenario}: legacy {_ends(before)}; Trainer "
                        f"{_ends(after)}", _union(mine)))
    out += [(d.aspect, str(d), codes) for d, codes in named
            if d.aspect in ("selectors", "suspend")]
    return out


def _counts(pods: Iterable[Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for pod in pods:
        role = pod.identity.rsplit("-", 1)[0]
        out[role] = out.get(role, 0) + 1
    return out


def _tally(counts: dict[str, int]) -> str:
    return ", ".join(f"{count} {role}" for role, count in sorted(counts.items())) or "none"


def _ends(outcome: Any) -> str:
    """``Failed at event 1`` / ``still Running``, and what the controllers did."""
    done = outcome.finished_at
    where = f" at event {done[0] + 1} (occurrence {done[1] + 1})" if done else ""
    state = outcome.phase if done else f"still {outcome.phase}"
    reactions = [step.reaction for step in outcome.steps]
    did = f", pods {'/'.join(dict.fromkeys(reactions))}" if reactions else ""
    return f"{state}{where}{did}"


def _union(groups: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(sorted({code for codes in groups for code in codes}))


def _codes(codes: tuple[str, ...]) -> str:
    return ", ".join(codes) if codes else "NOT NAMED by any finding"


def _span(identities: list[str]) -> str:
    """``node-0..3`` for consecutive pods of one role, else the names."""
    indices = [i.rpartition("-") for i in identities]
    if len(identities) > 2 and len({role for role, _, _ in indices}) == 1 and \
            all(index.isdigit() for _, _, index in indices):
        numbers = sorted(int(index) for _, _, index in indices)
        if numbers == list(range(numbers[0], numbers[-1] + 1)):
            return f"{indices[0][0]}-{numbers[0]}..{numbers[-1]}"
    return ", ".join(identities)


def _change(path: str, before: str | None, after: str | None) -> str:
    """One difference in a few words: ``+ containers[node].env PET_NODE_RANK=...``."""
    if after is None:
        return f"- {_keyed(path, before)} (removed)"
    if before is None:
        return f"+ {_keyed(path, after)}"
    return f"~ {path}: {before} -> {after}"


def _last_key(path: str) -> str | None:
    """The name in a path's last brackets (``env[RANK]``: ``RANK``), if it ends with one."""
    _, bracket, key = path.rpartition("[")
    return key[:-1] if bracket and key.endswith("]") else None


def _keyed(path: str, shown: str | None) -> str:
    """``path: value``, or ``holder value`` when the value names the path's last key."""
    key = _last_key(path)
    holder = path.rpartition("[")[0]
    if key is not None and shown is not None and (shown == key or shown.startswith((f"{key}=",
                                                                            f"{key} "))):
        return f"{holder} {shown}"
    return f"{path}: {shown}"


def _value(value: Any, key: str | None = None) -> str | None:
    """A value as a person writes it (None: absent): ``NAME=value`` for an env entry, a
    port's number, the fields of a mapping without braces and quotes (without the name the
    path already gives, ``key``); long values shortened."""
    if value is None:
        return None
    if isinstance(value, dict) and key is not None and value.get("name") == key and \
            not set(value) <= {"name", "value"}:
        value = {k: v for k, v in value.items() if k != "name"}
    if isinstance(value, dict):
        if set(value) <= {"name", "value"} and "name" in value:
            text = f"{value['name']}={value.get('value', '')}"
        elif "containerPort" in value:
            port = value["containerPort"]
            text = f"{value['name']} {port}" if value.get("name") else str(port)
        else:
            text = ", ".join(f"{k}: {_value(v)}" for k, v in value.items())
    elif isinstance(value, list):
        text = "[" + ", ".join(str(_value(v)) for v in value) + "]"
    else:
        text = str(value)
    return text if len(text) <= 120 else text[:117] + "..."
