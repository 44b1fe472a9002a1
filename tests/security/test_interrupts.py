"""Issue 12 item 12: Ctrl-C or a kill at any moment of a write leaves no partial file.

The driver interrupts a run at every line the writer executes (see interrupt_driver). With
SIGINT (Ctrl-C) nothing may be left but originals and complete results: no temporary file
at all. With SIGKILL (nothing can clean up) no file may be partial either; a complete copy
of the new content may remain under its temporary name only if the kill lands in the
instant between giving the finished file a name and renaming it, so at most one position
per written file.

CI tries every third position (from a random start); ``TRAINJOB_INTERRUPT_STRIDE=1`` tries
them all.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.support import ROOT, env

STRIDE = int(os.environ.get("TRAINJOB_INTERRUPT_STRIDE", "3"))


def _drive(signal_name: str, scenario: str, workdir: Path) -> dict[str, object]:
    offset = random.randrange(1, STRIDE + 1)
    proc = subprocess.run([sys.executable, "-m", "tests.security.interrupt_driver", signal_name,
                           scenario, str(workdir), str(STRIDE), str(offset)], cwd=ROOT,
                          env=env(), capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, object] = json.loads(proc.stdout.splitlines()[-1])
    return result


@pytest.mark.parametrize("scenario", ["in-place", "backup", "output"])
def test_ctrl_c_at_any_line_of_a_write(tmp_path: Path, scenario: str) -> None:
    result = _drive("SIGINT", scenario, tmp_path)
    assert result["anomalies"] == []
    assert result["complete_stray_temps"] == 0
    assert isinstance(result["positions"], int)
    assert result["positions"] > 20  # it did write


@pytest.mark.parametrize("scenario", ["in-place", "backup", "output"])
def test_kill_at_any_line_of_a_write(tmp_path: Path, scenario: str) -> None:
    result = _drive("SIGKILL", scenario, tmp_path)
    assert result["anomalies"] == []
    writes = 4 if scenario == "backup" else 2
    assert isinstance(result["complete_stray_temps"], int)
    assert result["complete_stray_temps"] <= writes
