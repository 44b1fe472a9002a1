"""CONVERT (rules): the mapping file's field rules (copy, unsupported, transform).

A ``transform`` rule calls a named function of the ``TRANSFORMS`` registry (run-policy
transforms in transforms.py, framework ones in frameworks.py). Copies write the draft's
top-level slots ``suspend``, ``active_deadline_seconds`` and ``managed_by``.
"""

from __future__ import annotations

from migrator import paths
from migrator.convert.draft import Draft
from migrator.convert.rules.context import RuleContext
from migrator.convert.rules.frameworks import TRANSFORMS
from migrator.convert.rules.transforms import Call
from migrator.knowledge.specs import MappingSpec
from migrator.paths import FieldPath

ID = "mapping-rules"
SLOTS = {"suspend": "suspend", "activeDeadlineSeconds": "active_deadline_seconds",
         "managedBy": "managed_by"}


def apply(ctx: RuleContext, draft: Draft) -> None:
    root, ledger = ctx.job.root, ctx.ledger
    for rule in ctx.spec.rules:
        path = paths.parse(rule.source)
        if not paths.has(root, path):
            continue
        value = paths.get(root, path)
        if rule.op == "copy" and rule.to is not None:
            setattr(draft, _slot(rule.to), value)
            ledger.mapped(path, f"spec.{rule.to}")
        elif rule.op == "unsupported" and rule.code is not None:
            ledger.report(rule.code, path, f"{rule.source} has no TrainJob equivalent and was "
                          "not carried over")
        elif rule.op == "transform" and rule.fn is not None:
            TRANSFORMS[rule.fn](Call(value, path, draft, ledger, ctx.target))
        else:
            ledger.mapped(path, "(read by the converter; no field of its own)")
    for container in ("spec", "spec.runPolicy"):
        node = paths.get(root, paths.parse(container))
        if isinstance(node, dict) and not node:
            ledger.default(paths.parse(container))


def source_of(root: object, spec: MappingSpec, fn: str) -> tuple[FieldPath, object] | None:
    """Where and what the source field handed to transform ``fn`` is, when the job has it."""
    for rule in spec.rules:
        if rule.fn == fn:
            path = paths.parse(rule.source)
            if paths.has(root, path):
                return path, paths.get(root, path)
    return None


def _slot(target: str) -> str:
    if target not in SLOTS:
        raise KeyError(f"mapping rule targets unknown slot {target!r}")
    return SLOTS[target]
