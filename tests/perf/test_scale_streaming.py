"""Issue 18 goal 5 (scale): a run streams its results. The tree is walked as files are
processed (never listed first), and the runner keeps only what the chosen outputs need: counts
for files without documents, the slim results of the others only when a report lists them.
Reports and exit codes are those of a run that kept every result. (Memory itself is measured
by ``benchmarks/bench.py --only scale``, never here.)"""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from migrator.batch import discovery, pipeline
from migrator.batch.runner import _Kept
from migrator.report import jsonreport
from migrator.results import FileResult, exit_code
from migrator.settings import ConvertOptions
from tests.goldens import FIXTURES

ORDINARY = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata: {{a: b}}\n"


def _tree(root: Path, ordinary: int = 30) -> Path:
    tree = root / "tree"
    for index in range(ordinary):
        path = tree / f"app{index % 3}" / f"cm{index}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ORDINARY.format(i=index), encoding="utf-8")
    for path in sorted(FIXTURES.glob("*/*.in.yaml"))[::4]:
        target = tree / "jobs" / path.parent.name / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    (tree / "jobs" / "broken.yaml").write_bytes(b"kind: PyTorchJob\n\xff\xfe not text\n")
    return tree


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[FileResult]:
    tree = _tree(tmp_path_factory.mktemp("scale"))
    return list(pipeline.process_paths((str(tree),), ConvertOptions(), render=False,
                                       keep_text=False))


def test_results_cover_every_kind_of_file(results: list[FileResult]) -> None:
    assert any(f.unreadable is not None for f in results)
    assert any(f.result is not None and not f.result.documents for f in results)
    assert any(f.result is not None and f.result.changed for f in results)
    assert any(f.findings for f in results)


@pytest.mark.parametrize("listing", [True, False])
def test_kept_results_give_the_report_of_every_result(results: list[FileResult],
                                                      listing: bool) -> None:
    kept = _Kept(listing=listing, target="2.2")
    for file in results:
        kept.add(file)
    everything = jsonreport.build([f.slim() for f in results], "2.2")
    built = kept.report()
    assert jsonreport.to_json(built["summary"]) == jsonreport.to_json(everything["summary"])
    if listing:
        assert jsonreport.to_json(built) == jsonreport.to_json(everything)
    for fail_on in ("never", "info", "warning", "error"):
        for legacy_fails in (True, False):
            assert kept.verdict.exit_code(fail_on, legacy_fails=legacy_fails) == \
                exit_code(results, fail_on, legacy_fails=legacy_fails)


def test_files_without_documents_are_only_counted(results: list[FileResult]) -> None:
    listing, counting = _Kept(listing=True, target="2.2"), _Kept(listing=False, target="2.2")
    for file in results:
        listing.add(file)
        counting.add(file)
    assert counting.files == []
    assert all(f.unreadable is not None or (f.result is not None and f.result.documents)
               for f in listing.files)
    assert len(listing.files) < len(results)
    assert listing.report()["summary"]["files"] == len(results)


def _counted(items: list[tuple[str, str]], taken: list[int]) -> Iterator[tuple[str, str]]:
    for item in items:
        taken[0] += 1
        yield item


@pytest.mark.parametrize("jobs", [1, 2])
def test_files_are_processed_while_the_tree_is_walked(tmp_path: Path, jobs: int,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAINJOB_MIGRATE_NO_CACHE", "1")  # the results cache lists the run
    tree = _tree(tmp_path, ordinary=60)
    found = list(discovery.discover((str(tree),)))
    found.sort(key=lambda item: "jobs" in item[0])  # ordinary manifests first
    taken = [0]
    stream = pipeline.process_paths((str(tree),), ConvertOptions(), jobs=jobs,
                                    found=_counted(found, taken), render=False,
                                    max_bytes=1 << 20, keep_text=False)
    first = next(stream)
    assert first.name == found[0][0]
    assert taken[0] <= pipeline.PARALLEL_THRESHOLD + 1 < len(found)
    rest = list(stream)
    assert [f.name for f in itertools.chain([first], rest)] == [name for name, _ in found]


def test_a_walk_is_walked_again_each_time(tmp_path: Path) -> None:
    tree = _tree(tmp_path, ordinary=5)
    walk = discovery.Walk((str(tree),))
    assert list(walk) == list(walk) == list(discovery.discover((str(tree),)))


def test_a_file_named_twice_is_processed_once(tmp_path: Path) -> None:
    tree = _tree(tmp_path, ordinary=5)
    one = str(tree / "app0" / "cm0.yaml")
    for paths in ((str(tree), one), (one, str(tree)), (one, one)):
        names = [name for name, _ in discovery.discover(paths)]
        assert len(names) == len(set(names))
        assert sum(1 for name in names if name.endswith("cm0.yaml")) == 1


class _CountedWalk:
    """A re-iterable walk (as ``discovery.Walk``) that counts the files handed out."""

    def __init__(self, items: list[tuple[str, str]]) -> None:
        self.items, self.taken = items, 0

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for item in self.items:
            self.taken += 1
            yield item


@pytest.mark.parametrize("cache", [False, True])
def test_a_run_starts_before_the_walk_ends(tmp_path: Path, cache: bool,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing iterates the whole walk before the first result: not the kustomization
    reader (no overlay in the tree), not the results cache."""
    if cache:
        monkeypatch.delenv("TRAINJOB_MIGRATE_NO_CACHE", raising=False)
        monkeypatch.setenv("TRAINJOB_MIGRATE_CACHE_DIR", str(tmp_path / "cache"))
    else:
        monkeypatch.setenv("TRAINJOB_MIGRATE_NO_CACHE", "1")
    tree = _tree(tmp_path, ordinary=60)
    walk = _CountedWalk(list(discovery.discover((str(tree),))))
    stream = pipeline.process_paths((str(tree),), ConvertOptions(), found=walk, render=False,
                                    keep_text=False)
    next(stream)
    assert walk.taken <= pipeline.PARALLEL_THRESHOLD + 1 < len(walk.items)
    assert len(list(stream)) == len(walk.items) - 1
