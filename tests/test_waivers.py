"""Issue 31 item 1: per-finding waivers (--allow CODE, the config's allow:, inline
``# trainjob-migrate: allow CODE -- reason``), listed as waived in every report; an elastic
job's size is the waiver's choice."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from tests.goldens import ROOT
from tests.test_cli import run

ELASTIC = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {name}
spec:
  nprocPerNode: "1"
  elasticPolicy:
    rdzvBackend: c10d
    minReplicas: 1
    maxReplicas: 4
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: repo/train:1
            command: [torchrun, train.py]
"""
# an error that is not F501 (a Kubernetes-invalid job name, M101)
BAD_NAME = ELASTIC.replace("  elasticPolicy:\n    rdzvBackend: c10d\n    minReplicas: 1\n"
                           "    maxReplicas: 4\n", "")


def _job(tmp_path: Path, text: str, name: str = "job.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _num_nodes(text: str) -> int:
    """The converted TrainJob's spec.trainer.numNodes."""
    assert "kind: TrainJob" in text
    found = re.findall(r"^    numNodes: (\d+)$", text, re.M)
    assert len(found) == 1, text
    return int(found[0])


def test_elastic_job_blocks_without_a_waiver(tmp_path: Path) -> None:
    job = _job(tmp_path, ELASTIC.format(name="elastic"))
    result = run("convert", str(job))
    assert result.returncode == 1
    assert "kind: PyTorchJob" in result.stdout
    assert "error F501" in result.stderr


@pytest.mark.parametrize(("choice", "nodes"), [("max", 4), ("min", 1), ("replicas", 2)])
def test_allow_names_the_elastic_size(tmp_path: Path, choice: str, nodes: int) -> None:
    job = _job(tmp_path, ELASTIC.format(name="elastic"))
    result = run("convert", str(job), "--allow", f"F501={choice} -- sized by the team")
    assert result.returncode == 0, result.stderr
    assert _num_nodes(result.stdout) == nodes
    # the waived error is still listed, with the size chosen and who accepted it
    line = next(x for x in result.stderr.splitlines() if " F501 " in x)
    assert line.split(": ")[1].startswith("error F501")
    assert f"numNodes: {'the replica count' if choice == 'replicas' else choice + 'Replicas'}" \
           f" {nodes}, as chosen by F501={choice}" in line
    assert f"(waived: F501={choice} (--allow): sized by the team)" in line
    assert "1 waived finding (F501)" in result.stderr


def test_allow_waives_only_its_code(tmp_path: Path) -> None:
    """--allow F501 is not --allow-lossy: another error still blocks the document."""
    job = _job(tmp_path, ELASTIC.format(name="Bad_Name"))
    result = run("convert", str(job), "--allow", "F501=max")
    assert result.returncode == 1
    assert "kind: PyTorchJob" in result.stdout
    errors = [x for x in result.stderr.splitlines() if ": error " in x]
    assert any(" F501 " in x and "(waived: " in x for x in errors)
    assert any(" M101 " in x and "(waived: " not in x for x in errors)


@pytest.mark.parametrize("given", ["F501", "F501=most", "M101=max", "elastic", "F501="])
def test_a_waiver_that_cannot_be_read_is_a_usage_error(tmp_path: Path, given: str) -> None:
    job = _job(tmp_path, ELASTIC.format(name="elastic"))
    result = run("check", str(job), "--allow", given)
    assert result.returncode == 2
    assert "--allow: " in result.stderr
    assert "Traceback" not in result.stderr


def test_config_allow_and_unused_waiver(tmp_path: Path) -> None:
    _job(tmp_path, ELASTIC.format(name="elastic"))
    (tmp_path / ".trainjob-migrate.yaml").write_text(
        "allow:\n  - F501=max -- agreed in review 42\n  - K105 -- never happens here\n")
    result = run("check", ".", "--report", "r.json", cwd=tmp_path)
    assert result.returncode == 1  # check: a legacy job is there
    assert "would convert to TrainJob/elastic" in result.stdout
    assert "(waived: F501)" in result.stdout
    unused = [x for x in result.stdout.splitlines() if " A102 " in x]
    assert unused == [f"config {tmp_path / '.trainjob-migrate.yaml'}: warning A102 waiver K105 "
                      f"(config {tmp_path / '.trainjob-migrate.yaml'}) matched no finding of "
                      "this run"]
    report = json.loads((tmp_path / "r.json").read_text())
    jsonschema.validate(report, json.loads((ROOT / "schemas" / "report.schema.json")
                                           .read_text()))
    origin = f"config {tmp_path / '.trainjob-migrate.yaml'}"
    assert report["waivers"] == [
        {"code": "F501", "choice": "max", "reason": "agreed in review 42", "origin": origin,
         "used": 1},
        {"code": "K105", "choice": None, "reason": "never happens here", "origin": origin,
         "used": 0}]
    waived = [f for d in report["documents"] for f in d["findings"] if "waived" in f]
    assert [(f["code"], f["severity"], f["waived"]) for f in waived] == [
        ("F501", "error", f"F501=max ({origin}): agreed in review 42")]


def test_unused_waiver_fails_on_warning(tmp_path: Path) -> None:
    job = _job(tmp_path, BAD_NAME.format(name="plain"))
    # the job's own warning (R214: its default restart policy) is waived in both runs, so only
    # the unused waiver can fail the first
    own = ("--allow", "R214")
    converted = run("convert", str(job), "-o", str(tmp_path / "out"), "--fail-on", "warning",
                    "--allow", "F501=max", *own)
    assert "warning A102 waiver F501=max (--allow) matched no finding" in converted.stderr
    assert converted.returncode == 1
    clean = run("convert", str(job), "-o", str(tmp_path / "out2"), "--fail-on", "warning", *own)
    assert clean.returncode == 0, clean.stderr


def test_inline_waiver_applies_to_its_document_only(tmp_path: Path) -> None:
    text = ("# trainjob-migrate: allow F501=max -- fixed at 4 for the nightly run\n"
            + ELASTIC.format(name="first") + "---\n" + ELASTIC.format(name="second"))
    job = _job(tmp_path, text)
    result = run("convert", str(job))
    assert result.returncode == 1
    first, second = result.stdout.split("---\n")
    assert _num_nodes(first) == 4
    assert "kind: PyTorchJob" in second
    assert "# trainjob-migrate: allow F501=max" in first  # the comment is kept
    lines = result.stderr.splitlines()
    assert any(" F501 " in x and "(waived: F501=max (inline, line 1): fixed at 4 for the "
               "nightly run)" in x for x in lines)
    assert any(" F501 " in x and "waived" not in x for x in lines)  # the second job's


def test_unused_and_unreadable_inline_waivers_are_findings(tmp_path: Path) -> None:
    text = ("# trainjob-migrate: allow F502 -- stale\n" + BAD_NAME.format(name="one") + "---\n"
            "# trainjob-migrate: allow F501\n" + ELASTIC.format(name="two"))
    job = _job(tmp_path, text)
    result = run("check", str(job), "--report", str(tmp_path / "r.json"))
    report = json.loads((tmp_path / "r.json").read_text())
    found = {(d["source"]["name"], f["code"], f["line"]) for d in report["documents"]
             for f in d["findings"] if f["code"].startswith("A")}
    second = text.count("\n", 0, text.index("# trainjob-migrate: allow F501\n")) + 1
    assert found == {("one", "A101", 1), ("two", "A103", second)}
    assert "two: needs manual work (F501)" in result.stdout  # the bad waiver accepted nothing


def test_waivers_in_sarif_junit_markdown_html(tmp_path: Path) -> None:
    job = _job(tmp_path, ELASTIC.format(name="elastic"))
    inline = _job(tmp_path, "# trainjob-migrate: allow F501=min -- small is enough\n"
                  + ELASTIC.format(name="other"), "inline.yaml")
    out = {s: tmp_path / f"r.{s}" for s in ("sarif", "xml", "md", "html")}
    result = run("check", str(job), str(inline), "--allow", "F501=max -- reviewed <b>",
                 *(x for p in out.values() for x in ("--report", str(p))))
    assert result.returncode == 1, result.stderr
    sarif = json.loads(out["sarif"].read_text())
    suppressed = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]:
                  r["suppressions"] for r in sarif["runs"][0]["results"] if "suppressions" in r}
    assert {name.rsplit("/", 1)[-1]: s[0]["kind"] for name, s in suppressed.items()} == {
        "job.yaml": "external", "inline.yaml": "inSource"}
    assert all(s[0]["status"] == "accepted" for s in suppressed.values())
    junit = ET.parse(out["xml"]).getroot()
    assert junit.get("failures") == "0"  # a waived error is not a failure
    assert "waived: F501=max (--allow): reviewed <b>" in ET.tostring(junit, "unicode") \
        .replace("&lt;", "<").replace("&gt;", ">")
    markdown = out["md"].read_text()
    assert "| `F501=max` | --allow | reviewed \\<b\\> | 1 |" in markdown  # only job.yaml's
    html = out["html"].read_text()
    assert "<section id='waivers'>" in html
    assert "reviewed &lt;b&gt;" in html
    assert "reviewed <b>" not in html


def test_the_f501_fix_names_the_waiver_that_chooses_the_size() -> None:
    """Each fix text matches what the tool does: an elastic job converts once a waiver names
    its size (the fix used to say the converter picks the replica count by itself)."""
    result = run("explain", "F501")
    assert result.returncode == 0
    fix = result.stdout.split("Fix: ", 1)[1]
    assert "--allow F501=min, F501=max" in fix
    assert "F501=replicas" in fix
