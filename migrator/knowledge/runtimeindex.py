"""KNOWLEDGE: runtimes the tool can resolve a TrainJob's runtimeRef against.

Three sources, merged: the target's default runtimes (mappings/targets), runtime files the
user passes with ``--runtimes`` (files or directories of TrainingRuntime /
ClusterTrainingRuntime YAML, e.g. ``kubectl get clustertrainingruntimes -o yaml``), and
runtimes found among the files of the run itself.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Any

from migrator import paths
from migrator.errors import MigratorError
from migrator.knowledge.specs import TargetSpec
from migrator.results import FrozenValue

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only


class RuntimeFileError(MigratorError):
    """A --runtimes path cannot be read."""


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


def known(target: TargetSpec, user_files: tuple[str, ...],
          local_files: tuple[str, ...] = ()) -> Index:
    """Every runtime a TrainJob may resolve to: defaults, then the run's files, then --runtimes
    (a later source wins on a name clash). A fresh dict: callers may add to it."""
    index = dict(defaults(target))
    index.update(from_files(local_files, local=True))
    index.update(from_files(user_files))
    return index


_DEFAULTS: dict[str, Index] = {}  # target id -> its default runtimes (built once)


def defaults(target: TargetSpec) -> Index:
    """The target's default runtimes (do not modify the returned dict)."""
    if target.id in _DEFAULTS:
        return _DEFAULTS[target.id]
    index: Index = {}
    kind = _runtime_kinds()[0]  # Trainer ships cluster-scoped runtimes
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


@functools.lru_cache(maxsize=8)
def from_files(files: tuple[str, ...], *, local: bool = False) -> Index:
    """Runtimes in the given files and directories (YAML streams and v1 Lists).

    A --runtimes file that cannot be read or parsed is a ``RuntimeFileError`` (one line);
    one of the run's own files (``local``) is passed over instead: the run reports it as
    that file's finding, and its runtimes are not known."""
    from migrator.load import sources, yamlio

    index: Index = {}
    kinds = _runtime_kinds() if files else ()
    for path in _yaml_files(files, local=local):
        try:  # a regular file within the size cap, bounded before parsing
            text = yamlio.read_text(path, sources.MAX_BYTES)
            if not any(kind in text for kind in kinds):
                continue
            documents = yamlio.safe_documents(text)
        except (OSError, UnicodeDecodeError, yamlio.DocumentError) as exc:
            if local:
                continue
            raise RuntimeFileError(f"--runtimes {path}: cannot read it ({_reason(exc)})"
                                   ) from None
        for doc in documents:
            items = doc.get("items") if isinstance(doc, dict) and doc.get("kind") == "List" \
                else [doc]
            for item in items or []:
                if isinstance(item, dict) and item.get("kind") in kinds:
                    name = paths.get(item, ("metadata", "name"))
                    if isinstance(name, str):
                        index[(item["kind"], name)] = describe(item, path)
    return index


def _runtime_kinds() -> tuple[str, ...]:
    """The runtime kinds (mappings/kinds.yaml ``runtimeKinds``): cluster-scoped, namespaced."""
    from migrator.knowledge import catalog

    return tuple(catalog.load().kinds.runtime_kinds)


def _reason(exc: Exception) -> str:
    """Why a runtime file cannot be read, on one line (a YAML error's problem and place)."""
    if isinstance(exc, OSError):
        return str(exc.strerror or exc)
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    line, column = getattr(exc, "line", None), getattr(exc, "column", None)
    if getattr(exc, "code", None) == "Y101" and line is not None:  # yamlio.DocumentError
        return f"not YAML: {' '.join(str(exc).split())} at line {line}, column {column}"
    return " ".join(str(exc).split())


def _yaml_files(given_paths: tuple[str, ...], *, local: bool = False) -> list[str]:
    files = []
    for given in given_paths:
        if os.path.isdir(given):
            for dirpath, dirnames, filenames in os.walk(given):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                files += [os.path.join(dirpath, f) for f in sorted(filenames)
                          if f.endswith((".yaml", ".yml"))  # a FIFO or a device: passed over
                          and os.path.isfile(os.path.join(dirpath, f))]
        elif local or os.path.exists(given):  # (a run's file gone since: passed over)
            files.append(given)
        else:
            raise RuntimeFileError(f"--runtimes {given}: no such file or directory")
    return files

