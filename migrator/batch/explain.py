"""BATCH: ``trainjob-migrate explain-diff FILE``: how each converted job's pods will differ.

For every legacy job in a file: convert it (as ``--allow-lossy`` would, to show what would be
written), render the effective pods Trainer will create from the TrainJob and its runtime (the
companion runtime, a default runtime of the target, or one given with ``--runtimes``), and
list the differences from the legacy job's pods (``effective.compare``).

A batch that writes a review report asks for the same comparison of each file it converts
(``annotate``, in the process that converts the file): it reuses that conversion, and converts
again (as ``--allow-lossy``) only the documents an error blocked.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, replace
from typing import Any

import click
from ruamel.yaml.error import YAMLError

from migrator import paths
from migrator.check import effective, runtimefiles
from migrator.convert.text import convert_text
from migrator.knowledge import runtimeindex
from migrator.knowledge.catalog import Catalog
from migrator.knowledge.specs import KindIndex
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


@dataclass
class Explanation:
    """The effective-pod comparison of one converted document."""

    line: int
    title: str
    runtime: str
    differences: list[effective.Difference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    legacy: effective.Pods = field(default_factory=effective.Pods)  # the legacy roles' pods
    refused: list[Any] = field(default_factory=list)  # errors that block ``convert``
    compared: bool = True  # False: not converted even as --allow-lossy would (nothing to show)

    @property
    def unnamed(self) -> list[effective.Difference]:
        """Differences no finding of the document names (the oracle's failures)."""
        return [d for d in self.differences if not d.named_by]


def explain(text: str, catalog: Catalog, options: ConvertOptions, *,
            refusals: bool = False) -> list[Explanation]:
    """Convert ``text`` as ``--allow-lossy`` would and compare each converted job's pods
    (``refusals``: also a job even that does not convert, with its errors)."""
    return compare(text, convert_text(text, options=replace(options, allow_lossy=True)),
                   catalog, options, refusals=refusals)


def compare(text: str, result: TextResult, catalog: Catalog,
            options: ConvertOptions, *, refusals: bool = False) -> list[Explanation]:
    """The effective-pod comparison of each converted legacy job of ``result``, the
    conversion of ``text`` (rendered, as ``--allow-lossy`` would convert it); ``refusals``:
    also each legacy job that did not convert even so (``Explanation.compared`` False)."""
    target = catalog.target(options.target)
    kinds = catalog.kinds
    chunks = stream.split(text)
    runtimes = runtimefiles.from_files(options.runtime_files)
    explanations = []
    by_line = {chunk.line: chunk for chunk in chunks}
    for doc in result.documents:
        chunk = by_line.get(doc.line)
        if chunk is None:
            continue  # a document the tool found inside another one (Markdown, templates)
        source = doc.source
        mapping = catalog.legacy.get((source.get("apiVersion"), source.get("kind")))  # type: ignore[arg-type]
        if mapping is None:
            continue
        if doc.status != "converted":  # refused even as --allow-lossy converts: say why
            refused = [f for f in doc.findings if f.severity.value == "error" and not f.waived]
            if refused and refusals:
                explanations.append(Explanation(
                    chunk.line, f"{source.get('kind')}/{source.get('name')}", "none",
                    refused=refused, compared=False))
            continue
        try:
            root = yamlio.load(chunk.body)
            objects = [o for o in _safe_load_all(doc.text) if isinstance(o, dict)]
        except (yamlio.DocumentError, YAMLError):
            continue  # a template (Helm, envsubst): its pods are known only once rendered
        trainjob = next((o for o in objects if o.get("kind") == target.kind), None)
        if trainjob is None:
            continue
        companion = next((o for o in objects if o.get("kind") == kinds.namespaced_runtime_kind),
                         None)
        ref = trainjob["spec"]["runtimeRef"]
        kind = ref.get("kind") or kinds.cluster_runtime_kind
        runtime_doc, pods, label, described = _runtime(
            companion, runtimes.get((kind, ref["name"])), target, ref["name"], kind, kinds)
        policy = target.frameworks[mapping.framework].policy
        mpi = paths.get(runtime_doc, ("spec", "mlPolicy", "mpi")) or {}
        rendered = effective.render(trainjob, pods, policy, target,
                                    launcher_as_node=bool(mpi.get("runLauncherAsNode")),
                                    ssh_path=mpi.get("sshAuthMountPath"),
                                    slots=mpi.get("numProcPerNode"))
        legacy = effective.legacy_pods(root, mapping)
        title = (f"{source.get('kind')}/{source.get('name')} → {target.kind}/"
                 f"{trainjob.get('metadata', {}).get('name')}")
        notes = legacy.notes + rendered.notes
        if not described:
            notes.append(f"runtime {ref['name']} is not described in the catalog; pass it with "
                         "--runtimes to compare its template too")
        differences = effective.attribute(effective.compare(legacy, rendered), doc.findings,
                                          legacy)
        refused = [f for f in doc.findings if f.severity.value == "error" and not f.waived]
        explanations.append(Explanation(chunk.line, title, label, differences, notes, legacy,
                                        refused))
    return explanations


def _runtime(companion: Any, info: runtimeindex.RuntimeInfo | None, target: Any, name: str,
             kind: str, kinds: KindIndex) -> tuple[Any, dict[str, Any], str, bool]:
    """The runtime document, its pods, a label, and whether its template is known."""
    if companion is not None:
        return (companion, effective.runtime_pods(companion),
                f"companion {kinds.namespaced_runtime_kind} {name}", True)
    if info is not None and info.doc is not None:
        return info.doc, effective.runtime_pods(info.doc), f"{kind} {name} ({info.source})", True
    pods = effective.default_runtime(target, name) if kind == kinds.cluster_runtime_kind \
        else None
    if pods is not None:
        return None, pods, f"{kind} {name} (Trainer {target.version} default)", True
    unknown = {"node": {"spec": {"containers": [{"name": "node"}]}}}
    return None, unknown, f"{kind} {name} (unknown template)", False


def _safe_load_all(text: str) -> list[Any]:
    from ruamel.yaml import YAML

    return list(YAML(typ="safe", pure=True).load_all(text))


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
        items = explain(text, loaded, options) if lossy is None else \
            compare(text, lossy, loaded, options)
    except Exception:  # the semantic diff is an aid; never lose a report over it
        return {}
    return {item.line: PodComparison(
        tuple(PodDifference(d.category, d.describe(), tuple(d.named_by))
              for d in item.differences), tuple(item.notes)) for item in items}


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
        judged = {j.line: j for j in simulate.judge(read.text, result, options.target)}
        for item in compare(read.text, result, catalog.load(), options, refusals=True):
            for line in describe(name, item) + behaviour(judged.get(item.line)):
                say(line)
    return exit_code(unreadable)


def behaviour(judged: simulate.Judged | None) -> list[str]:
    """What the simulator of both controllers says beyond the pods' specs: how many pods of
    each kind start, how each lifecycle scenario ends on each side, which pods a selector
    reaches; and any difference no finding names (``NOT NAMED``)."""
    if judged is None:
        return []
    if judged.simulation is None:
        return [f"  behaviour: not simulated ({judged.why_not})"]
    sim = judged.simulation
    codes = {id(d): named for d, named in judged.named}
    lines: list[str] = []
    counts = (_counts(sim.legacy.pods), _counts(sim.trainer.pods))
    if counts[0] != counts[1]:
        lines.append(f"    pods: {_tally(counts[0])} -> {_tally(counts[1])}"
                     f"  [{_names((d for d in sim.differences if d.aspect == 'pods'), codes)}]")
    for before, after in sim.outcomes:
        mine = [d for d in sim.differences
                if d.aspect == "outcome" and d.path.startswith(f"{before.scenario}: ")]
        if mine:
            lines.append(f"    {before.scenario}: legacy {_ends(before)}; Trainer {_ends(after)}"
                         f"  [{_names(mine, codes)}]")
    lines += [f"    {difference}  [{_names([difference], codes)}]" for difference in
              sim.differences if difference.aspect in ("selectors", "suspend")]
    unnamed = [d for d in judged.unnamed if d.aspect not in ("pods", "outcome", "selectors",
                                                             "suspend")]
    lines += [f"    ~ {d}  [NOT NAMED by any finding]" for d in unnamed]
    if not lines:
        return ["  behaviour (simulated from the upstream controllers): the same"]
    return ["  behaviour (simulated from the upstream controllers):", *lines]


def _counts(pods: Any) -> dict[str, int]:
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


def _names(differences: Any, codes: dict[int, tuple[str, ...]] | None = None) -> str:
    found = sorted({code for d in differences for code in (codes or {}).get(id(d), ())})
    return ", ".join(found) if found else "NOT NAMED by any finding"


def describe(name: str, item: Explanation) -> list[str]:
    """The lines of one job's comparison: its title, whether ``convert`` would refuse it, the
    notes, then per role one short line per difference (``+`` added, ``-`` removed, ``~``
    changed) with the codes of the findings that name it."""
    if not item.compared:
        first = item.refused[0]
        return [f"{name}:{item.line}: {item.title}: convert refuses this job ({first.code}: "
                f"{first.message}); there are no pods to compare"]
    lines = [f"{name}:{item.line}: {item.title} (runtime: {item.runtime})"]
    if item.refused:
        first = item.refused[0]
        codes = ", ".join(dict.fromkeys(f.code for f in item.refused))
        from migrator import waivers

        choices = waivers.CHOICES.get(first.code)
        allow = f"{first.code}={'|'.join(choices)}" if choices else first.code
        lines.append(f"  convert would refuse this job ({codes}: {first.message}); shown as "
                     f"--allow-lossy (or --allow {allow}) would convert it")
    lines += [f"  note: {note}" for note in item.notes]
    roles: dict[str, list[effective.Difference]] = {}
    for difference in item.differences:
        roles.setdefault(difference.job, []).append(difference)
    for role, differences in roles.items():
        lines.append(f"  {role}:")
        lines += [f"    {_brief(difference)}" for difference in differences]
    if not item.differences:
        lines.append("  no difference in the effective pods")
    return lines


_ABSENT = effective._MISSING  # a side of a difference that has no value (added, removed)


def _brief(difference: effective.Difference) -> str:
    """One difference in a few words: ``+ env PET_NODE_RANK=<rank>  [C407]``."""
    key = difference.path.rsplit(f".{difference.category}.", 1)[-1]
    if difference.after is _ABSENT:
        text = f"- {_keyed(difference.category, key, difference.before)} (removed)"
    elif difference.before is _ABSENT:
        text = f"+ {_keyed(difference.category, key, difference.after)}"
    else:
        text = (f"~ {difference.category} {key}: {_value(difference.before)} -> "
                f"{_value(difference.after)}")
    named = ", ".join(difference.named_by) if difference.named_by else \
        "NOT NAMED by any finding"
    return f"{text}  [{named}]"


def _keyed(category: str, key: str, value: Any) -> str:
    """``category key: value``, or ``category value`` when the value names its key."""
    shown = _value(value)
    if shown == key or shown.startswith((f"{key}=", f"{key} ")):
        return f"{category} {shown}"
    return f"{category} {key}: {shown}"


def _value(value: Any) -> str:
    """A value as a person writes it: ``NAME=value`` for an env entry, a port's number, the
    fields of a mapping without braces and quotes; long values shortened."""
    if isinstance(value, dict):
        if set(value) <= {"name", "value"} and "name" in value:
            text = f"{value['name']}={value.get('value', '')}"
        elif "containerPort" in value:
            port = value["containerPort"]
            text = f"{value['name']} {port}" if value.get("name") else str(port)
        else:
            text = ", ".join(f"{k}: {_value(v)}" for k, v in value.items())
    elif isinstance(value, list):
        text = "[" + ", ".join(_value(v) for v in value) + "]"
    else:
        text = str(value)
    return text if len(text) <= 120 else text[:117] + "..."
