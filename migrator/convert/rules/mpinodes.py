"""CONVERT (rules): numNodes for MPI jobs: the workers, plus the launcher when it is a host.

Runs for mapping files with ``numNodes: mpi``; rewrites ``draft.num_nodes`` and the trainer's
``numNodes`` (and ``numProcPerNode``), or the companion runtime's MPI policy fields.
"""

from __future__ import annotations

from typing import Any

from migrator import paths
from migrator.check import effective
from migrator.convert.draft import Draft
from migrator.convert.rules.context import RuleContext

ID = "mpi-nodes"


def apply(ctx: RuleContext, draft: Draft) -> None:
    if ctx.spec.num_nodes != "mpi":
        return
    job, ledger = ctx.job, ctx.ledger
    by_role = {replica.role: replica for replica in job.replicas}
    worker = by_role.get("Worker")
    launcher = by_role["Launcher"]
    workers = worker.replicas if worker is not None else 0
    as_node = "launcherIsWorker" in effective.job_facts(job.root, ctx.spec).conditions
    nodes = workers + (1 if as_node else 0)
    draft.set_trainer("numNodes", nodes)
    draft.num_nodes = nodes
    if "numProcPerNode" not in draft.trainer:
        draft.set_trainer("numProcPerNode", 1)
    where = (*worker.path, "replicas") if worker is not None else launcher.path
    if worker is not None:
        ledger.mapped(where, "spec.trainer.numNodes")
    if workers == 0:
        ledger.report("F518", where, "the MPIJob has no workers (launcher-only MPI); Trainer's "
                      "MPI policy always starts at least one node pod", consume=False)
    if draft.companion is not None:
        draft.companion.policy_fields["runLauncherAsNode"] = as_node
        if "numProcPerNode" in draft.trainer:
            draft.companion.policy_fields["numProcPerNode"] = draft.trainer["numProcPerNode"]
    elif _launcher_as_node(draft.runtime_doc) == as_node:
        ledger.default(where)  # the runtime (from --runtimes) agrees with the legacy job
    elif draft.runtime_name:
        ledger.report("F522", where, f"numNodes {nodes} assumes runtime {draft.runtime_name} "
                      f"sets runLauncherAsNode: {str(as_node).lower()} (with true, node pods = "
                      "numNodes - 1 and the launcher computes too)", consume=False)


def _launcher_as_node(runtime_doc: Any) -> bool | None:
    if not isinstance(runtime_doc, dict):
        return None
    value = paths.get(runtime_doc, ("spec", "mlPolicy", "mpi", "runLauncherAsNode"))
    return bool(value) if value is not None else False
