"""Ctrl-C at any moment gives exit code 130 and never a traceback: while the command line is
still loading (``migrator.__main__.run``: nothing written yet, so the run just ends), and
during the run (the runner's own message: files written are complete). Both entries: the
click-free one of a plain ``check`` (migrator/launch.py) and click's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.support import JOB, env

# each script: argv[1] the file to check, argv[2] "fast" (the click-free entry) or "click"
ENTRY = """
import sys
path, entry = sys.argv[1:3]
sys.argv = ["trainjob-migrate", "check", path]
import migrator.__main__ as main
main.FAST_PATH = entry == "fast"
main.run()
"""

WHILE_LOADING = """
import builtins, os, signal
real = builtins.__import__
def interrupting(name, *args, **kwargs):
    # the first module the entry point imports after it put its handler in place
    if name.startswith("migrator") and \\
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        os.kill(os.getpid(), signal.SIGINT)
    return real(name, *args, **kwargs)
builtins.__import__ = interrupting
""" + ENTRY

WHILE_PARSING = """
import os, signal
from migrator import launch
def interrupting(options):  # called while the options become settings (both entries)
    os.kill(os.getpid(), signal.SIGINT)
launch.preload = interrupting
""" + ENTRY

DURING_THE_RUN = """
import os, signal, time
from migrator.batch import runner
def interrupted(settings):
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
    return 0
runner.run = interrupted
""" + ENTRY

ENTRIES = pytest.mark.parametrize("entry", ["fast", "click"])


def _run(code: str, tmp_path: Path, entry: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "job.yaml").write_text(JOB)
    return subprocess.run([sys.executable, "-c", code, str(tmp_path / "job.yaml"), entry],
                          env=env(), capture_output=True, text=True, timeout=120, check=False)


@ENTRIES
def test_ctrl_c_while_the_command_line_loads_is_quiet(tmp_path: Path, entry: str) -> None:
    proc = _run(WHILE_LOADING, tmp_path, entry)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout == ""


@ENTRIES
def test_ctrl_c_while_the_options_are_read_is_quiet(tmp_path: Path, entry: str) -> None:
    proc = _run(WHILE_PARSING, tmp_path, entry)  # click alone: "Aborted!" with exit 1
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == ""


@ENTRIES
def test_ctrl_c_during_the_run_is_reported_by_the_run(tmp_path: Path, entry: str) -> None:
    proc = _run(DURING_THE_RUN, tmp_path, entry)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("interrupted: files already written are complete")
