"""Review regression (R-L2, notes/R-for-lead.md): a config file found by searching (a pull
request's .trainjob-migrate.yaml or pyproject.toml) holding an integer of more digits than
Python converts (4,300) is a one-line config error (exit 2), never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.support import JOB

ROOT = Path(__file__).resolve().parents[2]
DIGITS = "1" * 5000


@pytest.mark.parametrize(("name", "text"), [
    (".trainjob-migrate.yaml", f"x: {DIGITS}\n"),
    ("pyproject.toml", f"[tool.trainjob-migrate]\nx = {DIGITS}\n"),
])
def test_a_huge_integer_in_the_config_is_one_line(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "job.yaml").write_text(JOB, encoding="utf-8")
    (tmp_path / name).write_text(text, encoding="utf-8")
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "LC_ALL": "C.UTF-8", "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "migrator", "check", "job.yaml"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
                          timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2
    assert f"Error: {tmp_path / name}" in done.stderr
