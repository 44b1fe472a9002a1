"""The conversion rules: one module per rule family, one signature, run from one ordered list.

Every module of migrator/convert/rules/ that defines ``apply`` is a rule: it has a kebab-case
``ID`` and ``apply(ctx, draft)``, and appears exactly once in ``RULES`` (the engine runs
nothing else), so a new rule cannot be written and then forgotten.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

from migrator.convert import rules
from migrator.convert.rules import RULES

RULES_DIR = Path(rules.__file__).parent


def _defines_apply(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.FunctionDef) and node.name == "apply" for node in tree.body)


def test_every_rule_module_is_in_the_ordered_list_once() -> None:
    with_apply = {f"migrator.convert.rules.{p.stem}" for p in sorted(RULES_DIR.glob("*.py"))
                  if _defines_apply(p)}
    listed = [rule.__name__ for rule in RULES]  # type: ignore[attr-defined]
    assert len(listed) == len(set(listed)), listed
    assert set(listed) == with_apply


def test_every_rule_has_an_id_and_the_one_signature() -> None:
    ids = [rule.ID for rule in RULES]
    assert len(ids) == len(set(ids)), ids
    for rule in RULES:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.ID), rule.ID
        assert list(inspect.signature(rule.apply).parameters) == ["ctx", "draft"], rule.ID


def test_the_engine_runs_the_rules_in_order() -> None:
    """The fixtures' outputs depend on the order (a rule reads what earlier ones wrote):
    the pod templates come before the rules that adjust the trainer's main container."""
    ids = [rule.ID for rule in RULES]
    assert ids.index("pod-templates") < ids.index("contract") < ids.index("launch")
    assert ids.index("replicas") < ids.index("mpi-nodes") < ids.index("pod-names")
