"""KNOWLEDGE: runtimes the tool can resolve a TrainJob's runtimeRef against.

Three sources, merged (``check/runtimefiles.py`` reads the files): the target's default
runtimes (mappings/targets), runtime files the user passes with ``--runtimes`` (files or
directories of TrainingRuntime / ClusterTrainingRuntime YAML, e.g. ``kubectl get
clustertrainingruntimes -o yaml``), and runtimes found among the files of the run itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from migrator import paths
from migrator.knowledge.specs import TargetSpec
from migrator.results import FrozenValue

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only


@fields_only
class RuntimeInfo(FrozenValue):
    """What a TrainJob needs to know about a runtime: its ML policy and jobs' containers."""

    FIELDS = ("policy", "jobs", "source", "doc")
    policy: str
    jobs: dict[str, list[str]]
    source: str
    doc: Any  # the runtime document, when read from a file

    def __init__(self, policy: str, jobs: dict[str, list[str]], source: str,
                 doc: Any = None) -> None:
        object.__setattr__(self, "policy", policy)
        object.__setattr__(self, "jobs", jobs)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "doc", doc)


Index = dict[tuple[str, str], RuntimeInfo]  # (kind, name) -> info


_DEFAULTS: dict[str, Index] = {}  # target id -> its default runtimes (built once)


def defaults(target: TargetSpec) -> Index:
    """The target's default runtimes (do not modify the returned dict)."""
    if target.id in _DEFAULTS:
        return _DEFAULTS[target.id]
    index: Index = {}
    kind = runtime_kinds()[0]  # Trainer ships cluster-scoped runtimes
    for runtime in target.default_runtimes:
        jobs = runtime.jobs or target.policies[runtime.policy].jobs
        index[(kind, runtime.name)] = RuntimeInfo(
            runtime.policy, {job.name: list(job.containers) for job in jobs},
            f"Trainer {target.version} default runtime")
    _DEFAULTS[target.id] = index
    return index


def describe(doc: Any, source: str = "") -> RuntimeInfo:
    """The policy and jobs of a runtime document (plain data)."""
    from migrator.knowledge.apichecks import ml_policy_sources

    policy = paths.get(doc, ("spec", "mlPolicy")) or {}
    found = [name for name in ml_policy_sources() if isinstance(policy, dict) and name in policy]
    jobs: dict[str, list[str]] = {}
    for job in paths.get(doc, ("spec", "template", "spec", "replicatedJobs")) or []:
        if not isinstance(job, dict) or not isinstance(job.get("name"), str):
            continue
        pod = paths.get(job, ("template", "spec", "template", "spec")) or {}
        names = [c.get("name") for kind in ("containers", "initContainers")
                 for c in pod.get(kind) or [] if isinstance(c, dict)]
        jobs[job["name"]] = [n for n in names if isinstance(n, str)]
    return RuntimeInfo(found[0] if found else "plain", jobs, source, doc)


def runtime_kinds() -> tuple[str, ...]:
    """The runtime kinds (mappings/kinds.yaml ``runtimeKinds``): cluster-scoped, namespaced."""
    from migrator.knowledge import catalog

    return tuple(catalog.load().kinds.runtime_kinds)
