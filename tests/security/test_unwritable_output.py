"""Standard output that cannot be written (a full disk, a closed descriptor) ends the run with
one line on standard error and exit code 2, never a traceback nor exit 1 (which ``check``
means as "legacy found"); both entries (the click-free check, click's convert)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.support import JOB, env

COMMANDS = [["check", "job.yaml"], ["convert", "job.yaml"]]


def _run(tmp_path: Path, args: list[str], **how: object) -> subprocess.CompletedProcess[str]:
    (tmp_path / "job.yaml").write_text(JOB, encoding="utf-8")
    done: subprocess.CompletedProcess[str] = subprocess.run(  # type: ignore[call-overload]
        [sys.executable, "-m", "migrator", *args], cwd=tmp_path, env=env(),
        stderr=subprocess.PIPE, text=True, timeout=120, check=False, **how)
    return done


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", COMMANDS)
def test_a_full_standard_output_is_one_line_and_exit_2(tmp_path: Path, args: list[str]) -> None:
    with open("/dev/full", "w", encoding="utf-8") as full:
        proc = _run(tmp_path, args, stdout=full)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "error: cannot write the output: No space left on device" in proc.stderr
    assert (tmp_path / "job.yaml").read_text(encoding="utf-8") == JOB


@pytest.mark.parametrize("args", COMMANDS)
def test_a_closed_standard_output_is_one_line_and_exit_2(tmp_path: Path,
                                                         args: list[str]) -> None:
    proc = _run(tmp_path, args, stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "error: cannot write the output: standard output is closed" in proc.stderr
