"""The results cache (issue 18.1): a warm check reports exactly what a cold one does, notices
every change, stores no file contents and can be turned off."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import corpus
from tests.entries import read_entry
from tests.goldens import FIXTURES, ROOT

SHARED = ROOT.parent / "shared"


def _check(tree: Path, cache: Path, *extra: str, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "TRAINJOB_MIGRATE_CACHE_DIR": str(cache),
                   **(env or {})}
    environment.pop("TRAINJOB_MIGRATE_NO_CACHE", None) if "TRAINJOB_MIGRATE_NO_CACHE" not in \
        (env or {}) else None
    return subprocess.run([sys.executable, "-m", "migrator", "check", ".", "-j", "1", *extra],
                          capture_output=True, text=True, check=False, timeout=600, cwd=tree,
                          env=environment)


def _lines(proc: subprocess.CompletedProcess[str]) -> tuple[int, str, list[str]]:
    """Exit code, standard output, and standard error without the timing of the summary."""
    lines = proc.stderr.splitlines()
    if lines and lines[-1].endswith("s)"):
        lines[-1] = lines[-1].rsplit(" (", 1)[0]
    return proc.returncode, proc.stdout, lines


def _settle() -> None:
    """Wait until files written so far are no longer "racily clean" (their mtime and ctime
    older than the cache's window): only then are their results recorded."""
    from migrator.batch.resultcache import RACY_SECONDS

    time.sleep(RACY_SECONDS + 0.3)


def _tree(root: Path) -> Path:
    tree = root / "tree"
    for index, source in enumerate(sorted(FIXTURES.glob("*/*.in.yaml"))):
        folder = tree / source.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, folder / f"{index:03d}-{source.name}")
    (tree / "ordinary.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
                                        encoding="utf-8")
    return tree


def _entries(cache: Path) -> dict[str, list[object]]:
    """The files of the newest results entry (a change to the tool's code while a test runs
    starts a new one)."""
    entry = max(cache.glob("results-*.json"), key=lambda path: path.stat().st_mtime_ns)
    from migrator.batch.resultcache import _parse

    folders = read_entry(entry)["folders"]
    assert isinstance(folders, dict)
    return {os.path.join(folder, base): list(record) for folder, records in folders.items()
            for base, record in _parse(records).items()}


def test_warm_results_equal_cold_results(tmp_path: Path) -> None:
    tree, cache = _tree(tmp_path), tmp_path / "cache"
    _settle()
    report = tmp_path / "r.json"
    cold = _check(tree, cache, "--report", str(report))
    cold_report = json.loads(report.read_text(encoding="utf-8"))
    assert len(_entries(cache)) == len(list(tree.rglob("*.yaml")))
    warm = _check(tree, cache, "--report", str(report))
    warm_report = json.loads(report.read_text(encoding="utf-8"))
    uncached = _check(tree, cache, "--no-cache", "-v")
    assert _lines(cold) == _lines(warm)
    assert _lines(_check(tree, cache, "-v")) == _lines(uncached)
    for built in (cold_report, warm_report):
        built.pop("duration_seconds", None)
        built.get("summary", {}).pop("duration_seconds", None)
    assert cold_report == warm_report


