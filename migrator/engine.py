"""STAGE 3: apply a kind's mapping to a legacy document → Draft, with findings on the ledger."""

from __future__ import annotations

from typing import Any

from migrator import model, paths, podtemplate, roles
from migrator.contract import apply_contract
from migrator.draft import Draft
from migrator.ledger import Ledger
from migrator.metadata import check_pod_names, convert_metadata
from migrator.model import LegacyJob, Replica
from migrator.settings import ConvertOptions
from migrator.specs import MappingSpec, PodRules, RuntimeSpec, TargetSpec
from migrator.transforms import TRANSFORMS, Call


def convert(root: Any, spec: MappingSpec, pod_rules: PodRules, target: TargetSpec,
            options: ConvertOptions, ledger: Ledger) -> Draft | None:
    """Map one legacy document; None when it is too invalid to map (see the ledger)."""
    ledger.default(("apiVersion",))
    ledger.default(("kind",))
    if "status" in root:
        ledger.report("M106", ("status",), "status was dropped")
    job = model.parse(root, spec, ledger)
    if job is None:
        return None
    runtime = target.runtimes[spec.framework]
    draft = _new_draft(runtime, options)
    convert_metadata(job.metadata.node, draft, ledger, target.limits.name)
    num_nodes = _replicas(job, spec, draft, ledger)
    primary = _primary(job, spec)
    main = podtemplate.main_container(primary, spec.main_container, ledger, report=True)
    podtemplate.convert_template(primary, main, draft, ledger, pod_rules, target)
    for other in job.replicas:
        if other is not primary:
            other_main = podtemplate.main_container(other, spec.main_container, ledger,
                                                    report=False)
            roles.merge_role(primary, main, other, other_main, draft, ledger)
    _rules(job, spec, draft, ledger, target)
    apply_contract(main, draft, ledger, spec, runtime)
    check_pod_names(draft, ledger, num_nodes, target.limits.name)
    ledger.close()
    return draft


def _new_draft(runtime: RuntimeSpec, options: ConvertOptions) -> Draft:
    return Draft(runtime_name=options.runtime or runtime.name,
                 runtime_kind=options.runtime_kind or runtime.kind,
                 patch_job=runtime.trainer_job, patch_container=runtime.container)


def _replicas(job: LegacyJob, spec: MappingSpec, draft: Draft, ledger: Ledger) -> int:
    total = sum(replica.replicas for replica in job.replicas)
    draft.set_trainer("numNodes", total)
    for replica in job.replicas:
        path = (*replica.path, "replicas")
        if replica.replicas_given:
            ledger.mapped(path, "spec.trainer.numNodes")
        else:
            ledger.mappings.append((paths.render(path) + " (default "
                                    f"{replica.replicas})", "spec.trainer.numNodes"))
        _restart_policy(replica, spec, ledger)
    return total


def _restart_policy(replica: Replica, spec: MappingSpec, ledger: Ledger) -> None:
    path = (*replica.path, "restartPolicy")
    value = replica.restart_policy
    if value is None or value == spec.replica_specs.default_restart_policy == "OnFailure":
        ledger.default(path)
    elif value not in spec.replica_specs.restart_policies:
        ledger.report("R212", path, f"restartPolicy {value!r} is not one of "
                      f"{', '.join(spec.replica_specs.restart_policies)}")
    elif value == "OnFailure":
        ledger.default(path)
    elif value == "ExitCode":
        ledger.report("R211", path, f"{replica.role} restartPolicy ExitCode cannot be expressed")
    else:
        ledger.report("R210", path, f"{replica.role} restartPolicy {value} becomes OnFailure "
                      "(the runtime's pod restart policy)")


def _primary(job: LegacyJob, spec: MappingSpec) -> Replica:
    by_role = {replica.role: replica for replica in job.replicas}
    for role in spec.replica_specs.template_priority:
        if role in by_role:
            return by_role[role]
    return job.replicas[0]


def _rules(job: LegacyJob, spec: MappingSpec, draft: Draft, ledger: Ledger,
           target: TargetSpec) -> None:
    for rule in spec.rules:
        path = paths.parse(rule.source)
        if not paths.has(job.root, path):
            continue
        value = paths.get(job.root, path)
        if rule.op == "copy" and rule.to is not None:
            setattr(draft, _slot(rule.to), value)
            ledger.mapped(path, f"spec.{rule.to}")
        elif rule.op == "unsupported" and rule.code is not None:
            ledger.report(rule.code, path, f"{rule.source} has no TrainJob equivalent and was "
                          "not carried over")
        elif rule.op == "transform" and rule.fn is not None:
            TRANSFORMS[rule.fn](Call(value, path, draft, ledger, target))
        else:
            ledger.default(path)
    for container in ("spec", "spec.runPolicy"):
        node = paths.get(job.root, paths.parse(container))
        if isinstance(node, dict) and not node:
            ledger.default(paths.parse(container))


def _slot(target: str) -> str:
    slots = {"suspend": "suspend", "activeDeadlineSeconds": "active_deadline_seconds",
             "managedBy": "managed_by"}
    if target not in slots:
        raise KeyError(f"mapping rule targets unknown slot {target!r}")
    return slots[target]
