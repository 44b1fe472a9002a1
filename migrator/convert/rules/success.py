"""CONVERT (rules): when the job succeeds: the legacy operator's rule, carried or reported.

The legacy operators declared a job succeeded when one role did (a PyTorchJob's or
XGBoostJob's Master, a TFJob's Chief, worker 0 of a TFJob without one, any worker of an elastic
PyTorchJob); the rule is data (mappings/legacy/*.yaml ``successRoles``, ``successWorkers``,
``successWhen``). Trainer's JobSet succeeds when every pod of the trainer's Job has
(kubernetes-sigs/jobset@v0.11.1 pkg/webhooks/jobset_webhook.go:118-121 defaults successPolicy
to All; an Indexed Job needs every completion). A companion runtime carries the rule as that
Job's own successPolicy; otherwise it is reported (F531).
"""

from __future__ import annotations

from migrator import paths
from migrator.convert.draft import Draft
from migrator.convert.model import LegacyJob
from migrator.convert.rules.context import RuleContext
from migrator.knowledge.specs import MappingSpec
from migrator.paths import FieldPath

ID = "success"
CHANGED = "F531"
JOB_RULES = {"first": {"succeededIndexes": "0"}, "any": {"succeededCount": 1}}


def apply(ctx: RuleContext, draft: Draft) -> None:
    rule, what, where = legacy_rule(ctx.job, ctx.spec)
    if rule == "all" or draft.num_nodes <= 1:
        return  # every pod (or the only one): what JobSet requires too
    companion = draft.companion
    if companion is not None:
        companion.job(draft.patch_job)["successPolicy"] = {"rules": [JOB_RULES[rule]]}
        ctx.ledger.report("R213", where, f"the legacy success rule ({what}) is carried by "
                          f"companion runtime {companion.name} as the {draft.patch_job!r} Job's "
                          "successPolicy (a Job field of Kubernetes 1.31 and later)",
                          consume=False)
        return
    ctx.ledger.report(CHANGED, where, f"the legacy job succeeded when {what}; the TrainJob "
                      "succeeds only when every node pod succeeds",
                      consume=False)


def legacy_rule(job: LegacyJob, spec: MappingSpec) -> tuple[str, str, FieldPath]:
    """The legacy success rule as ``first`` (the trainer's index 0), ``any`` or ``all``, with
    words for it and the source path it comes from. (MPI jobs name no success role: their
    launcher is a Job of its own, which the runtime's JobSet successPolicy targets.)"""
    replicas, root = spec.replica_specs, job.root
    present = {replica.role: replica for replica in job.replicas}
    for role in replicas.success_roles:
        replica = present.get(role)
        if replica is not None:
            return "first", f"its {role} succeeded", replica.path
    rule = replicas.success_workers
    for condition, override in replicas.success_when.items():
        field, _, value = condition.partition("=")
        path = paths.parse(field)
        if paths.has(root, path) and (not value or paths.get(root, path) == value):
            rule = override
    words = {"first": "worker 0 succeeded", "any": "any worker succeeded",
             "all": "every worker succeeded"}[rule]
    return rule, words, ("spec",)
