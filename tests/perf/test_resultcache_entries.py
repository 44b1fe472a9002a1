"""Results-cache entries (format 5): one record per folder, a line each, ``[names, stamps,
tails, payloads]``; a walked folder whose files all have their recorded stamps is matched by
comparing two strings and, for a run that counts, gives its files without documents as
counts; anything else in an entry is a miss, never an error."""

from __future__ import annotations

import json
import os
import shutil
import struct
import sys
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


def _reopened(cache: resultcache.ResultCache) -> resultcache.ResultCache:
    """The cache as the next run opens it: from the entry written by ``save``."""
    raw = (cache.folder / cache.name).read_bytes()
    read = resultcache._entry(raw)
    assert read is not None
    return resultcache.ResultCache(cache.folder, cache.name, *read)


def test_a_folder_is_decoded_when_the_run_reaches_it(tmp_path: Path) -> None:
    """The entry is a line per folder, decoded when the run first looks the folder up: a run
    that has reached one folder has decoded that one only (a warm run forks the worker of
    its first changed file without decoding the whole entry first)."""
    trees = [tmp_path / "tree" / name for name in ("a", "b", "c")]
    found = {tree: [(n, os.path.basename(n)) for n in _files(tree, 3)] for tree in trees}
    cache = _cache(tmp_path)
    for tree in trees:
        _run(cache, found[tree])
    cache.save(9)
    again = _reopened(cache)
    assert {type(record) for record in again.folders.values()} == {memoryview}
    assert _run(again, found[trees[1]]) == []  # every file a hit
    decoded = {folder for folder, record in again.folders.items() if type(record) is list}
    assert decoded == {os.path.abspath(trees[1])}
    assert _run(again, found[trees[0]]) == []
    assert _run(again, found[trees[2]]) == []


def test_a_damaged_line_is_a_miss_for_its_folder_alone(tmp_path: Path) -> None:
    trees = [tmp_path / "tree" / name for name in ("a", "b")]
    found = {tree: [(n, os.path.basename(n)) for n in _files(tree, 2)] for tree in trees}
    cache = _cache(tmp_path)
    for tree in trees:
        _run(cache, found[tree])
    cache.save(4)
    entry = cache.folder / cache.name
    head, _, second, end = entry.read_bytes().split(b"\n")
    assert end == b""
    for damaged in (b"[", b"[" * 100_000, b"{\"a\": 1}", b"\xff\xfe", b""):
        entry.write_bytes(b"\n".join([head, damaged, second, b""]))
        again = _reopened(cache)
        assert _run(again, found[trees[0]]) == [name for name, _ in found[trees[0]]]
        assert _run(again, found[trees[1]]) == []


@pytest.mark.parametrize("change", [
    lambda lines: lines[:-2] + lines[-1:],  # a folder's line missing
    lambda lines: [*lines[:-1], b"[]", b""],  # a line too many
    lambda lines: lines[:-1],  # no last newline
    lambda lines: [b"{\"format\": 4}", *lines[1:]],  # another format
    lambda lines: [lines[0].replace(b"\"folders\":[", b"\"folders\":[1,", 1), *lines[1:]],
])
def test_an_entry_whose_lines_do_not_match_its_header_is_a_miss(
        tmp_path: Path, change: Any) -> None:
    names = _files(tmp_path / "tree", 2)
    found = [(n, os.path.basename(n)) for n in names]
    cache = _cache(tmp_path)
    _run(cache, found)
    cache.save(2)
    lines = (cache.folder / cache.name).read_bytes().split(b"\n")
    assert resultcache._entry(b"\n".join(lines)) is not None
    assert resultcache._entry(b"\n".join(change(lines))) is None


