"""What the conversion of a document produced: plain data, cheap to import and to send
between processes (a batch's main process never needs the converter to read it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from migrator.findings import Finding

Status = Literal["converted", "unchanged", "skipped", "failed"]


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

    @property
    def changed(self) -> bool:
        return self.status == "converted"
