"""Report writers for reviewers and tools: Markdown, HTML, SARIF 2.1.0 and JUnit XML.

The JSON report (the machine contract) lives in ``migrator.report``.
"""

from __future__ import annotations

FORMATS = {".json": "json", ".md": "markdown", ".markdown": "markdown", ".html": "html",
           ".htm": "html", ".sarif": "sarif", ".xml": "junit"}


def format_of(name: str) -> str | None:
    """The report format a file name asks for (``x.sarif.json`` is SARIF)."""
    lowered = name.lower()
    if lowered.endswith(".sarif.json"):
        return "sarif"
    for suffix, kind in FORMATS.items():
        if lowered.endswith(suffix):
            return kind
    return None