@pytest.mark.skipif(sys.platform != "linux", reason="file names that are not UTF-8")
def test_names_that_are_not_utf8_are_matched_again(tmp_path: Path) -> None:
    """A folder's path (in the header) and its files' names (in its line) reach the entry
    with lone surrogates (os.fsdecode) and come back as the same names: the lines are read as
    JSON reads bytes, surrogates let through."""
    folder = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/tree-\xff\xfe-x"))
    names = _files(folder, 3)
    for index in range(2):
        odd = os.fsdecode(os.fsencode(str(folder)) + b"/odd-\xe9-%d.yaml" % index)
        os.rename(names[index], odd)
        names[index] = odd
    found = sorted((n, os.path.basename(n)) for n in names)
    cache = _cache(tmp_path)
    _run(cache, found)
    cache.save(3)
    assert _run(_reopened(cache), found) == []


def test_a_header_that_names_a_folder_twice_is_a_miss(tmp_path: Path) -> None:
    trees = [tmp_path / "tree" / name for name in ("a", "b")]
    cache = _cache(tmp_path)
    for tree in trees:
        _run(cache, [(n, os.path.basename(n)) for n in _files(tree, 2)])
    cache.save(4)
    head, *lines = (cache.folder / cache.name).read_bytes().split(b"\n")
    first, second = (json.dumps(os.path.abspath(t)).encode() for t in trees)
    assert head.count(first) == 1
    assert head.count(second) == 1
    twice = head.replace(second, first)
    assert resultcache._entry(b"\n".join([head, *lines])) is not None
    assert resultcache._entry(b"\n".join([twice, *lines])) is None


def test_an_entry_of_line_breaks_is_refused_before_it_is_split() -> None:
    """Five million line breaks after a header naming one folder: refused by their count,
    not after becoming five million strings (~200 MB)."""
    import tracemalloc

    header = json.dumps({"format": resultcache.FORMAT, "strings": [], "folders": ["/a"]})
    flood = header.encode() + b"\n" * 5_000_001
    tracemalloc.start()
    try:
        assert resultcache._entry(flood) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20


def test_reading_an_entry_copies_nothing_but_its_header() -> None:
    """A 10 MB entry: its lines are views of the bytes read, decoded one by one when the run
    reaches their folders; splitting it (a copy of every line) cost a 100,000-file tree's
    unchanged check ~40 ms more than one JSON document did (its pages are fresh memory)."""
    import tracemalloc

    record = ["a.yaml", "0" * 5000, "1:0", {}]
    folders = {f"/tree/folder-{index}": record for index in range(2200)}
    text = resultcache._entry_text([], folders)
    assert text is not None
    raw = text.encode()
    assert len(raw) > 10 * 2**20
    tracemalloc.start()
    try:
        read = resultcache._entry(raw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert read is not None
    assert peak < 2 * 2**20
    again = resultcache.ResultCache(Path("/nonexistent"), "results-test.json", *read)
    assert again._folder_record("/tree/folder-2199") == record


def test_a_folder_recorded_again_is_the_last_one_trimmed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``MAX_ENTRIES`` files an entry keeps the folders recorded last: a folder this run
    recorded again is among them, not trimmed for keeping its first place in the entry while
    folders the run never saw stay (review 12 F4)."""
    trees = [tmp_path / "tree" / name for name in ("a", "b", "c")]
    found = {tree: [(n, os.path.basename(n)) for n in _files(tree, 2)] for tree in trees}
    cache = _cache(tmp_path)
    for tree in trees:  # (each run saves the entry: 6 files, none trimmed)
        _run(cache, found[tree])
    again = _reopened(cache)
    assert len(again.folders) == 3
    monkeypatch.setattr(resultcache, "MAX_ENTRIES", 4)  # now 2 of the 3 folders are too many
    changed = found[trees[0]][0][0]
    with open(changed, "a", encoding="utf-8") as out:
        out.write("# changed\n")
    assert _run(again, found[trees[0]]) == [changed]  # (and saved: 6 files, 2 seen)
    assert set(_reopened(again).folders) == {os.path.abspath(trees[0])}
