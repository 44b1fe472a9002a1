"""BOTTOM: the results of a run as plain values — findings, document, text and file results,
and the one exit-code mapping. Cheap to import and to send between processes (a batch's main
process never needs the converter to read them)."""

from __future__ import annotations

import codecs
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal

from migrator.errors import ExitCode

Status = Literal["converted", "unchanged", "skipped", "failed"]


class Severity(StrEnum):
    """How much a finding matters; ordered info < warning < error."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


@dataclass(frozen=True)
class Finding:
    """One reported fact about a source field: code, severity, where, what, and what to do."""

    code: str
    severity: Severity
    path: str
    message: str
    hint: str = ""
    line: int | None = None
    column: int | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "hint": self.hint,
        }


BOMS = {
    "utf-8": codecs.BOM_UTF8,
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-16-be": codecs.BOM_UTF16_BE,
}


@dataclass(frozen=True)
class SourceText:
    """A decoded input: its text with ``\\n`` newlines plus what is needed to write it back."""

    name: str
    text: str
    newline: str = "\n"
    encoding: str = "utf-8"
    bom: bool = False
    relative: str = ""
    raw: bytes = b""

    def encode(self, text: str) -> bytes:
        """Encode ``text`` (``\\n`` newlines) the way the source file was encoded."""
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        data = text.encode(self.encoding)
        if self.bom:
            data = BOMS[self.encoding] + data
        return data


@dataclass(frozen=True)
class Unreadable:
    """An input that could not be read or decoded, with a one-line reason."""

    name: str
    reason: str
    relative: str = ""


@dataclass(frozen=True)
class PodDifference:
    """One way the pods Trainer will run for a converted document differ from the legacy
    job's pods (a line of the effective-pod comparison, as the review reports show it)."""

    category: str  # env, ports, resources, ...
    description: str  # "[job] category: path changed: before -> after"
    named_by: tuple[str, ...] = ()  # the codes of the findings that name it

    def describe(self) -> str:
        return self.description


@dataclass(frozen=True)
class PodComparison:
    """The effective-pod comparison of one converted document (``check/effective``): its
    differences and the oracle's notes. Computed while the document is converted, only
    when a review report is asked for."""

    differences: tuple[PodDifference, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass
class DocumentResult:
    """The outcome of one document; ``text`` is what goes back into the stream."""

    index: int
    line: int
    status: Status
    text: str
    source: dict[str, Any] = field(default_factory=dict)
    output: dict[str, Any] | None = None
    mappings: list[tuple[str, str]] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)  # mapped source path -> scalar value
    findings: list[Finding] = field(default_factory=list)
    reportable: bool = True
    effective: PodComparison | None = None  # only when a review report is asked for

    @property
    def changed(self) -> bool:
        return self.status == "converted"


@dataclass
class TextResult:
    """The converted stream and the outcome of every document in it."""

    text: str
    documents: list[DocumentResult] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(d.changed for d in self.documents)

    @property
    def failed(self) -> bool:
        return any(d.status == "failed" for d in self.documents)

    @property
    def findings(self) -> list[Finding]:
        return [f for d in self.documents for f in d.findings]


@dataclass
class FileResult:
    """One input file: what was read, what it converted to, or why it could not be read."""

    name: str
    relative: str
    source: SourceText | None = None
    unreadable: Unreadable | None = None
    result: TextResult | None = None
    scanned: int | None = None
    was_changed: bool | None = None
    virtual: bool = False  # rendered output (helm), never written back
    written: bool = False  # its conversion was written (to the output tree or in place)
    write_error: str | None = None  # why writing it failed (the input is unchanged)

    @property
    def changed(self) -> bool:
        if self.was_changed is not None:
            return self.was_changed
        return self.result is not None and self.result.changed

    @property
    def writable(self) -> bool:
        """Rewrite in place only when something converted and nothing in the file failed."""
        return (not self.virtual and self.result is not None and self.result.changed
                and not self.result.failed)

    @property
    def findings(self) -> list[Finding]:
        return self.result.findings if self.result is not None else []

    @property
    def documents_scanned(self) -> int:
        if self.scanned is not None:
            return self.scanned
        if self.result is not None and self.result.documents:
            return len(self.result.documents)
        return 1 if self.source is not None and self.source.text.strip() else 0

    def slim(self) -> FileResult:
        """This result without file contents: what reports and exit codes need.

        A batch keeps only slim results, so its memory does not grow with file sizes (the
        effective-pod comparisons are read, with the texts, before a result is slimmed).
        """
        documents = [replace(d, text="", effective=None) for d in self.result.documents] \
            if self.result else []
        return FileResult(self.name, self.relative, None, self.unreadable,
                          TextResult("", documents) if self.result is not None else None,
                          scanned=self.documents_scanned, was_changed=self.changed,
                          virtual=self.virtual, written=self.written,
                          write_error=self.write_error)


@dataclass
class Verdict:
    """What a run's exit code depends on, gathered file by file as results stream by (a run
    need not keep its results to know it)."""

    unusable: bool = False  # an input could not be read, or a result could not be written
    attention: bool = False  # a reported document would change (or could not be converted)
    worst: int = -1  # the highest rank of any finding

    def add(self, file: FileResult) -> None:
        if file.unreadable is not None or file.write_error is not None:
            self.unusable = True
        for doc in file.result.documents if file.result is not None else ():
            if doc.reportable and doc.status != "unchanged":
                self.attention = True
            for finding in doc.findings:
                self.worst = max(self.worst, finding.severity.rank)

    def exit_code(self, fail_on: str = "never", *, legacy_fails: bool = False) -> int:
        """The one exit-code mapping of a run.

        2 when an input was unreadable or a result could not be written; otherwise, with
        ``legacy_fails`` (check, diff), 1 when a document would change; otherwise 1 when a
        finding is at or above ``fail_on`` (``never``: no finding fails the run); else 0.
        """
        if self.unusable:
            return int(ExitCode.USAGE)
        if legacy_fails:
            return int(ExitCode.FINDINGS if self.attention else ExitCode.OK)
        if fail_on == "never":
            return int(ExitCode.OK)
        failing = self.worst >= Severity(fail_on).rank
        return int(ExitCode.FINDINGS if failing else ExitCode.OK)


def exit_code(files: Iterable[FileResult], fail_on: str = "never", *,
              legacy_fails: bool = False) -> int:
    """The exit code of a run with these results (``Verdict.exit_code``)."""
    verdict = Verdict()
    for file in files:
        verdict.add(file)
    return verdict.exit_code(fail_on, legacy_fails=legacy_fails)
