"""Tests' view of ../shared/corpus: every file in the local profile, a fixed sample in CI.

The corpus-wide tests (conversions, validation against the official models, cache and
loader equivalence, in-place batches) take minutes each over the whole corpus. In CI they
run on a fixed sample: every sixth file in sorted order, plus the first file that shows
each legacy kind and API version not seen yet, so every kind is still covered. Helm chart
templates are left to ``tests/templates/`` in CI (they are converted and rendered with Helm's
engine there; converting one takes seconds). The local profile runs them over every file:

    TRAINJOB_FULL_CORPUS=1 python -m pytest -q

``tools/corpus_check.py`` in ../shared covers the whole corpus from the command line too.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FULL = os.environ.get("TRAINJOB_FULL_CORPUS", "") not in ("", "0")
EVERY = 6
_MARKS = re.compile(rb"^\s*(?:-\s+)?(?:kind|apiVersion):\s*[\"']?([\w./-]+)", re.MULTILINE)


@functools.cache
def _index(shared: Path) -> tuple[dict[str, Any], ...]:
    """The corpus's index.json entries (read once per test session)."""
    return tuple(json.loads((shared / "corpus" / "index.json").read_text()))


def legacy_files(shared: Path) -> list[Path]:
    """Every corpus file that holds a legacy job directly (not support files, not Markdown)."""
    return sorted({shared / "corpus" / e["slug"] / e["path"] for e in _index(shared)
                   if e.get("kinds") and not e.get("support_only") and not e.get("in_markdown")})


def sample(paths: Iterable[Path]) -> list[Path]:
    """``paths`` sorted; in CI only every ``EVERY``-th one and each that adds a kind or API
    version no earlier chosen file has (``FULL``: all of them)."""
    ordered = sorted(paths)
    if FULL:
        return ordered
    charts = _helm_templates()
    chosen: list[Path] = []
    seen: set[bytes] = set()
    for position, path in enumerate(ordered):
        if path in charts:
            continue
        try:
            marks = {mark for mark in _MARKS.findall(path.read_bytes())
                     if b"kubeflow" in mark or mark.endswith(b"Job")}
        except OSError:
            marks = set()
        if position % EVERY == 0 or not marks <= seen:
            chosen.append(path)
            seen |= marks
    return chosen


def _helm_templates() -> set[Path]:
    """The corpus files the index marks as Helm chart templates, and the whole charts."""
    from tests.conftest import SHARED

    try:
        index = _index(SHARED)
    except (OSError, ValueError):
        return set()
    listed = {SHARED / "corpus" / e["slug"] / e["path"] for e in index
              if "Helm templating" in e.get("features", ())}
    return listed | set((SHARED / "corpus" / "charts").rglob("*"))


def copy_sample(corpus: Path, destination: Path) -> Path:
    """A copy of the corpus to run the CLI over: whole (``FULL``), else the folders that hold
    a sampled file (each folder whole, so kustomizations and values files come along)."""
    if FULL:
        shutil.copytree(corpus, destination, symlinks=True)
        return destination
    destination.mkdir(parents=True)
    folders = sorted({path.parent for path in sample(_yaml_files(corpus))})
    for folder in folders:
        target = destination / folder.relative_to(corpus)
        target.mkdir(parents=True, exist_ok=True)
        for entry in folder.iterdir():
            if entry.is_file() and not entry.is_symlink():
                shutil.copy2(entry, target / entry.name)
    return destination


def _yaml_files(corpus: Path) -> list[Path]:
    return [path for path in corpus.rglob("*") if path.suffix in (".yaml", ".yml")
            and path.is_file()]
