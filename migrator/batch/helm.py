"""BATCH: helm charts (``--helm``): render a chart with the local ``helm template`` and check the
result.

Chart templates are not YAML (``{{ ... }}``), so without ``--helm`` their documents are skipped
with ``Y103``. With it, each chart directory met in the inputs (a folder with ``Chart.yaml``) is
rendered once and its output is converted like a file named ``<chart>/helm-template.yaml``;
the rendered text is never written back into the chart (a chart's templates must be edited by
hand, following the converted output).
"""

from __future__ import annotations

import os
from pathlib import Path

from migrator.errors import MigratorError
from migrator.load.sources import MAX_BYTES, decode
from migrator.results import SourceText, Unreadable

PREFIX = "helm-chart:"
CHART_FILE = "Chart.yaml"
RENDERED = "helm-template.yaml"
TIMEOUT_SECONDS = 120


class HelmError(MigratorError):
    """--helm was asked for but helm cannot be run."""


def require() -> str:
    import shutil  # here, not at the top: every run imports this module, few render charts

    found = shutil.which("helm")
    if found is None:
        from migrator.template import helmsdk  # no helm binary: helm's SDK from PyPI, if present

        if helmsdk.available():
            return ""
        raise HelmError("--helm needs the helm program on PATH (https://helm.sh), or "
                        "pip install 'trainjob-migrator[helm]'")
    return found


def charts(paths: tuple[str, ...]) -> list[Path]:
    """Chart directories at or below the given directories, sorted."""
    found: set[Path] = set()
    for given in paths:
        root = Path(given)
        if not root.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "charts")
            if CHART_FILE in filenames:
                found.add(Path(dirpath))
    return sorted(found)


def inside_chart(path: str, chart_dirs: list[Path]) -> bool:
    absolute = Path(os.path.abspath(path))
    return any(absolute == c.resolve() or c.resolve() in absolute.parents for c in chart_dirs)


def render(chart: str, relative: str) -> SourceText | Unreadable:
    """``helm template`` of ``chart``, as a source text (or why it could not be rendered)."""
    import subprocess  # here, not at the top: every run imports this module, few render charts

    name = f"{chart}/{RENDERED}"
    escape = link_out_of(chart)
    if escape is not None:  # helm follows links: the chart could read any file
        return Unreadable(name, f"not rendered: {escape} is a link to outside the chart",
                          relative)
    try:
        helm = require()
        from migrator.template import helmsdk

        proc = subprocess.run([helm, "template", "--", chart] if helm else helmsdk.command(chart),
                              capture_output=True, timeout=TIMEOUT_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired, HelmError) as exc:
        return Unreadable(name, f"helm template failed: {exc}", relative)
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return Unreadable(name, "helm template failed: " + (detail[-1] if detail else
                                                            f"exit {proc.returncode}"), relative)
    if len(proc.stdout) > MAX_BYTES:
        return Unreadable(name, f"helm template printed more than {MAX_BYTES} bytes", relative)
    return decode(name, proc.stdout, relative)


def link_out_of(chart: str) -> str | None:
    """A link in ``chart`` that resolves outside it (helm would read through it), if any."""
    inside = os.path.join(os.path.realpath(chart), "")
    for dirpath, dirnames, filenames in os.walk(chart):
        for entry in (*dirnames, *filenames):
            path = os.path.join(dirpath, entry)
            if os.path.islink(path) and not os.path.realpath(path).startswith(inside):
                return os.path.relpath(path, chart)
    return None
