"""The per-user cache of the validated catalog: same catalog, rebuilt when unusable."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from migrator.knowledge import cache, catalog


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("catalog-*.json")) if folder.is_dir() else []


def test_cached_catalog_equals_a_fresh_build(cache_dir: Path) -> None:
    built = catalog.load()
    assert len(_entries(cache_dir)) == 1
    catalog.load.cache_clear()
    assert catalog.load() == built == catalog._build(catalog.mappings_dir())


def test_unusable_entry_is_rebuilt(cache_dir: Path) -> None:
    catalog.load()
    (entry,) = _entries(cache_dir)
    entry.write_bytes(b"not JSON")
    catalog.load.cache_clear()
    assert catalog.load() == catalog._build(catalog.mappings_dir())
    assert entry.read_bytes() != b"not JSON"


def test_no_cache_and_unwritable_cache(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAINJOB_MIGRATE_NO_CACHE", "1")
    catalog.load()
    assert not cache_dir.exists()
    monkeypatch.delenv("TRAINJOB_MIGRATE_NO_CACHE")
    cache_dir.write_text("a file where the folder should be")
    catalog.load.cache_clear()
    assert catalog.load() == catalog._build(catalog.mappings_dir())


def test_key_follows_the_data_files(tmp_path: Path) -> None:
    copy = tmp_path / "mappings"
    shutil.copytree(catalog.mappings_dir(), copy)
    before = cache.key(catalog._inputs(copy))
    assert cache.key(catalog._inputs(copy)) == before
    codes = copy / "codes.yaml"
    codes.write_text(codes.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert cache.key(catalog._inputs(copy)) != before


def test_storing_a_new_entry_removes_older_ones(cache_dir: Path) -> None:
    assert cache.cached_json("thing", "a", lambda: [1], list) == [1]
    assert cache.cached_json("thing", "b", lambda: [2], list) == [2]
    assert [p.name for p in cache_dir.glob("thing-*")] == ["thing-b.json"]
    assert cache.cached_json("thing", "b", lambda: [3], list) == [2]  # served from the cache


def test_cached_json_builds_stores_and_reuses(cache_dir: Path) -> None:
    built: list[int] = []

    def build() -> dict[str, object]:
        built.append(1)
        return {"items": [1, 2.5, "x", None, True]}

    def use(data: object) -> tuple[object, ...]:
        assert isinstance(data, dict)
        return tuple(data["items"])

    assert cache.cached_json("prog", "a", build, use) == (1, 2.5, "x", None, True)
    assert cache.cached_json("prog", "a", build, use) == (1, 2.5, "x", None, True)
    assert len(built) == 1  # the second one came from the entry
    assert cache.cached_json("prog", "b", build, use) == (1, 2.5, "x", None, True)
    assert [p.name for p in cache_dir.glob("prog-*")] == ["prog-b.json"]


def test_cached_json_rebuilds_what_use_rejects(cache_dir: Path) -> None:
    def use(data: object) -> int:
        assert isinstance(data, int)
        return data

    cache_dir.mkdir(mode=0o700)
    for damaged in (b"not JSON", b'"a string"', b"[1, {}]", b"\xff"):
        (cache_dir / "prog-a.json").write_bytes(damaged)
        (cache_dir / "prog-a.json").chmod(0o600)
        assert cache.cached_json("prog", "a", lambda: 7, use) == 7
        assert (cache_dir / "prog-a.json").read_bytes() == b"7"


def test_cached_json_without_a_cache(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAINJOB_MIGRATE_NO_CACHE", "1")
    assert cache.cached_json("prog", "a", lambda: [1], len) == 1
    assert not cache_dir.exists()


def test_digest_follows_extra_parts(cache_dir: Path) -> None:
    assert catalog.digest(b"a") == catalog.digest(b"a") != catalog.digest(b"b")


@pytest.mark.parametrize("built", [{1: "a"}, ("a",), [{"a": (1,)}], [float("nan")],
                                   {"when": __import__("datetime").date(2024, 1, 1)}])
def test_cached_json_uses_but_does_not_store_what_json_would_change(
        cache_dir: Path, built: object) -> None:
    assert cache.cached_json("prog", "a", lambda: built, lambda data: data) is built
    assert not list(cache_dir.glob("prog-*"))


def test_digest_is_that_of_the_loaded_catalog(tmp_path: Path, cache_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """After ``load()``, ``digest()`` keys by the inputs of the catalog in memory (read once),
    and follows the mappings folder when it changes."""
    copy = tmp_path / "mappings"
    shutil.copytree(catalog.mappings_dir(), copy)
    monkeypatch.setenv("TRAINJOB_MIGRATE_MAPPINGS", str(copy))
    before = catalog.digest(b"x")
    catalog.load()
    assert catalog.digest(b"x") == before
    codes = copy / "codes.yaml"
    codes.write_text(codes.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert catalog.digest(b"x") == before  # the loaded catalog's inputs
    catalog.load.cache_clear()
    catalog.load()
    assert catalog.digest(b"x") != before
