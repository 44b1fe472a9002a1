"""REPORT: the Markdown report for pull-request comments.

GitHub limits a comment to 65,536 characters. The report always stays under ``LIMIT`` and
always well-formed: documents are ordered errors first, then warnings, then the rest; when
the full text does not fit, documents lose their info findings, provenance, differences and
diffs first, then whole documents are left out from the end — but every document with an
error (and, if space allows, with a warning) is still named in a compact list grouped by
code. A shortened report ends with a line that says what it left out (with counts) and where
the full report is. Findings go by severity (error, warning, info), in the codes table too;
``where`` cells are cut at a path segment; code spans in messages and fixes render as code.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from migrator.report.diffs import unified
from migrator.report.markup import (
    code_span,
    fence,
    html_text,
    markdown_cell,
    markdown_text,
    plural,
    shorten_path,
    unlinked,
)
from migrator.report.review import ReviewDocument, rank

LIMIT = 65_536
WHERE_WIDTH = 48


class CodeInfo(Protocol):
    name: str
    severity: str


def render(documents: Sequence[ReviewDocument], summary: Mapping[str, Any], target: str,
           codes: Mapping[str, CodeInfo], *, full_report: str | None = None,
           limit: int = LIMIT, waivers: Sequence[Mapping[str, Any]] = ()) -> str:
    ordered = sorted(documents, key=rank)
    root = _root(ordered)
    head = _head(summary, target, codes, root) + _waivers(waivers)
    blocks = [_document(doc, "full", root) for doc in ordered]
    text = "\n".join(head + [line for block in blocks for line in block]) + "\n"
    if len(text) <= limit:
        return text
    blocks = [_document(doc, "findings", root) for doc in ordered]
    notice = f"_Shortened to stay under {limit:,} characters, leaving out {_left_out(ordered)}; " \
             f"{_where(full_report)}._"
    text = "\n".join(head + [line for block in blocks for line in block] + [notice]) + "\n"
    if len(text) <= limit:
        return text
    return _shortened(ordered, head, codes, root, full_report, limit)


def _left_out(documents: Sequence[ReviewDocument]) -> str:
    """What the ``findings`` level leaves out of ``documents``, with counts."""
    converted = [doc for doc in documents if doc.status == "converted"]
    counted = ((sum(1 for doc in converted if doc.before != doc.after), "{}"),
               (sum(1 for doc in converted if doc.mappings), "the provenance of {}"),
               (sum(1 for doc in documents if doc.differences),
                "the simulated differences of {}"),
               (sum(doc.counts()["info"] for doc in documents), "{}"))
    words = ("diff", "document", "document", "info finding")
    parts = [form.format(plural(count, word))
             for (count, form), word in zip(counted, words, strict=True) if count]
    if not parts:
        return "nothing"
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def _where(full_report: str | None) -> str:
    return f"the full report is {code_span(full_report)}" if full_report else \
        "write the full report with --report r.html or --report r.json"


def _shortened(ordered: Sequence[ReviewDocument], head: list[str],
               codes: Mapping[str, CodeInfo], root: str, full_report: str | None,
               limit: int) -> str:
    """Whole documents in order while the rest still fits as a compact list by code."""
    blocks = ["\n".join(_document(doc, "findings", root)) + "\n" for doc in ordered]
    head_text = "\n".join(head) + "\n"
    offsets = [0]
    for block in blocks:
        offsets.append(offsets[-1] + len(block))

    def assemble(shown: int, with_warnings: bool) -> tuple[str, int]:
        rest = ordered[shown:]
        listed = [doc for doc in rest if doc.counts()["error"] or
                  (with_warnings and doc.counts()["warning"])]
        compact = _compact(listed, codes, root)
        notice = (f"_{plural(len(rest), 'document')} left out to stay under {limit:,} "
                  f"characters ({len(listed)} of them listed above by code); the documents "
                  f"shown leave out {_left_out(ordered[:shown])}; {_where(full_report)}._")
        return head_text + "".join(blocks[:shown]) + compact + notice + "\n", len(listed)

    for with_warnings in (True, False):
        low, high = -1, len(ordered) - 1  # the most whole documents that still fit
        while low < high:
            middle = (low + high + 1) // 2
            if len(assemble(middle, with_warnings)[0]) <= limit:
                low = middle
            else:
                high = middle - 1
        if low >= 0:
            return assemble(low, with_warnings)[0]
    return _truncated(ordered, head_text, codes, root, full_report, limit)


def _truncated(ordered: Sequence[ReviewDocument], head_text: str,
               codes: Mapping[str, CodeInfo], root: str, full_report: str | None,
               limit: int) -> str:
    """Last resort: even the compact list of errors does not fit; list what fits by code."""
    errors = [doc for doc in ordered if doc.counts()["error"]]
    where = f"; the full report is {code_span(full_report)}" if full_report else ""
    kept = len(errors)
    while kept > 0:
        text = head_text + _compact(errors[:kept], codes, root)
        notice = (f"_{plural(len(ordered), 'document')} left out to stay under {limit:,} "
                  f"characters; only {kept} of the {len(errors)} documents with errors are "
                  f"listed above{where}._")
        if len(text) + len(notice) + 1 <= limit:
            return text + notice + "\n"
        kept = kept * 9 // 10
    return head_text + f"_{plural(len(ordered), 'document')} left out{where}._\n"


def _compact(documents: Sequence[ReviewDocument], codes: Mapping[str, CodeInfo],
             root: str) -> str:
    """One line per code: its documents as ``path:line`` code spans; documents at the same
    path under several top folders are listed once as ``{a,b}/path`` or ``copy-{00..19}/path``."""
    if not documents:
        return ""
    groups: dict[str, list[ReviewDocument]] = {}
    for doc in documents:
        groups.setdefault(_first_code(doc), []).append(doc)
    lines = ["### Not shown in full", ""]
    for code, members in groups.items():
        entries = _folded([_relative(doc.file, root) for doc in members],
                          [doc.line for doc in members])
        lines.append(_group_header(code, codes, len(members)) + " · ".join(entries))
        lines.append("")
    return "\n".join(lines) + "\n"


def _folded(names: Sequence[str], lines: Sequence[int | None]) -> list[str]:
    """``path:line`` code spans, one per distinct rest-of-path after the first folder."""
    by_rest: dict[tuple[str, int | None], list[str]] = {}
    for name, line in zip(names, lines, strict=True):
        first, slash, rest = name.partition("/")
        key = (rest, line) if slash else (name, line)
        by_rest.setdefault(key, []).append(first if slash else "")
    entries = []
    for (rest, line), firsts in by_rest.items():
        suffix = f":{line}" if line else ""
        if firsts == [""]:
            entries.append(code_span(f"{rest}{suffix}"))
        elif len(firsts) == 1:
            entries.append(code_span(f"{firsts[0]}/{rest}{suffix}"))
        else:
            entries.append(code_span(f"{_braces(firsts)}/{rest}{suffix}"))
    return entries


def _braces(names: list[str]) -> str:
    """``{a,b}``, or ``copy-{00..19}`` for consecutive zero-padded numbers."""
    names = sorted(set(names))
    first, last = names[0], names[-1]  # sorted: their common prefix is everyone's
    size = 0
    while size < min(len(first), len(last)) and first[size] == last[size]:
        size += 1
    prefix = first[:size]
    while prefix and prefix[-1].isdigit():
        prefix = prefix[:-1]
    tails = [name[len(prefix):] for name in names]
    if all(t.isdigit() and len(t) == len(tails[0]) for t in tails) and len(tails) > 2:
        numbers = [int(t) for t in tails]
        if numbers == list(range(numbers[0], numbers[0] + len(numbers))):
            return f"{prefix}{{{tails[0]}..{tails[-1]}}}"
    return "{" + ",".join(names) + "}"


def _group_header(code: str, codes: Mapping[str, CodeInfo], count: int) -> str:
    info = codes.get(code)
    name = f" {markdown_text(info.name)}" if info else ""
    severity = info.severity if info else "?"
    return f"- {code_span(code)}{name} ({severity}, {count}): "


def _first_code(doc: ReviewDocument) -> str:
    findings = doc.ordered_findings()
    return findings[0].code if findings else "—"


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
        order = {"error": 0, "warning": 1, "info": 2}
        for code, count in sorted(counted.items(), key=lambda item: (
                order.get(codes[item[0]].severity if item[0] in codes else "", 3), item[0])):
            info = codes.get(code)
            lines.append(f"| {code_span(code, in_table=True)} | "
                         f"{markdown_text(info.name) if info else ''} | "
                         f"{info.severity if info else ''} | {count} |")
        lines.append("")
    return lines


def _waivers(waivers: Sequence[Mapping[str, Any]]) -> list[str]:
    """The run's waivers: who accepted which code, why, and how many findings it accepted."""
    if not waivers:
        return []
    lines = ["Waivers (accepted findings, still listed below as waived):", "",
             "| waiver | given by | reason | findings |", "|---|---|---|---|"]
    for w in waivers:
        spec = w["code"] + (f"={w['choice']}" if w.get("choice") else "")
        lines.append(f"| {code_span(spec, in_table=True)} | {markdown_text(w['origin'])} | "
                     f"{markdown_text(w['reason'] or '(none given)')} | {w['used']} |")
    return [*lines, ""]


