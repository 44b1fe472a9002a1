"""Review regression (R-W6, notes/R-for-W.md): a result is recorded under the stamp of the file
that was read, never under the stamp of another file that had the name when the run looked at
it. Here the file's folder is swapped for another between the stamp and the read, and swapped
back (someone racing the run): the next warm run must not take the other file's result for it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.security.support import CONFIGMAP, JOB

ROOT = Path(__file__).resolve().parents[2]

DRIVER = """
import os, sys
import migrator.batch.resultcache as resultcache
import migrator.load.sources as sources
resultcache.RACY_SECONDS = -3600  # files written just now are recorded
armed = sys.argv[1]
real = sources.read
def read(name, *args, **kwargs):
    if name.endswith("x.yaml") and os.path.exists(armed):
        os.rename("tree/sub", "tree/real")
        os.rename("decoy", "tree/sub")
        try:
            return real(name, *args, **kwargs)
        finally:
            os.rename("tree/sub", "decoy")
            os.rename("tree/real", "tree/sub")
    return real(name, *args, **kwargs)
sources.read = read
sys.argv = ["trainjob-migrate", *sys.argv[2:]]
from migrator.cli import main
main()
"""


def test_a_swap_during_the_run_is_not_recorded_for_the_file_swapped_back(
        tmp_path: Path) -> None:
    (tmp_path / "tree" / "sub").mkdir(parents=True)
    (tmp_path / "decoy").mkdir()
    (tmp_path / "tree" / "sub" / "x.yaml").write_text(JOB, encoding="utf-8")
    (tmp_path / "decoy" / "x.yaml").write_text(CONFIGMAP, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("TRAINJOB_MIGRATE_NO_CACHE", None)

    def check(*extra: str) -> tuple[int, str]:
        done = subprocess.run([sys.executable, "-c", DRIVER, str(tmp_path / "armed"), "check",
                               "-j", "1", *extra], cwd=tmp_path, env=env, capture_output=True,
                              text=True, check=False, timeout=120)
        assert "Traceback" not in done.stderr, done.stderr
        return done.returncode, done.stdout

    (tmp_path / "armed").touch()
    raced = check("tree")
    assert raced[0] == 0  # the run read the decoy (the race happened)
    (tmp_path / "armed").unlink()
    truth = check("tree", "--no-cache")
    assert truth[0] == 1
    assert check("tree") == truth
    assert check("tree/sub/x.yaml") == (truth[0], truth[1])
