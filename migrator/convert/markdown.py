"""CONVERT stage for Markdown pages: find the fenced YAML snippets, convert each one in place,
keep the prose, the other blocks and the front matter byte-identical.

A snippet is a fenced block (backticks or tildes, any fence length, indented inside a list
or in a block quote, or not) whose info string is ``yaml``/``yml``, or an untagged block that
reads as a Kubernetes object. Each snippet is converted on its own (``convert_text``) and stands
alone: one that is broken or cannot be converted is left as it is ("skipped", with its
findings, so ``check`` still fails) and never blocks the rest of the page; findings and
documents carry the page's line numbers. Hugo shortcodes (``{{< >}}``, ``{{% %}}``) are
masked, not taken for templates. Shell blocks (``bash``, ``sh``, ...) have their heredocs
converted like a script's (``shell``); so has an untagged block whose first command line
starts a heredoc or is a ``$ `` prompt, and an untagged block that is not YAML (with no
heredoc it is then passed over, like a block tagged with another language, unless it shows a
job or names a training kind: then it is read as YAML and reported if it is not). A legacy
job written out anywhere else (an indented code block, HTML) is reported (E808), not converted.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from migrator.convert import snippets as notes
from migrator.convert.filekinds import MARKDOWN_SUFFIXES
from migrator.load import detect, masking, textscan
from migrator.settings import ConvertOptions

if TYPE_CHECKING:
    from migrator.results import DocumentResult, TextResult

YAML_TAGS = frozenset({"yaml", "yml"})
SHELL_TAGS = frozenset({"bash", "sh", "shell", "console", "zsh"})
FRAGMENT = "E804"
PLACEHOLDER_LOST = "E805"
NOT_YAML = "Y101"
# a fence may sit in a list (indented) and in a block quote (``> ```yaml``, nested ``> >``)
_OPEN = re.compile(r"(?P<indent>(?:[ \t]*>)*[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\r\n]*)")
_QUOTE_MARKS = re.compile(r"(?:[ \t]*>)+")
_API_LINE = re.compile(r"^apiVersion:", re.M)
_PROMPT = "$ "
# a line that YAML reads as a mapping key, a list item or a document marker
_YAML_LINE = re.compile(r"(?:-|---|\.\.\.)(?:[ \t]|$)|[^\s#:][^:]*:(?:[ \t]|$)")
_KIND_LINE = re.compile(r"^kind:", re.M)
_FRONT_MATTER = {"---": "---", "+++": "+++"}


@dataclass(frozen=True)
class Block:
    """One fenced block: its body is ``lines[first:last]`` of the page."""

    first: int  # 0-based index of the first body line
    last: int  # 0-based index after the last body line
    indent: str  # what stands before the opening fence (white space, block quote marks)
    info: str  # the info string's first word, lowercased
    body: str  # the body with the fence's indentation removed
    crlf: bool  # the body's lines end with CRLF

    @property
    def line(self) -> int:
        """1-based line number of the first body line."""
        return self.first + 1

    @property
    def is_shell(self) -> bool:
        """A shell-tagged block, or an untagged one whose first line that is not blank or a
        comment is a shell command: a ``$ `` prompt, or a line starting a heredoc
        (``cat <<EOF > job.yaml``) that YAML would not read as a key or list item."""
        if self.info in SHELL_TAGS:
            return True
        if self.info:
            return False
        first = next((line for line in self.body.splitlines()
                      if line.strip() and not line.lstrip().startswith("#")), "").lstrip()
        return first.startswith(_PROMPT) or (
            textscan.opens_heredoc(first) and _YAML_LINE.match(first) is None)

    @property
    def is_snippet(self) -> bool:
        """A YAML-tagged block, or an untagged one that reads as a Kubernetes object."""
        if self.info in YAML_TAGS:
            return True
        return self.info == "" and _API_LINE.search(self.body) is not None \
            and _KIND_LINE.search(self.body) is not None


def is_markdown(name: str) -> bool:
    return name.lower().endswith(MARKDOWN_SUFFIXES)


def scan(text: str) -> tuple[list[str], list[Block]]:
    """The page's lines (with their ends) and its fenced blocks, in order."""
    lines = text.splitlines(keepends=True)
    blocks: list[Block] = []
    number = _after_front_matter(lines)
    while number < len(lines):
        opening = _OPEN.fullmatch(lines[number].rstrip("\r\n"))
        if opening is None or (opening["fence"][0] == "`" and "`" in opening["info"]):
            number += 1
            continue
        fence, indent = opening["fence"], opening["indent"]
        quotes = indent.count(">")
        end = number + 1
        while end < len(lines) and not _closes(lines[end], fence, quotes):
            end += 1
        body_lines = lines[number + 1:end]
        info = opening["info"].strip().split(maxsplit=1)
        word = info[0].lower().strip("{}.") if info else ""
        blocks.append(Block(number + 1, end, indent, word, _dedent(body_lines, indent),
                            bool(body_lines) and all(x.endswith("\r\n") for x in body_lines)))
        # (a quoted block ends at a line without the quote marks: it is not closed)
        number = end + 1 if end < len(lines) and _unquoted(lines[end], quotes) is not None \
            else end
    return lines, blocks


