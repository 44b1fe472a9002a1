"""REPORT: GitHub Actions — workflow annotations (capped as GitHub shows them) and
the job's Markdown step summary, both escaped for untrusted text."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from migrator.report.markup import code_span, markdown_text, plural
from migrator.report.safety import file_label, printable, write_raw
from migrator.results import Finding, Severity

LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
CAP = 10  # GitHub shows 10 error and 10 warning annotations per step (and 10 notices)
SUMMARY_ROWS = 200


def _escape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


class Annotations:
    """Writes ``::error file=...,line=...,title=CODE::message`` lines, at most ``CAP`` per
    level, then (on ``close``) one notice saying how many more are in the report."""

    def __init__(self, minimum: Severity, out: TextIO) -> None:
        self.minimum = minimum
        self.out = out
        self.written: Counter[Severity] = Counter()
        self.dropped: Counter[Severity] = Counter()

    def add(self, name: str, finding: Finding) -> None:
        if finding.severity.rank < self.minimum.rank:
            return
        if self.written[finding.severity] >= CAP:
            self.dropped[finding.severity] += 1
            return
        self.written[finding.severity] += 1
        props = [f"file={_escape(file_label(name), prop=True)}"]
        if finding.line is not None:
            props.append(f"line={finding.line}")
            if finding.column is not None:
                props.append(f"col={finding.column}")
        props.append(f"title={_escape(finding.code, prop=True)}")
        message = finding.message + (f" [{finding.path}]" if finding.path else "")
        if finding.hint:
            message += f"\nFix: {finding.hint}"
        write_raw(self.out, f"::{LEVELS[finding.severity]} {','.join(props)}::"
                            f"{_escape(printable_keep(message))}\n")

    def add_all(self, name: str, findings: Iterable[Finding]) -> None:
        for finding in findings:
            self.add(name, finding)

    def close(self) -> None:
        more = sum(self.dropped.values())
        if more:
            parts = ", ".join(f"{n} {LEVELS[s]}{'s' if n != 1 else ''}"
                              for s, n in sorted(self.dropped.items(), key=lambda i: -i[0].rank))
            write_raw(self.out, f"::notice::{more} more in the report ({parts} not annotated: "
                                f"GitHub shows {CAP} of each per step)\n")


def printable_keep(text: str) -> str:
    """Printable, but keep line breaks (the annotation escapes them as %0A)."""
    return "\n".join(printable(line) for line in text.split("\n"))


def step_summary(report: Mapping[str, Any]) -> str:
    """A Markdown summary of a run for ``$GITHUB_STEP_SUMMARY`` (cells escaped)."""
    summary = report["summary"]
    docs, findings = summary["documents"], summary["findings"]
    total = sum(docs.values())
    lines = ["## trainjob-migrate", "",
             f"Target Trainer {markdown_text(str(report['target']))}: "
             f"{plural(summary['files'], 'file')}, {plural(total, 'document')}: "
             f"{docs['converted']} converted, {docs['unchanged']} unchanged, "
             f"{docs['skipped']} skipped, {docs['failed']} failed; findings: "
             f"{findings['error']} error, {findings['warning']} warning, {findings['info']} info.",
             ""]
    rows = [d for d in report["documents"] if d["status"] != "unchanged"]
    rows.sort(key=lambda d: 0 if d["status"] == "failed" else 1)
    if rows:
        lines += ["| file | line | object | status | findings |", "|---|---|---|---|---|"]
        for doc in rows[:SUMMARY_ROWS]:
            counts = Counter(f["code"] for f in doc["findings"])
            codes = ", ".join(f"{code}×{n}" if n > 1 else code
                              for code, n in sorted(counts.items()))
            lines.append(f"| {code_span(file_label(doc['file']), in_table=True)} | "
                         f"{doc['line'] or ''} | {markdown_text(_label(doc['source']))} | "
                         f"{doc['status']} | {markdown_text(codes)} |")
        if len(rows) > SUMMARY_ROWS:
            lines += ["", f"… and {len(rows) - SUMMARY_ROWS} more documents (see the report)."]
    return "\n".join(lines) + "\n"


def _label(source: Mapping[str, Any]) -> str:
    kind = source.get("kind") or "document"
    name = source.get("name")
    return f"{kind}/{name}" if isinstance(name, str) and name else str(kind)
