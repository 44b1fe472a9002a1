"""Review regression (R-F1, R-W7, notes/R-for-F.md and R-for-W.md): a run whose working
directory has been removed is no traceback on either entry — a one-line usage error when the
config search needs it, else the run itself (an absolute --config, absolute paths)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.support import JOB

ROOT = Path(__file__).resolve().parents[2]

DRIVER = """
import sys
import migrator.__main__ as entry
entry.FAST_PATH = sys.argv[1] == "fast"
sys.argv = ["trainjob-migrate", *sys.argv[2:]]
entry.run()
"""


def _in_removed_folder(tmp_path: Path, path: str, *argv: str) -> subprocess.CompletedProcess[str]:
    gone = tmp_path / "gone"
    gone.mkdir()

    def enter_and_remove() -> None:  # in the child, before python starts
        os.chdir(gone)
        os.rmdir(gone)

    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "LC_ALL": "C.UTF-8", "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-c", DRIVER, path, *argv], env=env,
                          preexec_fn=enter_and_remove, capture_output=True, text=True,
                          check=False, timeout=120)


@pytest.mark.parametrize("path", ["fast", "click"])
def test_a_removed_working_directory_is_no_traceback(tmp_path: Path, path: str) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "job.yaml").write_text(JOB, encoding="utf-8")
    config = tmp_path / "config.yaml"
    config.write_text("target: '2.3'\n", encoding="utf-8")
    searched = _in_removed_folder(tmp_path, path, "check", str(tree / "job.yaml"))
    assert "Traceback" not in searched.stderr, searched.stderr
    assert searched.returncode == 2
    for named in (str(tree / "job.yaml"), str(tree)):
        done = _in_removed_folder(tmp_path, path, "check", "--config", str(config), named)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode == 1, done.stderr  # the legacy job is found
        assert "would convert" in done.stdout
