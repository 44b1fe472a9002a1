"""Ctrl-C at any moment gives exit code 130 and never a traceback: while the command line is
still loading (``migrator.__main__.run``: nothing written yet, so the run just ends), and
during the run (the runner's own message: files written are complete)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.security.support import JOB, env

WHILE_LOADING = """
import builtins, os, signal, sys
real = builtins.__import__
def interrupting(name, *args, **kwargs):
    if name == "click":  # imported by migrator.cli, after the entry point started
        os.kill(os.getpid(), signal.SIGINT)
    return real(name, *args, **kwargs)
builtins.__import__ = interrupting
sys.argv = ["trainjob-migrate", "check", sys.argv[1]]
from migrator.__main__ import run
run()
"""

WHILE_PARSING = """
import os, signal, sys
from migrator import cli
def interrupting(options):  # called while the options become settings
    os.kill(os.getpid(), signal.SIGINT)
cli._preload = interrupting
sys.argv = ["trainjob-migrate", "check", sys.argv[1]]
from migrator.__main__ import run
run()
"""

DURING_THE_RUN = """
import os, signal, sys, time
from migrator.batch import runner
def interrupted(settings):
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
    return 0
runner.run = interrupted
sys.argv = ["trainjob-migrate", "check", sys.argv[1]]
from migrator.__main__ import run
run()
"""


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / "job.yaml").write_text(JOB)
    return subprocess.run([sys.executable, "-c", code, str(tmp_path / "job.yaml")],
                          env=env(), capture_output=True, text=True, timeout=120, check=False)


def test_ctrl_c_while_the_command_line_loads_is_quiet(tmp_path: Path) -> None:
    proc = _run(WHILE_LOADING, tmp_path)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout == ""


def test_ctrl_c_while_the_options_are_read_is_quiet(tmp_path: Path) -> None:
    proc = _run(WHILE_PARSING, tmp_path)  # click alone would say "Aborted!" with exit 1
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == ""


def test_ctrl_c_during_the_run_is_reported_by_the_run(tmp_path: Path) -> None:
    proc = _run(DURING_THE_RUN, tmp_path)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("interrupted: files already written are complete")
