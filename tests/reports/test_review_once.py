"""Issue 13: the simulated differences of the review reports are computed once, where a file
is converted (on the worker under ``-j N``), and travel on the document results
(``DocumentResult.effective``); the reports read them there and convert nothing."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from migrator.batch import explain, files, pipeline
from migrator.convert.text import convert_text, may_be_template
from migrator.knowledge import catalog
from migrator.results import (
    DocumentResult,
    FileResult,
    PodComparison,
    PodDifference,
    TextResult,
)
from migrator.settings import ConvertOptions
from tests.goldens import FIXTURES
from tests.test_cli import run

INPUTS = sorted(p for p in FIXTURES.glob("*/*.in.yaml")
                if "kubeflow.org" in p.read_text(encoding="utf-8"))


def _tree(root: Path) -> Path:
    """A small tree of fixture inputs (every third one of every kind: jobs that convert,
    that fail, templates), enough files that -j 2 really runs in parallel."""
    chosen = INPUTS[::3]
    assert len(chosen) >= pipeline.PARALLEL_THRESHOLD
    for path in chosen:
        target = root / "tree" / path.parent.name / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return root / "tree"


def _reports(cwd: Path, *args: str) -> dict[str, bytes]:
    names = {"md": "r.md", "html": "r.html", "json": "r.json", "sarif": "r.sarif"}
    for name in names.values():
        (cwd / name).unlink(missing_ok=True)
    result = run(*args, *[x for n in names.values() for x in ("--report", n)], cwd=cwd)
    assert result.returncode in (0, 1), result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    return {kind: (cwd / name).read_bytes() for kind, name in names.items()}


@pytest.mark.parametrize("command", [["check"], ["convert", "-o", "out"]])
def test_review_reports_are_identical_with_one_and_two_jobs(tmp_path: Path,
                                                            command: list[str]) -> None:
    _tree(tmp_path)
    serial = _reports(tmp_path, *command, "tree", "-j", "1")
    parallel = _reports(tmp_path, *command, "tree", "-j", "2")
    assert b"\"x\":[" in serial["html"]  # the comparison is in the report
    for kind in serial:
        assert serial[kind] == parallel[kind], kind


def test_reports_read_the_comparison_from_the_results(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain YAML stream is never converted a second time for its comparison (only the
    documents an error blocked are converted again, as --allow-lossy converts them)."""
    tree = _tree(tmp_path)
    for path in tree.rglob("*.yaml"):
        if may_be_template(path.read_text(encoding="utf-8")):
            path.unlink()  # a template is compared from a conversion of its own
    expected = _reports(tmp_path, "check", "tree", "-j", "1")
    assert b"\"x\":[" in expected["html"]

    def second_conversion(*args: object, **kwargs: object) -> TextResult:
        raise AssertionError("the file was converted a second time")

    monkeypatch.setattr(explain, "convert_text", second_conversion)
    assert _reports(tmp_path, "check", "tree", "-j", "1") == expected


def test_runs_without_review_reports_never_compare(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)

    def annotate(*args: object, **kwargs: object) -> TextResult:
        raise AssertionError("compared without a review report")

    monkeypatch.setattr(explain, "annotate", annotate)
    for args in (["check", "tree"], ["check", "tree", "--report", "r.json"],
                 ["convert", "tree", "-o", "out", "--report", "r.json"]):
        result = run(*args, cwd=tmp_path)
        assert result.returncode in (0, 1), result.stderr[-2000:]


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_comparison_from_the_conversion_equals_a_second_lossy_conversion(path: Path) -> None:
    """What the batch computes from its one conversion (rendered, then given back unrendered
    to ``check``) is what converting again as --allow-lossy gives (explain-diff's way)."""
    text = path.read_text(encoding="utf-8")
    options = ConvertOptions()
    loaded = catalog.load()
    explain.forget()
    reviewed = files.convert_or_audit(text, options, render=False, audit=False, review=True)
    plain = convert_text(text, options=options, render=False)
    assert reviewed.text == plain.text
    assert [replace(d, effective=None) for d in reviewed.documents] == plain.documents
    again = {item.line: item for item in explain.explain(text, loaded, options,
                                                        max_pods=explain.REVIEW_PODS)}
    if not plain.changed:
        assert all(d.effective is None for d in reviewed.documents)
        return
    for doc in reviewed.documents:
        item = again.get(doc.line)
        if item is None:
            assert doc.effective is None
            continue
        assert doc.effective is not None
        lines = explain._lines(item)
        assert [d.describe() for d in doc.effective.differences] == \
            [f"[{group}] {change}  [{explain._codes(codes)}]" for group, change, codes in lines]
        assert [d.named_by for d in doc.effective.differences] == [c for _, _, c in lines]
        assert list(doc.effective.notes) == item.notes


def test_a_large_job_is_not_simulated_for_a_review_report() -> None:
    """A review report simulates jobs of up to REVIEW_PODS pods (a hostile ``replicas`` would
    otherwise cost minutes per document); it says so, and explain-diff still simulates."""
    text = (FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text(encoding="utf-8")
    text = text.replace("replicas: 2", f"replicas: {explain.REVIEW_PODS + 1}")
    assert f"replicas: {explain.REVIEW_PODS + 1}" in text
    explain.forget()
    result = explain.annotate(text, convert_text(text, options=ConvertOptions()),
                              ConvertOptions(), plain=True)
    (doc,) = result.documents
    assert doc.effective is not None
    assert doc.effective.differences == ()
    assert doc.effective.notes == (f"{explain.REVIEW_PODS + 1} pods: review reports simulate "
                                   f"jobs of up to {explain.REVIEW_PODS} pods; run "
                                   "`explain-diff` on this file",)
    (item,) = explain.explain(text, catalog.load(), ConvertOptions())
    assert item.differences


def test_the_comparison_is_a_plain_immutable_value() -> None:
    difference = PodDifference("env", "[Worker] env: X added: 1", ("F506",))
    comparison = PodComparison((difference,), ("a note",))
    doc = DocumentResult(0, 1, "converted", "x", effective=comparison)
    with pytest.raises(AttributeError):
        comparison.differences = ()  # frozen: FrozenInstanceError, an AttributeError
    assert difference.describe() == "[Worker] env: X added: 1"
    slim = FileResult("f", "f", result=TextResult("x", [doc])).slim()
    assert slim.result is not None
    assert slim.result.documents[0].effective is None
