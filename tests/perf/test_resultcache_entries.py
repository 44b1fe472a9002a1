"""Results-cache entries (format 2): a file without documents is one string, others a
[stamp, payload] pair; anything else in an entry is a miss, never an error."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

from migrator.batch import resultcache
from migrator.results import FileResult, TextResult


def _result(name: str) -> FileResult:
    return FileResult(name, os.path.basename(name), result=TextResult(""), scanned=1,
                      was_changed=False)


def _run(cache: resultcache.ResultCache, found: list[tuple[str, str]]) -> list[str]:
    """The names ``process`` was asked for (the misses)."""
    asked: list[str] = []

    def process(files: list[tuple[str, str]]) -> Iterator[FileResult]:
        for name, _ in files:
            asked.append(name)
            yield _result(name)

    results = list(cache.through(found, process))
    assert [r.name for r in results] == [name for name, _ in found]
    return asked


def test_entries_round_trip_and_garbage_is_a_miss(tmp_path: Path) -> None:
    names = []
    old = time.time() - 60  # older than the racy window: recorded
    for index in range(4):
        path = tmp_path / f"m{index}.yaml"
        path.write_text("kind: ConfigMap\n", encoding="utf-8")
        os.utime(path, (old, old))
        names.append(str(path))
    found = [(name, os.path.basename(name)) for name in names]
    cache = resultcache.ResultCache(tmp_path, "results-test.json", {})
    cache.save = lambda seen: None  # type: ignore[method-assign]  # keep it in memory
    if any(time.time_ns() - os.stat(n).st_ctime_ns < resultcache.RACY_SECONDS * 10**9
           for n in names):
        time.sleep(resultcache.RACY_SECONDS + 0.3)  # ctime cannot be set back
    assert _run(cache, found) == names
    entries = cache.files
    assert all(isinstance(entries[os.path.abspath(n)], str) for n in names)
    assert entries[os.path.abspath(names[0])].endswith(" 1 0")
    assert _run(cache, found) == []  # all hits
    hit = next(cache.through(found[:1], lambda files: iter(())))
    assert hit == _result(names[0])
    garbage: list[object] = ["1 2 3", "x y z 1 0", [1, 2], {"a": 1}, None]
    for value in garbage:
        entries[os.path.abspath(names[1])] = value
        assert _run(cache, found) == [names[1]], value
    stamp = entries[os.path.abspath(names[2])]
    assert isinstance(stamp, str)
    entries[os.path.abspath(names[2])] = [stamp.rsplit(" ", 2)[0], "not a payload"]
    assert _run(cache, found) == [names[2]]
