"""Review regressions (R-W1..R-W3, notes/R-for-W.md): a damaged results-cache entry is a miss,
never a traceback or another result — also for a folder the run does not visit, whose record is
carried over (and renumbered) when the entry is saved again."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.entries import read_entry, write_entry
from tests.security.support import CONFIGMAP, JOB

ROOT = Path(__file__).resolve().parents[2]


def _check(tmp_path: Path, *paths: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``check -v -j 1 PATHS`` in tmp_path (files written just
    now are recorded: no 2 s "racily clean" wait)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg"), "PYTHONPATH": str(ROOT)}
    env.pop("TRAINJOB_MIGRATE_NO_CACHE", None)
    env.pop("TRAINJOB_MIGRATE_CACHE_DIR", None)
    run = ("import sys; import migrator.batch.resultcache as r; r.RACY_SECONDS = -3600; "
           "from migrator.cli import main; sys.argv[0] = 'trainjob-migrate'; main()")
    done = subprocess.run([sys.executable, "-c", run, "check", "-v", "-j", "1", *paths],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
                          timeout=120)
    summary = done.stderr.rpartition(" (")[0]  # (without the run's seconds)
    return done.returncode, done.stdout, summary or done.stderr


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "tree" / "sub").mkdir(parents=True)
    (tmp_path / "tree" / "job.yaml").write_text(JOB, encoding="utf-8")
    (tmp_path / "tree" / "ok.yaml").write_text(CONFIGMAP, encoding="utf-8")
    (tmp_path / "tree" / "sub" / "a.yaml").write_text(CONFIGMAP, encoding="utf-8")
    (tmp_path / "tree" / "sub" / "b.yaml").write_text(JOB, encoding="utf-8")
    _check(tmp_path, "tree")  # fills the cache
    entries = list((tmp_path / "xdg").rglob("results-*.json"))
    assert len(entries) == 1
    return entries[0]


def _damage(entry: Path, folder: str, change: Callable[[list[Any]], None]) -> None:
    data = read_entry(entry)
    record = data["folders"][folder]  # format 5: [names, stamps, tails, payloads]
    change(record)
    write_entry(entry, data)


def test_a_tail_of_many_digits_is_a_miss(tmp_path: Path) -> None:
    entry = _tree(tmp_path)
    truth = _check(tmp_path, "tree")
    folder = str((tmp_path / "tree").resolve())

    def many_digits(record: list[Any]) -> None:
        record[2] = " ".join("9" * 5000 + ":0" if tail != "=" else tail
                             for tail in record[2].split(" "))

    _damage(entry, folder, many_digits)
    again = _check(tmp_path, "tree")
    assert "Traceback" not in again[2]
    assert again == truth


def _first_payload(record: list[Any]) -> list[Any]:
    return next(iter(record[3].values()))


def test_a_damaged_payload_elsewhere_does_not_break_the_save(tmp_path: Path) -> None:
    entry = _tree(tmp_path)
    folder = str((tmp_path / "tree" / "sub").resolve())
    truth = _check(tmp_path, "tree/sub/b.yaml")

    def object_for_a_mapping(record: list[Any]) -> None:
        _first_payload(record)[2][0][5][0] = {}

    _damage(entry, folder, object_for_a_mapping)
    with (tmp_path / "tree" / "ok.yaml").open("a", encoding="utf-8") as changed:
        changed.write("# changed: the entry is saved again\n")
    other = _check(tmp_path, "tree/ok.yaml")
    assert "Traceback" not in other[2]
    assert other[0] == 0
    assert _check(tmp_path, "tree/sub/b.yaml") == truth


def test_a_damaged_place_is_not_renumbered_into_another_text(tmp_path: Path) -> None:
    for damage in (-1, True):
        case = tmp_path / str(damage)
        case.mkdir()
        entry = _tree(case)
        folder = str((case / "tree" / "sub").resolve())
        truth = _check(case, "tree/sub/b.yaml")

        def bad_place(record: list[Any], damage: Any = damage) -> None:
            # format 4: a document's findings are one flat list of places (7 per finding)
            _first_payload(record)[2][0][7][3] = damage  # the first finding's message

        _damage(entry, folder, bad_place)
        with (case / "tree" / "ok.yaml").open("a", encoding="utf-8") as changed:
            changed.write("# changed: the entry is saved again\n")
        assert _check(case, "tree/ok.yaml")[0] == 0
        assert _check(case, "tree/sub/b.yaml") == truth, damage
