"""SIMULATE: one legacy job against its conversion — both worlds, every scenario, every difference.

``simulate(job, outputs, version)`` takes the legacy object and the objects its conversion wrote
(the TrainJob, and a companion runtime when there is one), finds the runtime the TrainJob
references (a runtime among the outputs or given by the caller, else Trainer's default of that
name), simulates both controllers and puts the job through the standard scenarios on both sides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.error import YAMLError

from migrator import paths
from migrator.load import stream, yamlio
from migrator.load.configmaps import ConfigMaps
from migrator.results import TextResult
from migrator.simulate import attribute, compare, legacy, trainer
from migrator.simulate.compare import Difference
from migrator.simulate.model import Outcome, World

RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")


@dataclass(frozen=True)
class Simulation:
    """Both worlds of one job, the outcome of each scenario on each side, and what differs."""

    legacy: World
    trainer: World
    outcomes: tuple[tuple[Outcome, Outcome], ...]
    differences: tuple[Difference, ...]
    runtime: str  # "<kind>/<name>" of the runtime simulated
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Judged:
    """A converted document of a file, its simulation (or why there is none) and, for each
    difference, the codes of the document's findings that name it."""

    line: int
    title: str
    simulation: Simulation | None
    named: tuple[tuple[Difference, tuple[str, ...]], ...] = ()
    why_not: str = ""

    @property
    def unnamed(self) -> list[Difference]:
        """The differences no finding names: silent behaviour changes."""
        return [difference for difference, codes in self.named if not codes]


class CannotSimulate(ValueError):
    """The objects do not say enough to simulate one side (no TrainJob, an unknown runtime)."""


def simulate(job: Mapping[str, Any], outputs: Iterable[Mapping[str, Any]], version: str,
             runtimes: Iterable[Mapping[str, Any]] = (),
             config_maps: Mapping[str, Mapping[str, Any]] | None = None) -> Simulation:
    """Simulate ``job`` under its legacy operator and its conversion ``outputs`` under Trainer
    ``version`` ("2.2", "2.3"); ``runtimes`` are more runtimes the TrainJob may reference,
    ``config_maps`` the data of ConfigMaps beside the job (by name), which both sides' pods
    read alike from the volumes that mount them."""
    written = [obj for obj in outputs if isinstance(obj, Mapping)]
    trainjob = next((obj for obj in written if obj.get("kind") == "TrainJob"), None)
    if trainjob is None:
        raise CannotSimulate("the conversion wrote no TrainJob")
    runtime, name = _runtime(trainjob, [*written, *runtimes], version)
    # A suspended job creates nothing until a queue (Kueue) resumes it: compare the suspension,
    # then what each side creates and does once resumed.
    differences: list[Difference] = []
    held = (_suspended(job, ("spec", "runPolicy", "suspend")),
            _suspended(trainjob, ("spec", "suspend")))
    if held[0] != held[1]:
        differences.append(Difference("", "suspend", "suspended", *held))
    job = _resumed(job, ("spec", "runPolicy", "suspend"))
    trainjob = _resumed(trainjob, ("spec", "suspend"))
    before = legacy.world(job)
    after = trainer.world(trainjob, runtime, version)
    differences += compare.pods(compare.with_config_maps(before, config_maps or {}),
                                compare.with_config_maps(after, config_maps or {}))
    outcomes = []
    for scenario in compare.scenarios(before):
        pair = (legacy.outcome(job, scenario),
                trainer.outcome(trainjob, runtime, version, scenario))
        outcomes.append(pair)
        differences.extend(compare.outcomes(*pair))
    return Simulation(before, after, tuple(outcomes), tuple(differences), name)


def _suspended(obj: Mapping[str, Any], path: tuple[str, ...]) -> bool:
    node: Any = obj
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    return node is True


def _resumed(obj: Mapping[str, Any], path: tuple[str, ...]) -> Mapping[str, Any]:
    """``obj`` with the flag at ``path`` removed (copies only the maps on the way)."""
    if not _suspended(obj, path):
        return obj
    head, *rest = path
    if not rest:
        return {key: value for key, value in obj.items() if key != head}
    return {**obj, head: _resumed(obj[head], tuple(rest))}


def _runtime(trainjob: Mapping[str, Any], candidates: list[Mapping[str, Any]],
             version: str) -> tuple[Mapping[str, Any], str]:
    """The runtime ``trainjob`` references: a candidate of that kind and name, else the
    default runtime of ``version`` (a ClusterTrainingRuntime)."""
    spec = trainjob.get("spec")
    ref = spec.get("runtimeRef") if isinstance(spec, Mapping) else None
    if not isinstance(ref, Mapping) or not isinstance(ref.get("name"), str):
        raise CannotSimulate("the TrainJob names no runtime")
    name, kind = ref["name"], ref.get("kind") or "ClusterTrainingRuntime"
    for candidate in candidates:
        metadata = candidate.get("metadata")
        if (candidate.get("kind") == kind and candidate.get("kind") in RUNTIME_KINDS
                and isinstance(metadata, Mapping) and metadata.get("name") == name):
            return candidate, f"{kind}/{name}"
    if kind == "ClusterTrainingRuntime":
        found = trainer.default_runtime(name, version)
        if found is not None:
            return found, f"{kind}/{name}"
    raise CannotSimulate(f"the runtime {kind}/{name} is neither written nor a default of "
                         f"Trainer {version}")


def judge(text: str, result: TextResult, version: str,
          runtimes: Iterable[Mapping[str, Any]] = ()) -> list[Judged]:
    """Simulate every legacy document ``result`` converted from ``text`` (the plain YAML
    documents of the stream; templates and embedded jobs are known only once rendered)."""
    chunks = {chunk.line: chunk for chunk in stream.split(text)}
    known = list(runtimes)
    config_maps = ConfigMaps(chunks.values())
    out = []
    for doc in result.documents:
        chunk = chunks.get(doc.line)
        source = doc.source if isinstance(doc.source, Mapping) else {}
        if chunk is None or doc.status != "converted" or str(
                source.get("apiVersion", "")).startswith("trainer."):
            continue
        title = f"{source.get('kind')}/{source.get('name')}"
        try:
            job = yamlio.plain(yamlio.load(chunk.body))
            outputs = _load_all(doc.text)
            namespace = str(paths.get(job, ("metadata", "namespace")) or "") \
                if isinstance(job, Mapping) else ""
            simulation = simulate(job, outputs, version, known, config_maps.seen_from(namespace))
        except (ValueError, yamlio.DocumentError, YAMLError) as exc:  # CannotSimulate too
            out.append(Judged(doc.line, title, None, why_not=str(exc)))
            continue
        named = attribute.attribute(simulation.differences, doc.findings, job,
                                    simulation.legacy)
        out.append(Judged(doc.line, title, simulation, tuple(named)))
    return out


def _load_all(text: str) -> list[Any]:
    """The converted documents (the tool's own output: plain YAML) as plain data."""
    from ruamel.yaml import YAML

    return list(YAML(typ="safe", pure=True).load_all(text))
