"""REPORT: the terminal lines — what happened per document, each finding, what
fixes a file, the summary — escaped for terminals and CI logs, coloured through rich when
wanted (``--color``, ``NO_COLOR``, ``FORCE_COLOR``, a terminal)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from typing import Any, TextIO

from migrator.report.safety import file_label, printable
from migrator.results import Finding, Severity

STYLES = {"error": "bold red", "warning": "yellow", "info": "dim"}


def color_wanted(stream: TextIO, choice: str = "auto") -> bool:
    """``--color``: always/never win; auto follows NO_COLOR and TERM=dumb, then FORCE_COLOR,
    then isatty."""
    if choice in ("always", "never"):
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Lines:
    """Prints result lines to one stream; severities coloured through rich when enabled."""

    def __init__(self, stream: TextIO, color: bool) -> None:
        self.stream = stream
        self.color = color
        self._console: Any = None

    def print(self, line: str, severity: str | None = None) -> None:
        if not self.color or severity is None:
            self.stream.write(line + "\n")
            return
        if self._console is None:
            from rich.console import Console

            self._console = Console(file=self.stream, force_terminal=True, no_color=False,
                                    highlight=False, emoji=False, markup=False,
                                    soft_wrap=True, width=10_000)
        from rich.text import Text

        text = Text(line)
        word = f" {severity} "
        at = line.find(word)
        if at >= 0:
            text.stylize(STYLES[severity], at + 1, at + 1 + len(severity))
        self._console.print(text, soft_wrap=True, crop=False, overflow="ignore")


def where(name: str, line: int | None, column: int | None = None) -> str:
    text = file_label(name)
    if line is not None:
        text += f":{line}"
        if column is not None:
            text += f":{column}"
    return text


def ordered(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (-f.severity.rank, f.line or 0, f.code))


def finding_line(name: str, finding: Finding) -> str:
    """``file:line:col: severity CODE message [path]``."""
    path = f" [{finding.path}]" if finding.path else ""
    waived = f" (waived: {finding.waived})" if finding.waived else ""
    return printable(f"{where(name, finding.line, finding.column)}: {finding.severity.value} "
                     f"{finding.code} {finding.message}{path}{waived}")


def object_label(identity: Mapping[str, Any]) -> str:
    """``Kind/name``, or just ``Kind`` for objects without a (literal) name."""
    name, kind = identity.get("name"), identity.get("kind") or "document"
    return f"{kind}/{name}" if isinstance(name, str) and name else str(kind)


def tally(findings: list[Finding]) -> str:
    counts = Counter(f.severity.value for f in findings)
    waived = sum(1 for f in findings if f.waived)
    return ", ".join([*(f"{counts[s.value]} {s.value}" for s in reversed(Severity)
                        if counts[s.value]), *([f"{waived} waived"] if waived else [])])


def codes_of(findings: list[Finding], severity: Severity) -> list[str]:
    """The codes of ``findings`` of ``severity`` that no waiver accepted."""
    return sorted({f.code for f in findings if f.severity is severity and not f.waived})


def document_line(name: str, doc: Any) -> str:
    """One line per reported document: what happened to it."""
    counts = tally(doc.findings)
    tail = f" ({counts})" if counts else ""
    if doc.status == "converted" and doc.output:
        text = f"{where(name, doc.line)}: {object_label(doc.source)} → " \
               f"{object_label(doc.output)}{tail}"
    else:
        text = f"{where(name, doc.line)}: {object_label(doc.source)} {doc.status}{tail}"
    return printable(text)


def check_line(name: str, doc: Any, *, terse: bool = False, options: str = "") -> str:
    """``check``: what the document needs and the command that does it (or the code to read).
    ``terse`` (pre-commit: one line per document): a document needing manual work is placed
    at its first error, with its message (``file:line:col: ... error CODE message``).
    ``options``: the conversion options of the run (`` --target 2.3 ...``), so that the fix
    command converts as the check did."""
    errors = codes_of(doc.findings, Severity.ERROR)
    if terse and errors and doc.status != "converted":
        first = ordered([f for f in doc.findings
                         if f.severity is Severity.ERROR and not f.waived])[0]
        return printable(f"{where(name, first.line or doc.line, first.column)}: "
                         f"{object_label(doc.source)}: needs manual work: error {first.code} "
                         f"{first.message} — see: trainjob-migrate explain {first.code}")
    warnings = codes_of(doc.findings, Severity.WARNING)
    head = f"{where(name, doc.line)}: {object_label(doc.source)}"
    if doc.status == "converted" and doc.output:
        import shlex

        extra = f" ({len(warnings)} warning code{'s' if len(warnings) != 1 else ''} to check: " \
                f"{', '.join(warnings)})" if warnings else ""
        accepted = sorted({f.code for f in doc.findings if f.waived})
        if accepted:
            extra += f" (waived: {', '.join(accepted)})"
        left = _items_left(doc.findings)
        if left:
            extra += f"; left unconverted: {left}"
        text = (f"{head}: would convert to {object_label(doc.output)}{extra} — fix: "
                f"trainjob-migrate convert --in-place{options} "
                f"{shlex.quote(file_label(name))}")
    elif errors:
        text = (f"{head}: needs manual work ({', '.join(errors)}) — see: trainjob-migrate "
                f"explain {errors[0]}")
    elif warnings:
        text = (f"{head}: not converted ({', '.join(warnings)}) — see: trainjob-migrate "
                f"explain {warnings[0]}")
    else:
        text = f"{head}: {doc.status}"
    return printable(text)


def _items_left(findings: list[Finding]) -> str:
    """The List items an error keeps from converting, with their codes: ``items[2] (K108)``
    (a List's other items convert)."""
    left: dict[int, set[str]] = {}
    for finding in findings:
        head = finding.path.split(".", 1)[0]
        if finding.severity is Severity.ERROR and not finding.waived and \
                head.startswith("items[") and head[6:-1].isdigit():
            left.setdefault(int(head[6:-1]), set()).add(finding.code)
    return ", ".join(f"items[{item}] ({', '.join(sorted(codes))})"
                     for item, codes in sorted(left.items()))


_TABLE_STATUS = {"converted": "would convert", "failed": "needs manual work",
                 "skipped": "skipped", "unchanged": "unchanged"}


def table_rows(file: Any) -> list[tuple[str, ...]]:
    """``check --format table``: a row per document ``check`` reports of ``file`` (a
    ``FileResult``): file:line, kind/name, status (what check would do), the first code that
    matters (an error no waiver accepted, else a warning)."""
    if file.unreadable is not None:
        return [(file_label(file.name), "-", "unreadable", "Y102")]
    rows: list[tuple[str, ...]] = []
    for doc in file.result.documents if file.result is not None else ():
        if not doc.reportable or doc.status == "unchanged":  # (as check's lines)
            continue
        codes = codes_of(doc.findings, Severity.ERROR) or codes_of(doc.findings,
                                                                   Severity.WARNING)
        first = [f.code for f in ordered([f for f in doc.findings if f.code in codes])]
        rows.append((where(file.name, doc.line), object_label(doc.source),
                     _TABLE_STATUS.get(doc.status, doc.status), first[0] if first else "-"))
    return rows


def table(rows: list[tuple[str, ...]]) -> list[str]:
    """The rows as aligned lines under a header (escaped); nothing without rows."""
    if not rows:
        return []
    shown = [tuple(printable(cell) for cell in row) for row in
             [("FILE", "OBJECT", "STATUS", "CODE"), *rows]]
    widths = [max(len(row[i]) for row in shown) for i in range(3)]
    return ["  ".join([*(cell.ljust(width) for cell, width in zip(row[:3], widths,
                                                                   strict=True)), row[3]])
            for row in shown]


def validate_line(name: str, doc: Any, target: str) -> str:
    errors = sum(1 for f in doc.findings if f.severity is Severity.ERROR)
    verdict = f"rejected by Trainer {target} ({errors} error{'s' if errors != 1 else ''})" \
        if errors else f"valid for Trainer {target}"
    return printable(f"{where(name, doc.line)}: {object_label(doc.source)}: {verdict}")


def unreadable_line(name: str, message: str) -> str:
    """The line of an input that could not be read (``Unreadable.message``)."""
    return printable(f"{file_label(name)}: error Y102 {message}")


def summary_line(report_summary: Mapping[str, Any], seconds: float, *, check: bool,
                 validate: bool = False, extra: str = "") -> str:
    """``N files, M documents: ...; findings: ...`` (``check`` says what would happen,
    ``validate`` what is valid and what would be rejected; ``extra`` goes before the time)."""
    docs, findings = report_summary["documents"], report_summary["findings"]
    total = sum(docs.values())
    files = report_summary["files"]
    if validate:
        what = f"{docs['unchanged']} valid, {docs['failed']} rejected"
        if not total:
            what += " (no TrainJob or runtime found; `trainjob-migrate check` reads legacy jobs)"
    elif check:
        what = (f"{docs['converted']} would convert, {docs['unchanged']} unchanged, "
                f"{docs['skipped']} skipped, {docs['failed']} need manual work")
    else:
        what = (f"{docs['converted']} converted, {docs['unchanged']} unchanged, "
                f"{docs['skipped']} skipped, {docs['failed']} failed")
    return (f"{files} file{'s' if files != 1 else ''}, {total} document"
            f"{'s' if total != 1 else ''}: {what}; findings: {findings['error']} error, "
            f"{findings['warning']} warning, {findings['info']} info{extra} ({seconds:.2f}s)")
