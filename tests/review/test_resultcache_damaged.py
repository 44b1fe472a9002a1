"""Review regression (R-W2, notes/R-for-W.md): a results-cache entry that is valid JSON but
holds a value of the wrong type is a miss, never a traceback or a changed result."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.entries import read_entry, write_entry
from tests.security.support import JOB

ROOT = Path(__file__).resolve().parents[2]


def _check(tmp_path: Path, *extra: str) -> tuple[int, str, str, str]:
    """(exit code, stdout, stderr, the JSON report) of a check of tree/."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg"), "PYTHONPATH": str(ROOT)}
    env.pop("TRAINJOB_MIGRATE_NO_CACHE", None)
    env.pop("TRAINJOB_MIGRATE_CACHE_DIR", None)
    # the file was written just now: let the run record it anyway (no 2 s "racily clean" wait)
    run = ("import sys; import migrator.batch.resultcache as r; r.RACY_SECONDS = -3600; "
           "from migrator.cli import main; sys.argv[0] = 'trainjob-migrate'; main()")
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    done = subprocess.run([sys.executable, "-c", run, "check", "tree", "-j", "1", "--report",
                           str(report), *extra],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    text = report.read_text(encoding="utf-8") if report.exists() else ""
    return done.returncode, done.stdout, done.stderr, text


def _damage(entry: Path, index: int, value: Any) -> None:
    data = read_entry(entry)
    for *_, payloads in data["folders"].values():  # format 5: [names, stamps, tails, payloads]
        for payload in payloads.values():
            payload[2][0][index] = value
    write_entry(entry, data)


def test_a_wrongly_typed_record_is_a_miss(tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "job.yaml").write_text(JOB, encoding="utf-8")
    truth = _check(tmp_path, "--no-cache")
    _check(tmp_path)  # fills the cache
    entries = list((tmp_path / "xdg").rglob("results-*.json"))
    assert len(entries) == 1
    # each damaged run is a miss that records the file again, so the next damage finds a record
    for index, value in ((2, {"x": 1}), (0, "zero"), (6, "not a dict")):
        _damage(entries[0], index, value)
        again = _check(tmp_path)
        assert "Traceback" not in again[2], (index, value)
        assert (again[0], again[1], again[3]) == (truth[0], truth[1], truth[3]), (index, value)
