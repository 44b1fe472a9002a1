"""The per-user catalog cache can never run code and is only used when private (issue 12.1)."""

from __future__ import annotations

import json
import os
import pickle
import stat
from pathlib import Path

import pytest

from migrator.knowledge import cache, catalog

OTHER_UID = 65534  # nobody



class _Planted:
    """Unpickling this runs code: it creates the file named by its argument."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def _digest() -> str:
    return cache.key(catalog._inputs(catalog.mappings_dir()))


def test_a_planted_pickle_is_never_loaded(cache_dir: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    cache_dir.mkdir(mode=0o700)
    payload = pickle.dumps(_Planted(marker))
    for name in (f"catalog-{_digest()}.pickle", f"catalog-{_digest()}.json"):
        (cache_dir / name).write_bytes(payload)
    built = catalog.load()
    assert not marker.exists()
    assert built == catalog._build(catalog.mappings_dir())
    entry = cache_dir / f"catalog-{_digest()}.json"
    json.loads(entry.read_text(encoding="utf-8"))  # replaced by a JSON entry
    assert not (cache_dir / f"catalog-{_digest()}.pickle").exists()  # old pickles removed


def test_entries_are_json_and_validated_when_read(cache_dir: Path) -> None:
    built = catalog.load()
    (entry,) = cache_dir.glob("catalog-*.json")
    data = json.loads(entry.read_text(encoding="utf-8"))
    assert set(data) == {"legacy", "targets", "pod", "kinds", "codes", "upgrade",
                         "integrations", "kube", "operators"}
    catalog.load.cache_clear()
    assert catalog.load() == built
    # valid JSON that does not validate as a catalog is rebuilt, not trusted
    data["codes"] = {"Y101": {"severity": "not a severity"}}
    entry.write_text(json.dumps(data), encoding="utf-8")
    catalog.load.cache_clear()
    assert catalog.load() == built


def test_folders_are_private_even_under_umask_000(cache_dir: Path) -> None:
    nested = cache_dir / "a" / "b"
    os.environ["TRAINJOB_MIGRATE_CACHE_DIR"] = str(nested)
    old = os.umask(0)
    try:
        catalog.load()
    finally:
        os.umask(old)
    for folder in (cache_dir, cache_dir / "a", nested):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    (entry,) = nested.glob("catalog-*.json")
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o770, 0o722])
def test_a_folder_others_may_write_is_not_used(cache_dir: Path, mode: int) -> None:
    cache_dir.mkdir()
    os.chmod(cache_dir, mode)
    assert cache.private_folder() is None
    assert catalog.load() == catalog._build(catalog.mappings_dir())
    assert list(cache_dir.iterdir()) == []  # nothing read, nothing written


def test_an_entry_others_may_write_is_not_read(cache_dir: Path) -> None:
    built = catalog.load()
    (entry,) = cache_dir.glob("catalog-*.json")
    os.chmod(entry, 0o666)
    assert cache.read_json(cache_dir, entry.name) is None
    catalog.load.cache_clear()
    assert catalog.load() == built


def test_a_symlinked_entry_is_not_followed(cache_dir: Path, tmp_path: Path) -> None:
    catalog.load()
    (entry,) = cache_dir.glob("catalog-*.json")
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(entry.read_bytes())
    entry.unlink()
    entry.symlink_to(elsewhere)
    assert cache.read_json(cache_dir, entry.name) is None


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give files to another user")
def test_a_folder_or_entry_of_another_user_is_refused(cache_dir: Path) -> None:
    built = catalog.load()
    (entry,) = cache_dir.glob("catalog-*.json")
    os.chown(entry, OTHER_UID, -1)
    assert cache.read_json(cache_dir, entry.name) is None
    os.chown(entry, 0, -1)
    os.chown(cache_dir, OTHER_UID, -1)
    assert cache.private_folder() is None
    catalog.load.cache_clear()
    assert catalog.load() == built


def test_the_cli_runs_with_a_hostile_cache_folder(cache_dir: Path, tmp_path: Path) -> None:
    """A world-writable folder holding a planted pickle: the CLI neither fails nor runs it."""
    import subprocess
    import sys

    from tests.goldens import FIXTURES, ROOT

    marker = tmp_path / "pwned"
    cache_dir.mkdir()
    os.chmod(cache_dir, 0o777)
    (cache_dir / f"catalog-{_digest()}.pickle").write_bytes(pickle.dumps(_Planted(marker)))
    proc = subprocess.run([sys.executable, "-m", "migrator", "check",
                           str(FIXTURES / "pytorchjob" / "minimal.in.yaml")],
                          capture_output=True, text=True, check=False, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not marker.exists()
    assert sorted(p.name for p in cache_dir.iterdir()) == [f"catalog-{_digest()}.pickle"]
