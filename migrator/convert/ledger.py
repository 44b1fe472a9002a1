"""CONVERT: the ledger of one conversion: which source fields were mapped, defaulted or reported.

Every rule that touches a source field records it here. After the conversion, any leaf of the
source document that no record covers becomes an ``unknown-field`` finding, so nothing is
dropped silently.
"""

from __future__ import annotations

from typing import Any

from migrator import paths
from migrator.knowledge.specs import CodeDoc
from migrator.load import yamlio
from migrator.paths import FieldPath
from migrator.results import Finding, Severity

UNKNOWN_FIELD = "U901"


class Ledger:
    """Findings, provenance (source → target) and consumed source paths of one document."""

    def __init__(self, root: Any, codes: dict[str, CodeDoc], line_offset: int = 0) -> None:
        self.root = root
        self.codes = codes
        self.line_offset = line_offset
        self.findings: list[Finding] = []
        self.mappings: list[tuple[str, str]] = []
        self.values: dict[str, Any] = {}  # rendered source path -> carried scalar value
        self.consumed: list[FieldPath] = []

    def mapped(self, source: FieldPath, target: str, *, consume: bool = True) -> None:
        """``source`` was carried to ``target``."""
        rendered = self.render(source)
        self.mappings.append((rendered, target))
        value = paths.get(self.root, source)
        if isinstance(value, str | int | float | bool):
            self.values[rendered] = yamlio.scalar(value)
        if consume:
            self.consumed.append(source)

    def default(self, source: FieldPath) -> None:
        """``source`` holds a value that needs no counterpart (a default or an equivalent)."""
        self.consumed.append(source)

    def report(self, code: str, source: FieldPath, message: str, *, hint: str | None = None,
               consume: bool = True) -> Finding:
        """Record a finding about ``source`` (and mark it consumed)."""
        doc = self.codes[code]
        line, column = self.locate(source)
        finding = Finding(code, Severity(doc.severity), self.render(source), message,
                          doc.fix if hint is None else hint, line, column)
        self.findings.append(finding)
        if consume:
            self.consumed.append(source)
        return finding

    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)

    def close(self, skip: tuple[FieldPath, ...] = ()) -> None:
        """Report every source leaf that no record covers."""
        for leaf in paths.uncovered_leaves(self.root, {*self.consumed, *skip}):
            self.report(UNKNOWN_FIELD, leaf,
                        f"{self.render(leaf)} is not known to any mapping rule and was "
                        "not carried over")

    def render(self, path: FieldPath) -> str:
        """Dotted path with ``[name=x]`` selectors where list items have names."""
        rendered: list[paths.Segment] = []
        node = self.root
        for seg in path:
            if isinstance(seg, int) and isinstance(node, list) and 0 <= seg < len(node):
                item = node[seg]
                name = item.get("name") if isinstance(item, dict) else None
                rendered.append(("name", name) if isinstance(name, str) else seg)
                node = item
            else:
                rendered.append(seg)
                node = node.get(seg) if isinstance(node, dict) else None
        return paths.render(tuple(rendered))

    def locate(self, path: FieldPath) -> tuple[int | None, int | None]:
        """1-based line and column of ``path`` in the file (the deepest known ancestor)."""
        return yamlio.locate(self.root, path, self.line_offset)
