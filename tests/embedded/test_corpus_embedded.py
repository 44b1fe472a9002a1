"""Real pages and workflows from ../shared/corpus (read there, never copied; skipped when
../shared is absent): Markdown snippets convert to CRD-valid objects with the prose intact,
the Argo example's resource step converts with its conditions rewritten."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from migrator import convert_text
from migrator.convert import markdown
from migrator.load import textscan as scan
from migrator.load import yamlio
from migrator.results import TextResult
from migrator.settings import ConvertOptions
from tests.test_corpus import CRD_FILES, trainer_objects

ARGO_EXAMPLE = "argoproj-argo-workflows/examples/k8s-resource-log-selector.yaml"
KUEUE_PAGE = "kubernetes-sigs-kueue-v0.15.0/site/content/en/docs/tasks/run/trainjobs.md"


def markdown_pages(shared: Path) -> list[Path]:
    index = json.loads((shared / "corpus" / "index.json").read_text())
    pages = {shared / "corpus" / e["slug"] / e["path"] for e in index
             if markdown.is_markdown(e["path"])}
    assert len(pages) >= 3
    return sorted(pages)


@functools.cache
def _converted_page(page: Path, target: str) -> tuple[str, TextResult]:
    """A corpus page's text and its conversion (computed once per session: three tests per
    target read the same conversion; none changes it)."""
    text = page.read_bytes().decode("utf-8")
    return text, markdown.convert(text, ConvertOptions(target=target))


def _converted_objects(shared: Path, target: str, crdcheck: ModuleType,
                       legacy_only: bool) -> tuple[int, list[tuple[str, int, str]]]:
    """How many Trainer objects the corpus pages' converted snippets hold, and the CRD
    problems among them (from legacy jobs only, or from every snippet)."""
    validators = {kind: crdcheck.load_crd(shared / "crds" / f"trainer-v{target}.0" / name)
                  for kind, name in CRD_FILES.items()}
    converted, problems = 0, []
    for page in markdown_pages(shared):
        text, result = _converted_page(page, target)
        _, blocks = markdown.scan(text)
        _, after = markdown.scan(result.text)
        for before, now in zip(blocks, after, strict=True):
            if now.body == before.body or (legacy_only and not scan.legacy_jobs(before.body)):
                continue
            for loaded in crdcheck._yaml.load_all(now.body):
                for obj in trainer_objects(loaded):
                    converted += 1
                    kind, api, validator = validators[obj["kind"]]
                    problems += [(page.name, now.line, p)
                                 for p in crdcheck.problems(obj, kind, api, validator)]
    return converted, problems


@pytest.mark.parametrize("target", ["2.2", "2.3"])
def test_markdown_pages_convert_in_place(target: str, shared: Path) -> None:
    for page in markdown_pages(shared):
        text, result = _converted_page(page, target)
        assert all(f.code != "Y105" for f in result.findings), page
        assert all(d.status != "failed" for d in result.documents), page  # per snippet
        lines, blocks = markdown.scan(text)
        _, after = markdown.scan(result.text)
        assert len(after) == len(blocks), page
        out_lines = result.text.splitlines(keepends=True)
        for before, now in zip(blocks, after, strict=True):
            # the closing fence and what follows up to the next block are untouched
            assert lines[before.last:before.last + 1] == out_lines[now.last:now.last + 1]
        for document in result.documents:
            if document.status == "skipped":
                assert document.findings, (page, document.line)
        again = markdown.convert(result.text, ConvertOptions(target=target))
        assert again.text == result.text, page


@pytest.mark.parametrize("target", ["2.2", "2.3"])
def test_legacy_jobs_in_markdown_convert_to_valid_trainjobs(target: str, shared: Path,
                                                           crdcheck: ModuleType) -> None:
    converted, problems = _converted_objects(shared, target, crdcheck, legacy_only=True)
    assert problems == []
    assert converted >= 2


@pytest.mark.parametrize("target", ["2.2", "2.3"])
def test_every_converted_markdown_snippet_is_crd_valid(target: str, shared: Path,
                                                      crdcheck: ModuleType) -> None:
    """Pre-2.2 and prototype snippets too (the KEP pages): what is written is valid; what
    cannot be made valid is left as it was, with its findings."""
    converted, problems = _converted_objects(shared, target, crdcheck, legacy_only=False)
    assert problems == []
    assert converted >= 10


def test_kueue_page_shortcodes_survive(shared: Path) -> None:
    page = shared / "corpus" / KUEUE_PAGE
    text = page.read_text(encoding="utf-8")
    result = markdown.convert(text)
    assert result.changed
    for line in text.splitlines():
        if line.startswith("{{%"):
            assert line in result.text.splitlines()
    assert "Y103" not in {f.code for f in result.findings}


def test_argo_example_converts_with_conditions(shared: Path) -> None:
    text = (shared / "corpus" / ARGO_EXAMPLE).read_text(encoding="utf-8")
    result = convert_text(text, runtime="tensorflow")
    [document] = [d for d in result.documents if d.reportable]
    assert document.status == "converted"
    root: Any = yamlio.load(result.text)
    resource = root["spec"]["templates"][0]["resource"]
    assert resource["successCondition"] == "status.conditions.0.type == Complete"
    assert resource["failureCondition"].startswith("status.conditions.0.type == Failed")
    assert resource["action"] == "create"
    assert "manifest: |\n" in result.text  # still a literal block, same chomping
    assert "workflows.argoproj.io/workflow: {{workflow.name}}" in resource["manifest"]
    assert "kind: TrainJob" in resource["manifest"]
    assert {"E801", "E806"} <= {f.code for f in document.findings}
    assert convert_text(result.text, runtime="tensorflow").text == result.text


def test_argo_example_without_a_runtime_is_reported(shared: Path) -> None:
    text = (shared / "corpus" / ARGO_EXAMPLE).read_text(encoding="utf-8")
    result = convert_text(text)
    assert result.text == text
    assert "K105" in {f.code for f in result.findings}  # TFJob: no runtime for TensorFlow
