"""CONVERT (rules): pod host names JobSet derives from the job name must fit a DNS label."""

from __future__ import annotations

from migrator.convert.draft import Draft
from migrator.convert.rules.context import RuleContext

ID = "pod-names"


def apply(ctx: RuleContext, draft: Draft) -> None:
    """Warn when the longest pod host name (``<name>-<job>-0-<last index>``) is too long."""
    if not isinstance(draft.name, str):
        return
    max_name = ctx.target.limits.name
    longest = f"{draft.name}-{draft.patch_job}-0-{max(draft.num_nodes - 1, 0)}"
    if len(longest) > max_name and len(draft.name) <= max_name:
        ctx.ledger.report("M102", ("metadata", "name"),
                          f"pod host name {longest!r} is {len(longest)} characters long "
                          f"(limit {max_name})", consume=False)
