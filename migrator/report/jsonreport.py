"""REPORT: the JSON report (the machine contract) and the terminal lines."""

from __future__ import annotations

import json
from collections import Counter
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
    return json.dumps(report, indent=2, sort_keys=False) + "\n"


def _ordered(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (-f.severity.rank, f.line or 0, f.code))


def finding_lines(file: FileResult, minimum: Severity) -> list[str]:
    """``file:line:col: severity CODE message`` lines, errors first."""
    if file.unreadable is not None:
        return [f"{file.name}: error Y102 cannot read file: {file.unreadable.reason}"]
    lines = []
    for doc in file.result.documents if file.result else []:
        for finding in _ordered(doc.findings):
            if finding.severity.rank >= minimum.rank:
                where = file.name
                if finding.line is not None:
                    where += f":{finding.line}"
                    if finding.column is not None:
                        where += f":{finding.column}"
                path = f" [{finding.path}]" if finding.path else ""
                lines.append(f"{where}: {finding.severity.value} {finding.code} "
                             f"{finding.message}{path}")
    return lines


def document_lines(file: FileResult) -> list[str]:
    """One line per reported document: what happened to it."""
    lines = []
    for doc in file.result.documents if file.result else []:
        if not doc.reportable:
            continue
        kind = object_label(doc.source)
        counts = Counter(f.severity.value for f in doc.findings)
        tally = ", ".join(f"{counts[s.value]} {s.value}" for s in reversed(Severity)
                          if counts[s.value])
        tail = f" ({tally})" if tally else ""
        if doc.status == "converted" and doc.output:
            lines.append(f"{file.name}:{doc.line}: {kind} → {object_label(doc.output)}{tail}")
        else:
            lines.append(f"{file.name}:{doc.line}: {kind} {doc.status}{tail}")
    return lines


def check_lines(file: FileResult, *, terse: bool = False) -> list[str]:
    """``check``: one line per document that is legacy or needs attention."""
    if file.unreadable is not None:
        return [f"{file.name}: error Y102 cannot read file: {file.unreadable.reason}"]
    lines = []
    for doc in file.result.documents if file.result else []:
        if not doc.reportable or doc.status == "unchanged":
            continue
        counts = Counter(f.severity.value for f in doc.findings)
        if doc.status == "converted" and doc.output:
            what = f"would convert to {object_label(doc.output)}"
        elif counts["error"]:
            what = "needs manual migration"
        else:
            what = "not converted"
        tally = ", ".join(f"{counts[s.value]} {s.value}" for s in reversed(Severity)
                          if counts[s.value])
        tail = f" ({tally})" if tally and not terse else ""
        lines.append(f"{file.name}:{doc.line}: {object_label(doc.source)}: {what}{tail}")
    return lines


def object_label(identity: dict[str, Any]) -> str:
    """``Kind/name``, or just ``Kind`` for objects without a name (a List)."""
    name, kind = identity.get("name"), identity.get("kind") or "document"
    return f"{kind}/{name}" if name else str(kind)


def validate_lines(file: FileResult, target: str) -> list[str]:
    """``validate``: one line per Trainer object."""
    if file.unreadable is not None:
        return [f"{file.name}: error Y102 cannot read file: {file.unreadable.reason}"]
    lines = []
    for doc in file.result.documents if file.result else []:
        if not doc.reportable:
            continue
        errors = sum(1 for f in doc.findings if f.severity is Severity.ERROR)
        verdict = f"rejected by Trainer {target} ({errors} error{'s' if errors != 1 else ''})" \
            if errors else f"valid for Trainer {target}"
        lines.append(f"{file.name}:{doc.line}: {object_label(doc.source)}: {verdict}")
    return lines


def summary_line(report_summary: dict[str, Any], seconds: float) -> str:
    docs, findings = report_summary["documents"], report_summary["findings"]
    return (f"{report_summary['files']} files: {docs['converted']} converted, "
            f"{docs['unchanged']} unchanged, {docs['skipped']} skipped, {docs['failed']} failed; "
            f"findings: {findings['error']} error, {findings['warning']} warning, "
            f"{findings['info']} info ({seconds:.2f}s)")
