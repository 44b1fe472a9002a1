"""REPORT: SARIF 2.1.0 for code scanning — one rule per finding code (its explanation and
fix, and where docs/codes.md describes it), one result per finding at or above the chosen
level (``--sarif-level``: code scanning shows 5,000 results of a run and refuses more than
25,000), percent-encoded artifact URIs. No ``helpUri``: the project has no published
documentation address, and a made-up one would send reviewers nowhere."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import quote

from migrator.report.markup import code_span, doc_anchor
from migrator.report.review import ReviewDocument
from migrator.results import Finding
from migrator.version import __version__

LEVELS = {"error": "error", "warning": "warning", "info": "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
RANKS = {"error": 0, "warning": 1, "info": 2}  # --sarif-level: the lowest severity written
CODES_DOC = "docs/codes.md"
AREAS = {"Y": "input", "K": "detection", "M": "metadata", "R": "run-policy",
         "P": "pod-template", "C": "container", "F": "framework", "U": "unknown-field",
         "T": "upgrade", "V": "validation", "E": "embedded", "S": "template",
         "A": "waiver"}


class CodeInfo(Protocol):
    name: str
    severity: str
    summary: str
    why: str
    fix: str
    example: str


def render(documents: Sequence[ReviewDocument], codes: Mapping[str, CodeInfo],
           level: str = "info") -> str:
    """The SARIF log of a run; ``level`` (error, warning or info) is the lowest severity
    written: findings below it are counted in the run's properties, not listed."""
    lowest = RANKS[level]
    kept = [(doc, finding) for doc in documents for finding in doc.ordered_findings()
            if RANKS[finding.severity.value] <= lowest]
    used = sorted({finding.code for _, finding in kept})
    index = {code: i for i, code in enumerate(used)}
    rules = [_rule(code, codes.get(code)) for code in used]
    results = [_result(doc, finding, index) for doc, finding in kept]
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "trainjob-migrator", "version": __version__,
                            "semanticVersion": __version__, "rules": rules}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    left_out = sum(len(doc.findings) for doc in documents) - len(kept)
    if level != "info":
        run["properties"] = {"minimumLevel": LEVELS[level], "resultsLeftOut": left_out}
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=True) + "\n"


def uri(name: str) -> str:
    """A URI reference for a file name: relative names stay relative (as code scanning
    expects), absolute ones become ``file://`` URIs; every byte outside the unreserved set
    is percent-encoded (``my job #1 100%.yaml`` → ``my%20job%20%231%20100%25.yaml``)."""
    path = name.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    encoded = quote(os.fsencode(path), safe="/")
    return "file://" + encoded if path.startswith("/") else encoded


def _rule(code: str, doc: CodeInfo | None) -> dict[str, Any]:
    area = AREAS.get(code[:1], "other")
    if doc is None:
        return {"id": code, "shortDescription": {"text": code},
                "properties": {"tags": ["trainjob-migrator", area]}}
    where = f"{code} is described in {CODES_DOC} (#{doc_anchor(code, doc.name)})."
    return {"id": code, "name": doc.name,
            "shortDescription": {"text": doc.summary},
            "fullDescription": {"text": doc.why},
            "help": {"text": f"{doc.fix}\n\nExample: {doc.example}\n\n{where}",
                     "markdown": f"{doc.fix}\n\nExample: {code_span(doc.example)}\n\n"
                                 f"{where}"},
            "defaultConfiguration": {"level": LEVELS.get(doc.severity, "warning")},
            "properties": {"tags": ["trainjob-migrator", area, doc.severity]}}


def _result(doc: ReviewDocument, finding: Finding, index: Mapping[str, int]) -> dict[str, Any]:
    region: dict[str, int] = {"startLine": finding.line or doc.line or 1}
    if finding.column:
        region["startColumn"] = finding.column
    message = finding.message + (f" [{finding.path}]" if finding.path else "")
    result: dict[str, Any] = {"ruleId": finding.code, "ruleIndex": index[finding.code],
            "level": LEVELS[finding.severity.value], "message": {"text": message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": uri(doc.file)},
                "region": region}}],
            "partialFingerprints": {"trainjobMigrator/v1": f"{uri(doc.file)}:{finding.code}:"
                                                           f"{finding.path}"}}
    if finding.waived:  # accepted by a waiver: in the document itself, or on the run's
        result["suppressions"] = [{  # command line or config
            "kind": "inSource" if "(inline, line " in finding.waived else "external",
            "status": "accepted", "justification": finding.waived}]
    return result
