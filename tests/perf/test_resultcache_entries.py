"""Results-cache entries (format 3): records grouped by folder; a file without documents is
one string, others a [stamp, payload] pair; anything else in an entry is a miss, never an
error."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from migrator.batch import resultcache
from migrator.results import FileResult, TextResult


def _result(name: str) -> FileResult:
    return FileResult(name, os.path.basename(name), result=TextResult(""), scanned=1,
                      was_changed=False)


def _run(cache: resultcache.ResultCache, found: list[tuple[str, str]]) -> list[str]:
    """The names ``process`` was asked for (the misses)."""
    asked: list[str] = []

    def process(files: Iterable[tuple[str, str]]) -> Iterator[FileResult]:
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
    folder = os.path.abspath(tmp_path)
    assert set(cache.folders) == {folder}
    entries = cache.folders[folder]
    bases = [os.path.basename(n) for n in names]
    assert all(isinstance(entries[b], str) for b in bases)
    assert all(cache.record_of(os.path.abspath(n)) == entries[b]
               for n, b in zip(names, bases, strict=True))
    assert entries[bases[0]].endswith(" 1 0")
    info = os.stat(names[0])
    assert entries[bases[0]].split()[:3] == [str(info.st_size), str(info.st_mtime_ns),
                                             str(info.st_ctime_ns - info.st_mtime_ns)]
    assert _run(cache, found) == []  # all hits
    hit = next(cache.through(found[:1], lambda files: iter(())))
    assert hit == _result(names[0])
    stamp = entries[bases[1]]
    garbage: list[object] = ["1 2 3", "x y z 1 0", [1, 2], {"a": 1}, None, stamp + " 0",
                             stamp.rsplit(" ", 2)[0] + " 1 2", stamp.rsplit(" ", 2)[0] + " x 0",
                             stamp.rsplit(" ", 2)[0] + " \u0661 0",
                             stamp.rsplit(" ", 2)[0] + "1 1 0"]
    for value in garbage:
        entries[bases[1]] = value
        assert _run(cache, found) == [names[1]], value
    stamp = entries[bases[2]]
    assert isinstance(stamp, str)
    entries[bases[2]] = [stamp.rsplit(" ", 2)[0], "not a payload"]
    assert _run(cache, found) == [names[2]]
    cache.folders[folder] = ["not", "records"]
    assert _run(cache, found) == names  # a folder that is not records: all misses
    assert isinstance(cache.folders[folder], dict)


def test_a_result_is_recorded_under_its_own_file(tmp_path: Path) -> None:
    """A ``process`` that hands back results out of order (a bug elsewhere) must not plant
    one file's result under another's name: each result is recorded under its own file's
    stamp, and a file whose result never comes back is not recorded."""
    old = time.time() - 60
    names = []
    for index in range(4):
        path = tmp_path / f"m{index}.yaml"
        path.write_text("kind: ConfigMap\n", encoding="utf-8")
        os.utime(path, (old, old))
        names.append(str(path))
    found = [(name, os.path.basename(name)) for name in names]
    cache = resultcache.ResultCache(tmp_path, "results-test.json", {})
    cache.save = lambda seen: None  # type: ignore[method-assign]
    if any(time.time_ns() - os.stat(n).st_ctime_ns < resultcache.RACY_SECONDS * 10**9
           for n in names):
        time.sleep(resultcache.RACY_SECONDS + 0.3)

    def swapped(files: Iterable[tuple[str, str]]) -> Iterator[FileResult]:
        taken = [name for name, _ in files]
        order = [taken[1], taken[0], taken[2], taken[2]]  # m3's result never comes back
        for name in order:
            yield FileResult(name, os.path.basename(name), result=TextResult(""),
                             scanned=int(name.endswith("m0.yaml")), was_changed=False)

    list(cache.through(found, swapped))
    records = cache.folders[os.path.abspath(tmp_path)]
    assert set(records) == {"m0.yaml", "m1.yaml", "m2.yaml"}
    assert records["m0.yaml"].endswith(" 1 0")
    assert records["m1.yaml"].endswith(" 0 0")
    assert _run(cache, found) == [names[3]]


def test_the_entry_follows_the_mappings_folder_the_run_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$TRAINJOB_MIGRATE_MAPPINGS names the mapping data a run reads: another folder, or a
    changed file in it, is another entry (never the results of other data)."""
    from migrator.load import sources
    from migrator.settings import ConvertOptions, mappings_dir

    monkeypatch.setenv("TRAINJOB_MIGRATE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TRAINJOB_MIGRATE_NO_CACHE", raising=False)
    monkeypatch.delenv("TRAINJOB_MIGRATE_MAPPINGS", raising=False)
    source = mappings_dir()
    first, second = tmp_path / "m1", tmp_path / "m2"
    shutil.copytree(source, first)
    shutil.copytree(source, second)

    def entry() -> str:
        cache = resultcache.open_for(ConvertOptions(), False, False, sources.MAX_BYTES)
        assert cache is not None
        return cache.name

    default = entry()
    monkeypatch.setenv("TRAINJOB_MIGRATE_MAPPINGS", str(first))
    in_first = entry()
    monkeypatch.setenv("TRAINJOB_MIGRATE_MAPPINGS", str(second))
    in_second = entry()
    assert len({default, in_first, in_second}) == 3
    codes = second / "codes.yaml"
    codes.write_text(codes.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert entry() != in_second
    monkeypatch.setenv("TRAINJOB_MIGRATE_MAPPINGS", str(tmp_path / "missing"))
    assert entry() not in (default, in_first, in_second)
