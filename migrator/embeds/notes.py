"""Load stage helper: build findings for embedded manifests from mappings/codes.yaml."""

from __future__ import annotations

from dataclasses import replace

from migrator.results import Finding, Severity


def finding(code: str, path: str, message: str, line: int | None = None,
            column: int | None = None) -> Finding:
    """A finding with the severity and hint that codes.yaml gives ``code``."""
    from migrator.knowledge import catalog

    doc = catalog.load().codes[code]
    return Finding(code, Severity(doc.severity), path, message, doc.fix, line, column)


def shifted(item: Finding, offset: int, prefix: str = "") -> Finding:
    """``item`` moved ``offset`` lines down (and under ``prefix`` when given)."""
    line = item.line + offset if item.line is not None else None
    path = item.path
    if prefix:
        path = f"{prefix}.{path}" if path else prefix
    return replace(item, line=line, path=path)
