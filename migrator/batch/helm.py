"""BATCH: helm charts (``--helm``): render a chart with the local ``helm template`` and check the
result.

Chart templates are not YAML (``{{ ... }}``), so without ``--helm`` their documents are skipped
with ``Y103``. With it, each chart directory met in the inputs (a folder with ``Chart.yaml``) is
rendered once and its output is converted like a file named ``<chart>/helm-template.yaml``;
the rendered text is never written back into the chart (a chart's templates must be edited by
hand, following the converted output).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from migrator.errors import MigratorError
from migrator.load.sources import MAX_BYTES, decode
from migrator.results import SourceText, Unreadable

PREFIX = "helm-chart:"
CHART_FILE = "Chart.yaml"
RENDERED = "helm-template.yaml"
TIMEOUT_SECONDS = 120
# the renderer's address space: a chart can make it print (or hold) without end; helm's Go
# runtime alone reserves close to 1 GiB at start (golang/go#38010), so not much less
MEMORY_LIMIT = 4 << 30
ERROR_TAIL = 8192  # bytes of the renderer's error output kept (its last line is reported)


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


def render(chart: str, relative: str, max_bytes: int = MAX_BYTES) -> SourceText | Unreadable:
    """``helm template`` of ``chart``, as a source text (or why it could not be rendered).
    The renderer may print at most ``max_bytes`` (--max-file-size; it is stopped past that),
    and runs under ``MEMORY_LIMIT`` and ``TIMEOUT_SECONDS``."""
    name = f"{chart}/{RENDERED}"
    escape = link_out_of(chart)
    if escape is not None:  # helm follows links: the chart could read any file
        return Unreadable(name, f"not rendered: {escape} is a link to outside the chart",
                          relative)
    try:
        helm = require()
        from migrator.template import helmsdk

        chart_path = os.path.abspath(chart)
        code, out, err = _run([helm, "template", "--", chart_path] if helm else
                              helmsdk.command(chart_path), max_bytes)
    except (OSError, HelmError) as exc:
        return Unreadable(name, f"helm template failed: {exc}", relative)
    if out is None:
        return Unreadable(name, f"helm template printed more than the {max_bytes}-byte cap "
                          "(--max-file-size): stopped", relative)
    if code != 0:
        detail = err.decode("utf-8", "replace").strip().splitlines()
        return Unreadable(name, "helm template failed: " + (detail[-1] if detail else
                                                            f"exit {code}"), relative)
    return decode(name, out, relative)


def _run(command: list[str], max_bytes: int) -> tuple[int, bytes | None, bytes]:
    """Run the renderer: its exit code, its output (None: more than ``max_bytes``, and the
    renderer was stopped) and the end of its error output. Nothing is read whole: the output
    is read as it comes and the renderer killed at the cap or the timeout."""
    import select
    import signal
    import subprocess  # here, not at the top: every run imports this module, few render charts
    import time

    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=_limit_memory,
                            start_new_session=True)  # (its own group: killed whole)
    assert proc.stdout is not None
    assert proc.stderr is not None
    out, err = bytearray(), bytearray()
    streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    poller = select.poll()  # (not select.select: no limit on the descriptors' numbers)
    for fd in streams:
        poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + TIMEOUT_SECONDS
    try:
        while streams:
            left = deadline - time.monotonic()
            if left <= 0:
                raise OSError(f"no answer in {TIMEOUT_SECONDS} seconds")
            for fd, _ in poller.poll(left * 1000):
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    del streams[fd]
                    poller.unregister(fd)
                    continue
                held = streams[fd]
                held += chunk
                if held is err:
                    del err[:-ERROR_TAIL]  # the last lines say why
                elif len(out) > max_bytes:
                    return -1, None, bytes(err)
        return proc.wait(max(deadline - time.monotonic(), 0.1)), bytes(out), bytes(err)
    except subprocess.TimeoutExpired:
        raise OSError(f"no answer in {TIMEOUT_SECONDS} seconds") from None
    finally:
        if proc.returncode is None:  # not reaped: its pid, so its group, is not reused yet
            with contextlib.suppress(OSError):  # (what it started goes too)
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def _limit_memory() -> None:
    """In the renderer, before it starts: at most ``MEMORY_LIMIT`` of address space."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = MEMORY_LIMIT if hard == resource.RLIM_INFINITY else min(hard, MEMORY_LIMIT)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def link_out_of(chart: str) -> str | None:
    """A link in ``chart`` that resolves outside it (helm would read through it), if any."""
    inside = os.path.join(os.path.realpath(chart), "")
    for dirpath, dirnames, filenames in os.walk(chart):
        for entry in (*dirnames, *filenames):
            path = os.path.join(dirpath, entry)
            if os.path.islink(path) and not os.path.realpath(path).startswith(inside):
                return os.path.relpath(path, chart)
    return None
