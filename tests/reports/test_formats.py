"""Issue 17 on small runs: what each report format and CI channel says and how it is ordered."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.goldens import FIXTURES
from tests.reports.helpers import (
    check_html,
    check_markdown,
    check_xml,
    cli,
    workflow_commands,
)

FULL = FIXTURES / "pytorchjob" / "full.in.yaml"
MINIMAL = FIXTURES / "pytorchjob" / "minimal.in.yaml"
TF = FIXTURES / "tfjob" / "parameter-server.in.yaml"
PI = FIXTURES / "mpijob-v2beta1" / "pi.in.yaml"
CASES = [FULL, TF, PI, MINIMAL]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    work = tmp_path_factory.mktemp("formats")
    names = ["r.json", "r.md", "r.html", "r.sarif", "r.xml"]
    args: list[str] = []
    for name in names:
        args += ["--report", str(work / name)]
    run = cli("convert", *CASES, "-o", work / "out", *args)
    assert run.returncode == 1, run.stderr
    return {name: (work / name).read_text(encoding="utf-8") for name in names}


def _documents(data: dict[str, object]) -> list[dict[str, object]]:
    documents = data["documents"]
    assert isinstance(documents, list)
    return documents


def test_markdown_codes_table_has_names_and_severities(reports: dict[str, str]) -> None:
    text = reports["r.md"]
    check_markdown(text)
    codes = json.loads(reports["r.json"])["summary"]["codes"]
    for code in codes:
        row = next(line for line in text.splitlines() if line.startswith(f"| `{code}`"))
        assert re.search(r"\| (error|warning|info) \|", row), row
        assert re.search(r"\| [a-z0-9]+(-[a-z0-9]+)+ \|", row), row  # the code's name


def test_markdown_orders_errors_first(reports: dict[str, str]) -> None:
    text = reports["r.md"]
    icons = [line.split("<summary>")[1][:2] for line in text.splitlines()
             if "<summary>" in line]
    order = {"❌": 0, "⚠": 1, "✅": 2}
    ranks = [order.get(icon[0], 3) for icon in icons]
    assert ranks == sorted(ranks), icons


def test_html_overview_first_and_documents_ordered(reports: dict[str, str]) -> None:
    page = reports["r.html"]
    parser = check_html(page)
    assert {"overview", "filters"} <= parser.ids
    assert page.index('id="overview"') < page.index('class="doc')
    statuses = re.findall(r'class="doc[^"]*" [^>]*data-status="([a-z-]+)"', page)
    rank = {"failed": 0, "warnings": 1, "converted": 2, "skipped": 3, "unchanged": 3}
    assert [rank[s] for s in statuses] == sorted(rank[s] for s in statuses), statuses
    data = json.loads(reports["r.json"])
    for code in data["summary"]["codes"]:
        assert f'id="code-{code}"' in page  # each row of the codes table
        assert f'href="#code={code}"' in page  # links to the documents with that code
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp is not None
    assert "default-src 'none'" in csp.group(1)
    assert "'unsafe-inline'" not in csp.group(1).split("script-src")[1].split(";")[0]


def test_html_failed_documents_have_no_provenance(reports: dict[str, str]) -> None:
    page = reports["r.html"]
    failed = re.findall(r'<section class="doc"[^>]*data-status="failed".*?</section>', page,
                        flags=re.S)
    assert failed, "the cases convert without a failed document"
    for section in failed:
        assert "Provenance" not in section


def test_sarif_help_and_information_uris(reports: dict[str, str]) -> None:
    log = json.loads(reports["r.sarif"])
    driver = log["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver  # no published address: none made up (issue 31)
    for rule in driver["rules"]:
        assert "helpUri" not in rule
        assert re.search(r"docs/codes\.md \(#[a-z]\d{3}-[a-z0-9-]+\)", rule["help"]["text"]), rule
        assert rule["properties"]["tags"]


def test_junit_counts_and_readable_messages(reports: dict[str, str]) -> None:
    suites = check_xml(reports["r.xml"])
    data = json.loads(reports["r.json"])
    documents = _documents(data)
    assert suites.get("tests") == str(len(documents))
    for attribute in ("failures", "errors", "time"):
        assert suites.get(attribute) is not None, attribute
    for suite in suites.iter("testsuite"):
        for attribute in ("tests", "failures", "errors", "skipped", "time", "name"):
            assert suite.get(attribute) is not None, attribute
    for failure in suites.iter("failure"):
        message = failure.get("message", "")
        assert re.match(r"[A-Z]\d{3} ", message), message
        assert "Fix:" in (failure.text or "")
    for skipped in suites.iter("skipped"):
        assert skipped.get("message") not in (None, "", "skipped")


def test_docs_codes_has_an_anchor_per_code() -> None:
    from tests.goldens import ROOT

    text = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    data = (ROOT / "mappings" / "codes.yaml").read_text(encoding="utf-8")
    codes = re.findall(r"^([A-Z]\d{3}):", data, flags=re.M)
    for code in codes:
        assert re.search(rf"^#+ {code} ", text, flags=re.M) or \
            f'<a id="{code.lower()}"></a>' in text, code


def test_annotations_are_capped_with_a_final_notice(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for index in range(15):
        shutil.copy(FULL, folder / f"j{index:02d}.yaml")
    run = cli("check", "many", github=True, cwd=tmp_path)
    commands = workflow_commands(run.stdout + run.stderr)
    errors = [c for c in commands if c.startswith("::error ")]
    warnings = [c for c in commands if c.startswith("::warning ")]
    assert len(errors) <= 10
    assert len(warnings) <= 10
    assert any(c.startswith("::notice") and "more in the report" in c for c in commands)
    assert not any("file=./" in c for c in commands)


def test_step_summary_escapes_cells_and_names_templates(tmp_path: Path) -> None:
    folder = tmp_path / "a|b"
    folder.mkdir()
    shutil.copy(FULL, folder / "x|y.yaml")
    summary = tmp_path / "summary.md"
    cli("check", folder, github=True, summary=summary)
    text = summary.read_text(encoding="utf-8")
    check_markdown(text)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "x" in line]
    assert rows
    for row in rows:
        assert len(re.findall(r"(?<!\\)\|", row)) == 6, row  # five cells, no split
    assert "/None" not in text
