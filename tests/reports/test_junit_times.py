"""Issue 31: the JUnit report carries the time each document took (converting or validating
it, and its share of its file's reading, comparing and writing), and only the JUnit report
does: every other report stays byte-identical from run to run."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from migrator.batch import files
from migrator.convert import document
from migrator.report import junit, review
from migrator.settings import ConvertOptions
from tests.goldens import FIXTURES
from tests.reports.helpers import check_xml, cli

FULL = FIXTURES / "pytorchjob" / "full.in.yaml"
MINIMAL = FIXTURES / "pytorchjob" / "minimal.in.yaml"
TF = FIXTURES / "tfjob" / "parameter-server.in.yaml"
PI = FIXTURES / "mpijob-v2beta1" / "pi.in.yaml"
JUNIT_XSD = Path(__file__).parent / "data" / "junit-10.xsd"
SLOW = 0.05  # seconds one document of the stream below is made to take


def _stream(tmp_path: Path) -> Path:
    """A file of three legacy jobs (the second one is made slow below)."""
    text = MINIMAL.read_text(encoding="utf-8")
    jobs = [re.sub(r"(?m)^(  name: )(\S+)", rf"\g<1>\g<2>-{n}", text, count=1)
            for n in range(3)]
    stream = tmp_path / "three.yaml"
    stream.write_text("---\n".join(jobs), encoding="utf-8")
    return stream


def test_each_testcase_has_the_time_its_document_took(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Times are measured per document where it is converted: one document that takes
    ``SLOW`` longer is the one whose testcase says so, and the file's suite time is the sum
    of its testcases'."""
    real = document.process

    def process(chunk: Any, index: int, *args: Any, **kwargs: Any) -> Any:
        if index == 1:
            time.sleep(SLOW)
        return real(chunk, index, *args, **kwargs)

    stream = _stream(tmp_path)
    files.process_file(str(stream), stream.name, ConvertOptions(), review=True)  # (warm:
    # the first document a process converts also carries the converter's loading)
    monkeypatch.setattr(document, "process", process)
    result = files.process_file(str(stream), stream.name, ConvertOptions(), review=True)
    assert result.seconds >= SLOW
    reviewed = review.collect(result)
    assert [d.status for d in reviewed] == ["converted"] * 3
    xml = junit.render(reviewed, 1.0, junit.timings(result))
    cases = [float(case.get("time", "")) for case in ET.fromstring(xml).iter("testcase")]
    assert len(cases) == 3
    assert cases[1] >= SLOW
    assert cases[0] < SLOW / 2
    assert cases[2] < SLOW / 2
    assert all(seconds > 0 for seconds in cases)
    suite = ET.fromstring(xml).find("testsuite")
    assert suite is not None
    assert abs(float(suite.get("time", "")) - sum(cases)) < 0.002
    assert abs(float(suite.get("time", "")) - result.seconds) < 0.002


def test_times_are_measured_when_validating(tmp_path: Path) -> None:
    converted = tmp_path / "out"
    assert cli("convert", FULL, TF, "-o", converted).returncode in (0, 1)
    run = cli("validate", converted, "--report", tmp_path / "v.xml")
    assert run.returncode in (0, 1), run.stderr
    cases = list(check_xml((tmp_path / "v.xml").read_text(encoding="utf-8")).iter("testcase"))
    assert cases
    assert all(float(case.get("time", "0")) > 0 for case in cases)


def _run(folder: Path, *inputs: Path) -> dict[str, str]:
    folder.mkdir()
    names = ["r.json", "r.md", "r.html", "r.sarif", "r.xml", "gl-code-quality.json"]
    args: list[str | Path] = []
    for name in names:
        args += ["--report", folder / name]
    run = cli("check", *inputs, *args)
    assert run.returncode == 1, run.stderr
    return {name: (folder / name).read_text(encoding="utf-8") for name in names}


def test_real_times_in_junit_only(tmp_path: Path) -> None:
    """Every testcase of a run has a time of its own (not zero, not one share for all);
    every other report is byte-identical across runs, and the JUnit report is once its
    times are masked; the report validates against junit-10.xsd."""
    stream = _stream(tmp_path)
    inputs = (FULL, TF, PI, MINIMAL, stream)
    first = _run(tmp_path / "a", *inputs)
    second = _run(tmp_path / "b", *inputs)
    for name in first:
        if name != "r.xml":
            assert first[name] == second[name], name
    masked = [re.sub(r'time="[0-9.]+"', 'time="T"', r["r.xml"]) for r in (first, second)]
    assert masked[0] == masked[1]
    suites = check_xml(first["r.xml"])
    cases = [float(case.get("time", "")) for case in suites.iter("testcase")]
    assert len(cases) >= len(inputs) + 2
    assert all(seconds > 0 for seconds in cases), cases
    assert len(set(cases)) > 1, cases
    for suite in suites.iter("testsuite"):
        inner = [float(case.get("time", "")) for case in suite.iter("testcase")]
        assert abs(float(suite.get("time", "")) - sum(inner)) <= 0.001 * (len(inner) + 1)
    assert float(suites.get("time", "")) >= sum(
        float(suite.get("time", "")) for suite in suites.iter("testsuite")) - 0.01
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema (test extra) is not installed")
    schema = xmlschema.XMLSchema(str(JUNIT_XSD))
    assert [str(error)[:300] for error in schema.iter_errors(first["r.xml"])] == []
