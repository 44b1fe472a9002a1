"""Markdown pages, shell scripts and snapshots against their golden outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrator.convert import markdown
from migrator.convert import routing as files
from migrator.load import textscan as scan
from migrator.settings import ConvertOptions
from tests.embedded import goldens

CASES = [pytest.param(case, target, id=f"{case.parent.name}/{case.name}@{target}")
         for case in goldens.cases() for target in goldens.TARGETS]


def test_there_are_cases_of_each_kind() -> None:
    names = [c.name for c in goldens.cases()]
    assert any(markdown.is_markdown(n) for n in names)
    assert any(n.endswith(scan.SHELL_SUFFIXES) for n in names)
    assert any(n.endswith(scan.SNAPSHOT_SUFFIXES) for n in names)


@pytest.mark.parametrize(("case", "target"), CASES)
def test_golden_output(case: Path, target: str) -> None:
    text, findings = goldens.render(case, target)
    want_text, want_findings = goldens.expected(case, target)
    assert text == want_text, "drifted: run python -m tests.embedded.goldens and review"
    assert findings == want_findings


@pytest.mark.parametrize(("case", "target"), CASES)
def test_converting_twice_changes_nothing(case: Path, target: str) -> None:
    once = goldens.convert(case, target).text
    again = files.convert(case.name, once, ConvertOptions(target=target))
    assert again is not None
    assert again.text == once


@pytest.mark.parametrize("case", goldens.cases(), ids=lambda c: c.name)
def test_everything_but_the_converted_snippets_is_byte_identical(case: Path) -> None:
    source = goldens.read(case)
    result = goldens.convert(case)
    converted = [d for d in result.documents if d.changed]
    if not converted:
        assert result.text == source
        return
    # every line outside a converted snippet is still there, in order
    kept = source.splitlines(keepends=True)
    out = result.text.splitlines(keepends=True)
    changed_lines: set[int] = set()
    if markdown.is_markdown(case.name):
        _, blocks = markdown.scan(source)
        for block in blocks:
            if any(block.first < d.line <= block.last for d in converted):
                changed_lines.update(range(block.first, block.last))
    else:
        _, docs = scan.heredocs(source)
        for doc in docs:
            if any(doc.first < d.line <= doc.last for d in converted):
                changed_lines.update(range(doc.first, doc.last))
    untouched = [line for number, line in enumerate(kept) if number not in changed_lines]
    iterator = iter(out)
    assert all(any(line == candidate for candidate in iterator) for line in untouched)


def test_markdown_findings_carry_page_lines() -> None:
    case = goldens.FIXTURES / "markdown" / "snippets.in.md"
    lines = goldens.read(case).splitlines()
    result = goldens.convert(case)
    broken = next(d for d in result.documents if any(f.code == "Y101" for f in d.findings))
    assert broken.status == "skipped"  # one broken snippet never fails the page
    finding = next(f for f in broken.findings if f.code == "Y101")
    assert finding.line is not None
    assert "{name: broken" in lines[finding.line - 1]
    docs = [d for d in result.documents if d.source.get("name") == "docs-example"]
    assert lines[docs[0].line - 1].strip() == "apiVersion: kubeflow.org/v1"


def test_hugo_shortcodes_are_not_templates() -> None:
    page = ("{{< tabs >}}\n```yaml\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\n"
            "metadata:\n  name: {{< param \"name\" >}}\nspec:\n  pytorchReplicaSpecs:\n"
            "    Worker:\n      replicas: 1\n      template:\n        spec:\n"
            "          containers:\n"
            "            - name: pytorch\n              image: x/y:1\n```\n{{< /tabs >}}\n")
    result = markdown.convert(page)
    assert [d.status for d in result.documents] == ["converted"]
    assert '  name: {{< param "name" >}}\n' in result.text
    assert "kind: TrainJob" in result.text
    assert "Y103" not in {f.code for f in result.findings}


def test_a_page_without_snippets_is_untouched() -> None:
    page = "# Title\n\n```python\nprint('kubeflow.org')\n```\n"
    assert markdown.convert(page).text == page
    assert markdown.convert(page).documents == []
