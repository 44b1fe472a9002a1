"""Kill-test harness: SIGKILL or SIGINT at a random moment of an ``--in-place`` run.

Each iteration resets a tree of job files and untouched ConfigMaps, starts
``convert --in-place`` in its own process group (sometimes with ``--backup`` and ``-j 2``,
always with a JSON and a Markdown report whose earlier complete versions are in place), waits
a random number of "rewrote" lines plus a random delay, or for the end of the files so the
signal lands while the reports are written, and signals the whole group (like Ctrl-C in a
terminal, or a cancelled CI job). Then every input must be the original or its complete
conversion, every backup absent or the complete original, each report the earlier one or
the complete new one, and no other file may exist (no temporary file, no partial file) —
with one exception no program can avoid on Linux: a SIGKILL landing between naming a
finished replacement and renaming it over its target leaves that complete replacement as
``.NAME.XXXXXXXX.tmp`` (SECURITY.md). Such a leftover must hold exactly the complete new
content; it is counted, and the run is then repeated to the end (as a user would), after
which no leftover may remain and every input must be converted.

``python -m tests.security.kill_harness ITERATIONS FILES`` runs it from the command line and
prints the figures; tests/security/test_kill_harness.py runs a few iterations.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.security.support import CONFIGMAP, JOB, converted, env

REPORTS = ("report.json", "report.md")


@dataclass
class Figures:
    """What a series of iterations found."""

    iterations: int = 0
    signals: dict[str, int] = field(default_factory=dict)
    report_phase: int = 0  # iterations signalled after the last file (while reports are written)
    completed: int = 0  # runs that finished before the signal arrived
    leftovers: int = 0  # complete replacements a SIGKILL left under a temporary name
    failures: list[str] = field(default_factory=list)


class Tree:
    """A tree of ``files`` inputs below ``base`` (every other one a job), reset between runs."""

    def __init__(self, base: Path, files: int) -> None:
        self.base = base
        self.originals: dict[str, str] = {}
        self.conversions: dict[str, str] = {}
        done = converted()
        for index in range(files):
            name = f"d{index // 100:03d}/f{index:05d}.yaml"
            job = index % 2 == 0
            self.originals[name] = JOB.replace("minimal", f"job-{index}") if job else CONFIGMAP
            self.conversions[name] = done.replace("minimal", f"job-{index}") if job \
                else CONFIGMAP
        self.jobs = (files + 1) // 2
        self.old_reports: dict[str, bytes] = {}
        self.new_reports: dict[str, bytes] = {}

    def reset(self) -> None:
        if self.base.exists():
            shutil.rmtree(self.base)
        for name, text in self.originals.items():
            path = self.base / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        for name, data in self.old_reports.items():
            (self.base / name).write_bytes(data)

    def prepare_reports(self, reference: bool) -> None:
        """Earlier complete reports (any content will do: they must survive or be replaced
        whole) and, with ``reference``, the complete new ones (a full run; without it, runs
        must be signalled before the end)."""
        self.old_reports = {name: f"earlier report {name}\n".encode() for name in REPORTS}
        if reference:
            self.reset()
            _command(self.base, jobs=2, backup=False, check=True)
            self.new_reports = {n: (self.base / n).read_bytes() for n in REPORTS}

    def inspect(self, backup: bool, *, killed: bool = False, settled: bool = False
                ) -> tuple[list[str], list[Path]]:
        """Problems, and the leftovers a SIGKILL (``killed``) may leave. ``settled``: after
        a complete run, every input must be converted (reports are not compared)."""
        problems = []
        complete: dict[str, bytes | None] = {}  # expected name -> its complete new content
        for name, original in self.originals.items():
            text = (self.base / name).read_text()
            allowed = (self.conversions[name],) if settled else (original,
                                                                 self.conversions[name])
            if text not in allowed:
                problems.append(f"{name}: {'not' if settled else 'neither the original nor'}"
                                f" the conversion ({len(text)} chars)")
            complete[name] = self.conversions[name].encode()
            if backup:
                complete[name + ".orig"] = original.encode()
                saved = self.base / (name + ".orig")
                if saved.exists() and saved.read_text() != original:
                    problems.append(f"{name}.orig: not the complete original")
        for name in REPORTS:
            complete[name] = self.new_reports.get(name)
            data = (self.base / name).read_bytes() if (self.base / name).exists() else b""
            if not settled and data not in (self.old_reports[name], self.new_reports.get(name)):
                problems.append(f"{name}: destroyed ({len(data)} bytes, neither the earlier "
                                "nor the complete new report)")
        leftovers = []
        for path in self.base.rglob("*"):
            key = str(path.relative_to(self.base))
            if not path.is_file() or key in complete:
                continue
            target = _leftover_of(key)
            if killed and target in complete and path.read_bytes() == complete[target]:
                leftovers.append(path)
            else:
                problems.append(f"stray file {key} ({path.stat().st_size} bytes)")
        return problems, leftovers


def _leftover_of(key: str) -> str | None:
    """The file ``key`` would be the leftover replacement of (``.NAME.XXXXXXXX.tmp``)."""
    folder, _, name = key.rpartition("/")
    digits = name[-12:-4]
    if not (name.startswith(".") and name.endswith(".tmp") and name[-13:-12] == "."
            and len(digits) == 8 and set(digits) <= set("0123456789abcdef")):
        return None
    return f"{folder}/{name[1:-13]}" if folder else name[1:-13]


def _command(base: Path, *, jobs: int, backup: bool, check: bool = False
             ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(_args(jobs, backup), cwd=base, env=env(), capture_output=True,
                          check=check, timeout=600)


def _args(jobs: int, backup: bool) -> list[str]:
    args = [sys.executable, "-m", "migrator", "convert", "--in-place", "-j", str(jobs), "."]
    for name in REPORTS:
        args += ["--report", name]
    return args + (["--backup", ".orig"] if backup else [])


def iterate(tree: Tree, rng: random.Random, figures: Figures, *,
            report_phase: bool, max_lines: int) -> None:
    """One run, signalled at a random moment; its problems are added to ``figures``."""
    tree.reset()
    signum = rng.choice([signal.SIGKILL, signal.SIGINT])
    jobs, backup = rng.choice([1, 2]), rng.random() < 0.5
    target = tree.jobs if report_phase else rng.randrange(0, min(max_lines, tree.jobs))
    delay = rng.uniform(0, 0.25 if report_phase else 0.02)
    proc = subprocess.Popen(_args(jobs, backup), cwd=tree.base, env=env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=_default_signals)
    reached = threading.Event()
    lines: list[bytes] = []

    def read() -> None:
        count = 0
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if line.startswith(b"rewrote "):
                count += 1
            if count >= target:
                reached.set()
        reached.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reached.wait(timeout=600)
    time.sleep(delay)
    name = signal.Signals(signum).name
    figures.iterations += 1
    figures.signals[name] = figures.signals.get(name, 0) + 1
    figures.report_phase += report_phase
    with _suppressed(ProcessLookupError):
        os.killpg(proc.pid, signum)
    try:
        code = proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        code = proc.wait()
        figures.failures.append(f"{name}: the run did not stop within 120 s")
    _wait_for_group(proc.pid)
    reader.join(timeout=10)
    if proc.stderr is not None:
        proc.stderr.close()
    if code == 0:
        figures.completed += 1
    err = b"".join(lines).decode("utf-8", "replace")
    label = f"{name} -j {jobs}{' --backup' if backup else ''} after {target} files"
    if signum == signal.SIGINT and code not in (0, 130, -signal.SIGINT):
        figures.failures.append(f"{label}: exit {code}")
    if signum == signal.SIGINT and "Traceback" in err:
        figures.failures.append(f"{label}: traceback: {err[err.index('Traceback'):][:300]}")
    problems, leftovers = tree.inspect(backup, killed=signum == signal.SIGKILL)
    figures.failures += [f"{label}: {problem}" for problem in problems]
    if leftovers:  # the next run must remove them
        figures.leftovers += len(leftovers)
        again = _command(tree.base, jobs=jobs, backup=backup)
        if again.returncode not in (0, 1):
            figures.failures.append(f"{label}, run again: exit {again.returncode}")
        problems, _ = tree.inspect(backup, settled=True)
        figures.failures += [f"{label}, run again: {problem}" for problem in problems]


def _default_signals() -> None:
    """SIGINT as in a terminal, even when the harness itself was started with it ignored
    (a background job of a non-interactive shell): Python then installs its handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_group(pgid: int) -> None:
    """Until no process of the run's group is left (workers finish after the main one)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    with _suppressed(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


class _suppressed:
    def __init__(self, *kinds: type[BaseException]) -> None:
        self.kinds = kinds

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, value: object, tb: object) -> bool:
        return isinstance(value, self.kinds)


def series(base: Path, iterations: int, files: int, *, seed: int, report_every: int,
           max_lines: int, progress: bool = False) -> Figures:
    """``iterations`` runs over a ``files``-file tree; every ``report_every``-th one is
    signalled while the reports are written."""
    rng = random.Random(seed)
    tree = Tree(base, files)
    tree.prepare_reports(reference=report_every > 0)
    figures = Figures()
    for index in range(iterations):
        iterate(tree, rng, figures, report_phase=report_every > 0 and index % report_every ==
                report_every - 1, max_lines=max_lines)
        if progress:
            print(f"iteration {index + 1}/{iterations}: {len(figures.failures)} failures",
                  file=sys.stderr, flush=True)
    return figures


if __name__ == "__main__":
    import tempfile

    count, size = int(sys.argv[1]), int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else int(time.time())
    with tempfile.TemporaryDirectory() as temp:
        started = time.monotonic()
        result = series(Path(temp, "tree"), count, size, seed=seed, report_every=4,
                        max_lines=size, progress=True)
        print(json.dumps({"seed": seed, "files": size, "seconds": round(time.monotonic() -
                          started), **result.__dict__}, indent=1))
    sys.exit(1 if result.failures else 0)
