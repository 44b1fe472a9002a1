"""CONVERT (rules): the notes a mapping file attaches to its kind, reported on every job."""

from __future__ import annotations

from migrator.convert.draft import Draft
from migrator.convert.rules.context import RuleContext

ID = "kind-notes"


def apply(ctx: RuleContext, draft: Draft) -> None:
    for note in ctx.spec.notes:
        ctx.ledger.report(note.code, ("kind",), note.message, consume=False)
