"""CONVERT (rules): documented Trainer behaviour a migrated job can hit (R216, F528, P312)."""

from __future__ import annotations

from migrator import paths
from migrator.check import effective
from migrator.convert.draft import Draft
from migrator.convert.rules import launch
from migrator.convert.rules.context import RuleContext

ID = "version-hazards"


def apply(ctx: RuleContext, draft: Draft) -> None:
    _host_port(ctx, draft)
    target, ledger, main = ctx.target, ctx.ledger, ctx.main
    resources = draft.trainer.get("resourcesPerNode")
    pods = draft.runtime_pods or (effective.default_runtime(target, draft.runtime_name) or {}
                                  if draft.companion is None else {})
    node = next((c for c in paths.get(pods.get(draft.patch_job), ("spec", "containers")) or []
                 if isinstance(c, dict) and c.get("name") == draft.patch_container), None)
    theirs = node.get("resources") if isinstance(node, dict) else None
    if isinstance(resources, dict) and isinstance(theirs, dict):
        lost = sorted({f"{section}.{key}" for section in ("limits", "requests")
                       for key in (theirs.get(section) or {})
                       if key not in (resources.get(section) or {})})
        if lost:
            effect = (f"are kept: on Trainer {target.release} resourcesPerNode is merged per key"
                      if target.resources_merged_per_key else f"are dropped: on Trainer "
                      f"{target.release} resourcesPerNode replaces the runtime's resources")
            ledger.report("R216", (*main.path, "resources"), f"runtime {draft.runtime_name}'s "
                          f"node resources {', '.join(lost)} {effect}", consume=False)
    if ctx.spec.framework == "mpi" and draft.companion is None and draft.trainer.get("env"):
        ledger.report("F528", (*main.path, "env"), "trainer.env reaches the launcher's node "
                      "container (and the node job's only with runLauncherAsNode: true; "
                      "kubeflow/trainer#3427); processes mpirun starts on the workers see it "
                      "only when exported with `mpirun -x NAME`", consume=False)


def _host_dns(ctx: RuleContext) -> None:
    """mpi-operator gave hostNetwork pods dnsPolicy ClusterFirstWithHostNet; Trainer does not,
    so they resolve names with the node's DNS and the hostfile's pod names do not resolve."""
    for replica in ctx.job.replicas:
        spec = replica.template.spec.node
        if spec.get("hostNetwork") is True and not spec.get("dnsPolicy"):
            ctx.ledger.report("P315", (*replica.template.spec.path, "hostNetwork"),
                              "with hostNetwork, mpi-operator set dnsPolicy "
                              "ClusterFirstWithHostNet on the pods; Trainer sets no dnsPolicy, "
                              "so they resolve names with the node's DNS and mpirun cannot "
                              "reach the hostfile's workers", consume=False)
            return


def _host_port(ctx: RuleContext, draft: Draft) -> None:
    """With hostNetwork the port Trainer adds to the node container is the node's: it can
    collide with another job's, and the legacy job listened on a port of its own choice."""
    port = ctx.target.policies[ctx.target.frameworks[ctx.spec.framework].policy].port
    if draft.companion is None:
        return  # without a companion runtime hostNetwork is not carried (P301)
    if ctx.spec.framework == "mpi":
        _host_dns(ctx)
    if port is None:
        return
    for replica in ctx.job.replicas:
        if replica.template.spec.node.get("hostNetwork") is True:
            legacy = launch.legacy_port(ctx.main, ctx.spec)
            ctx.ledger.report("P312", (*replica.template.spec.path, "hostNetwork"),
                              f"with hostNetwork, Trainer binds port {port} on the node for the "
                              f"node container (the legacy job used port {legacy}); two jobs "
                              "on one node, or anything else on that port, collide",
                              consume=False)
            return
