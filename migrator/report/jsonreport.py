"""REPORT: the JSON report (the machine contract) and its JSON Schema."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from migrator.results import FileResult, Finding, Severity
from migrator.version import __version__

SCHEMA_VERSION = 2
STATUSES = ("converted", "unchanged", "skipped", "failed")


def build(files: list[FileResult], target: str) -> dict[str, Any]:
    """The JSON report (schemaVersion 2, documented in the README)."""
    documents: list[dict[str, Any]] = []
    for file in files:
        if file.unreadable is not None:
            documents.append(_unreadable(file))
            continue
        documents.extend({
            "file": file.name, "index": doc.index, "line": doc.line,
            "source": doc.source, "status": doc.status, "output": doc.output,
            "mappings": [_mapping(a, b, doc.values) for a, b in doc.mappings],
            "findings": [f.to_json() for f in _ordered(doc.findings)],
        } for doc in (file.result.documents if file.result else []) if doc.reportable)
    return {"schemaVersion": SCHEMA_VERSION,
            "tool": {"name": "trainjob-migrator", "version": __version__},
            "target": target, "documents": documents, "summary": summary(files, documents)}


def _mapping(source: str, target: str, values: dict[str, Any]) -> dict[str, Any]:
    item: dict[str, Any] = {"from": source, "to": target}
    if source in values:
        item["value"] = values[source]
    return item


def _unreadable(file: FileResult) -> dict[str, Any]:
    reason = file.unreadable.reason if file.unreadable else ""
    finding = Finding("Y102", Severity.ERROR, "", reason, "Check the path, permissions and "
                      "encoding.")
    return {"file": file.name, "index": 0, "line": None, "source": {}, "status": "failed",
            "output": None, "mappings": [], "findings": [finding.to_json()]}


def summary(files: list[FileResult], documents: list[dict[str, Any]]) -> dict[str, Any]:
    statuses = Counter(d["status"] for d in documents)
    severities = Counter(f["severity"] for d in documents for f in d["findings"])
    codes = Counter(f["code"] for d in documents for f in d["findings"])
    scanned = sum(f.documents_scanned for f in files)
    return {
        "files": len(files),
        "filesChanged": sum(1 for f in files if f.changed),
        "documentsScanned": scanned,
        "documents": {status: statuses.get(status, 0) for status in STATUSES},
        "findings": {s.value: severities.get(s.value, 0) for s in Severity},
        "codes": dict(sorted(codes.items())),
    }


def to_json(report: dict[str, Any]) -> str:
    """The report as text: ASCII-only JSON, so undecodable file names cannot break it."""
    import json

    return json.dumps(report, indent=2, sort_keys=False, ensure_ascii=True) + "\n"


def schema() -> dict[str, Any]:
    """The report's JSON Schema: packaged in the wheel next to this module, else the
    checkout's ``schemas/report.schema.json``."""
    import json
    from importlib import resources

    packaged = resources.files("migrator.report").joinpath("report.schema.json")
    if packaged.is_file():
        return dict(json.loads(packaged.read_text(encoding="utf-8")))
    checkout = Path(__file__).resolve().parents[2] / "schemas" / "report.schema.json"
    return dict(json.loads(checkout.read_text(encoding="utf-8")))


def _ordered(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (-f.severity.rank, f.line or 0, f.code))
