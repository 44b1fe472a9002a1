"""CONVERT: a finding's fix fitted to the command that produced it.

The fix texts of mappings/codes.yaml are written for the usual case. Where the command line
already settles what a fix would suggest, the fix is rewritten so that it never tells the
user to pass an option that was given or that cannot apply:

- a job embedded in another object (an Argo step, a List item, a ConfigMap's data, ...) gets
  no companion runtime, whatever the options say (there is no place for a second object), so
  its fixes do not offer ``--companion-runtimes`` (``for_embedded``);
- a job whose runtime the user named (``--runtime``, or ``runtimes:`` in the config file) is
  told to set a field in that runtime, not to create one and name it (``for_runtime``).
"""

from __future__ import annotations

import re

from migrator.results import Finding, replaced

COMPANION = "--companion-runtimes"
NOT_HERE = f"({COMPANION} cannot apply to a job embedded in another object.)"

# How the fix texts offer --companion-runtimes, and what is left without the offer: the
# alternative the fix gives (every fix of codes.yaml that names the option has one of these
# forms: tests/reports/test_hints.py holds them to it).
_COMPANION_FORMS = (
    # "Use --companion-runtimes (why), or ALTERNATIVE."  (the parenthesis may hold ", or")
    re.compile(r"^(?:Use|Convert with) --companion-runtimes(?: \([^()]*\))?, or (?P<rest>.+)$",
               re.S),
    # "ALTERNATIVE, or use --companion-runtimes."
    re.compile(r"^(?P<rest>.+?),? or use --companion-runtimes\.(?P<tail>.*)$", re.S),
    # "ALTERNATIVE (or use --companion-runtimes)."  /  "ALTERNATIVE (--companion-runtimes does)."
    re.compile(r"^(?P<rest>.+?) \((?:or use --companion-runtimes|--companion-runtimes "
               r"does)\)(?P<tail>.*)$", re.S),
    # "Nothing to do with --companion-runtimes; ALTERNATIVE."
    re.compile(r"^Nothing to do with --companion-runtimes; (?P<rest>.+)$", re.S),
)


def without_companion(fix: str) -> str | None:
    """``fix`` without its offer of ``--companion-runtimes`` (the alternative it gives, as a
    sentence); None when it has none of the known forms."""
    for form in _COMPANION_FORMS:
        match = form.match(fix)
        if match is None:
            continue
        rest = match.group("rest").strip()
        tail = match.groupdict().get("tail") or ""
        if form is _COMPANION_FORMS[1]:
            rest += "."
        text = (rest[:1].upper() + rest[1:] + tail).strip()
        return text if COMPANION not in text else None
    return None


def for_embedded(finding: Finding) -> Finding:
    """A finding of a job embedded in another object, whose fix must not offer
    ``--companion-runtimes``: the alternative it gives, and why the option cannot help."""
    if COMPANION not in finding.hint or NOT_HERE in finding.hint:
        return finding
    rest = without_companion(finding.hint)
    hint = f"{rest} {NOT_HERE}" if rest else \
        f"Reference a runtime of your own that does what the job needs. {NOT_HERE}"
    return replaced(finding, hint=hint)


def for_runtime(finding: Finding, fix: str, name: str, kind: str) -> Finding:
    """A P301 finding (a pod field only a runtime can set) of a job that references the
    user's runtime ``kind``/``name``: set the field there (its fix, ``fix``, says to create
    a runtime and name it with ``--runtime``, which the user did)."""
    if finding.hint != fix:
        return finding
    return replaced(finding, hint=f"Set the field in the pod template of {kind} {name}, the "
                    "runtime this TrainJob references, or leave it out if the job does not "
                    "need it.")
