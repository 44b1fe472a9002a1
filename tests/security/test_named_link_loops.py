"""Issue 30 item 11: a link loop named on the command line is one Y102 line, and the batch
goes on with the other inputs (as for a loop met in a walk)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.security.support import JOB, run, said


@pytest.mark.parametrize("command", [["check"], ["check", "-j", "2"], ["diff"], ["validate"],
                                     ["convert", "--in-place"], ["convert", "-o", "OUT"]])
def test_a_named_link_loop_is_y102_and_the_batch_goes_on(tmp_path: Path,
                                                          command: list[str]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    os.symlink("loop", work / "loop")
    os.symlink("b", work / "a")
    os.symlink("a", work / "b")
    (work / "job.yaml").write_text(JOB)
    args = [str(tmp_path / "out") if arg == "OUT" else arg for arg in command]
    proc = run([*args, "--no-cache", "loop", "a", "loop/x.yaml", "job.yaml"], cwd=work)
    out = said(proc)
    assert "Traceback" not in out, out
    for name in ("loop", "a", "loop/x.yaml"):
        assert f"{name}: error Y102 cannot read file: Too many levels of symbolic links" in out
    assert proc.returncode == 2, out
    if command[0] != "validate":
        assert "job.yaml:" in out, out  # the batch went on
