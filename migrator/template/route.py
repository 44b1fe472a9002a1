"""Template stage, entry from ``convert_text``: a templated legacy job goes through template/."""

from __future__ import annotations

import bisect
import contextvars
import re
from typing import Any

from migrator.load import detect
from migrator.results import DocumentResult, Finding, Severity, TextResult
from migrator.settings import ConvertOptions
from migrator.template.marks import ENV_MARK, MARK

_ACTIVE: contextvars.ContextVar[bool] = contextvars.ContextVar("template_active", default=False)
# a scalar that is nothing but a variable: `replicas: $N`, `image: "${IMAGE}"`, `- ${ARG}`;
# matched against ONE line at a time (and only lines holding a `$`), so detection is linear in
# the text: a pattern run over the whole text under MULTILINE let `\s`/`[^:#]` cross newlines and
# rescanned the rest of the text from every line start (quadratic in a long colon-free script)
_WHOLE_VAR = re.compile(r"[^\S\n]*(?:- +|[^\s#:][^:#\n]*:[^\S\n]+)([\"']?)\$(?:\{[A-Za-z_]\w*\}|"
                        r"[A-Za-z_]\w*)\1[^\S\n]*(?:#.*)?")
# the same with the value alone on a continuation line under `key:` (`image:\n  $IMAGE`)
_LONE_VAR = re.compile(r"[^\S\n]*([\"']?)\$(?:\{[A-Za-z_]\w*\}|[A-Za-z_]\w*)\1[^\S\n]*(?:#.*)?")
_OPEN_KEY = re.compile(r"[^\S\n]*[^\s#:][^:#\n]*:[^\S\n]*")
_ANY_KIND = re.compile(r"^kind:\s*[\"']?(\w+)", re.MULTILINE)
_ARGO = re.compile(r"^kind:\s*[\"']?(" + "|".join(detect.ARGO_KINDS) + r")\b", re.MULTILINE)


def dialect(text: str) -> str | None:
    """The template dialect of a text holding a legacy job or a Trainer manifest (which may
    need an upgrade to the 2.2 shape), or None (not ours to convert)."""
    if not (detect.embeds_legacy_job(text) or detect.trainer_kind(text)) or "{%" in text \
            or "{#" in text:
        return None
    if "{{" in text:
        return None if _ARGO.search(text) else "go"
    if _whole_var(text):
        return "envsubst"
    return None


