"""BATCH: ``trainjob-migrate explain-diff FILE``: how each converted job's pods will differ.

For every legacy job in a file: convert it (as ``--allow-lossy`` would, to show what would be
written), render the effective pods Trainer will create from the TrainJob and its runtime (the
companion runtime, a default runtime of the target, or one given with ``--runtimes``), and
list the differences from the legacy job's pods (``effective.compare``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

import click
from ruamel.yaml.error import YAMLError

from migrator import paths
from migrator.check import effective
from migrator.convert.text import convert_text
from migrator.knowledge import runtimeindex
from migrator.knowledge.catalog import Catalog
from migrator.load import stream, yamlio
from migrator.report.safety import neutralise, printable
from migrator.results import FileResult, Unreadable, exit_code
from migrator.settings import ConvertOptions


@dataclass
class Explanation:
    """The effective-pod comparison of one converted document."""

    line: int
    title: str
    runtime: str
    differences: list[effective.Difference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    legacy: effective.Pods = field(default_factory=effective.Pods)  # the legacy roles' pods

    @property
    def unnamed(self) -> list[effective.Difference]:
        """Differences no finding of the document names (the oracle's failures)."""
        return [d for d in self.differences if not d.named_by]


def explain(text: str, catalog: Catalog, options: ConvertOptions) -> list[Explanation]:
    target = catalog.target(options.target)
    result = convert_text(text, options=replace(options, allow_lossy=True))
    chunks = stream.split(text)
    runtimes = runtimeindex.from_files(options.runtime_files)
    explanations = []
    by_line = {chunk.line: chunk for chunk in chunks}
    for doc in result.documents:
        chunk = by_line.get(doc.line)
        if chunk is None:
            continue  # a document the tool found inside another one (Markdown, templates)
        source = doc.source
        mapping = catalog.legacy.get((source.get("apiVersion"), source.get("kind")))  # type: ignore[arg-type]
        if doc.status != "converted" or mapping is None:
            continue
        try:
            root = yamlio.load(chunk.body)
            objects = [o for o in _safe_load_all(doc.text) if isinstance(o, dict)]
        except (yamlio.DocumentError, YAMLError):
            continue  # a template (Helm, envsubst): its pods are known only once rendered
        trainjob = next((o for o in objects if o.get("kind") == "TrainJob"), None)
        if trainjob is None:
            continue
        companion = next((o for o in objects if o.get("kind") == "TrainingRuntime"), None)
        ref = trainjob["spec"]["runtimeRef"]
        kind = ref.get("kind") or "ClusterTrainingRuntime"
        runtime_doc, pods, label, described = _runtime(
            companion, runtimes.get((kind, ref["name"])), target, ref["name"], kind)
        policy = target.frameworks[mapping.framework].policy
        mpi = paths.get(runtime_doc, ("spec", "mlPolicy", "mpi")) or {}
        rendered = effective.render(trainjob, pods, policy, target,
                                    launcher_as_node=bool(mpi.get("runLauncherAsNode")),
                                    ssh_path=mpi.get("sshAuthMountPath"),
                                    slots=mpi.get("numProcPerNode"))
        legacy = effective.legacy_pods(root, mapping)
        title = (f"{source.get('kind')}/{source.get('name')} → TrainJob/"
                 f"{trainjob.get('metadata', {}).get('name')}")
        notes = legacy.notes + rendered.notes
        if not described:
            notes.append(f"runtime {ref['name']} is not described in the catalog; pass it with "
                         "--runtimes to compare its template too")
        differences = effective.attribute(effective.compare(legacy, rendered), doc.findings,
                                          legacy)
        explanations.append(Explanation(chunk.line, title, label, differences, notes, legacy))
    return explanations


def _runtime(companion: Any, info: runtimeindex.RuntimeInfo | None, target: Any, name: str,
             kind: str) -> tuple[Any, dict[str, Any], str, bool]:
    """The runtime document, its pods, a label, and whether its template is known."""
    if companion is not None:
        return (companion, effective.runtime_pods(companion),
                f"companion TrainingRuntime {name}", True)
    if info is not None and info.doc is not None:
        return info.doc, effective.runtime_pods(info.doc), f"{kind} {name} ({info.source})", True
    pods = effective.default_runtime(target, name) if kind == "ClusterTrainingRuntime" else None
    if pods is not None:
        return None, pods, f"{kind} {name} (Trainer {target.version} default)", True
    unknown = {"node": {"spec": {"containers": [{"name": "node"}]}}}
    return None, unknown, f"{kind} {name} (unknown template)", False


def _safe_load_all(text: str) -> list[Any]:
    from ruamel.yaml import YAML

    return list(YAML(typ="safe", pure=True).load_all(text))


def explanations(file: FileResult, options: ConvertOptions) -> dict[int, Explanation]:
    """The explanations of a converted file's documents by line, for the review reports
    (empty when nothing converted, or when explaining fails: it is an aid, never worth
    losing a report over)."""
    if file.source is None or file.result is None or not file.result.changed:
        return {}
    from migrator.knowledge import catalog

    try:
        items = explain(file.source.text, catalog.load(), options)
    except Exception:  # the semantic diff is an aid; never lose a report over it
        return {}
    return {item.line: item for item in items}


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
            say(f"{name}: error Y102 cannot read file: {read.reason}", err=True)
            unreadable.append(FileResult(name, name, unreadable=read))
            continue
        for item in explain(read.text, catalog.load(), options):
            say(f"{name}:{item.line}: {item.title} (runtime: {item.runtime})")
            for note in item.notes:
                say(f"  note: {note}")
            for difference in item.differences:
                named = (f"named by {', '.join(difference.named_by)}" if difference.named_by
                         else "NOT NAMED by any finding")
                say(f"  {difference.describe()}  [{named}]")
            if not item.differences:
                say("  no difference in the effective pods")
    return exit_code(unreadable)
