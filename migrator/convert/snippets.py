"""CONVERT stage helper for jobs inside other files: findings from mappings/codes.yaml, and
snippet results moved to the lines of the file that holds them."""

from __future__ import annotations

from typing import Any

from migrator.results import DocumentResult, Finding, Severity, TextResult, replaced

PARSE_CODES = frozenset({"Y101", "Y104"})


def finding(code: str, path: str, message: str, line: int | None = None,
            column: int | None = None) -> Finding:
    """A finding with the severity and hint that codes.yaml gives ``code``."""
    from migrator.knowledge import catalog

    doc = catalog.load().codes[code]
    return Finding(code, Severity(doc.severity), path, message, doc.fix, line, column)


def shifted(item: Finding, offset: int, prefix: str = "", last: int | None = None) -> Finding:
    """``item`` moved ``offset`` lines down (and under ``prefix`` when given); a position past
    ``last`` (a parser reporting the end of a snippet) is put on the snippet's last line."""
    line = item.line + offset if item.line is not None else None
    if line is not None and last is not None:
        line = min(line, last)
    path = item.path
    if prefix:
        path = f"{prefix}.{path}" if path else prefix
    return replaced(item, line=line, path=path)


def placed(document: DocumentResult, offset: int, last: int | None = None, *,
           independent: bool = False) -> DocumentResult:
    """``document`` of a snippet moved to the lines of the file holding it. A snippet that
    does not parse is skipped (its finding stays), so it never blocks the rest of the file;
    so is any snippet that failed when the snippets are ``independent`` (Markdown: each one
    stands alone, so one that cannot be converted is left as it is, with its findings)."""
    status = document.status
    if status == "failed" and (independent or {f.code for f in document.findings}
                               <= PARSE_CODES):
        status = "skipped"
    return replaced(document, line=document.line + offset, status=status,
                   findings=[shifted(f, offset, last=last) for f in document.findings])


def splice(lines: list[str], edits: list[tuple[int, int, str | None, list[DocumentResult]]]
           ) -> TextResult:
    """The file's lines with each converted span ``(first, last, body, results)`` replaced by
    its body (``None``: kept as it is), and the documents of every span renumbered in order."""
    out: list[str] = []
    documents: list[DocumentResult] = []
    position = 0
    for first, last, body, results in edits:
        documents += results
        if body is not None:
            out += lines[position:first]
            out.append(body)
            position = last
    out += lines[position:]
    for index, document in enumerate(documents):
        document.index = index
    return TextResult("".join(out), documents)


def blocks_nothing(documents: list[DocumentResult]) -> bool:
    """No document was converted and none carries an error: a legacy job found in the text
    would go unreported."""
    return not any(d.status == "converted" or any(f.severity is Severity.ERROR
                                                  for f in d.findings) for d in documents)


def text_jobs(root: Any, line: int, index: int, text: str, source: dict[str, Any]) -> Any:
    """A skipped DocumentResult with an E808 finding for each legacy job written out in a
    string value of ``root`` (a document the tool does not otherwise convert), or None.
    ``line`` is the document's first line in its file, ``text`` its text (kept as it is)."""
    from migrator.load import textscan

    hits = list(textscan.in_strings(root, line - 1))
    if not hits:
        return None
    findings = [finding("E808", _render(hit.path), f"a {hit.kind} is written out in this "
                        "string; it is not converted", hit.line) for hit in hits]
    return DocumentResult(index, line, "skipped", text, source=source, findings=findings)


def _render(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out
