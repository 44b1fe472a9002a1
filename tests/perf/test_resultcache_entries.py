"""Results-cache entries (format 4): one record per folder, ``[names, stamps, tails,
payloads]``; a walked folder whose files all have their recorded stamps is matched by
comparing two strings and, for a run that counts, gives its files without documents as
counts; anything else in an entry is a miss, never an error."""

from __future__ import annotations

import os
import shutil
import struct
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from migrator.batch import discovery, resultcache
from migrator.load import sources
from migrator.results import FileResult, TextResult


@pytest.fixture(autouse=True)
def _no_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by a test are recorded at once (tests/perf/test_resultcache.py holds
    the window itself)."""
    monkeypatch.setattr(resultcache, "RACY_SECONDS", -3600)


def _result(name: str, scanned: int = 1) -> FileResult:
    """A result made from the file ``name`` is now (its identity: what it was read as)."""
    return FileResult(name, os.path.basename(name), result=TextResult(""), scanned=scanned,
                      was_changed=False, identity=sources.identity_of(os.stat(name)))


def _cache(tmp_path: Path, folders: dict[str, Any] | None = None) -> resultcache.ResultCache:
    """A cache whose entry is written into ``tmp_path/entry`` (records kept in memory)."""
    (tmp_path / "entry").mkdir(exist_ok=True)
    return resultcache.ResultCache(tmp_path / "entry", "results-test.json",
                                   {} if folders is None else folders)


def _run(cache: resultcache.ResultCache, found: Iterable[tuple[str, str]]) -> list[str]:
    """The names ``process`` was asked for (the misses)."""
    asked: list[str] = []

    def process(files: Iterable[tuple[str, str]]) -> Iterator[FileResult]:
        for name, _ in files:
            asked.append(name)
            yield _result(name)

    results = list(cache.through(found, process))
    assert [r.name for r in results] == [name for name, _ in found]
    return asked


def _files(folder: Path, count: int) -> list[str]:
    """``count`` files in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    old = time.time() - 60
    for index in range(count):
        path = folder / f"m{index}.yaml"
        path.write_text("kind: ConfigMap\n", encoding="utf-8")
        os.utime(path, (old, old))
        names.append(str(path))
    return names


def test_entries_round_trip_and_garbage_is_a_miss(tmp_path: Path) -> None:
    names = _files(tmp_path / "tree", 4)
    found = [(name, os.path.basename(name)) for name in names]
    cache = _cache(tmp_path)
    assert _run(cache, found) == names
    folder = os.path.abspath(tmp_path / "tree")
    assert set(cache.folders) == {folder}
    listed, stamps, tails, payloads = cache.folders[folder]
    bases = [os.path.basename(n) for n in names]
    assert listed == "/".join(bases)
    infos = [os.stat(name) for name in names]
    assert stamps == "".join(struct.pack("<IQqqQQ", i.st_mode, i.st_size, i.st_mtime_ns,
                                         i.st_ctime_ns, i.st_ino, i.st_dev).hex()
                             for i in infos)
    assert len(stamps) == 4 * resultcache.STAMP_CHARS
    assert tails == "1:0 1:0 1:0 1:0"
    assert payloads == {}
    record = cache.record_of(os.path.abspath(names[0]))
    assert record is not None
    assert record[1] == "1:0"
    assert _run(cache, found) == []  # all hits
    assert _run(_cache(tmp_path, {folder: [listed, stamps, tails, payloads]}), found) == []
    hit = next(cache.through(found[:1], lambda files: iter(())))
    assert hit == _result(names[0])
    garbage: list[object] = ["1:0 1:0 x:0 1:0", "1:0 1:0 1 1:0", "1:0 1:0 1:2 1:0",
                             "1:0 1:0 \u0661:0 1:0", "1:0 1:0 1:0", "1:0 1:0 = 1:0",
                             "1:0 1:0 1:0 1:0 1:0"]
    for value in garbage:
        asked = _run(_cache(tmp_path, {folder: [listed, stamps, value, {}]}), found)
        assert asked in ([names[2]], names), value
    width = resultcache.STAMP_CHARS
    changed = stamps[:width] + stamps[width:2 * width].swapcase() + stamps[2 * width:]
    assert _run(_cache(tmp_path, {folder: [listed, changed, tails, {}]}), found) == [names[1]]
    damaged: list[object] = [["not", "records"], [listed, stamps, tails], None, "x",
                             [listed, stamps, tails, []], [listed, stamps, None, {}],
                             [1, stamps, tails, {}], [listed + "/x", stamps, tails, {}],
                             [listed, stamps[1:], tails, {}], [listed, stamps, tails, {}, 1]]
    for broken in damaged:
        assert _run(_cache(tmp_path, {folder: broken}), found) == names, broken
    assert _run(_cache(tmp_path, {folder: [listed, stamps, "1:0 1:0 = 1:0", {bases[2]: "x"}]}),
                found) == [names[2]]


