"""REPORT: JUnit XML: one test case per document, a failure per document with error findings."""

from __future__ import annotations

from collections import defaultdict
from xml.etree import ElementTree as ET

from migrator.report.review import ReviewDocument


def render(documents: list[ReviewDocument]) -> str:
    by_file: dict[str, list[ReviewDocument]] = defaultdict(list)
    for doc in documents:
        by_file[doc.file].append(doc)
    suites = ET.Element("testsuites", name="trainjob-migrate")
    total = failures = 0
    for file, docs in by_file.items():
        suite = ET.SubElement(suites, "testsuite", name=file)
        suite_failures = 0
        for doc in docs:
            case = ET.SubElement(suite, "testcase", classname=file,
                                 name=f"{doc.title} (line {doc.line})")
            errors = [f for f in doc.ordered_findings() if f.severity.value == "error"]
            if errors:
                suite_failures += 1
                failure = ET.SubElement(case, "failure", type=errors[0].code,
                                        message=f"{errors[0].code} {errors[0].message}")
                failure.text = "\n".join(f"{f.code} {f.path}: {f.message}\nFix: {f.hint}"
                                         for f in errors)
            elif doc.status == "skipped":
                ET.SubElement(case, "skipped", message=doc.status)
            others = [f for f in doc.ordered_findings() if f.severity.value != "error"]
            if others:
                out = ET.SubElement(case, "system-out")
                out.text = "\n".join(f"{f.severity.value} {f.code} {f.path}: {f.message}"
                                     for f in others)
        suite.set("tests", str(len(docs)))
        suite.set("failures", str(suite_failures))
        total += len(docs)
        failures += suite_failures
    suites.set("tests", str(total))
    suites.set("failures", str(failures))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") \
        + "\n"
