"""CONVERT stage for shell scripts: a heredoc whose body is a legacy job is converted in place
(plain variables such as ``${IMAGE}`` and ``$N`` are carried as envsubst placeholders, by the
template stage; other shell expansions, ``$(cmd)`` or ``${X:-y}``, are masked while it is
converted); the script around it stays byte-identical. A job that cannot be converted is
reported (E808). No mask token reaches a message, a name or the output."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from migrator.convert import snippets as notes
from migrator.load import detect, masking
from migrator.load import textscan as scan
from migrator.settings import ConvertOptions

if TYPE_CHECKING:
    from migrator.results import DocumentResult, TextResult

TEXT_JOB = "E808"
# the expansions masked in an unquoted heredoc: all but a plain variable ($N, ${N}), which
# expands as envsubst would and which the template stage carries into typed fields
_COMPLEX = re.compile(r"\$\{(?![A-Za-z_][A-Za-z0-9_]*\})[^}\n]*\}|\$\([^)\n]*\)|`[^`\n]*`")


def convert(text: str, options: ConvertOptions | None = None,
            render: bool = True) -> TextResult:
    """Convert the legacy jobs in the script's heredocs."""

    options = options or ConvertOptions()
    lines, found = scan.heredocs(text)
    edits = []
    for heredoc in found:
        if detect.is_candidate(heredoc.body):
            body, results = _heredoc(heredoc, options, render)
            edits.append((heredoc.first, heredoc.last, body, results))
    return notes.splice(lines, edits)


def _heredoc(heredoc: scan.Heredoc, options: ConvertOptions,
             render: bool) -> tuple[str | None, list[DocumentResult]]:
    from migrator.convert.text import convert_text

    if heredoc.strip_tabs and any(line.startswith("\t") for line in
                                  heredoc.body.splitlines()):
        return None, unconverted(heredoc.body, heredoc.first, "a <<- heredoc (tab-indented)")
    pattern = _COMPLEX if not heredoc.quoted else None
    masked = masking.mask(heredoc.body, pattern) if pattern else masking.Masked(heredoc.body,
                                                                                  {})
    body_lines = heredoc.body.splitlines(keepends=True)
    crlf = bool(body_lines) and all(line.endswith("\r\n") for line in body_lines)
    source = masked.text.replace("\r\n", "\n")
    result = convert_text(source, options=options, render=render)
    documents = [_unmasked(notes.placed(d, heredoc.first, max(heredoc.last, heredoc.first + 1)),
                           masked.tokens)
                 for d in result.documents if d.reportable]
    if notes.blocks_nothing(documents):
        documents += unconverted(heredoc.body, heredoc.first, "a shell heredoc")
    if not result.changed or not render:
        return None, documents
    restored = masked.restore(result.text)
    if restored is None:
        for document in documents:
            if document.status == "converted":
                document.status = "failed"
                document.findings.append(notes.finding(
                    "E805", "", "the converted heredoc would lose a shell expansion; convert "
                    "it by hand", document.line))
        return None, documents
    return restored.replace("\n", "\r\n") if crlf else restored, documents


def unconverted(text: str, offset: int, where: str) -> list[DocumentResult]:
    """An E808 document for each legacy job written out in ``text`` (whose first line is
    line ``offset + 1`` of the file)."""
    from migrator.results import DocumentResult

    return [DocumentResult(0, offset + line + 1, "skipped", "", source={"kind": kind},
                           findings=[notes.finding(TEXT_JOB, "", f"a {kind} in {where} is "
                                                   "not converted", offset + line + 1)])
            for line, kind in scan.legacy_jobs(text)]


def _unmasked(document: DocumentResult, tokens: dict[str, str]) -> DocumentResult:
    """``document`` with every mask token in its findings, names and output put back."""
    if not tokens:
        return document
    from migrator.results import replaced

    def back(value: Any) -> Any:
        if isinstance(value, str):
            for token, original in tokens.items():
                value = value.replace(token, original)
        elif isinstance(value, dict):
            return {k: back(v) for k, v in value.items()}
        elif isinstance(value, list):
            return [back(v) for v in value]
        return value

    document.findings = [replaced(f, path=back(f.path), message=back(f.message),
                                  hint=back(f.hint)) for f in document.findings]
    document.source = {k: back(v) for k, v in document.source.items()}
    if document.output is not None:
        document.output = {k: back(v) for k, v in document.output.items()}
    document.mappings = [(back(a), back(b)) for a, b in document.mappings]
    document.values = {back(k): back(v) for k, v in document.values.items()}
    return document