def test_a_walked_folder_is_matched_whole_and_counted(tmp_path: Path) -> None:
    """A walk (``discovery.Walk``) is matched folder by folder; a counting run gets the
    folder's files without documents as one ``Counts``; a changed, added or removed file
    changes only its own record."""
    tree = tmp_path / "tree"
    names = _files(tree / "a", 5) + _files(tree / "b", 3)
    walk = discovery.Walk((str(tree),))
    cache = _cache(tmp_path)
    assert _run(cache, walk) == names
    assert _run(cache, walk) == []
    fresh = _cache(tmp_path, dict(cache.folders))
    counted = list(fresh.counted(walk, lambda files: iter(())))
    assert counted == [(5, 0, 5), (3, 0, 3)]
    assert fresh.hits == 8
    # a file replaced (a new inode), one removed, one added
    os.unlink(names[1])
    shutil.copy(names[0], names[1])
    os.unlink(names[2])
    extra = tree / "a" / "new.yaml"
    shutil.copy(names[0], extra)
    assert _run(cache, walk) == [names[1], str(extra)]
    record = cache.folders[os.path.abspath(tree / "a")]
    assert record[0] == "m0.yaml/m1.yaml/m3.yaml/m4.yaml/new.yaml"  # m2.yaml forgotten
    assert _run(cache, walk) == []


def test_a_result_is_recorded_under_its_own_file(tmp_path: Path) -> None:
    """A ``process`` that hands back results out of order (a bug elsewhere) must not plant
    one file's result under another's name: each result is recorded under its own file's
    stamp, and a file whose result never comes back is not recorded."""
    names = _files(tmp_path / "tree", 4)
    found = [(name, os.path.basename(name)) for name in names]
    cache = _cache(tmp_path)

    def swapped(files: Iterable[tuple[str, str]]) -> Iterator[FileResult]:
        taken = [name for name, _ in files]
        order = [taken[1], taken[0], taken[2], taken[2]]  # m3's result never comes back
        for name in order:
            yield _result(name, scanned=int(name.endswith("m0.yaml")))

    list(cache.through(found, swapped))
    listed, _, tails, _ = cache.folders[os.path.abspath(tmp_path / "tree")]
    assert listed == "m0.yaml/m1.yaml/m2.yaml"
    assert tails == "1:0 0:0 0:0"
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


def test_texts_live_in_one_table_of_the_texts_in_use(tmp_path: Path) -> None:
    """Findings' and mappings' texts are places in the entry's table (``strings``); the table
    written holds only the texts the entry uses, each once, and reads back to the same
    results."""
    from migrator import convert_text

    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    source = (fixtures / "pytorchjob" / "minimal.in.yaml").read_text(encoding="utf-8")
    other = (fixtures / "tfjob" / "no-companion.in.yaml").read_text(encoding="utf-8")
    names = _files(tmp_path / "tree", 3)
    converted = {names[0]: convert_text(source), names[1]: convert_text(source),
                 names[2]: convert_text(other)}

    def process(files: Iterable[tuple[str, str]]) -> Iterator[FileResult]:
        for name, relative in files:
            yield FileResult(name, relative, result=converted[name], scanned=1,
                             was_changed=False, identity=sources.identity_of(os.stat(name)))

    found = [(name, os.path.basename(name)) for name in names]
    cache = _cache(tmp_path)
    first = list(cache.through(found, process))
    table = list(cache.strings.table)
    assert len(table) == len(set(table))
    texts = {t for r in first for d in (r.result.documents if r.result else [])
             for f in d.findings
             for t in (f.code, f.severity.value, f.path, f.message, f.hint)} | \
        {t for r in first for d in (r.result.documents if r.result else [])
         for m in d.mappings for t in m}
    assert set(table) == texts
    again = resultcache.ResultCache(cache.folder, cache.name, dict(cache.folders), table)
    assert list(again.through(found, lambda files: iter(()))) == [r.slim() for r in first]
    # the TFJob's file becomes one without documents: its texts leave the table
    converted[names[2]] = TextResult("")
    os.utime(names[2], (time.time() - 30, time.time() - 30))
    list(cache.through(found, process))
    assert len(cache.strings.table) < len(table)
    assert set(cache.strings.table) < set(table)
