"""REPORT: escaping by context for Markdown, HTML and XML — code spans longer than
any backtick run, HTML text and attributes, table cells, fences longer than the content's."""

from __future__ import annotations

import html
import re

from migrator.report.safety import neutralise, printable, printable_lines

BACKTICKS = re.compile(r"`+")
XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]<>!|~&])")
ZERO_WIDTH_SPACE = "\u200b"


def _longest_run(text: str, char: str = "`") -> int:
    runs = re.findall(re.escape(char) + "+", text)
    return max((len(run) for run in runs), default=0)


def code_span(text: str, *, in_table: bool = False) -> str:
    """A Markdown code span that shows ``text`` literally, whatever backticks it holds."""
    text = printable(text)
    if in_table:
        text = text.replace("|", "\\|")
    delimiter = "`" * (_longest_run(text) + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) or not text else ""
    return f"{delimiter}{pad}{text}{pad}{delimiter}"


def markdown_text(text: str) -> str:
    """Plain Markdown text (also in table cells): Markdown/HTML punctuation backslash-escaped."""
    return MARKDOWN_PUNCTUATION.sub(r"\\\1", printable(text))


def html_text(text: str) -> str:
    """Text inside HTML (also HTML blocks of Markdown such as ``<summary>``)."""
    return html.escape(printable(text), quote=True).replace("`", "&#96;")


def html_lines(text: str) -> str:
    """Multi-line text inside an HTML ``<pre>``/cell: escaped, line breaks kept."""
    return neutralise(html.escape(printable_lines(text.replace("\r\n", "\n")).replace(
        "\r", "\\r"), quote=True), "&#58;", "&#91;")


def fence(content: str, info: str = "") -> list[str]:
    """A fenced code block longer than any backtick run in ``content``; lines that the Actions
    runner would read as commands get a zero-width space after their first colon."""
    body = printable_lines(content.replace("\r\n", "\n")).replace("\r", "\\r").rstrip("\n")
    body = neutralise(body, ":" + ZERO_WIDTH_SPACE, ZERO_WIDTH_SPACE + "[")
    marker = "`" * max(3, _longest_run(body) + 1)
    return [f"{marker}{info}", *body.split("\n"), marker]


def doc_anchor(code: str, name: str) -> str:
    """The anchor of a code's heading in docs/codes.md as GitHub makes it
    (``### Y101 yaml-syntax-error`` → ``y101-yaml-syntax-error``)."""
    return re.sub(r"[^a-z0-9_-]", "", f"{code}-{name}".lower().replace(" ", "-")) if name \
        else code.lower()


def plural(count: int, word: str) -> str:
    """``1 file``, ``2 files``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def shorten(text: str, width: int) -> str:
    """``…`` plus the end of ``text`` when it is longer than ``width`` characters."""
    return text if len(text) <= width else "…" + text[-(width - 1):]


def xml_text(text: str) -> str:
    """Text XML 1.0 can hold: forbidden characters shown as escapes."""
    return XML_FORBIDDEN.sub(lambda m: printable(m.group()), printable_lines(text))
