"""CONVERT (Markdown): a legacy job in a block-quoted fence (``> ```yaml``, nested ``> >``)
is converted in place, its quote marks kept; one written out anywhere else (an indented code
block, a quote without a fence, HTML) is reported (E808): ``check`` never passes over a
legacy job in a page, and everything else stays byte-identical (issue 30, 21)."""

from __future__ import annotations

import pytest

from migrator.convert import markdown
from tests.test_s12_markdown_fences import JOB


def _quoted(text: str, marks: str) -> str:
    return "".join(f"{marks} {line}".rstrip() + "\n" for line in text.splitlines())


@pytest.mark.parametrize("marks", [">", "> >"])
def test_a_job_in_a_quoted_fence_is_converted(marks: str) -> None:
    page = "# Title\n\nSome prose.\n\n" + _quoted(f"Note:\n\n```yaml\n{JOB}```", marks) + \
        "\nAfter.\n"
    result = markdown.convert(page)
    assert [(d.status, d.source.get("kind")) for d in result.documents] == [
        ("converted", "PyTorchJob")]
    head, _, rest = result.text.partition("```yaml\n")
    assert head == page.partition("```yaml\n")[0]
    body, _, tail = rest.partition(f"{marks} ```\n")
    assert tail == "\nAfter.\n"
    assert "kind: TrainJob" in body
    assert all(line.startswith(marks) for line in body.splitlines())
    assert markdown.convert(result.text).documents == [] or all(
        d.status == "unchanged" for d in markdown.convert(result.text).documents)


def test_a_quote_ends_an_unclosed_quoted_fence() -> None:
    page = _quoted(f"```yaml\n{JOB}", ">") + "\nplain text\n"
    lines, blocks = markdown.scan(page)
    assert len(blocks) == 1
    assert "".join(lines[blocks[0].last:]) == "\nplain text\n"
    assert markdown.convert(page).documents[0].status == "converted"


@pytest.mark.parametrize("page", [
    "Example:\n\n" + "".join(f"    {line}\n" for line in JOB.splitlines()) + "\nEnd.\n",
    "Quoted:\n\n" + _quoted(JOB, ">") + "\nEnd.\n",
    "<pre>\n" + JOB + "</pre>\n",
], ids=["indented block", "quote without a fence", "html"])
def test_a_job_outside_any_fence_is_reported(page: str) -> None:
    result = markdown.convert(page)
    assert result.text == page
    assert [(d.status, d.source.get("kind"), [f.code for f in d.findings])
            for d in result.documents] == [("skipped", "PyTorchJob", ["E808"])]
    assert result.documents[0].line == page.splitlines().index(
        next(line for line in page.splitlines() if "kind: PyTorchJob" in line)) + 1


def test_prose_and_other_fences_stay_quiet() -> None:
    page = ("Use `kind: PyTorchJob` with `apiVersion: kubeflow.org/v1`.\n\n"
            "```text\n" + JOB + "```\n")
    assert markdown.convert(page).documents == []
