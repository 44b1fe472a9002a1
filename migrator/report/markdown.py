"""REPORT: markdown report for pull-request comments: a summary, then one ``<details>`` per
document.

GitHub limits a comment to 65,536 characters, so the report stays under ``LIMIT`` bytes: when it
would not, the least important parts go first (effective-pod differences, then provenance, then
info findings, then whole documents that converted cleanly) and the report says what it left out.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from migrator.report.diffs import unified
from migrator.report.review import ReviewDocument

LIMIT = 64 * 1024
LEVELS = ("full", "no-differences", "no-provenance", "no-info", "problems-only")


def render(documents: list[ReviewDocument], summary: dict[str, Any], target: str) -> str:
    for level in LEVELS:
        text = _render(documents, summary, target, level)
        if len(text.encode("utf-8")) <= LIMIT:
            return text
    text = _render(documents, summary, target, LEVELS[-1])
    cut = text.encode("utf-8")[: LIMIT - 200].decode("utf-8", errors="ignore")
    return cut + "\n\n_… truncated to fit a GitHub comment; see the JSON report._\n"


def _render(documents: list[ReviewDocument], summary: dict[str, Any], target: str,
            level: str) -> str:
    docs, findings = summary["documents"], summary["findings"]
    lines = ["## trainjob-migrate report", "",
             f"Target: Kubeflow Trainer {target} · {summary['files']} files · "
             f"{docs['converted']} converted · {docs['unchanged']} unchanged · "
             f"{docs['skipped']} skipped · {docs['failed']} failed", "",
             f"Findings: {findings['error']} error · {findings['warning']} warning · "
             f"{findings['info']} info", ""]
    codes = summary.get("codes") or {}
    if codes:
        lines += ["| code | count |", "|---|---|"]
        lines += [f"| `{code}` | {count} |" for code, count in sorted(codes.items())]
        lines.append("")
    omitted = []
    if level != "full":
        omitted.append({"no-differences": "effective-pod differences",
                        "no-provenance": "effective-pod differences and provenance",
                        "no-info": "differences, provenance and info findings",
                        "problems-only": "differences, provenance, info findings and documents "
                                         "without errors or warnings"}[level])
        lines += [f"> This report left out {omitted[0]} to stay under 64 KB; the JSON and HTML "
                  "reports have everything.", ""]
    for doc in documents:
        counts = doc.counts()
        if level == "problems-only" and not (counts["error"] or counts["warning"]):
            continue
        lines += _document(doc, level)
    return "\n".join(lines) + "\n"


def _document(doc: ReviewDocument, level: str) -> list[str]:
    counts = doc.counts()
    tally = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no findings"
    icon = "❌" if counts["error"] else "⚠️" if counts["warning"] else "✅"
    where = f"{doc.file}:{doc.line}" if doc.line else doc.file
    lines = ["<details>", f"<summary>{icon} <code>{_html(where)}</code> — {_html(doc.title)} "
             f"— {doc.status} ({tally})</summary>", ""]
    findings = doc.ordered_findings()
    if level in ("no-info", "problems-only"):
        findings = [f for f in findings if f.severity.value != "info"]
    if findings:
        lines += ["**Not carried over / to check**", "", "| | code | where | message | fix |",
                  "|---|---|---|---|---|"]
        for finding in findings:
            at = f"{finding.path} (line {finding.line})" if finding.line else finding.path
            lines.append(f"| {finding.severity.value} | `{finding.code}` | `{_cell(at)}` | "
                         f"{_cell(finding.message)} | {_cell(finding.hint)} |")
        lines.append("")
    if doc.mappings and level in ("full", "no-differences"):
        lines += ["**Provenance**", "", "| from | to | value |", "|---|---|---|"]
        for source, target in doc.mappings:
            value = doc.values.get(source)
            shown = f"`{_cell(str(value))}`" if value is not None else ""
            lines.append(f"| `{_cell(source)}` | `{_cell(target)}` | {shown} |")
        lines.append("")
    if doc.differences and level == "full":
        lines += ["**Effective pods (what Trainer will run vs the legacy pods)**", ""]
        counter = Counter(d.category for d in doc.differences)
        lines.append(", ".join(f"{category}: {n}" for category, n in sorted(counter.items())))
        lines += ["", "```text", *[d.describe() for d in doc.differences], "```", ""]
    if doc.status == "converted" and level != "problems-only":
        lines += ["```diff", unified(doc.file, doc.before, doc.after).rstrip("\n"), "```", ""]
    lines += ["</details>", ""]
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