def _after_front_matter(lines: list[str]) -> int:
    if not lines or lines[0].rstrip("\r\n") not in _FRONT_MATTER:
        return 0
    marker = lines[0].rstrip("\r\n")
    for number in range(1, len(lines)):
        if lines[number].rstrip("\r\n") == marker:
            return number + 1
    return 0


def _closes(line: str, fence: str, quotes: int = 0) -> bool:
    """Whether ``line`` closes the fence, or ends the block quote the fence is in."""
    inside = _unquoted(line, quotes)
    if inside is None:
        return True
    bare = inside.strip()
    return len(bare) >= len(fence) and set(bare) == {fence[0]}


def _unquoted(line: str, quotes: int) -> str | None:
    """``line`` without its first ``quotes`` block quote marks (None: it has fewer)."""
    for _ in range(quotes):
        stripped = line.lstrip(" \t")
        if not stripped.startswith(">"):
            return None
        line = stripped[1:]
    return line


def _dedent(lines: list[str], indent: str) -> str:
    quotes = indent.count(">")
    width = len(indent) - (indent.rfind(">") + 1)  # the white space after the last mark
    out = []
    for line in lines:
        line = _unquoted(line, quotes) or ""
        cut = 0
        while cut < width and cut < len(line) and line[cut] in " \t":
            cut += 1
        out.append(line[cut:].replace("\r\n", "\n"))
    return "".join(out)


def _indent(text: str, block: Block) -> str:
    newline = "\r\n" if block.crlf else "\n"
    blank = block.indent.rstrip(" \t")  # a quote's blank line keeps its marks
    return "".join((block.indent + line if line.strip() else blank) + newline
                   for line in text.splitlines())


def convert(text: str, options: ConvertOptions | None = None,
            render: bool = True) -> TextResult:
    """Convert every legacy job in the page's snippets; everything else stays as it was."""

    options = options or ConvertOptions()
    lines, blocks = scan(text)
    edits = []
    for block in blocks:
        if block.is_shell:
            if not detect.is_candidate(block.body):
                continue
            new_body, results = _shell(block, options, render)
            if not results and not block.info and _shows_job(block.body):
                # an untagged block with no heredoc that shows a job (a prompt, then
                # ``kubectl get -o yaml`` output): read as YAML, as before (reported if broken)
                new_body, results = _snippet(block, options, render)
        elif block.is_snippet:
            new_body, results = _snippet(block, options, render)
        else:
            continue
        if results:
            edits.append((block.first, block.last, new_body, results))
    unfenced = _unfenced_jobs(lines, blocks)
    if unfenced:
        edits = sorted([*edits, *unfenced], key=lambda edit: edit[0])
    return notes.splice(lines, edits)


