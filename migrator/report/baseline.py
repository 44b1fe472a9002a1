"""REPORT: findings a team has accepted: config ``ignore`` rules and a baseline file.

An ignore rule names files (gitignore-style globs, relative to the working directory) and
codes; a baseline (``--write-baseline FILE``) lists the findings of a run by file, code and
source path, so line shifts do not revive them. Suppressed findings leave the output, the
reports and the exit code, and are counted in the summary line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from migrator.errors import MigratorError
from migrator.report.safety import write_report
from migrator.results import FileResult, FrozenValue

BASELINE_VERSION = 1


class BaselineError(MigratorError):
    """The baseline file cannot be read."""


class IgnoreRule(FrozenValue):
    """Suppress ``codes`` (all codes when empty) in files matching ``paths``."""

    FIELDS = ("paths", "codes")
    paths: tuple[str, ...]
    codes: tuple[str, ...]

    def __init__(self, paths: tuple[str, ...], codes: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "paths", paths)
        object.__setattr__(self, "codes", codes)


class Suppressor:
    """Removes accepted findings from file results."""

    def __init__(self, rules: tuple[IgnoreRule, ...] = (),
                 baseline: set[tuple[str, str, str]] | None = None) -> None:
        self.rules = [(_spec(rule.paths), set(rule.codes)) for rule in rules]
        self.baseline = baseline or set()
        self.suppressed = 0

    def __bool__(self) -> bool:
        return bool(self.rules or self.baseline)

    def apply(self, file: FileResult) -> FileResult:
        if not self or file.result is None:
            return file
        key = file_key(file.name)
        for doc in file.result.documents:
            kept = [f for f in doc.findings if not self._accepted(key, f.code, f.path)]
            self.suppressed += len(doc.findings) - len(kept)
            doc.findings = kept
        return file

    def _accepted(self, key: str, code: str, path: str) -> bool:
        if (key, code, path) in self.baseline:
            return True
        return any(spec.match_file(key) and (not codes or code in codes)
                   for spec, codes in self.rules)


def file_key(name: str) -> str:
    """How a file is named in baselines and ignore rules: relative to the working directory."""
    if name == "-":
        return "-"
    return Path(os.path.relpath(os.path.abspath(name))).as_posix()


def load_baseline(path: Path) -> set[tuple[str, str, str]]:
    import json

    from migrator.load import sources
    from migrator.load.nesting import MAX_SCANNED_DEPTH, nesting_bound

    try:
        raw = sources.read_bytes(os.fspath(path))  # regular files only, capped: never hangs
        if raw is None:
            raise ValueError("it is larger than the size cap")
        text = raw.decode("utf-8")
        if nesting_bound(text, MAX_SCANNED_DEPTH) > MAX_SCANNED_DEPTH:  # json's recursion
            raise ValueError(f"it nests more than {MAX_SCANNED_DEPTH} levels deep")
        data = json.loads(text)
        entries = data["findings"]
        return {(str(e["file"]), str(e["code"]), str(e.get("path", ""))) for e in entries}
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        raise BaselineError(f"baseline {path}: cannot read it ({exc})") from None


def write_baseline(path: Path, files: list[FileResult]) -> int:
    import json

    entries = sorted({(file_key(f.name), x.code, x.path) for f in files for x in f.findings})
    data: dict[str, Any] = {"version": BASELINE_VERSION, "findings": [
        {"file": name, "code": code, "path": where} for name, code, where in entries]}
    write_report(path, json.dumps(data, indent=2, ensure_ascii=True) + "\n")  # atomic
    return len(entries)


def _spec(patterns: tuple[str, ...]) -> Any:
    from migrator.load.globs import spec  # (bounded matching time: normal forms)

    return spec(patterns)