def _document(doc: ReviewDocument, level: str, root: str) -> list[str]:
    counts = doc.counts()
    tally = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no findings"
    icon = "❌" if counts["error"] else "⚠️" if counts["warning"] else "✅"
    where = _relative(doc.file, root)
    where = f"{where}:{doc.line}" if doc.line else where
    lines = ["<details>", f"<summary>{icon} <code>{html_text(unlinked(where))}</code> — "
             f"{html_text(unlinked(doc.title))} — {html_text(doc.status)} ({tally})</summary>",
             ""]
    findings = doc.ordered_findings()
    if level != "full":
        findings = [f for f in findings if f.severity.value != "info"]
    if findings:
        lines += ["| | code | where | message | fix |", "|---|---|---|---|---|"]
        for finding in findings:
            at = f"{finding.path} (line {finding.line})" if finding.line else finding.path
            shown = code_span(shorten_path(at, WHERE_WIDTH), in_table=True) if at else ""
            lines.append(f"| {finding.severity.value} | {code_span(finding.code, in_table=True)}"
                         f" | {shown} | {markdown_cell(_waived(finding))} | "
                         f"{markdown_cell(finding.hint)} |")
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
        lines += ["**Simulated pods and outcomes (Trainer against the legacy operator)**", ""]
        counter = Counter(d.category for d in doc.differences)
        lines.append(markdown_text(", ".join(f"{category}: {n}"
                                             for category, n in sorted(counter.items()))))
        lines += ["", *fence("\n".join(d.describe() for d in doc.differences), "text"), ""]
    if level == "full" and doc.status == "converted" and doc.before != doc.after:
        replacing, _, added = doc.paired()  # the legacy job against its TrainJob
        lines += [*fence(unified(where, doc.before, replacing), "diff"), ""]
        for label, text, _ in added:
            lines += [f"**New object** {code_span(label)}", "", *fence(text, "yaml"), ""]
    lines += ["</details>", ""]
    return lines


def _waived(finding: Any) -> str:
    """A finding's message, with the waiver that accepted it."""
    return f"{finding.message} (waived: {finding.waived})" if finding.waived else \
        finding.message


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
