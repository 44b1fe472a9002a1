"""BOTTOM: frozen option values: what to convert to (ConvertOptions) and how to run
(RunSettings)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from migrator.results import FrozenValue

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only

    from migrator.waivers import Waiver
else:
    from migrator.results import fields_only

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


def flow_list(path: Path, key: str) -> tuple[str, ...]:
    """The one-line list ``key: [a, b]`` of a mappings file, read as text (no YAML parser at
    start-up); () when the file or key is missing. The catalog checks that this reading
    equals the parsed file (knowledge/catalog.py)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ()
    except UnicodeError as exc:  # a broken mappings file: one line, exit 2 (not "no list")
        from migrator.errors import MappingFileError

        raise MappingFileError(f"{path}: {exc}") from None
    match = re.search(r"^" + re.escape(key) + r":[ \t]*\[([^\]\n]*)\][ \t]*(?:#.*)?$", text,
                      re.M)
    if match is None:
        return ()
    return tuple(item.strip().strip("\"'") for item in match[1].split(",") if item.strip())


def _runtime_kinds() -> tuple[str, ...]:
    """The runtime kinds of mappings/kinds.yaml: cluster-scoped (a runtimeRef's default),
    then namespaced."""
    try:
        return flow_list(mappings_dir() / "kinds.yaml", "runtimeKinds")
    except Exception:  # no mappings folder: ConvertOptions and the catalog report it
        return ()


RUNTIME_KINDS = _runtime_kinds()
SEVERITIES = ("error", "warning", "info", "never")
DEFAULT_MANAGER = "kubeflow.org/trainjob-migrator"

OutputMode = Literal["stdout", "directory", "in-place", "check", "diff", "validate"]


@fields_only
class ConvertOptions(FrozenValue):
    """Options that change what a document converts to (frozen; ``dataclasses.replace``
    copies it)."""

    FIELDS = ("target", "runtime", "runtime_kind", "manager", "allow_lossy",
              "companion_runtimes", "runtimes", "runtime_files", "crds", "local_runtime_files",
              "allow", "converted_only", "shared_runtimes")
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
    allow: tuple[Waiver, ...] = ()  # --allow and the config's allow: (``migrator.waivers``)
    converted_only: bool = False  # --converted-only: a List keeps only the items converted
    shared_runtimes: str | None = None  # --shared-runtimes DIR (implies companion_runtimes)

    def __init__(self, target: str = "2.2", runtime: str | None = None,
                 runtime_kind: str | None = None, manager: str = DEFAULT_MANAGER,
                 allow_lossy: bool = False, companion_runtimes: bool = False,
                 runtimes: tuple[tuple[str, str, str], ...] = (),
                 runtime_files: tuple[str, ...] = (), crds: tuple[str, ...] = (),
                 local_runtime_files: tuple[str, ...] = (),
                 allow: tuple[Waiver, ...] = (), converted_only: bool = False,
                 shared_runtimes: str | None = None) -> None:
        _set = object.__setattr__
        _set(self, "target", target)
        _set(self, "runtime", runtime)
        _set(self, "runtime_kind", runtime_kind)
        _set(self, "manager", manager)
        _set(self, "allow_lossy", allow_lossy)
        _set(self, "companion_runtimes", companion_runtimes)
        _set(self, "runtimes", runtimes)
        _set(self, "runtime_files", runtime_files)
        _set(self, "crds", crds)
        _set(self, "local_runtime_files", local_runtime_files)
        _set(self, "allow", allow)
        _set(self, "converted_only", converted_only)
        _set(self, "shared_runtimes", shared_runtimes)
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


class RunSettings(FrozenValue):
    """Options that change how a batch runs and where results go (frozen)."""

    FIELDS = ("paths", "options", "mode", "output_dir", "reports", "fail_on", "quiet", "verbose",
              "include", "exclude", "gitignore", "changed_since", "jobs", "backup", "ignore",
              "baseline", "write_baseline", "color", "progress", "terse", "github", "helm",
              "report_format", "max_bytes", "color_stderr", "table", "sarif_level")
    paths: tuple[str, ...]
    options: ConvertOptions
    mode: OutputMode
    output_dir: Path | None
    reports: tuple[Path, ...]
    fail_on: str
    quiet: bool
    verbose: bool
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    gitignore: bool
    changed_since: str | None
    jobs: int
    backup: str | None
    ignore: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    baseline: Path | None
    write_baseline: Path | None
    color: bool
    progress: bool
    terse: bool
    github: bool
    helm: bool
    report_format: str | None  # also print this report to standard output
    max_bytes: int
    color_stderr: bool  # colour on standard error (lines, progress) by the same choice
    table: bool  # check --format table: one row per document, no finding lines
    sarif_level: str  # the lowest severity the SARIF report lists

    def __init__(self, paths: tuple[str, ...], options: ConvertOptions | None = None,
                 mode: OutputMode = "stdout", output_dir: Path | None = None,
                 reports: tuple[Path, ...] = (), fail_on: str = "error", quiet: bool = False,
                 verbose: bool = False, include: tuple[str, ...] = (),
                 exclude: tuple[str, ...] = (), gitignore: bool = True,
                 changed_since: str | None = None, jobs: int = 1, backup: str | None = None,
                 ignore: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (),
                 baseline: Path | None = None, write_baseline: Path | None = None,
                 color: bool = False, progress: bool = False, terse: bool = False,
                 github: bool = False, helm: bool = False, report_format: str | None = None,
                 max_bytes: int = 10 * 1024 * 1024, color_stderr: bool = False,
                 table: bool = False, sarif_level: str = "info") -> None:
        # options: ConvertOptions() when not given
        _set = object.__setattr__
        _set(self, "paths", paths)
        _set(self, "options", ConvertOptions() if options is None else options)
        _set(self, "mode", mode)
        _set(self, "output_dir", output_dir)
        _set(self, "reports", reports)
        _set(self, "fail_on", fail_on)
        _set(self, "quiet", quiet)
        _set(self, "verbose", verbose)
        _set(self, "include", include)
        _set(self, "exclude", exclude)
        _set(self, "gitignore", gitignore)
        _set(self, "changed_since", changed_since)
        _set(self, "jobs", jobs)
        _set(self, "backup", backup)
        _set(self, "ignore", ignore)
        _set(self, "baseline", baseline)
        _set(self, "write_baseline", write_baseline)
        _set(self, "color", color)
        _set(self, "progress", progress)
        _set(self, "terse", terse)
        _set(self, "github", github)
        _set(self, "helm", helm)
        _set(self, "report_format", report_format)
        _set(self, "max_bytes", max_bytes)
        _set(self, "color_stderr", color_stderr)
        _set(self, "table", table)
        _set(self, "sarif_level", sarif_level)
