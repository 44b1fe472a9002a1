"""REPORT: GitHub Actions integration: workflow annotations and the job's Markdown step summary."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any, TextIO

from migrator.results import FileResult, Severity

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def write_annotations(file: FileResult, minimum: Severity, out: TextIO) -> None:
    """``::error file=...,line=...::message`` lines for the findings of one file."""
    if file.unreadable is not None:
        out.write(f"::error file={_escape(file.name, prop=True)},title=Y102::"
                  f"{_escape('cannot read file: ' + file.unreadable.reason)}\n")
        return
    for doc in file.result.documents if file.result else []:
        for finding in doc.findings:
            if finding.severity.rank < minimum.rank:
                continue
            props = [f"file={_escape(file.name, prop=True)}"]
            if finding.line is not None:
                props.append(f"line={finding.line}")
                if finding.column is not None:
                    props.append(f"col={finding.column}")
            props.append(f"title={finding.code}")
            message = finding.message + (f" [{finding.path}]" if finding.path else "")
            if finding.hint:
                message += f"\nFix: {finding.hint}"
            out.write(f"::{LEVELS[finding.severity]} {','.join(props)}::{_escape(message)}\n")


def step_summary(report: dict[str, Any]) -> str:
    """A Markdown summary of a run for ``$GITHUB_STEP_SUMMARY``."""
    summary = report["summary"]
    docs, findings = summary["documents"], summary["findings"]
    lines = ["## trainjob-migrate", "",
             f"Target Trainer {report['target']}: {summary['files']} files, "
             f"{docs['converted']} converted, {docs['unchanged']} unchanged, "
             f"{docs['skipped']} skipped, {docs['failed']} failed; findings: "
             f"{findings['error']} error, {findings['warning']} warning, {findings['info']} info.",
             ""]
    rows = [d for d in report["documents"] if d["status"] != "unchanged"]
    if rows:
        lines += ["| file | line | object | status | findings |", "|---|---|---|---|---|"]
        for doc in rows[:200]:
            source = doc["source"]
            counts = Counter(f["code"] for f in doc["findings"])
            codes = ", ".join(f"{code}×{n}" if n > 1 else code
                              for code, n in sorted(counts.items()))
            lines.append(f"| `{doc['file']}` | {doc['line'] or ''} | "
                         f"{source.get('kind')}/{source.get('name')} | {doc['status']} | "
                         f"{codes} |")
        if len(rows) > 200:
            lines.append(f"\n… and {len(rows) - 200} more documents (see the JSON report).")
    return "\n".join(lines) + "\n"


def append_step_summary(report: dict[str, Any]) -> None:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(step_summary(report))