def _whole_var(text: str) -> bool:
    """Whether some line is a key or list item whose value is nothing but a variable; each
    line holding a `$` is matched once on its own (work linear in the text)."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if "$" not in line:
            continue
        if _WHOLE_VAR.fullmatch(line.rstrip("\r")):
            return True
        if _LONE_VAR.fullmatch(line.rstrip("\r")):
            above = index - 1
            while above >= 0 and not lines[above].strip():
                above -= 1
            if above >= 0 and _OPEN_KEY.fullmatch(lines[above].rstrip("\r")):
                return True
    return False


def convert_templated(text: str, options: ConvertOptions, render: bool) -> TextResult | None:
    """The result for a templated text, or None to let the plain pipeline handle it (not a
    template, a template this stage cannot read, or a conversion already inside one)."""
    if _ACTIVE.get():
        return None
    if MARK in text or text.startswith(ENV_MARK):  # converted by an earlier run: nothing left to do
        kind_found = _ANY_KIND.search(text)
        return TextResult(text, [DocumentResult(0, 1, "unchanged", text, source={
            "kind": kind_found.group(1) if kind_found else None})])
    if detect.embeds_legacy_job(text) and first_closed(text, _JINJA_OPEN) is not None:
        return _jinja(text, options, render)
    kind = dialect(text)
    if kind is None:
        return None
    from migrator.template.convert import convert_template

    token = _ACTIVE.set(True)
    try:
        outcome = convert_template(text, kind, options, render)  # type: ignore[arg-type]
    finally:
        _ACTIVE.reset(token)
    if outcome is None:
        return None
    if not detect.embeds_legacy_job(text) and outcome.status != "converted":
        # Trainer manifests only: the template stage carries an upgrade (a pre-2.2 TrainJob or
        # runtime); a current one, one it cannot read or an upgrade that fails is judged as
        # before (a current chart's Y103, not the template stage's errors)
        return None
    return TextResult(outcome.text if render else text, _documents(outcome, text))


# a Jinja statement or comment tag (`${#ARRAY[@]}` in a shell script is no Jinja comment, a
# Hugo shortcode `{{% include %}}` no Jinja statement)
# where a Jinja statement or comment opens; it counts when its closer follows on the same line
_JINJA_OPEN = re.compile(r"(?<!\{)\{%-?\s*(?:if|for|set|macro|include|import|from|block|raw|"
                         r"filter|with|call|elif|else|end\w+)\b|(?<!\$)\{#")
_EXPRESSION_OPEN = re.compile(r"\{\{")
_CLOSERS = {"{%": "%}", "{#": "#}", "{{": "}}"}
_ENV_VAR = re.compile(r"\$(?:\{[A-Za-z_]\w*\}|[A-Za-z_]\w*)")
JINJA = "Y114"


def _jinja(text: str, options: ConvertOptions, render: bool) -> TextResult:
    """A Jinja template holding a legacy job: the plain pipeline's result (other documents of
    the stream convert as usual), with the generic template finding of each Jinja document
    replaced by one that names its first Jinja construct, its line and the decision."""
    from migrator.convert.plain import convert_plain
    from migrator.knowledge import catalog

    result = convert_plain(text, options, render)
    doc_info = catalog.load().codes.get(JINJA)
    for doc in result.documents:
        tag = first_closed(doc.text, _JINJA_OPEN)
        if tag is None or not any(f.code == "Y103" for f in doc.findings):
            continue
        line = doc.line + doc.text.count("\n", 0, tag[0])
        variable = next((m for m in _ENV_VAR.finditer(doc.text)
                         if doc.text[max(m.start() - 1, 0):m.start()] != "$"), None)
        mixed = ""
        if variable is not None:
            at = doc.line + doc.text.count("\n", 0, variable.start())
            mixed = (f", with envsubst variables such as {variable.group(0)} (line {at}) "
                     "rendered after it")
        where = f"{doc.text[tag[0]:tag[1]][:80]} at line {line}"
        expression = first_closed(doc.text[:tag[0]], _EXPRESSION_OPEN)
        if expression is not None:  # an expression before the first statement comes first
            line = doc.line + doc.text.count("\n", 0, expression[0])
            where = f"{doc.text[expression[0]:expression[1]][:80]} at line {line}, {where}"
        message = (f"the document is a Jinja template ({where}"
                   f"{mixed}): what it renders depends on its renderer's whitespace settings "
                   "and variables, which the file does not state, so it is not carried; "
                   "decide: render the Jinja stage as your generator does and convert the "
                   "result" + (" (its envsubst variables are carried)" if mixed else "")
                   + ", or port the template to Helm")
        doc.findings = [Finding(JINJA, Severity(doc_info.severity if doc_info else "warning"),
                                f.path, message, doc_info.fix if doc_info else "", line, None)
                        if f.code == "Y103" else f for f in doc.findings]
    return result


def _documents(outcome: Any, text: str) -> list[DocumentResult]:
    from migrator.knowledge import catalog

    codes = catalog.load().codes
    findings = []
    for note in outcome.notes:
        doc = codes.get(note.code)
        severity = Severity(note.severity or (doc.severity if doc else "warning"))
        findings.append(Finding(note.code, severity, note.path, note.message,
                                note.hint or (doc.fix if doc else ""), note.line, note.column))
    legacy = [d for d in outcome.documents if d.reportable and d.source.get("kind")]
    moved = [(f"{p['action']} (template line {p['line']})", to)
             for p in outcome.provenance for to in p["to"]]
    if not legacy:
        kind = detect.embeds_legacy_job(text)
        return [DocumentResult(0, 1, outcome.status, text,
                               source={"kind": kind},
                               findings=findings)]
    results = []
    for i, doc in enumerate(legacy):
        results.append(DocumentResult(
            doc.index, doc.line, outcome.status, text if i == 0 else "", source=doc.source,
            output=doc.output if outcome.status == "converted" else None,
            mappings=list(doc.mappings) + (moved if i == 0 else []),
            values={}, findings=findings if i == 0 else []))
    return results


def first_closed(text: str, opener: re.Pattern[str]) -> tuple[int, int] | None:
    """The span of the first ``opener`` whose closer (``%}``, ``#}``, ``}}``) follows on the
    line where the opener ends, as ``OPENER.*?CLOSER`` would find it, in linear time: an
    opener whose line holds no closer after it is passed over with one comparison (the
    pattern with ``.*?`` rescanned the rest of the line from every opener)."""
    newlines: list[int] | None = None
    last: dict[tuple[int, str], int] = {}
    for match in opener.finditer(text):
        if newlines is None:
            newlines = [m.start() for m in re.finditer("\n", text)]
        end, close = match.end(), _CLOSERS[match.group(0)[:2]]
        line = bisect.bisect_left(newlines, end)
        line_end = newlines[line] if line < len(newlines) else len(text)
        key = (line, close)
        if key not in last:
            line_start = newlines[line - 1] + 1 if line else 0
            last[key] = text.rfind(close, line_start, line_end)
        if last[key] >= end:
            return match.start(), text.find(close, end, line_end) + len(close)
    return None
