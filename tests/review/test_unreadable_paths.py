"""Review regression (R-W4, notes/R-for-W.md): a named path the run cannot look at (a name too
long for the file system, a file in a folder that cannot be searched) is one line and exit 2,
never a traceback — through both entries (the click-free check and click)."""

from __future__ import annotations

import os
import shutil
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


def _check(tmp_path: Path, path: str, *argv: str, prefix: tuple[str, ...] = ()
           ) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "LC_ALL": "C.UTF-8", "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([*prefix, sys.executable, "-c", DRIVER, path, "check", *argv],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
                          timeout=120)


@pytest.mark.parametrize("path", ["fast", "click"])
def test_a_name_too_long_is_one_line(tmp_path: Path, path: str) -> None:
    (tmp_path / "job.yaml").write_text(JOB, encoding="utf-8")
    long_name = "L" * 300 + ".yaml"
    done = _check(tmp_path, path, long_name, "job.yaml")
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2
    assert long_name in done.stdout + done.stderr


def _without_search_rights() -> tuple[str, ...] | None:
    """A command prefix under which permission bits apply (root ignores them)."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    probe = subprocess.run([setpriv, "--bounding-set=-dac_override,-dac_read_search", "true"],
                           capture_output=True, check=False)
    return (setpriv, "--bounding-set=-dac_override,-dac_read_search") \
        if probe.returncode == 0 else None


@pytest.mark.parametrize("path", ["fast", "click"])
def test_a_file_in_a_folder_that_cannot_be_searched_is_one_line(tmp_path: Path,
                                                                  path: str) -> None:
    prefix = _without_search_rights()
    if prefix is None:
        pytest.skip("running as root without setpriv: permission bits do not apply")
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "job.yaml").write_text(JOB, encoding="utf-8")
    (tmp_path / "cache").mkdir(mode=0o700)
    locked.chmod(0o600)  # listable, not searchable
    try:
        named = _check(tmp_path, path, "locked/job.yaml", prefix=prefix)
        walked = _check(tmp_path, path, "locked", prefix=prefix)
    finally:
        locked.chmod(0o700)
    assert "Traceback" not in named.stderr, named.stderr
    assert named.returncode == 2
    assert "locked/job.yaml" in named.stdout + named.stderr
    assert "Traceback" not in walked.stderr, walked.stderr
