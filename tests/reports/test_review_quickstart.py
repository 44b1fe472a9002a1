"""Issue 31 (items 5 and 6): the reports of the README's quick start — every fixture converted
with companion runtimes — read as a reviewer would: the Markdown PR comment says what its
shortening left out and where the full report is, orders findings by severity, cuts ``where``
cells between path segments and renders a fix's code spans as code; the HTML report pairs
each legacy job with its TrainJob (the companion runtime is a new object), shows each card's
headline error and links finding codes to their documentation."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.goldens import FIXTURES
from tests.reports.helpers import check_html, check_markdown, cli

SEVERITY = {"error": 0, "warning": 1, "info": 2}
ROW = re.compile(r"^\| (error|warning|info) \| `(\w+)` \| (.*?) \| (.*) \|$")


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("quickstart")
    run = cli("convert", *sorted(FIXTURES.glob("*/*.in.yaml")), "--companion-runtimes",
              "-o", work / "out", "--report", work / "report.html", "--report",
              work / "r.md", "--report", work / "r.json")
    assert run.returncode in (0, 1), run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    return work


def _json(work: Path) -> dict[str, Any]:
    data = json.loads((work / "r.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_shortened_markdown_says_what_it_left_out(quickstart: Path) -> None:
    text = (quickstart / "r.md").read_text(encoding="utf-8")
    check_markdown(text)
    assert len(text) <= 65_536
    assert "```diff" not in text  # the quick start does not fit in full: diffs go first
    last = text.rstrip("\n").splitlines()[-1]
    data = _json(quickstart)
    info = data["summary"]["findings"]["info"]
    assert info > 0
    assert f"{info} info finding" in last, last
    converted = [d for d in data["documents"] if d["status"] == "converted"]
    assert re.search(r"\b\d+ diffs?\b", last), last
    assert "provenance" in last, last
    assert "the full report is `" in last, last
    assert "report.html" in last, last
    assert len(converted) > 0


def test_markdown_orders_codes_and_findings_by_severity(quickstart: Path) -> None:
    text = (quickstart / "r.md").read_text(encoding="utf-8")
    severities = [m.group(1) for m in re.finditer(r"^\| `\w+` \| [^|]* \| (error|warning|info)"
                                                  r" \| \d+ \|$", text, re.M)]
    assert len(severities) > 5
    assert severities == sorted(severities, key=SEVERITY.__getitem__), severities
    for block in text.split("<details>")[1:]:
        rows = [SEVERITY[m.group(1)] for m in map(ROW.match, block.splitlines()) if m]
        assert rows == sorted(rows)


def test_markdown_where_cells_are_cut_between_segments(quickstart: Path) -> None:
    text = (quickstart / "r.md").read_text(encoding="utf-8")
    paths = {f["path"] + (f" (line {f['line']})" if f.get("line") else "")
             for d in _json(quickstart)["documents"] for f in d["findings"] if f["path"]}
    cut = 0
    for match in filter(None, map(ROW.match, text.splitlines())):
        where = match.group(3).strip("`").replace("\\|", "|")
        if not where.startswith("…"):
            continue
        cut += 1
        tail = where[1:]
        whole = [p for p in paths if p.endswith(tail)]
        assert whole, where
        assert any(p[-len(tail) - 1] in "./" or tail.startswith("[") for p in whole), where
    assert cut > 0


def test_markdown_fix_texts_render_code_spans(quickstart: Path) -> None:
    text = (quickstart / "r.md").read_text(encoding="utf-8")
    rows = [m for m in map(ROW.match, text.splitlines()) if m]
    assert rows
    assert not [m.group(0) for m in rows if "\\`" in m.group(4)][:3]
    assert any("`torchrun train.py ...`" in m.group(4) for m in rows)
    check_html((quickstart / "report.html").read_text(encoding="utf-8"))


LEGACY = re.compile(r"^kind:\s*(PyTorchJob|TFJob|MPIJob|XGBoostJob|PaddleJob|JAXJob)\s*$", re.M)
RUNTIME = re.compile(r"^kind:\s*(Cluster)?TrainingRuntime\s*$", re.M)


def _payload(page: str) -> dict[str, Any]:
    blob = page.split('<script type="application/json" id="report-data">')[1]
    data = json.loads(blob.split("</script>")[0])
    assert isinstance(data, dict)
    return data


def test_html_pairs_the_legacy_job_with_its_trainjob(quickstart: Path) -> None:
    page = (quickstart / "report.html").read_text(encoding="utf-8")
    data = _payload(page)
    strings = data["s"]
    legacy = [d for d in data["d"] if d["st"] == "converted" and LEGACY.search(strings[d["b"]])]
    assert len(legacy) > 20
    opposite_runtime = [d for d in legacy if RUNTIME.search(strings[d["a"]])]
    assert opposite_runtime == []
    assert all(re.search(r"^kind:\s*TrainJob\s*$", strings[d["a"]], re.M) for d in legacy)
    with_runtime = [d for d in legacy if d.get("n")]
    assert len(with_runtime) > 20  # --companion-runtimes: each as a new object
    for item in with_runtime:
        for label, text, line in item["n"]:
            assert RUNTIME.search(strings[text])
            assert re.fullmatch(r"(Cluster)?TrainingRuntime/\S+", strings[label])
            assert line >= 1


def test_html_cards_show_their_headline_and_link_codes(quickstart: Path) -> None:
    page = (quickstart / "report.html").read_text(encoding="utf-8")
    data = json.loads((quickstart / "r.json").read_text(encoding="utf-8"))
    sections = re.findall(r'<section class="doc" .*?</section>', page, re.S)
    assert sections
    for section in sections:
        sev = re.search(r'data-sev="([a-z ]*)"', section)
        assert sev is not None
        if "error" in sev.group(1).split():
            headline = re.search(r'<p class="headline sev-error"><a href="#code-(\w+)">', section)
            assert headline is not None, section[:300]
            assert f'<tr id="code-{headline.group(1)}"' in page
    for code in data["summary"]["codes"]:
        assert re.search(rf'<tr id="code-{code}">.*?docs/codes\.md#{code.lower()}-[a-z0-9-]+',
                         page), code
    assert "github.com/example" not in page


def test_markdown_diff_pairs_the_job_with_its_trainjob(tmp_path: Path) -> None:
    """A report that fits in full: the diff is legacy job → TrainJob; the companion runtime
    follows as a new object (not diffed against the legacy job)."""
    run = cli("convert", FIXTURES / "pytorchjob" / "full.in.yaml", "--companion-runtimes",
              "-o", tmp_path / "out", "--report", tmp_path / "r.md")
    assert run.returncode in (0, 1), run.stderr[-2000:]
    text = (tmp_path / "r.md").read_text(encoding="utf-8")
    check_markdown(text)
    diff = text.split("```diff\n")[1].split("\n```")[0]
    assert "+kind: TrainJob" in diff
    assert "+kind: TrainingRuntime" not in diff
    assert "**New object** `TrainingRuntime/bert-ft-legacy`" in text
    new = text.split("**New object**")[1].split("```yaml\n")[1].split("\n```")[0]
    assert re.search(r"^kind: TrainingRuntime$", new, re.M)