def test_every_change_is_noticed(tmp_path: Path) -> None:
    tree, cache = _tree(tmp_path), tmp_path / "cache"
    job = next((tree / "pytorchjob").glob("*-minimal.in.yaml"))
    _settle()
    first = _check(tree, cache)
    assert "would convert" in first.stderr
    # same size, same mtime, different content: the ctime tells
    before = job.stat()
    text = job.read_text(encoding="utf-8")
    job.write_text(text.replace("PyTorchJob", "ConfigMapX", 1), encoding="utf-8")
    os.utime(job, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert job.stat().st_size == before.st_size
    _settle()  # no longer racy: only the recorded ctime tells the change
    after = _check(tree, cache)
    assert _lines(after) != _lines(first)
    assert _lines(after) == _lines(_check(tree, cache, "--no-cache"))
    # a file replaced by another (a new inode), removed, added
    job.unlink()
    shutil.copy(FIXTURES / "tfjob" / "no-companion.in.yaml", job)
    (tree / "pytorchjob" / "new.yaml").write_text(text, encoding="utf-8")
    _settle()
    assert _lines(_check(tree, cache)) == _lines(_check(tree, cache, "--no-cache"))


def test_a_file_changed_just_now_is_not_recorded(tmp_path: Path) -> None:
    tree, cache = _tree(tmp_path), tmp_path / "cache"
    fresh = next((tree / "pytorchjob").glob("*-minimal.in.yaml"))
    _settle()
    fresh.write_text(fresh.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    # "just now" is judged against the run's start: on a loaded machine the CLI may start
    # more than RACY_SECONDS after the write, so the write is dated a minute ahead (a
    # timestamp not older than the run, as a file changed while it runs has)
    ahead = time.time_ns() + 60 * 10**9
    os.utime(fresh, ns=(ahead, ahead))
    _check(tree, cache)
    entries = _entries(cache)
    assert str(fresh) not in entries
    assert len(entries) == len(list(tree.rglob("*.yaml"))) - 1


def test_the_cache_holds_no_file_contents_and_is_private(tmp_path: Path) -> None:
    tree, cache = _tree(tmp_path), tmp_path / "cache"
    secret = "s3cr3t-value-in-a-comment"
    job = next((tree / "pytorchjob").glob("*-minimal.in.yaml"))
    job.write_text(job.read_text(encoding="utf-8") + f"# {secret}\n", encoding="utf-8")
    _settle()
    _check(tree, cache)
    entry = max(cache.glob("results-*.json"), key=lambda path: path.stat().st_mtime_ns)
    assert secret not in entry.read_text(encoding="utf-8")
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    assert oct(entry.stat().st_mode & 0o777) == "0o600"


def test_no_cache_and_the_env_switch_turn_it_off(tmp_path: Path) -> None:
    tree, cache = _tree(tmp_path), tmp_path / "cache"
    _settle()
    _check(tree, cache, "--no-cache")
    assert not list(cache.glob("results-*")) if cache.exists() else True
    _check(tree, cache, env={"TRAINJOB_MIGRATE_NO_CACHE": "1"})
    assert not list(cache.glob("results-*")) if cache.exists() else True
    _check(tree, cache)
    assert len(list(cache.glob("results-*.json"))) == 1


def test_options_have_results_of_their_own(tmp_path: Path) -> None:
    tree, cache = _tree(tmp_path), tmp_path / "cache"
    _settle()
    _check(tree, cache)
    companion = _check(tree, cache, "--companion-runtimes")
    assert len(list(cache.glob("results-*.json"))) == 2
    assert _lines(companion) == _lines(_check(tree, cache, "--companion-runtimes", "--no-cache"))


def test_a_warm_run_over_an_unchanged_tree_imports_no_converter(tmp_path: Path) -> None:
    tree, cache = _tree(tmp_path), tmp_path / "cache"
    _settle()
    _check(tree, cache)
    # (printed by an exit handler: ``python -m migrator`` ends the process at the run's end)
    probe = ("import atexit, sys, runpy; sys.argv = ['migrator', 'check', '.', '-j', '1'];\n"
             "atexit.register(lambda: print(sorted(m for m in sys.modules if m.startswith(("
             "'migrator.convert.document', 'migrator.convert.engine', "
             "'migrator.knowledge.catalog', 'ruamel.yaml', 'pydantic', 'migrator.convert.text', "
             "'migrator.load.fastload', 'migrator.batch.writer')))))\n"
             "runpy.run_module('migrator', run_name='__main__')\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=False, timeout=120, cwd=tree,
                          env={**os.environ, "PYTHONPATH": str(ROOT),
                               "TRAINJOB_MIGRATE_CACHE_DIR": str(cache)})
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stdout + proc.stderr


def test_corpus_results_are_identical_with_and_without_the_cache(tmp_path: Path) -> None:
    if not (SHARED / "corpus").is_dir():
        pytest.skip("../shared is not available")
    tree, cache = tmp_path / "corpus", tmp_path / "cache"
    corpus.copy_sample(SHARED / "corpus", tree)
    _settle()
    cold = _check(tree, cache, "-v", "--no-gitignore")
    warm = _check(tree, cache, "-v", "--no-gitignore")
    plain = _check(tree, cache, "-v", "--no-gitignore", "--no-cache")
    import difflib

    for name, other in (("warm", warm), ("--no-cache", plain)):
        differences = list(difflib.unified_diff(
            cold.stdout.splitlines() + _lines(cold)[2],
            other.stdout.splitlines() + _lines(other)[2], "cold", name, lineterm="", n=0))
        assert not differences, "\n".join(differences[:40])
    assert cold.returncode == warm.returncode == plain.returncode
    assert len(_entries(cache)) > (100 if corpus.FULL else 20)


def test_files_beside_a_kustomization_are_not_cached(tmp_path: Path) -> None:
    """A patch file's result depends on the kustomization naming it: never cached."""
    tree, cache = _tree(tmp_path), tmp_path / "cache"
    folder = tree / "overlay"
    folder.mkdir()
    shutil.copy(FIXTURES / "pytorchjob" / "minimal.in.yaml", folder / "job.yaml")
    (folder / "kustomization.yaml").write_text("resources: [job.yaml]\n", encoding="utf-8")
    _settle()
    _check(tree, cache)
    entries = _entries(cache)
    assert not [path for path in entries if "overlay" in path]
    assert [path for path in entries if "pytorchjob" in path]


def test_kustomization_names_match_the_reader() -> None:
    from migrator.batch import resultcache
    from migrator.convert import kustomization

    assert resultcache.KUSTOMIZATIONS == kustomization.NAMES


def test_a_file_changed_just_now_leaves_the_entry_as_it_was(tmp_path: Path) -> None:
    """A file changed just before a run is processed but not recorded; its record of the
    earlier content stays (its stamp no longer matches, so it is never replayed) and the
    entry is not written again. Once settled, the file is recorded anew."""
    tree, cache = _tree(tmp_path), tmp_path / "cache"
    job = next((tree / "pytorchjob").glob("*-minimal.in.yaml"))
    _settle()
    _check(tree, cache)
    entry = max(cache.glob("results-*.json"), key=lambda path: path.stat().st_mtime_ns)
    written = entry.read_bytes()
    recorded = _entries(cache)[str(job)]
    job.write_text(job.read_text(encoding="utf-8").replace("PyTorchJob", "ConfigMapX", 1),
                   encoding="utf-8")
    ahead = time.time_ns() + 60 * 10**9  # "just now" whatever the machine's load
    os.utime(job, ns=(ahead, ahead))
    racy = _check(tree, cache)
    assert entry.read_bytes() == written
    assert _lines(racy) == _lines(_check(tree, cache, "--no-cache"))
    assert "ConfigMapX" not in str(_entries(cache)[str(job)])
    assert _entries(cache)[str(job)] == recorded
    past = time.time_ns() - 60 * 10**9
    os.utime(job, ns=(past, past))
    _settle()
    assert _lines(_check(tree, cache)) == _lines(racy)
    assert _entries(cache)[str(job)] != recorded
    assert _lines(_check(tree, cache)) == _lines(racy)
