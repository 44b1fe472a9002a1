"""REPORT: the Markdown report for pull-request comments.

GitHub limits a comment to 65,536 characters. The report always stays under ``LIMIT`` and
always well-formed: documents are ordered errors first, then warnings, then the rest; when
the full text does not fit, documents lose their provenance, differences and diffs first,
then whole documents are left out from the end — but every document with an error (and, if
space allows, with a warning) is still named in a compact list grouped by code, and a
final line says how many documents were left out and where the full report is.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from migrator.report.diffs import unified
from migrator.report.markup import code_span, fence, html_text, markdown_text, plural, shorten
from migrator.report.review import ReviewDocument, rank

LIMIT = 65_536
NOTICE_RESERVE = 400
WHERE_WIDTH = 48


class CodeInfo(Protocol):
    name: str
    severity: str


def render(documents: Sequence[ReviewDocument], summary: Mapping[str, Any], target: str,
           codes: Mapping[str, CodeInfo], *, full_report: str | None = None,
           limit: int = LIMIT) -> str:
    ordered = sorted(documents, key=rank)
    root = _root(ordered)
    head = _head(summary, target, codes, root)
    for level in ("full", "findings"):
        blocks = [_document(doc, level, root) for doc in ordered]
        text = "\n".join(head + [line for block in blocks for line in block]) + "\n"
        if len(text) <= limit:
            return text
    return _shortened(ordered, head, codes, root, full_report, limit)


def _shortened(ordered: Sequence[ReviewDocument], head: list[str],
               codes: Mapping[str, CodeInfo], root: str, full_report: str | None,
               limit: int) -> str:
    blocks = ["\n".join(_document(doc, "findings", root)) + "\n" for doc in ordered]
    head_text = "\n".join(head) + "\n"
    entries = [_entry(doc, root) for doc in ordered]
    problems = [i for i, doc in enumerate(ordered) if doc.counts()["error"]
                or doc.counts()["warning"]]
    budget = limit - len(head_text) - NOTICE_RESERVE
    headers = sum(len(_group_header(code, codes, 99999)) + 2 for code in
                  {_first_code(doc) for doc in ordered})
    # suffix[i]: the compact list of every problem document from i on (an upper bound)
    problem = set(problems)
    suffix = [0] * (len(ordered) + 1)
    for i in range(len(ordered) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + (len(entries[i]) + 3 if i in problem else 0)
    shown, used = 0, 0
    while shown < len(ordered) and \
            used + len(blocks[shown]) + suffix[shown + 1] + headers <= budget:
        used += len(blocks[shown])
        shown += 1
    rest = list(ordered[shown:])
    listed = [doc for doc in rest if doc.counts()["error"]]
    warned = [doc for doc in rest if not doc.counts()["error"] and doc.counts()["warning"]]
    compact = _compact(listed + warned, codes, root)
    if len(head_text) + used + len(compact) + NOTICE_RESERVE > limit:
        compact = _compact(listed, codes, root)
        listed_count = len(listed)
    else:
        listed_count = len(listed) + len(warned)
    left_out = len(rest)
    where = f"the full report is {code_span(full_report)}" if full_report else \
        "write the full report with --report r.html or --report r.json"
    notice = (f"_{left_out} document{'s' if left_out != 1 else ''} left out to stay under "
              f"{limit:,} characters ({listed_count} of them listed above by code); "
              f"{where}._")
    return head_text + "".join(blocks[:shown]) + compact + notice + "\n"


def _compact(documents: Sequence[ReviewDocument], codes: Mapping[str, CodeInfo],
             root: str) -> str:
    if not documents:
        return ""
    groups: dict[str, list[str]] = {}
    for doc in documents:
        groups.setdefault(_first_code(doc), []).append(_entry(doc, root))
    lines = ["### Not shown in full", ""]
    for code, entries in groups.items():
        lines.append(_group_header(code, codes, len(entries)) + " · ".join(entries))
        lines.append("")
    return "\n".join(lines) + "\n"


def _group_header(code: str, codes: Mapping[str, CodeInfo], count: int) -> str:
    info = codes.get(code)
    name = f" {markdown_text(info.name)}" if info else ""
    severity = info.severity if info else "?"
    return f"- {code_span(code)}{name} ({severity}, {count}): "


def _first_code(doc: ReviewDocument) -> str:
    findings = doc.ordered_findings()
    return findings[0].code if findings else "—"


def _entry(doc: ReviewDocument, root: str) -> str:
    where = _relative(doc.file, root)
    return code_span(f"{where}:{doc.line}" if doc.line else where)


def _head(summary: Mapping[str, Any], target: str, codes: Mapping[str, CodeInfo],
          root: str) -> list[str]:
    docs, findings = summary["documents"], summary["findings"]
    total = sum(docs.values())
    lines = ["## trainjob-migrate report", "",
             f"Target: Kubeflow Trainer {markdown_text(target)} · "
             f"{plural(summary['files'], 'file')}, {plural(total, 'document')} · "
             f"{docs['converted']} converted · {docs['unchanged']} "
             f"unchanged · {docs['skipped']} skipped · {docs['failed']} failed", "",
             f"Findings: {findings['error']} error · {findings['warning']} warning · "
             f"{findings['info']} info", ""]
    if root:
        lines += [f"Paths are relative to {code_span(root + '/')}.", ""]
    counted = summary.get("codes") or {}
    if counted:
        lines += ["| code | name | severity | count |", "|---|---|---|---|"]
        for code, count in sorted(counted.items()):
            info = codes.get(code)
            lines.append(f"| {code_span(code, in_table=True)} | "
                         f"{markdown_text(info.name) if info else ''} | "
                         f"{info.severity if info else ''} | {count} |")
        lines.append("")
    return lines


def _document(doc: ReviewDocument, level: str, root: str) -> list[str]:
    counts = doc.counts()
    tally = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no findings"
    icon = "❌" if counts["error"] else "⚠️" if counts["warning"] else "✅"
    where = _relative(doc.file, root)
    where = f"{where}:{doc.line}" if doc.line else where
    lines = ["<details>", f"<summary>{icon} <code>{html_text(where)}</code> — "
             f"{html_text(doc.title)} — {html_text(doc.status)} ({tally})</summary>", ""]
    findings = doc.ordered_findings()
    if level != "full":
        findings = [f for f in findings if f.severity.value != "info"]
    if findings:
        lines += ["| | code | where | message | fix |", "|---|---|---|---|---|"]
        for finding in findings:
            at = f"{finding.path} (line {finding.line})" if finding.line else finding.path
            shown = code_span(shorten(at, WHERE_WIDTH), in_table=True) if at else ""
            lines.append(f"| {finding.severity.value} | {code_span(finding.code, in_table=True)}"
                         f" | {shown} | {markdown_text(finding.message)} | "
                         f"{markdown_text(finding.hint)} |")
        lines.append("")
    if level == "full" and doc.mappings and doc.status == "converted":
        lines += ["**Provenance**", "", "| from | to | value |", "|---|---|---|"]
        for source, target in doc.mappings:
            value = doc.values.get(source)
            shown = code_span(str(value), in_table=True) if value is not None else ""
            lines.append(f"| {code_span(source, in_table=True)} | "
                         f"{code_span(target, in_table=True)} | {shown} |")
        lines.append("")
    if level == "full" and doc.differences:
        lines += ["**Effective pods (what Trainer will run vs the legacy pods)**", ""]
        counter = Counter(d.category for d in doc.differences)
        lines.append(markdown_text(", ".join(f"{category}: {n}"
                                             for category, n in sorted(counter.items()))))
        lines += ["", *fence("\n".join(d.describe() for d in doc.differences), "text"), ""]
    if level == "full" and doc.status == "converted" and doc.before != doc.after:
        lines += [*fence(unified(where, doc.before, doc.after), "diff"), ""]
    lines += ["</details>", ""]
    return lines


def _root(documents: Sequence[ReviewDocument]) -> str:
    """The folder every document's file is in (shown once; cells show paths below it)."""
    folders = {os.path.dirname(doc.file) for doc in documents}
    if not folders:
        return ""
    try:
        root = os.path.commonpath(sorted(folders))
    except ValueError:
        return ""
    return "" if root in ("", ".", "/") else root


def _relative(name: str, root: str) -> str:
    if root and name.startswith(root + os.sep):
        return name[len(root) + 1:]
    return name
