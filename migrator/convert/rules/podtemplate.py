"""CONVERT (rules): A replica's pod template → ``spec.trainer`` slots and the pod part of the
runtime patch.

What each field becomes is data (mappings/common/podtemplate.yaml); whether a patch can carry
it is data too (the target's patchable field lists).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from migrator.check import quantity
from migrator.convert.draft import Draft
from migrator.convert.ledger import Ledger
from migrator.convert.model import Container, Replica
from migrator.convert.rules import companion, roles
from migrator.convert.rules.context import RuleContext
from migrator.convert.rules.contract import report_quoted_env
from migrator.convert.rules.replicas import given_backoff, restart_policy_of
from migrator.knowledge.specs import FieldGroup, MappingSpec, PodRules, TargetSpec
from migrator.load import yamlio
from migrator.paths import FieldPath

ID = "pod-templates"
ALL_TRAINER_SLOTS = frozenset({"image", "command", "args", "env", "resourcesPerNode"})
MPI_LAUNCHER_FEEDS = frozenset({"image", "command", "args"})
LOST_CONTAINER_FIELD = "F519"
FIELD_NAMED, FIXED = "C404", "C415"  # no main container: named by a field, or by the kind
# A field-specific alternative, added to the code's fix text for that field only.
FIELD_HINTS = {"workingDir": "For workingDir, the command can also start with `cd DIR &&` "
                             "in a shell."}


def apply(ctx: RuleContext, draft: Draft) -> None:
    """Convert each replicated job's template; the trainer's main container goes on ``ctx``."""
    job, spec, ledger = ctx.job, ctx.spec, ctx.ledger
    by_job: dict[str, list[Replica]] = {}
    for replica in job.replicas:
        by_job.setdefault(replica.job, []).append(replica)
    main_name = ctx.main_name
    launcher_resources: Any = None
    for job_name in [j.name for j in ctx.runtime.jobs if j.name in by_job]:
        replicas = by_job[job_name]
        primary = _primary(replicas, spec)
        main = main_container(primary, main_name, ledger,
                              report=FIELD_NAMED if spec.main_container.name_field else FIXED)
        feeds = _feeds(primary, spec, draft)
        if draft.companion is not None:
            quoted = companion.add_template(draft.companion, primary, main,
                                            ctx.runtime.container, ctx.runtime.reserved_env,
                                            restart_policy_of(primary, spec))
            for relative in quoted:
                report_quoted_env(ledger, (*primary.template.path, *relative))
            companion.retry_limit(draft.companion, job_name, restart_policy_of(primary, spec),
                                  given_backoff(ctx.job.root, spec),
                                  spec.replica_specs.roles[primary.role].ran_as_job)
        convert_template(primary, main, draft, ledger, ctx.pod_rules, ctx.target, feeds)
        for other in replicas:
            if other is not primary:
                other_main = main_container(other, main_name, ledger, report=None)
                roles.merge_role(primary, main, other, other_main, draft, ledger)
                roles.merge_restart_policy(primary, restart_policy_of(primary, spec), other,
                                           restart_policy_of(other, spec),
                                           draft.companion is not None, ledger)
        if spec.trainer_role is None or primary.role == spec.trainer_role:
            ctx.trainer_main = main
            launcher_resources = main.node.get("resources")
        elif spec.resources_role == primary.role and draft.companion is None:
            _shared_resources(primary, launcher_resources, draft, ledger)
    if ctx.trainer_main is None:
        raise ValueError(f"{spec.id}: no replica feeds spec.trainer")


def _primary(replicas: list[Replica], spec: MappingSpec) -> Replica:
    by_role = {replica.role: replica for replica in replicas}
    for role in spec.replica_specs.template_priority:
        if role in by_role:
            return by_role[role]
    return replicas[0]


def _feeds(primary: Replica, spec: MappingSpec, draft: Draft) -> frozenset[str]:
    if spec.trainer_role is None:
        return ALL_TRAINER_SLOTS
    if primary.role == spec.trainer_role:
        if draft.companion is not None:
            return MPI_LAUNCHER_FEEDS
        return ALL_TRAINER_SLOTS
    if primary.role == spec.resources_role and draft.companion is None:
        return frozenset({"resourcesPerNode"})
    return frozenset()


def _shared_resources(worker: Replica, launcher_resources: Any, draft: Draft,
                      ledger: Ledger) -> None:
    worker_main = draft.trainer.get("resourcesPerNode")
    if launcher_resources is None or roles.same(launcher_resources, worker_main):
        return
    ledger.report("P307", (*worker.template.spec.path, "containers"), "launcher and worker "
                  "resources differ; resourcesPerNode applies to both, so the launcher gets "
                  f"the {worker.role}'s", consume=False)


def pod_patch_path(draft: Draft, job: str) -> str:
    """Where a pod field of replicated job ``job`` lands in the output (for the ledger)."""
    if draft.companion is not None:
        return (f"{draft.companion.ref}: spec.template.spec."
                f"replicatedJobs[name={job}].template.spec.template")
    return ("spec.runtimePatches[0].trainingRuntimeSpec.template.spec."
            f"replicatedJobs[name={job}].template.spec.template")


def main_container(replica: Replica, name: str | None, ledger: Ledger, *,
                   report: str | None) -> Container:
    """The container named ``name``, else the first one (reported once with ``report``: C404
    when a field names it, C415 when the kind's name is fixed)."""
    for container in replica.template.containers:
        if container.name == name:
            return container
    first = replica.template.containers[0]
    if report == FIXED and name is not None:
        # kubeflow/trainer@v1.9.2 pkg/webhooks/pytorch/pytorchjob_webhook.go:144-150 (and the
        # TF, XGBoost, JAX and PaddlePaddle webhooks alike) rejected such a job
        ledger.report(FIXED, (*first.path, "name"), f"no container is named {name!r}: the "
                      "legacy webhook rejected this job, so it never ran; the converted job "
                      f"would run {first.name!r} as the trainer", consume=False)
    elif report is not None and name is not None:
        ledger.report(report, (*first.path, "name"),
                      f"no container is named {name!r}; using {first.name!r} as the trainer",
                      consume=False)
    return first


def convert_template(replica: Replica, main: Container, draft: Draft, ledger: Ledger,
                     rules: PodRules, target: TargetSpec,
                     feeds: frozenset[str] = ALL_TRAINER_SLOTS) -> None:
    """Map the primary replica of ``replica.job`` into the draft; report what cannot be carried.

    ``feeds`` names the ``spec.trainer`` slots the main container of this job fills.
    """
    template = replica.template
    job = replica.job
    if template.metadata is not None:
        _metadata(template.metadata.node, template.metadata.path, draft, ledger,
                  rules.pod_metadata, job)
    base = pod_patch_path(draft, job)
    for key, value in template.spec.node.items():
        field = str(key)
        path = (*template.spec.path, field)
        rule = rules.pod_spec.fields.get(field)
        if value is None and field != "containers":
            ledger.default(path)
        elif rule is None:
            _unsupported(rules.pod_spec.other_code, path, field, ledger, "pod", draft)
        elif rule.op == "containers":
            _containers(replica, main, draft, ledger, rules, target, feeds)
        elif rule.op == "patch":
            name = rule.rename or field
            if draft.companion is not None:
                ledger.mapped(path, f"{base}.spec.{field}")
            elif name in target.patchable_pod_fields:
                patched = yamlio.clone(value)
                companion.drop_nulls(patched)  # null inside is unset, as in a companion runtime
                draft.job(job).spec[name] = patched
                ledger.mapped(path, f"{base}.spec.{name}")
            else:
                _unsupported(rule.code or rules.pod_spec.other_code, path, field, ledger, "pod",
                             draft)
        elif rule.op == "unsupported":
            _unsupported(rule.code or rules.pod_spec.other_code, path, field, ledger, "pod",
                         draft)
        else:
            ledger.default(path)


def _metadata(node: Any, path: FieldPath, draft: Draft, ledger: Ledger, group: FieldGroup,
              job: str) -> None:
    base = pod_patch_path(draft, job)
    for key, value in node.items():
        field = str(key)
        rule = group.fields.get(field)
        if value is None:
            ledger.default((*path, field))
        elif rule is not None and rule.op == "patch":
            patch = draft.job(job)
            target = patch.labels if field == "labels" else patch.annotations
            for item_key, item_value in (value or {}).items():
                target[str(item_key)] = item_value
            ledger.mapped((*path, field), f"{base}.metadata.{field}")
        elif draft.companion is not None:
            ledger.mapped((*path, field), f"{base}.metadata.{field}")
        else:
            ledger.report(group.other_code, (*path, field),
                          f"pod template metadata.{field} cannot be carried by a runtime patch")
    ledger.default(path)


def _containers(replica: Replica, main: Container, draft: Draft, ledger: Ledger,
                rules: PodRules, target: TargetSpec, feeds: frozenset[str]) -> None:
    base = pod_patch_path(draft, replica.job)
    for container in replica.template.containers:
        if container.index == main.index:
            continue
        if draft.companion is not None:
            _carried(container.path, f"sidecar container {container.name!r}", ledger, draft)
        else:
            ledger.report("P302", container.path,
                          f"sidecar container {container.name!r} cannot be added by a TrainJob")
    group = rules.container
    base = f"{base}.spec.containers[name={draft.patch_container}]"
    for key, value in main.node.items():
        field = str(key)
        path = (*main.path, field)
        rule = group.fields.get(field)
        if value is None:
            ledger.default(path)
        elif rule is None:
            _unsupported(group.other_code, path, field, ledger, "container", draft)
        elif rule.op == "trainer" and rule.to is not None:
            if rule.to in feeds:
                copied = yamlio.clone(value)
                if rule.to == "resourcesPerNode":
                    _drop_unset(copied, path, ledger)
                    _drop_claims(copied, path, ledger)
                    if not copied:  # `resources: {}` or only nulls: nothing to carry
                        ledger.default(path)
                        continue
                    quantity.as_api_values(copied)
                draft.set_trainer(rule.to, copied)
                ledger.mapped(path, f"spec.trainer.{rule.to}")
            elif draft.companion is not None:
                ledger.mapped(path, f"{base}.{field}")
            elif _runtime_has(draft, replica.job, field, main.node):
                ledger.mapped(path, f"{draft.runtime_kind}/{draft.runtime_name}: "
                              f"replicatedJobs[name={replica.job}] container node {field} "
                              "(the same value)")
            else:
                ledger.report(LOST_CONTAINER_FIELD, path, f"the {replica.role} container's "
                              f"{field} cannot be set through a TrainJob; the runtime's "
                              f"{replica.job!r} job defines it")
        elif rule.op == "patch":
            if draft.companion is not None:
                ledger.mapped(path, f"{base}.{field}")
            elif field in target.patchable_container_fields:
                draft.job(replica.job).container[field] = yamlio.clone(value)
                ledger.mapped(path, f"{base}.{field}")
            else:
                _unsupported(rule.code or group.other_code, path, field, ledger, "container",
                             draft)
        elif rule.op == "unsupported":
            _unsupported(rule.code or group.other_code, path, field, ledger, "container", draft)
        else:
            ledger.default(path)
    if main.name != draft.patch_container:
        ledger.report("C408", (*main.path, "name"),
                      f"container {main.name!r} is now {draft.patch_container!r}")
    if draft.companion is None:
        _duplicate_mounts(main, ledger)


def _runtime_has(draft: Draft, job: str, field: str, legacy: Any) -> bool:
    """Whether the referenced runtime (known from --runtimes) already runs this value; command
    and args count as one (``[sshd] + [-De]`` runs the same as ``[sshd, -De]``)."""
    containers = (draft.runtime_pods.get(job) or {}).get("spec", {}).get("containers") or []
    node = next((c for c in containers if isinstance(c, dict)
                 and c.get("name") == draft.patch_container), None)
    if node is None:
        return False
    if field in ("command", "args"):
        def exec_line(container: Any) -> list[Any]:
            return [*(container.get("command") or []), *(container.get("args") or [])]
        return bool(yamlio.plain(exec_line(legacy)) == yamlio.plain(exec_line(node)))
    return bool(yamlio.plain(legacy.get(field)) == yamlio.plain(node.get(field)))


def _duplicate_mounts(main: Container, ledger: Ledger) -> None:
    mounts = main.node.get("volumeMounts") or []
    counts = Counter(m.get("name") for m in mounts if isinstance(m, dict))
    for index, mount in enumerate(mounts):
        name = mount.get("name") if isinstance(mount, dict) else None
        if counts.get(name, 0) > 1:
            counts[name] = 0
            ledger.report("C406", (*main.path, "volumeMounts", index),
                          f"volume {name!r} is mounted more than once", consume=False)


def _unsupported(code: str, path: FieldPath, field: str, ledger: Ledger, where: str,
                 draft: Draft) -> None:
    if draft.companion is not None:
        _carried(path, f"{where} field {field!r}", ledger, draft)
        return
    extra = FIELD_HINTS.get(field) if where == "container" else None
    hint = f"{ledger.codes[code].fix} {extra}" if extra else None
    ledger.report(code, path, f"{where} field {field!r} cannot be set through a TrainJob on "
                  "this target and was not carried over", hint=hint)


def _carried(path: FieldPath, what: str, ledger: Ledger, draft: Draft) -> None:
    name = draft.companion.name if draft.companion is not None else "?"
    ledger.report("R213", path, f"{what} is carried by companion runtime {name}")


def _drop_claims(resources: Any, path: FieldPath, ledger: Ledger) -> None:
    """resourcesPerNode.claims: Trainer applies only limits and requests
    (kubeflow/trainer@v2.2.0 pkg/runtime/framework/plugins/jobset/builder.go:148-158; v2.3.0
    pkg/runtime/core/trainingruntime.go:222-231), so the claims would be ignored."""
    if isinstance(resources, dict) and "claims" in resources:
        del resources["claims"]
        ledger.report("C414", (*path, "claims"), "resources.claims (dynamic resource "
                      "allocation) are ignored by Trainer in resourcesPerNode: the node "
                      "container would not get the claimed devices")


def _drop_unset(resources: Any, path: FieldPath, ledger: Ledger) -> None:
    """Remove the null sections of a container's ``resources`` (``limits:`` with nothing
    under it): the API server treats them as unset, the TrainJob CRD rejects them."""
    if not isinstance(resources, dict):
        return
    for section in [key for key, value in resources.items() if value is None]:
        del resources[section]
        ledger.default((*path, str(section)))
