"""REPORT: SARIF 2.1.0 for code scanning — one rule per finding code (with a
``helpUri`` into docs/codes.md), one result per finding, percent-encoded artifact URIs."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import quote

from migrator.report.review import ReviewDocument
from migrator.results import Finding
from migrator.version import __version__

LEVELS = {"error": "error", "warning": "warning", "info": "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
HOMEPAGE = "https://github.com/example/trainjob-migrator"
CODES_DOC = f"{HOMEPAGE}/blob/main/docs/codes.md"
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


def render(documents: Sequence[ReviewDocument], codes: Mapping[str, CodeInfo]) -> str:
    used = sorted({f.code for doc in documents for f in doc.findings})
    index = {code: i for i, code in enumerate(used)}
    rules = [_rule(code, codes.get(code)) for code in used]
    results = [_result(doc, finding, index) for doc in documents
               for finding in doc.ordered_findings()]
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "trainjob-migrator", "version": __version__,
                            "semanticVersion": __version__, "informationUri": HOMEPAGE,
                            "rules": rules}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }]}
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


def help_uri(code: str) -> str:
    return f"{CODES_DOC}#{code.lower()}"


def _rule(code: str, doc: CodeInfo | None) -> dict[str, Any]:
    area = AREAS.get(code[:1], "other")
    if doc is None:
        return {"id": code, "helpUri": help_uri(code),
                "shortDescription": {"text": code},
                "properties": {"tags": ["trainjob-migrator", area]}}
    return {"id": code, "name": doc.name,
            "shortDescription": {"text": doc.summary},
            "fullDescription": {"text": doc.why},
            "helpUri": help_uri(code),
            "help": {"text": f"{doc.fix}\n\nExample: {doc.example}",
                     "markdown": f"{doc.fix}\n\nExample: `{doc.example}`\n\n"
                                 f"[{code} in the code reference]({help_uri(code)})"},
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
