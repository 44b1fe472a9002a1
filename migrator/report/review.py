"""REPORT: what a reviewer needs per document: identity, provenance, findings, and the semantic
diff.

Collected from each file's results while the batch still holds the file's text (only when a
human-facing report is asked for), then written by the Markdown, HTML, SARIF and JUnit
writers of ``report/``. The effective-pod comparison travels on the document results
(``DocumentResult.effective``, made where the file was converted): nothing here converts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from migrator.load import stream
from migrator.report.terminal import object_label
from migrator.results import FileResult, Finding, PodDifference, Severity

SEVERITY_ORDER = (Severity.ERROR, Severity.WARNING, Severity.INFO)


@dataclass
class ReviewDocument:
    """One reported document of a run, with everything a reviewer reads."""

    file: str
    index: int
    line: int | None
    status: str
    source: dict[str, Any]
    output: dict[str, Any] | None
    findings: list[Finding]
    mappings: list[tuple[str, str]]
    values: dict[str, Any]
    before: str = ""
    after: str = ""
    differences: list[PodDifference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        source = object_label(self.source)
        if self.status == "converted" and self.output:
            target = object_label(self.output)
            runtime = self.output.get("runtime")
            extra = f" + {runtime['kind']}/{runtime['name']}" if runtime else ""
            return f"{source} → {target}{extra}"
        return source

    def paired(self) -> tuple[str, int, list[tuple[str, str, int]]]:
        """The converted text as a reviewer compares it: the document that replaces the legacy
        job (the TrainJob: its text and the output line it starts at), and the objects written
        beside it (a companion runtime) as new objects (label, text, line). Without such
        objects, the whole converted text from line 1."""
        if self.status != "converted" or not self.output:
            return self.after, 1, []
        chunks = [chunk for chunk in stream.split(self.after) if chunk.has_content]
        kind = str(self.output.get("kind") or "")
        if len(chunks) < 2 or not kind:
            return self.after, 1, []
        replaces = re.compile(rf"^kind:[ \t]*[\"']?{re.escape(kind)}[\"']?[ \t]*(#.*)?$", re.M)
        main = next((chunk for chunk in chunks if replaces.search(chunk.body)), None)
        if main is None:
            return self.after, 1, []
        return main.body, main.line, [(_label(chunk.body), chunk.body, chunk.line)
                                      for chunk in chunks if chunk is not main]

    def counts(self) -> dict[str, int]:
        return {s.value: sum(1 for f in self.findings if f.severity is s) for s in SEVERITY_ORDER}

    def ordered_findings(self) -> list[Finding]:
        return sorted(self.findings, key=lambda f: (-f.severity.rank, f.line or 0, f.code))


def _label(body: str) -> str:
    """``Kind/name`` of a YAML document's text (top-level kind, metadata's name)."""
    kind = re.search(r"^kind:[ \t]*[\"']?([^\s\"'#]+)", body, re.M)
    name = re.search(r"^metadata:[^\n]*\n(?:[ \t][^\n]*\n)*?[ \t]+name:[ \t]*[\"']?([^\s\"'#]+)",
                     body, re.M)
    return f"{kind.group(1) if kind else 'object'}/{name.group(1) if name else '?'}"


def group(doc: ReviewDocument) -> str:
    """Where a document goes in a report: ``failed`` (or with errors), ``warnings``
    (converted with warnings), ``converted``, ``skipped`` (with findings), or ``unchanged``
    (skipped or unchanged without findings: summarised, not shown in full)."""
    counts = doc.counts()
    if doc.status == "failed" or counts["error"]:
        return "failed"
    if doc.status == "converted":
        return "warnings" if counts["warning"] else "converted"
    return "skipped" if doc.findings else "unchanged"


GROUP_RANK = {"failed": 0, "warnings": 1, "converted": 2, "skipped": 3, "unchanged": 4}


def rank(doc: ReviewDocument) -> int:
    """Sort key: errors first, then warnings, then clean conversions, then the rest."""
    return GROUP_RANK[group(doc)]


def collect(file: FileResult) -> list[ReviewDocument]:
    """Review documents of one (not yet slimmed) file result, with the effective-pod
    comparisons its documents carry."""
    if file.unreadable is not None:
        return [ReviewDocument(file.name, 0, None, "failed", {}, None,
                               [file.unreadable.finding()], [], {})]
    if file.result is None or file.source is None:
        return []
    chunks = stream.split(file.source.text)
    out = []
    for doc in file.result.documents:
        if not doc.reportable:
            continue
        before = chunks[doc.index].text if doc.index < len(chunks) else ""
        item = ReviewDocument(file.name, doc.index, doc.line, doc.status, dict(doc.source),
                              dict(doc.output) if doc.output else None, list(doc.findings),
                              list(doc.mappings), dict(doc.values), before,
                              doc.text if doc.status == "converted" else before)
        if doc.effective is not None:
            item.differences = list(doc.effective.differences)
            item.notes = list(doc.effective.notes)
        out.append(item)
    return out
