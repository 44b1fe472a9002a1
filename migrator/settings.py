"""BOTTOM: frozen option values: what to convert to (ConvertOptions) and how to run
(RunSettings)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

MAPPINGS_ENV = "TRAINJOB_MIGRATE_MAPPINGS"  # another mappings folder (tests, extensions)


def mappings_dir() -> Path:
    """The mappings folder: ``$TRAINJOB_MIGRATE_MAPPINGS`` when set, else inside the installed
    wheel, else the source checkout's root. Raises ``MappingFileError`` when there is none."""
    from migrator.errors import MappingFileError

    explicit = os.environ.get(MAPPINGS_ENV)
    if explicit:
        chosen = Path(explicit)
        if not chosen.is_dir():
            raise MappingFileError(f"{MAPPINGS_ENV}={explicit} is not a folder")
        return chosen
    package = Path(__file__).resolve().parent  # migrator/
    packaged = package / "_mappings"
    if packaged.is_dir():
        return packaged
    checkout = package.parent / "mappings"
    if checkout.is_dir():
        return checkout
    raise MappingFileError(f"mappings folder not found (looked in {packaged} and {checkout})")


def _target_versions() -> tuple[str, ...]:
    """The Trainer versions there is a mappings/targets/v<X.Y>.yaml for, oldest first (a
    directory listing: no file is parsed)."""
    try:
        names = [p.stem[1:] for p in (mappings_dir() / "targets").glob("v*.yaml")]
    except Exception:  # no mappings folder: ConvertOptions and the catalog report it
        return ()
    return tuple(sorted(names, key=lambda v: tuple(int(x) for x in v.split(".")
                                                   if x.isdigit())))


TARGETS = _target_versions()
RUNTIME_KINDS = ("ClusterTrainingRuntime", "TrainingRuntime")
SEVERITIES = ("error", "warning", "info", "never")
DEFAULT_MANAGER = "kubeflow.org/trainjob-migrator"

OutputMode = Literal["stdout", "directory", "in-place", "check", "diff", "validate"]


@dataclass(frozen=True)
class ConvertOptions:
    """Options that change what a document converts to."""

    target: str = "2.2"
    runtime: str | None = None
    runtime_kind: str | None = None
    manager: str = DEFAULT_MANAGER
    allow_lossy: bool = False
    companion_runtimes: bool = False
    runtimes: tuple[tuple[str, str, str], ...] = ()  # (framework, runtime name, runtime kind)
    runtime_files: tuple[str, ...] = ()  # --runtimes: runtime YAML to resolve runtimeRefs
    crds: tuple[str, ...] = ()  # --crd: CRDs exported from the user's cluster
    local_runtime_files: tuple[str, ...] = ()  # runtimes found among the run's own files

    def __post_init__(self) -> None:
        if not TARGETS:
            mappings_dir()  # raises the reason (no mappings folder)
            raise ValueError("no Trainer targets in the mappings folder (targets/v<X.Y>.yaml)")
        if self.target not in TARGETS:
            raise ValueError(f"unknown target {self.target!r}; choose one of {', '.join(TARGETS)}")
        kinds = [self.runtime_kind, *(kind for _, _, kind in self.runtimes)]
        for kind in kinds:
            if kind is not None and kind not in RUNTIME_KINDS:
                raise ValueError(f"unknown runtime kind {kind!r}")

    def runtime_for(self, framework: str) -> tuple[str, str] | None:
        """The user's runtime (name, kind) for ``framework``: --runtime first, then config."""
        if self.runtime is not None:
            return self.runtime, self.runtime_kind or RUNTIME_KINDS[0]
        for name_of, name, kind in self.runtimes:
            if name_of == framework:
                return name, kind
        return None


@dataclass(frozen=True)
class RunSettings:
    """Options that change how a batch runs and where results go."""

    paths: tuple[str, ...]
    options: ConvertOptions = field(default_factory=ConvertOptions)
    mode: OutputMode = "stdout"
    output_dir: Path | None = None
    reports: tuple[Path, ...] = ()
    fail_on: str = "error"
    quiet: bool = False
    verbose: bool = False
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    gitignore: bool = True
    changed_since: str | None = None
    jobs: int = 1
    backup: str | None = None
    ignore: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()
    baseline: Path | None = None
    write_baseline: Path | None = None
    color: bool = False
    progress: bool = False
    terse: bool = False
    github: bool = False
    helm: bool = False
    report_format: str | None = None  # also print this report to standard output
    max_bytes: int = 10 * 1024 * 1024
