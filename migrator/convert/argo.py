"""CONVERT stage for Argo Workflows: rewrite a resource template's
``successCondition`` / ``failureCondition`` from legacy job status to TrainJob status.

Argo parses a condition with the Kubernetes label-selector parser
(``k8s.io/apimachinery/pkg/labels``) and looks each key up as a gjson path in the object's
JSON (argoproj/argo-workflows ``workflow/executor/resource.go``). Every requirement of
``successCondition`` must match; any matching requirement of ``failureCondition`` fails the
step. Keys must be qualified names, so a gjson query such as ``#(type=="Complete")`` is not
allowed: a TrainJob condition can only be reached by its position. The Trainer controller
only ever sets ``Suspended`` (when the TrainJob is or was suspended) and then one terminal
condition, ``Complete`` or ``Failed`` (kubeflow/trainer v2.2.0 ``trainjob_controller.go`` and
the JobSet plugin), so the terminal condition is at index 0, or at index 1 for a TrainJob
that starts suspended (Kueue suspends the jobs it queues).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from migrator.convert import snippets as notes
from migrator.load import detect
from migrator.load import textscan as scan
from migrator.results import Finding, FrozenValue, _set

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only

_SET = re.compile(r"^(?P<key>[^\s!=<>(),]+)\s+(?P<op>in|notin)\s*\((?P<values>[^()]*)\)$")
_BINARY = re.compile(r"^(?P<key>[^\s!=<>(),]+)\s*(?P<op>==|=|!=|>|<)\s*(?P<value>[^\s,()]*)$")
_KEY = re.compile(r"^(?P<key>[^\s!=<>(),]+)$")
_REPLICA = re.compile(r"^status\.replicaStatuses\.[A-Za-z]+\.(?P<field>succeeded|failed)$")
_CONDITION = re.compile(r"^status\.conditions\.\d+\.type$")
_LEGACY_DONE = {"Succeeded": "Complete", "Failed": "Failed"}


@fields_only
class Requirement(FrozenValue):
    """One requirement of a label-selector expression (a frozen value written by hand: see
    migrator/results.py)."""

    FIELDS = ("key", "operator", "values")
    key: str
    operator: str  # ==, =, !=, >, <, in, notin, exists, !
    values: tuple[str, ...] = ()

    def __init__(self, key: str, operator: str, values: tuple[str, ...] = ()) -> None:
        _set(self, "key", key)
        _set(self, "operator", operator)
        _set(self, "values", values)

    def render(self) -> str:
        if self.operator == "exists":
            return self.key
        if self.operator == "!":
            return f"!{self.key}"
        if self.operator in ("in", "notin"):
            return f"{self.key} {self.operator} ({','.join(self.values)})"
        return f"{self.key} {self.operator} {self.values[0]}"


@fields_only
class Rewrite(FrozenValue):
    """The outcome of rewriting one condition."""

    FIELDS = ("expression", "changed", "untranslated")
    expression: str  # the new condition (the old one when nothing could be rewritten)
    changed: bool
    untranslated: tuple[str, ...] = ()  # requirements that test legacy-only status

    def __init__(self, expression: str, changed: bool,
                 untranslated: tuple[str, ...] = ()) -> None:
        _set(self, "expression", expression)
        _set(self, "changed", changed)
        _set(self, "untranslated", untranslated)


def parse(expression: str) -> list[Requirement] | None:
    """The requirements of ``expression``; None when it is not a label selector."""
    requirements: list[Requirement] = []
    for part in _split(expression):
        text = part.strip()
        if not text:
            return None
        if text.startswith("!") and _KEY.match(text[1:].strip()):
            requirements.append(Requirement(text[1:].strip(), "!"))
        elif match := _SET.match(text):
            values = tuple(v.strip() for v in match["values"].split(","))
            requirements.append(Requirement(match["key"], match["op"], values))
        elif match := _BINARY.match(text):
            requirements.append(Requirement(match["key"], match["op"], (match["value"],)))
        elif _KEY.match(text):
            requirements.append(Requirement(text, "exists"))
        else:
            return None
    return requirements


def _split(expression: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in expression:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def terminal(condition: str, index: int) -> Requirement:
    """The requirement that the TrainJob's terminal condition at ``index`` is ``condition``."""
    return Requirement(f"status.conditions.{index}.type", "==", (condition,))


def _meaning(requirement: Requirement) -> str | None:
    """``Complete`` / ``Failed`` when the requirement tests that the legacy job finished so,
    ``keep`` when it tests nothing legacy-specific, None when it cannot be translated."""
    key, op, values = requirement.key, requirement.operator, requirement.values
    if not key.startswith(("status.", "spec.")):
        return "keep"
    replica = _REPLICA.match(key)
    if replica is not None and _positive(op, values):
        return "Complete" if replica["field"] == "succeeded" else "Failed"
    if _CONDITION.match(key) and op in ("=", "==") and values[0] in _LEGACY_DONE:
        return _LEGACY_DONE[values[0]]
    if _CONDITION.match(key) and op == "in" and set(values) <= {"Succeeded"}:
        return "Complete"
    return None


