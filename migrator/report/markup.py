"""REPORT: escaping by context for Markdown, HTML and XML — code spans longer than
any backtick run, HTML text and attributes, table cells, fences longer than the content's,
GitHub mentions and issue references made inert."""

from __future__ import annotations

import html
import re

from migrator.report.safety import neutralise, printable, printable_lines

BACKTICKS = re.compile(r"`+")
XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]<>!|~&])")
ZERO_WIDTH_SPACE = "\u200b"
ZERO_WIDTH_JOINER = "\u200d"
# (``GH-`` after anything but a letter or digit: an escaped ``\_GH-12`` renders as ``_GH-12``)
GITHUB_REFERENCE = re.compile(r"(?:[@#]|(?<![^\W_])GH-)(?=\w)", re.I)


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
    """Plain Markdown text (also in table cells): Markdown/HTML punctuation backslash-escaped,
    GitHub references made inert (``unlinked``)."""
    return MARKDOWN_PUNCTUATION.sub(r"\\\1", unlinked(printable(text)))


def unlinked(text: str) -> str:
    """Text from the input as GitHub shows it in Markdown without acting on it: a zero-width
    joiner after the ``@`` of a mention (``@user``, ``@org/team``: it would notify them) and
    the ``#`` or ``GH-`` of an issue reference (``#123``, ``owner/repo#123``: it would link
    the issue and add a back-reference to it). The text still reads the same."""
    if "@" not in text and "#" not in text and "GH-" not in text:
        return text
    return GITHUB_REFERENCE.sub(lambda m: m.group() + ZERO_WIDTH_JOINER, text)


CODE_IN_TEXT = re.compile(r"`([^`\n]+)`")  # a code span in a message or a fix


def markdown_cell(text: str) -> str:
    """Text for a Markdown table cell whose `code` spans (a fix's ``torchrun train.py``) are
    shown as code: each span through ``code_span``, the text between escaped; ``|`` never
    ends the cell; a lone backtick stays a literal one."""
    parts = CODE_IN_TEXT.split(text)
    return "".join(code_span(part, in_table=True) if odd else markdown_text(part)
                   for odd, part in ((i % 2 == 1, part) for i, part in enumerate(parts))
                   if odd or part)


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


def shorten_end(text: str, width: int) -> str:
    """The start of ``text`` and ``…`` when it is longer than ``width`` characters."""
    return text if len(text) <= width else text[:width - 1] + "…"


def shorten_path(text: str, width: int) -> str:
    """``…`` plus the end of a field path when it is longer than ``width`` characters, cut
    where a segment starts (``…Worker.template.spec``), never inside a name or a
    ``[name=…]`` selector: a cell shows whole segments (``shorten`` when none fits)."""
    if len(text) <= width:
        return text
    depth, starts = 0, []
    for index, char in enumerate(text):
        if char == "[":
            if depth == 0:
                starts.append(index)
            depth += 1
        elif char == "]":
            depth = max(0, depth - 1)
        elif char in "./" and depth == 0:
            starts.append(index + 1)
    fits = [start for start in starts if len(text) - start <= width - 1]
    return "…" + text[fits[0]:] if fits else shorten(text, width)


def xml_text(text: str) -> str:
    """Text XML 1.0 can hold: forbidden characters shown as escapes."""
    return XML_FORBIDDEN.sub(lambda m: printable(m.group()), printable_lines(text))
