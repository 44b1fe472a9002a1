"""CONVERT: spell a Draft as a TrainJob document for one target and dump it as YAML.

Carried-over subtrees are the loaded ruamel nodes (cloned), so comments inside labels, env,
volumes and so on travel with them; end-of-line comments on carried metadata keys are moved.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.comments import CommentedMap

from migrator.convert.draft import Draft, PodPatch
from migrator.knowledge import catalog
from migrator.knowledge.specs import TargetSpec
from migrator.load import yamlio


def build(draft: Draft, target: TargetSpec, manager: str) -> CommentedMap:
    """The TrainJob as a ruamel map, keys in the order reviewers expect."""
    doc = yamlio.new_map([("apiVersion", target.api_version), ("kind", target.kind)])
    metadata = _metadata(draft)
    if metadata:  # jobs embedded in Katib trial specs have none
        doc["metadata"] = metadata
    spec = yamlio.new_map([("runtimeRef", _runtime_ref(draft))])
    for key, value in (("suspend", draft.suspend),
                       ("activeDeadlineSeconds", draft.active_deadline_seconds),
                       ("managedBy", draft.managed_by)):
        if value is not None:
            spec[key] = value
    spec["trainer"] = yamlio.new_map(draft.ordered_trainer())
    patch = None if draft.companion is not None else _runtime_patch(draft, manager)
    if patch is not None:
        spec["runtimePatches"] = yamlio.new_seq([patch])
    doc["spec"] = spec
    return doc


def _metadata(draft: Draft) -> CommentedMap:
    meta = yamlio.new_map()
    for key, value in (("name", draft.name), ("generateName", draft.generate_name),
                       ("namespace", draft.namespace), ("labels", draft.labels),
                       ("annotations", draft.annotations)):
        if value is not None:
            meta[key] = value
            yamlio.carry_key_comment(draft.source_metadata, key, meta, key)
    return meta


def _runtime_ref(draft: Draft) -> CommentedMap:
    ref = yamlio.new_map([("name", draft.runtime_name)])
    if draft.runtime_kind != catalog.load().kinds.cluster_runtime_kind:  # else the default
        ref["kind"] = draft.runtime_kind
    return ref


def _runtime_patch(draft: Draft, manager: str) -> CommentedMap | None:
    return runtime_patch(manager,
                         _labels_annotations(draft.jobset_labels, draft.jobset_annotations),
                         [(name, _pod_template(draft, pod)) for name, pod in draft.patched_jobs()])


def runtime_patch(manager: str, jobset_metadata: Any, pod_templates: list[tuple[str, Any]]
                  ) -> CommentedMap | None:
    """A runtimePatches entry: the JobSet's metadata (None: none) and the pod template of each
    replicated job it patches; None when it would patch nothing."""
    template = yamlio.new_map()
    if jobset_metadata is not None:
        template["metadata"] = jobset_metadata
    if pod_templates:
        jobs = yamlio.new_seq()
        for name, pod_template in pod_templates:
            job_template = yamlio.new_map([("spec", yamlio.new_map([("template", pod_template)]))])
            jobs.append(yamlio.new_map([("name", name), ("template", job_template)]))
        template["spec"] = yamlio.new_map([("replicatedJobs", jobs)])
    if not template:
        return None
    return yamlio.new_map([("manager", manager),
                           ("trainingRuntimeSpec", yamlio.new_map([("template", template)]))])


def _pod_template(draft: Draft, pod: PodPatch) -> CommentedMap:
    pod_template = yamlio.new_map()
    pod_meta = _labels_annotations(pod.labels, pod.annotations)
    if pod_meta is not None:
        pod_template["metadata"] = pod_meta
    pod_spec = yamlio.new_map(list(pod.spec.items()))
    if pod.container:
        container = yamlio.new_map([("name", draft.patch_container), *pod.container.items()])
        pod_spec["containers"] = yamlio.new_seq([container])
    if pod_spec:
        pod_template["spec"] = pod_spec
    return pod_template


def _labels_annotations(labels: dict[str, Any], annotations: dict[str, Any]) -> CommentedMap | None:
    meta = yamlio.new_map()
    if labels:
        meta["labels"] = yamlio.new_map(list(labels.items()))
    if annotations:
        meta["annotations"] = yamlio.new_map(list(annotations.items()))
    return meta or None
