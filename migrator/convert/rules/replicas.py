"""CONVERT (rules): replica counts → ``spec.trainer.numNodes``; replica restart policies.

Writes ``draft.num_nodes`` and the ``numNodes`` trainer slot (the MPI rule recounts both
later); a restart policy a companion runtime carries goes to ``draft.companion``.
"""

from __future__ import annotations

from migrator import paths
from migrator.convert.draft import Draft
from migrator.convert.ledger import Ledger
from migrator.convert.model import Replica
from migrator.convert.rules import companion, mapping
from migrator.convert.rules.context import RuleContext
from migrator.knowledge.specs import MappingSpec

ID = "replicas"
BACKOFF_TRANSFORM = "backoff-limit"


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
        _restart_policy(replica, spec, draft, ledger, given_backoff(ctx.job.root, spec))
    draft.num_nodes = total


def given_backoff(root: object, spec: MappingSpec) -> int | None:
    """runPolicy.backoffLimit when given as a non-negative integer (the field the mapping file
    hands to the ``backoff-limit`` transform)."""
    source = mapping.source_of(root, spec, BACKOFF_TRANSFORM)
    value = source[1] if source is not None else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 \
        else None


def restart_policy_of(replica: Replica, spec: MappingSpec) -> str:
    """The restart policy the legacy operator used for ``replica`` (given or defaulted)."""
    if replica.restart_policy is not None:
        return replica.restart_policy
    return spec.replica_specs.role_restart_policies.get(
        replica.role, spec.replica_specs.default_restart_policy)


def _restart_policy(replica: Replica, spec: MappingSpec, draft: Draft, ledger: Ledger,
                    backoff: int | None) -> None:
    # A built-in runtime's pods restart OnFailure (kubernetes-sigs/jobset@v0.11.1
    # pkg/webhooks/jobset_webhook.go:131-133 defaults it) within the Job's default backoffLimit
    # of 6, and the JobSet fails with the Job (pkg/controllers/failure_policy.go:49-57); see
    # companion.retry_limit for the legacy side.
    path = (*replica.path, "restartPolicy")
    value = restart_policy_of(replica, spec)
    given = replica.restart_policy is not None
    if value not in spec.replica_specs.restart_policies:
        ledger.report("R212", path, f"restartPolicy {value!r} is not one of "
                      f"{', '.join(spec.replica_specs.restart_policies)}")
    elif value == "OnFailure" and draft.companion is None and backoff is None and \
            not spec.replica_specs.roles[replica.role].ran_as_job:  # a Job then: 6 restarts too
        default = "" if given else " (the legacy default)"
        ledger.report("R214", path, f"{replica.role} restartPolicy OnFailure{default} "
                      "restarted failed containers without limit (no runPolicy.backoffLimit); "
                      "the runtime's Job allows 6 restarts (its default backoffLimit), then the "
                      "TrainJob fails", consume=given)
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
        effect = ("failed the job at its first failed pod" if value == "Never" else
                  "restarted containers even after they succeeded")
        now = ("the companion runtime's pods restart failed containers only (OnFailure, "
               "within the Job's backoffLimit)" if draft.companion is not None else
               "the runtime's pods restart failed containers (OnFailure) up to 6 times (the "
               "Job's default backoffLimit) before the TrainJob fails")
        ledger.report("R210", path, f"{replica.role} restartPolicy {value}{default} "
                      f"{effect}; {now}", consume=given)
