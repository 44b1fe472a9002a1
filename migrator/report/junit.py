"""REPORT: JUnit XML — a test suite per file, a test case per document.

A document with error findings is a ``failure`` (message: the first code and what it says;
text: every error with its fix), one that could not be read or written an ``error``, a
skipped one ``skipped`` with the reason; counts of tests, failures, errors and skipped and a
time on every suite (the Jenkins xUnit plugin's junit-10.xsd, which has no ``skipped`` on
``testsuites``). All text is XML 1.0-safe.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from xml.etree import ElementTree as ET

from migrator.report.markup import xml_text
from migrator.report.review import ReviewDocument
from migrator.report.safety import neutralise

ERROR_CODES = {"Y102", "Y106", "Y120", "Y121"}  # the document could not be processed at all


def render(documents: Sequence[ReviewDocument], seconds: float = 0.0) -> str:
    by_file: dict[str, list[ReviewDocument]] = defaultdict(list)
    for doc in documents:
        by_file[doc.file].append(doc)
    suites = ET.Element("testsuites", name="trainjob-migrate")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    share = seconds / max(1, len(documents))
    for file, docs in by_file.items():
        suite = ET.SubElement(suites, "testsuite", name=xml_text(file))
        counts = {"tests": len(docs), "failures": 0, "errors": 0, "skipped": 0, "passed": 0}
        for doc in docs:
            counts[_case(suite, file, doc, share)] += 1
        del counts["passed"]
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", f"{share * len(docs):.3f}")
    for key, value in totals.items():
        if key != "skipped":  # junit-10.xsd allows it on a testsuite, not on testsuites
            suites.set(key, str(value))
    suites.set("time", f"{seconds:.3f}")
    ET.indent(suites)
    text = ET.tostring(suites, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + neutralise(text, "&#58;", "&#91;") + "\n"


def _case(suite: ET.Element, file: str, doc: ReviewDocument, share: float) -> str:
    where = f" (line {doc.line})" if doc.line else ""
    case = ET.SubElement(suite, "testcase", classname=xml_text(file),
                         name=xml_text(f"{doc.title}{where}"), time=f"{share:.3f}")
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
