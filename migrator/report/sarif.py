"""REPORT: SARIF 2.1.0 for GitHub code scanning: one rule per finding code, one result per
finding."""

from __future__ import annotations

import json
from typing import Any

from migrator.knowledge.specs import CodeDoc
from migrator.report.review import ReviewDocument
from migrator.version import __version__

LEVELS = {"error": "error", "warning": "warning", "info": "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render(documents: list[ReviewDocument], codes: dict[str, CodeDoc]) -> str:
    used = sorted({f.code for doc in documents for f in doc.findings})
    index = {code: i for i, code in enumerate(used)}
    rules = [_rule(code, codes[code]) for code in used if code in codes]
    results = [_result(doc, finding, index) for doc in documents
               for finding in doc.ordered_findings()]
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "trainjob-migrator", "version": __version__,
                            "informationUri": "https://github.com/kubeflow/trainer",
                            "rules": rules}},
        "results": results,
    }]}
    return json.dumps(log, indent=2) + "\n"


def _uri(name: str) -> str:
    """A relative URI reference for a file path (as GitHub code scanning expects)."""
    path = name.replace("\\", "/")
    return path[2:] if path.startswith("./") else path


def _rule(code: str, doc: CodeDoc) -> dict[str, Any]:
    return {"id": code, "name": doc.name,
            "shortDescription": {"text": doc.summary},
            "fullDescription": {"text": doc.why},
            "help": {"text": f"{doc.fix}\n\nExample: {doc.example}",
                     "markdown": f"{doc.fix}\n\nExample: `{doc.example}`"},
            "defaultConfiguration": {"level": LEVELS[doc.severity]}}


def _result(doc: ReviewDocument, finding: Any, index: dict[str, int]) -> dict[str, Any]:
    region: dict[str, int] = {"startLine": finding.line or doc.line or 1}
    if finding.column:
        region["startColumn"] = finding.column
    message = finding.message + (f" [{finding.path}]" if finding.path else "")
    return {"ruleId": finding.code, "ruleIndex": index[finding.code],
            "level": LEVELS[finding.severity.value], "message": {"text": message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(doc.file)},
                "region": region}}],
            "partialFingerprints": {"trainjobMigrator/v1": f"{doc.file}:{finding.code}:"
                                                           f"{finding.path}"}}