def _positive(op: str, values: tuple[str, ...]) -> bool:
    """The requirement holds only once the counter is above zero."""
    numbers = [_int(v) for v in values]
    if op == ">":
        return numbers[0] is not None and numbers[0] >= 0
    if op in ("=", "=="):
        return numbers[0] is not None and numbers[0] > 0
    if op == "!=":
        return values[0] == "0"
    return op == "in" and all(n is not None and n > 0 for n in numbers)


def _int(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None


def rewrite_success(expression: str, *, suspended_first: bool) -> Rewrite:
    """``successCondition`` for the TrainJob: legacy "replica/job succeeded" tests become
    "the terminal condition is Complete"; every requirement must still hold."""
    return _rewrite(expression, "Complete", (1 if suspended_first else 0,))


def rewrite_failure(expression: str) -> Rewrite:
    """``failureCondition`` for the TrainJob: legacy "replica/job failed" tests become "the
    terminal condition is Failed" at either position (any failure requirement fails)."""
    return _rewrite(expression, "Failed", (0, 1))


def _rewrite(expression: str, wanted: str, indexes: tuple[int, ...]) -> Rewrite:
    requirements = parse(expression)
    if requirements is None:
        legacy = "status." in expression or "spec." in expression
        return Rewrite(expression, False, (expression,) if legacy else ())
    kept: list[Requirement] = []
    untranslated: list[str] = []
    translated = False
    for requirement in requirements:
        meaning = _meaning(requirement)
        if meaning == "keep":
            kept.append(requirement)
        elif meaning == wanted:
            translated = True
        else:
            untranslated.append(requirement.render())
    if untranslated:
        return Rewrite(expression, False, tuple(untranslated))
    if not translated:
        return Rewrite(expression, False)
    new = [terminal(wanted, index) for index in indexes] + kept
    return Rewrite(", ".join(r.render() for r in new), True)


def is_workflow(text: str) -> bool:
    """The document is an Argo workflow kind: its ``{{...}}`` are Argo parameters, not a
    template language."""
    return _WORKFLOW.search(text) is not None and _API.search(text) is not None


REFERENCE_ACTIONS = frozenset({"delete", "get"})
_TOP_API = re.compile(r"^apiVersion:[^\n]*$", re.M)
_TOP_KIND = re.compile(r"^kind:[^\n]*$", re.M)


def reference_only(resource: Any, job: Any, text: str, api_version: str) -> str | None:
    """The manifest of a ``delete``/``get`` step that only names a legacy job, rewritten to
    name the TrainJob (same name and namespace); None for any other step."""
    if not isinstance(resource, dict) or resource.get("action") not in REFERENCE_ACTIONS \
            or not isinstance(job, dict) or set(job) - {"apiVersion", "kind", "metadata"}:
        return None
    if len(_TOP_API.findall(text)) != 1 or len(_TOP_KIND.findall(text)) != 1:
        return None
    text = _TOP_API.sub(f"apiVersion: {api_version}", text)
    return _TOP_KIND.sub("kind: TrainJob", text)


def rewrite_conditions(resource: Any, at: str, trainjob: str,
                       line_offset: int = 0) -> list[Finding]:
    """Rewrite, in place, the success/failure conditions of the resource template
    ``resource`` (at path ``at``) whose manifest is now the TrainJob text ``trainjob``."""
    findings: list[Finding] = []
    if not isinstance(resource, dict):
        return findings
    from migrator.knowledge import catalog  # here: detecting Argo workflows needs no catalog

    queue_label = catalog.load().integrations.kueue.queue_label
    suspended = bool(_SUSPENDED.search(trainjob) or queue_label in trainjob)
    for key in ("successCondition", "failureCondition"):
        expression = resource.get(key)
        if not isinstance(expression, str):
            continue
        rewrite = rewrite_success(expression, suspended_first=suspended) \
            if key == "successCondition" else rewrite_failure(expression)
        line = line_offset + _line(resource, key)
        if rewrite.changed:
            resource[key] = rewrite.expression
            findings.append(notes.finding(
                "E806", f"{at}.{key}", f"{expression!r} -> {rewrite.expression!r}", line))
        elif rewrite.untranslated:
            findings.append(notes.finding(
                "E807", f"{at}.{key}", "a TrainJob has no "
                f"{', '.join(repr(u) for u in rewrite.untranslated)}", line))
    return findings


_WORKFLOW = re.compile(r"^kind:[ \t]*[\"']?(?:" + "|".join(detect.ARGO_KINDS) +
                       r")[\"']?[ \t]*(?:#.*)?$", re.M)
_API = re.compile(r"^apiVersion:[ \t]*[\"']?" + re.escape(detect.ARGO_GROUP) + "/", re.M)
_SUSPENDED = re.compile(r"^\s*suspend:\s*true\s*$", re.M)


def _line(node: Any, key: str) -> int:
    """The 1-based line of ``node[key]``'s text within its document (1 when unknown)."""
    return scan.value_line(node, key)
