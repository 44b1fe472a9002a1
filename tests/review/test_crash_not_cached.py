"""Review regression (R-W5, notes/R-for-W.md): a file whose conversion killed its worker twice
(Y105: a crash, or too little memory at that moment) is not recorded in the results cache —
the next run converts it again, as a run with --no-cache does, instead of replaying the crash
until the file changes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.security.support import JOB

ROOT = Path(__file__).resolve().parents[2]

# the worker converting boom.yaml is killed while the flag file exists (out of memory, say)
DRIVER = """
import os, sys
import migrator.batch.pipeline as pipeline
import migrator.batch.resultcache as resultcache
import migrator.batch.files as files
pipeline.PARALLEL_THRESHOLD = 1   # workers for two files
resultcache.RACY_SECONDS = -3600  # files written just now are recorded
real = files.process_file
flag = sys.argv[1]
def process_file(name, *args, **kwargs):
    if name.endswith("boom.yaml") and os.path.exists(flag):
        os.kill(os.getpid(), 9)
    return real(name, *args, **kwargs)
files.process_file = process_file
sys.argv = ["trainjob-migrate", *sys.argv[2:]]
from migrator.cli import main
main()
"""


def _check(tmp_path: Path, *extra: str) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("TRAINJOB_MIGRATE_NO_CACHE", None)
    done = subprocess.run([sys.executable, "-c", DRIVER, str(tmp_path / "flag"), "check",
                           "-j", "2", "tree", *extra], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout


def test_a_crashed_file_is_converted_again_on_the_next_run(tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "a.yaml").write_text(JOB, encoding="utf-8")
    (tmp_path / "tree" / "boom.yaml").write_text(JOB, encoding="utf-8")
    (tmp_path / "flag").touch()
    crashed = _check(tmp_path)
    assert "Y105" in crashed[1]  # (the test does what it says)
    (tmp_path / "flag").unlink()
    truth = _check(tmp_path, "--no-cache")
    assert "Y105" not in truth[1]
    assert _check(tmp_path) == truth


# the converter has a bug on documents naming "boom": Y105 "internal error" (--debug raises it)
BUGGY = """
import sys
import migrator.batch.resultcache as resultcache
import migrator.convert.document as document
resultcache.RACY_SECONDS = -3600
real = document._process
def _process(chunk, *args, **kwargs):
    if "boom" in chunk.text:
        raise RuntimeError("a bug")
    return real(chunk, *args, **kwargs)
document._process = _process
sys.argv = ["trainjob-migrate", *sys.argv[1:]]
from migrator.cli import main
main()
"""


def test_debug_shows_the_internal_error_on_a_warm_run(tmp_path: Path) -> None:
    (tmp_path / "boom.yaml").write_text(JOB.replace("name: ", "name: boom", 1),
                                        encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("TRAINJOB_MIGRATE_NO_CACHE", None)

    def check(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", BUGGY, "check", "-j", "1", "boom.yaml",
                               *extra], cwd=tmp_path, env=env, capture_output=True, text=True,
                              check=False, timeout=120)

    assert "Y105" in check().stdout  # recorded, if anything is
    debug = check("--debug")
    assert "RuntimeError: a bug" in debug.stderr, debug.stdout + debug.stderr
