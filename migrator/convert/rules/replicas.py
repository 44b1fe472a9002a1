"""CONVERT (rules): replica counts → ``spec.trainer.numNodes``; replica restart policies.

Writes ``draft.num_nodes`` and the ``numNodes`` trainer slot (the MPI rule recounts both
later); a restart policy a companion runtime carries goes to ``draft.companion``.
"""

from __future__ import annotations

from migrator import paths
from migrator.convert.draft import Draft
from migrator.convert.ledger import Ledger
from migrator.convert.model import Replica
from migrator.convert.rules import companion
from migrator.convert.rules.context import RuleContext
from migrator.knowledge.specs import MappingSpec

ID = "replicas"


def apply(ctx: RuleContext, draft: Draft) -> None:
    spec, ledger = ctx.spec, ctx.ledger
    total = sum(replica.replicas for replica in ctx.job.replicas)
    draft.set_trainer("numNodes", total)
    for replica in ctx.job.replicas:
        path = (*replica.path, "replicas")
        if spec.num_nodes == "mpi":
            ledger.default(path)
        elif replica.replicas_given:
            ledger.mapped(path, "spec.trainer.numNodes")
        else:
            ledger.mappings.append((paths.render(path) + " (default "
                                    f"{replica.replicas})", "spec.trainer.numNodes"))
        _restart_policy(replica, spec, draft, ledger)
    draft.num_nodes = total


def restart_policy_of(replica: Replica, spec: MappingSpec) -> str:
    """The restart policy the legacy operator used for ``replica`` (given or defaulted)."""
    if replica.restart_policy is not None:
        return replica.restart_policy
    return spec.replica_specs.role_restart_policies.get(
        replica.role, spec.replica_specs.default_restart_policy)


def _restart_policy(replica: Replica, spec: MappingSpec, draft: Draft, ledger: Ledger) -> None:
    path = (*replica.path, "restartPolicy")
    value = restart_policy_of(replica, spec)
    given = replica.restart_policy is not None
    if value not in spec.replica_specs.restart_policies:
        ledger.report("R212", path, f"restartPolicy {value!r} is not one of "
                      f"{', '.join(spec.replica_specs.restart_policies)}")
    elif value == "OnFailure" and draft.companion is None and given:
        ledger.report("R214", path, f"{replica.role} restartPolicy OnFailure was dropped: "
                      "JobSet gives the pods the same restart policy")
    elif value == "OnFailure":
        ledger.default(path)
    elif draft.companion is not None and value == "Never":
        target = (f"{draft.companion.ref}: spec.template.spec.replicatedJobs"
                  f"[name={replica.job}].template.spec.template.spec.restartPolicy")
        if given:
            ledger.mapped(path, target)
        else:
            ledger.mappings.append((paths.render(path) + " (default Never)", target))
    elif value == "ExitCode" and draft.companion is not None:
        companion.exit_code_policy(draft.companion, replica.job, draft.patch_container)
        ledger.report("R213", path, f"{replica.role} restartPolicy ExitCode is carried by "
                      f"companion runtime {draft.companion.name} as restartPolicy Never and a "
                      "podFailurePolicy (exit codes 1-127 fail the job, others are retried "
                      "within backoffLimit)", consume=given)
    elif value == "ExitCode":
        ledger.report("R211", path, f"{replica.role} restartPolicy ExitCode cannot be expressed",
                      consume=given)
    else:
        default = "" if given else " (the legacy default)"
        ledger.report("R210", path, f"{replica.role} restartPolicy {value}{default} becomes "
                      "OnFailure (the runtime's pod restart policy)", consume=given)
