"""REPORT: JUnit XML — a test suite per file, a test case per document.

A document with error findings is a ``failure`` (message: the first code and what it says;
text: every error with its fix), one that could not be read or written an ``error``, a
skipped one ``skipped`` with the reason; counts of tests, failures, errors and skipped and a
time on every suite (the Jenkins xUnit plugin's junit-10.xsd, which has no ``skipped`` on
``testsuites``). All text is XML 1.0-safe.

Times are measured, not estimated (``timings``): a test case's is the time its document took
to convert (or validate), measured around that document where the batch converts it, plus
its share, in proportion, of the rest of its file's time (reading, the simulated
comparison, writing); a file whose documents were not timed one by one (pages, scripts,
snapshots; templated documents may not be either) shares its measured time equally among
them. The first document a process converts also carries the converter's loading. A suite's
time is the sum of its test cases', the report's the whole run's. Only this report carries
times: the others stay byte-identical from run to run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from xml.etree import ElementTree as ET

from migrator.report.markup import xml_text
from migrator.report.review import ReviewDocument
from migrator.report.safety import neutralise
from migrator.results import FileResult

ERROR_CODES = {"Y102", "Y106", "Y120", "Y121"}  # the document could not be processed at all


# (file name, document index) -> seconds, as ``timings`` gives them for each file
Times = dict[tuple[str, int], float]


def timings(file: FileResult) -> Times:
    """The time of each reported document of ``file``, keyed as its review document is
    (file name, index): the file's measured time (``FileResult.seconds``; the sum of its
    documents' when it was not measured as a whole) shared among its reported documents in
    proportion to the time each took to convert (``DocumentResult.seconds``), equally when
    none was timed. An unreadable file is one document (index 0) with the file's time."""
    if file.unreadable is not None:
        return {(file.name, 0): file.seconds}
    if file.result is None:
        return {}
    reported = [d for d in file.result.documents if d.reportable]
    if not reported:
        return {}
    total = max(file.seconds, sum(d.seconds for d in file.result.documents))
    timed = sum(d.seconds for d in reported)
    return {(file.name, d.index): total * (d.seconds / timed if timed > 0 else 1 / len(reported))
            for d in reported}


def render(documents: Sequence[ReviewDocument], seconds: float = 0.0,
           times: Times | None = None) -> str:
    """The JUnit report of ``documents``; ``seconds``: the whole run's time; ``times``: each
    document's (``timings``; a document without one has 0)."""
    times = times or {}
    by_file: dict[str, list[ReviewDocument]] = defaultdict(list)
    for doc in documents:
        by_file[doc.file].append(doc)
    suites = ET.Element("testsuites", name="trainjob-migrate")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for file, docs in by_file.items():
        suite = ET.SubElement(suites, "testsuite", name=xml_text(file))
        counts = {"tests": len(docs), "failures": 0, "errors": 0, "skipped": 0, "passed": 0}
        spent = 0.0
        for doc in docs:
            taken = times.get((doc.file, doc.index), 0.0)
            spent += taken
            counts[_case(suite, file, doc, taken)] += 1
        del counts["passed"]
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", f"{spent:.3f}")  # (junit-10.xsd: at most 3 decimals here)
    for key, value in totals.items():
        if key != "skipped":  # junit-10.xsd allows it on a testsuite, not on testsuites
            suites.set(key, str(value))
    suites.set("time", f"{seconds:.3f}")
    ET.indent(suites)
    text = ET.tostring(suites, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + neutralise(text, "&#58;", "&#91;") + "\n"


def _case(suite: ET.Element, file: str, doc: ReviewDocument, seconds: float) -> str:
    where = f" (line {doc.line})" if doc.line else ""
    case = ET.SubElement(suite, "testcase", classname=xml_text(file),
                         name=xml_text(f"{doc.title}{where}"),
                         time=f"{seconds:.6f}")  # (a document may take well under 1 ms)
    findings = doc.ordered_findings()
    errors = [f for f in findings if f.severity.value == "error" and not f.waived]
    others = [f for f in findings if f.severity.value != "error" or f.waived]
    outcome = "passed"
    if errors:
        first = errors[0]
        kind = "error" if first.code in ERROR_CODES else "failure"
        element = ET.SubElement(case, kind, type=first.code,
                                message=xml_text(f"{first.code} {first.message}"))
        element.text = xml_text("\n\n".join(
            f"{f.code} {f.path or '(document)'}: {f.message}\nFix: {f.hint}" for f in errors))
        outcome = "errors" if kind == "error" else "failures"
    elif doc.status == "skipped":
        reason = others[0].message if others else "not a legacy training job"
        ET.SubElement(case, "skipped", message=xml_text(f"skipped: {reason}"))
        outcome = "skipped"
    if others:
        out = ET.SubElement(case, "system-out")
        out.text = xml_text("\n".join(f"{f.severity.value} {f.code} {f.path}: {f.message}"
                                      + (f" (waived: {f.waived})" if f.waived else "")
                                      for f in others))
    return outcome
