"""BOTTOM: waivers — an operator's decision to accept one finding code (``--allow CODE``, the
config's ``allow:``, or ``# trainjob-migrate: allow CODE -- reason`` inside a document).

A waived error no longer blocks its document; it stays listed, marked with the waiver that
accepted it (``Finding.waived``). An inline waiver applies to its own document only; one that
matches no finding there is an A101 finding. A run's waivers that matched nothing are said
once, after the run (A102). Elastic jobs (F501) need a size: the waiver names it (``F501=min``,
``F501=max`` or ``F501=replicas``) and the finding says the value chosen.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from migrator.results import Finding, FrozenValue, Severity, replaced

INLINE_MARK = "trainjob-migrate:"
UNUSED_INLINE = "A101"  # an inline waiver that matched no finding of its document
UNUSED_RUN = "A102"  # a --allow or config waiver that matched no finding of the run
INVALID_INLINE = "A103"  # an inline waiver that cannot be read
ELASTIC = "F501"
# codes whose waiver must name a choice, and the choices it may name
CHOICES: dict[str, tuple[str, ...]] = {ELASTIC: ("min", "max", "replicas")}
_CODE = re.compile(r"[A-Z][0-9]{3}\Z")
_INLINE = re.compile(r"#\s*trainjob-migrate:\s*(?P<rest>.*)$")


class WaiverError(ValueError):
    """A waiver that cannot be read (the message says why, in one line)."""


class Waiver(FrozenValue):
    """One accepted finding code, with the size chosen (F501), the reason and where it was
    given (``--allow``, ``config <file>``, ``inline, line N``)."""

    FIELDS = ("code", "choice", "reason", "origin")
    code: str
    choice: str
    reason: str
    origin: str

    def __init__(self, code: str, choice: str = "", reason: str = "",
                 origin: str = "--allow") -> None:
        _set = object.__setattr__
        _set(self, "code", code)
        _set(self, "choice", choice)
        _set(self, "reason", reason)
        _set(self, "origin", origin)

    @property
    def spec(self) -> str:
        """``CODE`` or ``CODE=choice``."""
        return f"{self.code}={self.choice}" if self.choice else self.code

    def describe(self) -> str:
        """Who accepted what, in one line: ``F501=max (--allow): reason``."""
        reason = f": {self.reason}" if self.reason else " (no reason given)"
        return f"{self.spec} ({self.origin}){reason}"

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "choice": self.choice or None, "reason": self.reason,
                "origin": self.origin}


def parse(text: str, origin: str) -> Waiver:
    """A waiver from ``CODE[=choice] [-- reason]``; WaiverError when it is not one."""
    head, separator, reason = text.partition("--")
    spec = head.strip()
    code, equals, choice = spec.partition("=")
    code, choice = code.strip().upper(), choice.strip().lower()
    if not _CODE.match(code):
        raise WaiverError(f"{spec!r} is not a finding code such as F501 (allow CODE[=choice] "
                          "[-- reason])")
    allowed = CHOICES.get(code, ())
    if allowed and not choice:
        raise WaiverError(f"{code} needs a choice: {', '.join(f'{code}={c}' for c in allowed)} "
                          "(the size the converted job runs with)")
    if choice and choice not in allowed:
        if not allowed:
            raise WaiverError(f"{code} takes no choice (got {code}={choice})")
        raise WaiverError(f"{code}={choice}: choose one of {', '.join(allowed)}")
    if equals and not choice:
        raise WaiverError(f"{spec!r}: a choice after '=' is missing")
    return Waiver(code, choice, reason.strip() if separator else "", origin)


def parse_all(texts: Iterable[str], origin: str) -> tuple[Waiver, ...]:
    """Every waiver of ``texts`` (WaiverError names the first bad one)."""
    return tuple(parse(text, origin) for text in texts)


def inline(body: str, first_line: int) -> tuple[tuple[Waiver, ...], list[Finding]]:
    """The inline waivers of one document's text (``first_line``: the line of its first
    line in the file) and an A103 finding for each that cannot be read."""
    if INLINE_MARK not in body:
        return (), []
    found: list[Waiver] = []
    problems: list[Finding] = []
    for number, line in enumerate(body.splitlines(), start=first_line):
        match = _INLINE.search(line)
        if match is None:
            continue
        rest = match["rest"].strip()
        verb, _, specs = rest.partition(" ")
        if verb != "allow":
            problems.append(Finding(INVALID_INLINE, Severity.WARNING, "", f"inline waiver "
                                    f"{rest!r}: expected 'allow CODE[=choice] -- reason'",
                                    _FIX_INVALID, number))
            continue
        head, separator, reason = specs.partition("--")
        for item in head.replace(",", " ").split():
            try:
                found.append(parse(f"{item} -- {reason}" if separator else item,
                                   f"inline, line {number}"))
            except WaiverError as exc:
                problems.append(Finding(INVALID_INLINE, Severity.WARNING, "",
                                        f"inline waiver: {exc}", _FIX_INVALID, number))
    return tuple(found), problems


_FIX_INVALID = "Write it as `# trainjob-migrate: allow F501=max -- why this is accepted`."


def chosen(waivers: tuple[Waiver, ...], code: str) -> Waiver | None:
    """The waiver that accepts ``code``: the document's own (inline) first, else the first
    given."""
    found = None
    for waiver in waivers:
        if waiver.code == code and (found is None or (waiver.origin.startswith("inline")
                                    and not found.origin.startswith("inline"))):
            found = waiver
    return found


def mark(findings: list[Finding], waivers: tuple[Waiver, ...], *,
         never: tuple[str, ...] = ()) -> None:
    """Mark (in place) each finding a waiver accepts, but those of the codes ``never``
    (a result the target would reject is never accepted)."""
    if not waivers:
        return
    for index, finding in enumerate(findings):
        if finding.waived or finding.code in never:
            continue
        waiver = chosen(waivers, finding.code)
        if waiver is not None:
            findings[index] = replaced(finding, waived=waiver.describe())


def blocking(findings: list[Finding]) -> list[Finding]:
    """The errors no waiver accepted."""
    return [f for f in findings if f.severity is Severity.ERROR and not f.waived]


def unused_inline(findings: list[Finding], waivers: tuple[Waiver, ...]) -> list[Finding]:
    """An A101 finding for each inline waiver that accepted no finding of its document."""
    used = {f.code for f in findings if f.waived}
    unused = []
    for waiver in waivers:
        if waiver.code in used or not waiver.origin.startswith("inline"):
            continue
        line = int(waiver.origin.rsplit(" ", 1)[-1])
        unused.append(Finding(UNUSED_INLINE, Severity.WARNING, "",
                              f"waiver {waiver.spec} matches no finding of this document",
                              "Remove the waiver, or correct its code.", line))
    return unused


def elastic_size(root: Any, choice: str) -> tuple[int, str] | None:
    """The node count an ``F501=<choice>`` waiver chooses for a legacy job (its
    elasticPolicy's minReplicas or maxReplicas), with what it is; None for ``replicas`` or
    when the bound is not a positive whole number (the replica count stays)."""
    spec = root.get("spec") if isinstance(root, dict) else None
    policy = spec.get("elasticPolicy") if isinstance(spec, dict) else None
    if choice not in ("min", "max") or not isinstance(policy, dict):
        return None
    key = f"{choice}Replicas"
    value = policy.get(key)
    if type(value) is not int or value < 1:
        return None
    return value, key
