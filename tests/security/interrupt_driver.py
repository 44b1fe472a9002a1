"""Interrupt a run at every line the writer executes, and check what it leaves behind.

``python -m tests.security.interrupt_driver SIGNAL SCENARIO WORKDIR [STRIDE [OFFSET]]``
forks one child per position (every STRIDE-th, from OFFSET; default all). The child runs
the CLI over a fresh tree and, at the N-th line executed in the writing modules
(``writer.py``, ``atomic.py``), sends itself SIGNAL (``SIGINT`` like Ctrl-C, ``SIGKILL``
like an OOM kill or a cancelled CI job). The parent then checks the tree: every input is
the original or the complete conversion, every backup or output is absent or complete, and
nothing else is there. It stops at the first position the run completes without reaching.
Prints one JSON object: positions tried, the anomalies found (position and description),
and how many positions left a complete stray temporary file (SIGKILL only).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from tests.security.support import JOB

NAMES = ("a.yaml", "b.yaml")
SCENARIOS: dict[str, list[str]] = {
    "in-place": ["convert", "--in-place", "-j", "1", "-q", "."],
    "backup": ["convert", "--in-place", "--backup", ".orig", "-j", "1", "-q", "."],
    "output": ["convert", "-o", "out", "-j", "1", "-q", "a.yaml", "b.yaml"],
}
MAX_POSITIONS = 2000
WRITERS = ("writer.py", "atomic.py")  # the modules whose lines are interrupted


def main(signal_name: str, scenario: str, workdir: Path, stride: int = 1,
         offset: int = 1) -> dict[str, Any]:
    from migrator import convert_text
    from migrator.cli import main as cli

    done = convert_text(JOB).text
    _warm_up(workdir / "warm-up", SCENARIOS[scenario], cli)  # children fork with it all loaded
    signum = getattr(signal, signal_name)
    anomalies: list[str] = []
    stray = 0
    position = offset - stride
    tried = 0
    while position < MAX_POSITIONS:
        position += stride
        tried += 1
        case = workdir / str(position)
        case.mkdir()
        for name in NAMES:
            (case / name).write_text(JOB)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: run the CLI, signal itself at the chosen line
            _child(case, position, signum, SCENARIOS[scenario], cli)
        _, status = os.waitpid(pid, 0)
        finished = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and \
            not (case / ".signalled").exists()
        problems, temps = _inspect(case, scenario, done)
        stray += temps
        anomalies += [f"position {position}: {p}" for p in problems]
        if finished:
            break
    return {"positions": position, "tried": tried, "anomalies": anomalies,
            "complete_stray_temps": stray}


def _warm_up(folder: Path, args: list[str], cli: Any) -> None:
    folder.mkdir()
    for name in NAMES:
        (folder / name).write_text(JOB)
    here = os.getcwd()
    os.chdir(folder)
    try:
        cli.main(args=args, prog_name="trainjob-migrate", standalone_mode=False)
    except SystemExit:
        pass
    finally:
        os.chdir(here)


def _child(case: Path, position: int, signum: int, args: list[str], cli: Any) -> None:
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started ignoring it
        os.chdir(case)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        seen = 0

        def local(frame: FrameType, event: str, arg: object) -> Any:
            nonlocal seen
            if event == "line":
                seen += 1
                if seen == position:
                    Path(case, ".signalled").touch()
                    sys.settrace(None)
                    if signum == signal.SIGKILL:
                        os.kill(os.getpid(), signal.SIGKILL)
                    signal.raise_signal(signum)
            return local

        def calls(frame: FrameType, event: str, arg: object) -> Any:
            return local if frame.f_code.co_filename.endswith(WRITERS) else None

        sys.settrace(calls)
        try:
            cli.main(args=args, prog_name="trainjob-migrate", standalone_mode=True)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            code = 3
    finally:
        os._exit(code)


def _inspect(case: Path, scenario: str, done: str) -> tuple[list[str], int]:
    """What is wrong in ``case`` after the run, and how many complete stray temp files."""
    problems: list[str] = []
    temps = 0
    expected = {*NAMES, ".signalled"}
    for name in NAMES:
        text = (case / name).read_text()
        if text not in (JOB, done):
            problems.append(f"{name} is neither the original nor the conversion: {text[:40]!r}")
    if scenario == "backup":
        for name in NAMES:
            backup = case / (name + ".orig")
            expected.add(backup.name)
            if backup.exists() and backup.read_text() != JOB:
                problems.append(f"{backup.name} is not the complete original")
    if scenario == "output":
        expected.add("out")
        for name in NAMES:
            expected.add(f"out/{name}")
            out = case / "out" / name
            if out.exists() and out.read_text() != done:
                problems.append(f"out/{name} is not the complete conversion")
    for path in case.rglob("*"):
        key = str(path.relative_to(case))
        if key in expected:
            continue
        content = path.read_bytes() if path.is_file() else b""
        if content in (JOB.encode(), done.encode()):
            temps += 1
            if not path.name.endswith(".tmp"):
                problems.append(f"unexpected complete file {key}")
        else:
            problems.append(f"stray file {key} ({len(content)} bytes)")
    return problems, temps


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], Path(sys.argv[3]),
                          *(int(arg) for arg in sys.argv[4:6]))))