def _unfenced_jobs(lines: list[str], blocks: list[Block]
                   ) -> list[tuple[int, int, str | None, list[DocumentResult]]]:
    """A legacy job written out elsewhere than in a fenced block (an indented code block, a
    block quote, HTML): not converted, but reported (E808), so ``check`` never passes over it.
    Lines keep their numbers; block quote marks are read past."""
    from migrator.results import DocumentResult

    fenced = {n for block in blocks for n in range(block.first - 1, block.last + 1)}
    outside = "".join("\n" if number in fenced else
                      _QUOTE_MARKS.sub("", line.rstrip("\r\n"), count=1) + "\n"
                      for number, line in enumerate(lines))
    return [(number, number, None, [DocumentResult(0, number + 1, "skipped", "", source={
        "kind": kind}, findings=[notes.finding(
            "E808", "", f"a {kind} is written out outside a fenced code block (an indented "
            "block, a quote, HTML); it is not converted: put it in a ```yaml fence", number + 1)
            ])]) for number, kind in textscan.legacy_jobs(outside)]


def _shell(block: Block, options: ConvertOptions,
           render: bool) -> tuple[str | None, list[DocumentResult]]:
    """A shell block: its heredocs are converted like those of a script."""
    from migrator.convert import shell

    result = shell.convert(block.body, options, render)
    last = max(block.last, block.line)
    documents = [notes.placed(d, block.first, last, independent=True)
                 for d in result.documents]
    if not result.changed or not render:
        return None, documents
    return _indent(result.text, block), documents


def _shows_job(body: str) -> bool:
    """The block shows a legacy job (whole or in part) or names a training kind (a Trainer
    object too): one check must never pass over, even when the block is not YAML."""
    from migrator.load import detect

    return _legacy_part().search(body) is not None or detect.mentions_training_kind(body)


@functools.cache
def _legacy_part() -> re.Pattern[str]:
    """A legacy job's replica-spec key or ``kind:`` line (mappings/: the kinds and their
    replica-spec fields): a snippet showing a legacy job, whole or in part."""
    from migrator.load import detect

    fields = "|".join(map(re.escape, detect.replica_fields()))
    kinds = "|".join(map(re.escape, detect.legacy_kinds()))
    return re.compile(r"\b(?:" + fields + r")\s*:|kind:\s*[\"']?(?:" + kinds + r")\b")


def _snippet(block: Block, options: ConvertOptions,
             render: bool) -> tuple[str | None, list[DocumentResult]]:
    """The snippet's converted body (None when unchanged) and its document results."""
    from migrator.convert.text import convert_text
    from migrator.load import detect
    from migrator.results import DocumentResult

    legacy = _legacy_part().search(block.body)
    if not detect.is_candidate(block.body) and legacy is None:
        return None, []
    masked = masking.mask(block.body, masking.SHORTCODE)
    result = convert_text(masked.text, options=options, render=render)
    if not block.info and any(f.code == NOT_YAML for d in result.documents for f in d.findings):
        # an untagged block that is not YAML: a shell snippet (its heredocs are converted), or
        # text passed over like a block tagged with another language, unless it shows a
        # legacy job (a broken one is still reported: check never passes over a legacy job)
        shell = _shell(block, options, render) if detect.is_candidate(block.body) else \
            (None, [])
        if shell[1] or not _shows_job(block.body):
            return shell
    offset = block.first
    last = max(block.last, block.line)
    documents = [notes.placed(d, offset, last, independent=True) for d in result.documents
                 if d.reportable]
    if legacy is not None and block.info in YAML_TAGS and not any(
            d.source.get("kind") for d in documents):
        documents.append(DocumentResult(0, block.line, "skipped", "", source={}, findings=[
            notes.finding(FRAGMENT, "", "this snippet shows part of a legacy job, not a "
                          "whole manifest; it cannot be converted on its own", block.line)]))
    if not result.changed or not render:
        return None, documents
    restored = masked.restore(result.text)
    if restored is None:
        for document in documents:
            if document.status == "converted":
                document.status = "skipped"
                document.findings.append(notes.finding(
                    PLACEHOLDER_LOST, "", "the converted snippet would lose a shortcode or "
                    "placeholder; convert this snippet by hand", document.line))
        return None, documents
    return _indent(restored, block), documents
