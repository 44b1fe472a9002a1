"""BOTTOM: frozen option values: what to convert to (ConvertOptions) and how to run
(RunSettings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

TARGETS = ("2.2", "2.3")
RUNTIME_KINDS = ("ClusterTrainingRuntime", "TrainingRuntime")
SEVERITIES = ("error", "warning", "info", "never")
FRAMEWORKS = ("torch", "mpi", "jax", "xgboost", "tensorflow", "paddle")
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
