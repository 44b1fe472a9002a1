"""A replica's pod template → ``spec.trainer`` slots and the pod part of the runtime patch.

What each field becomes is data (mappings/common/podtemplate.yaml); whether a patch can carry
it is data too (the target's patchable field lists).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from migrator import yamlio
from migrator.draft import Draft
from migrator.ledger import Ledger
from migrator.model import Container, Replica
from migrator.paths import FieldPath
from migrator.specs import FieldGroup, PodRules, TargetSpec


def pod_patch_path(draft: Draft) -> str:
    return ("spec.runtimePatches[0].trainingRuntimeSpec.template.spec."
            f"replicatedJobs[name={draft.patch_job}].template.spec.template")


def main_container(replica: Replica, name: str, ledger: Ledger, *, report: bool) -> Container:
    """The container named ``name``, else the first one (reported once as C404)."""
    for container in replica.template.containers:
        if container.name == name:
            return container
    first = replica.template.containers[0]
    if report:
        ledger.report("C404", (*first.path, "name"),
                      f"no container is named {name!r}; using {first.name!r} as the trainer",
                      consume=False)
    return first


def convert_template(replica: Replica, main: Container, draft: Draft, ledger: Ledger,
                     rules: PodRules, target: TargetSpec) -> None:
    """Map the primary replica's template into the draft, reporting what cannot be carried."""
    template = replica.template
    if template.metadata is not None:
        _metadata(template.metadata.node, template.metadata.path, draft, ledger, rules.pod_metadata)
    base = pod_patch_path(draft)
    for key, value in template.spec.node.items():
        field = str(key)
        path = (*template.spec.path, field)
        rule = rules.pod_spec.fields.get(field)
        if value is None and field != "containers":
            ledger.default(path)
        elif rule is None:
            _unsupported(rules.pod_spec.other_code, path, field, ledger, "pod")
        elif rule.op == "containers":
            _containers(replica, main, draft, ledger, rules, target)
        elif rule.op == "patch":
            name = rule.rename or field
            if name in target.patchable_pod_fields:
                draft.pod.spec[name] = yamlio.clone(value)
                ledger.mapped(path, f"{base}.spec.{name}")
            else:
                _unsupported(rule.code or rules.pod_spec.other_code, path, field, ledger, "pod")
        elif rule.op == "unsupported":
            _unsupported(rule.code or rules.pod_spec.other_code, path, field, ledger, "pod")
        else:
            ledger.default(path)


def _metadata(node: Any, path: FieldPath, draft: Draft, ledger: Ledger, group: FieldGroup) -> None:
    base = pod_patch_path(draft)
    for key, value in node.items():
        field = str(key)
        rule = group.fields.get(field)
        if value is None:
            ledger.default((*path, field))
        elif rule is not None and rule.op == "patch":
            target = draft.pod.labels if field == "labels" else draft.pod.annotations
            for item_key, item_value in (value or {}).items():
                target[str(item_key)] = item_value
            ledger.mapped((*path, field), f"{base}.metadata.{field}")
        else:
            ledger.report(group.other_code, (*path, field),
                          f"pod template metadata.{field} cannot be carried by a runtime patch")
    ledger.default(path)


def _containers(replica: Replica, main: Container, draft: Draft, ledger: Ledger,
                rules: PodRules, target: TargetSpec) -> None:
    for container in replica.template.containers:
        if container.index != main.index:
            ledger.report("P302", container.path,
                          f"sidecar container {container.name!r} cannot be added by a TrainJob")
    group = rules.container
    base = f"{pod_patch_path(draft)}.spec.containers[name={draft.patch_container}]"
    for key, value in main.node.items():
        field = str(key)
        path = (*main.path, field)
        rule = group.fields.get(field)
        if value is None:
            ledger.default(path)
        elif rule is None:
            _unsupported(group.other_code, path, field, ledger, "container")
        elif rule.op == "trainer" and rule.to is not None:
            draft.set_trainer(rule.to, yamlio.clone(value))
            ledger.mapped(path, f"spec.trainer.{rule.to}")
        elif rule.op == "patch":
            if field in target.patchable_container_fields:
                draft.pod.container[field] = yamlio.clone(value)
                ledger.mapped(path, f"{base}.{field}")
            else:
                _unsupported(rule.code or group.other_code, path, field, ledger, "container")
        elif rule.op == "unsupported":
            _unsupported(rule.code or group.other_code, path, field, ledger, "container")
        else:
            ledger.default(path)
    if main.name != draft.patch_container:
        ledger.report("C408", (*main.path, "name"),
                      f"container {main.name!r} is now {draft.patch_container!r}")
    _duplicate_mounts(main, ledger)


def _duplicate_mounts(main: Container, ledger: Ledger) -> None:
    mounts = main.node.get("volumeMounts") or []
    counts = Counter(m.get("name") for m in mounts if isinstance(m, dict))
    for index, mount in enumerate(mounts):
        name = mount.get("name") if isinstance(mount, dict) else None
        if counts.get(name, 0) > 1:
            counts[name] = 0
            ledger.report("C406", (*main.path, "volumeMounts", index),
                          f"volume {name!r} is mounted more than once", consume=False)


def _unsupported(code: str, path: FieldPath, field: str, ledger: Ledger, where: str) -> None:
    ledger.report(code, path, f"{where} field {field!r} cannot be set through a TrainJob on "
                  "this target and was not carried over")
