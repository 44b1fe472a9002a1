"""CONVERT (rules): companion runtimes: a namespaced TrainingRuntime that carries a legacy job's
pod templates.

The TrainJob alone cannot express sidecars, init containers, probes, restart policies, worker
images of MPI jobs, TensorFlow or PaddlePaddle jobs. With ``--companion-runtimes`` each job's
templates go, nearly verbatim, into a TrainingRuntime named after the job (main container
renamed to ``node``), emitted before the TrainJob, which references it.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.comments import CommentedMap

from migrator.check import quantity
from migrator.convert.draft import Companion, Draft
from migrator.convert.model import Container, Replica
from migrator.convert.rules.contract import string_env
from migrator.knowledge import catalog
from migrator.knowledge.specs import RuntimeSpec, TargetSpec
from migrator.load import yamlio
from migrator.paths import FieldPath

JOB_RESTART_POLICIES = ("Never", "OnFailure")
UNLIMITED = 2147483647  # the largest Job backoffLimit: restarts without a limit
POD_TEMPLATE_FIELDS = ("metadata", "spec")
MPI_DEFAULTS = (("numProcPerNode", 1), ("mpiImplementation", "OpenMPI"),
                ("sshAuthMountPath", "/root/.ssh"), ("runLauncherAsNode", False))


def add_template(companion: Companion, replica: Replica, main: Container, container_name: str,
                 reserved_env: list[str], restart_policy: str) -> list[FieldPath]:
    """Store ``replica``'s pod template for its job, main container renamed, reserved env out;
    returns the template-relative paths of env values that had to be quoted."""
    template = yamlio.clone(replica.template.node)
    for key in [k for k in template if k not in POD_TEMPLATE_FIELDS]:
        del template[key]  # apiVersion/kind of a PodTemplate: reported as U901, never written
    drop_nulls(template)
    containers = template["spec"]["containers"]
    quoted: list[FieldPath] = []
    for kind in ("containers", "initContainers"):
        for index, item in enumerate(template["spec"].get(kind) or []):
            if isinstance(item, dict):
                quantity.as_api_values(item.get("resources"))
                quoted += [("spec", kind, index, "env", position, "value")
                           for position in string_env(item.get("env"))]
    node = containers[main.index]
    node["name"] = container_name
    env = node.get("env")
    if isinstance(env, list):
        for index in reversed(range(len(env))):
            item = env[index]
            if isinstance(item, dict) and item.get("name") in reserved_env:
                del env[index]
    spec = template["spec"]
    spec.pop("restartPolicy", None)
    if restart_policy == "ExitCode":
        spec["restartPolicy"] = "Never"  # the podFailurePolicy decides (exit_code_policy)
    elif restart_policy in JOB_RESTART_POLICIES:
        spec["restartPolicy"] = restart_policy
    companion.templates[replica.job] = template
    return quoted


def retry_limit(companion: Companion, job: str, restart_policy: str, backoff: int | None,
                ran_as_job: bool) -> None:
    """The legacy operator's retry semantics as ``job``'s Job backoffLimit.

    training-operator (kubeflow/trainer@v1.9.2): a replica with restartPolicy Never fails the
    job at its first failed pod (pkg/controller.v1/pytorch/pytorchjob_controller.go:420-432, the
    same in every kind's UpdateJobStatus), whatever runPolicy.backoffLimit says: backoffLimit 0.
    Other policies restart until runPolicy.backoffLimit is reached, without a limit when it is
    unset (pkg/controller.v1/common/job.go:192). A Job's backoffLimit defaults to 6 (the Job API;
    kubeflow/trainer@v2.2.0 manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml:450),
    and a JobSet without failurePolicy fails with its first failed Job
    (kubernetes-sigs/jobset@v0.11.1 pkg/controllers/failure_policy.go:49-57), so the limit must
    be written. A role the operator ran as a batch Job (mpi-operator's launcher) keeps that
    Job's backoffLimit: runPolicy.backoffLimit, else the Job default.
    """
    if ran_as_job:
        limit = backoff
    elif restart_policy == "Never":
        limit = 0
    else:
        limit = UNLIMITED if backoff is None else backoff
    if limit is not None:
        companion.job(job)["backoffLimit"] = limit


def drop_nulls(node: Any) -> None:
    """Remove ``key: null`` entries (Kubernetes reads them as unset; CRD schemas reject them)."""
    if isinstance(node, dict):
        for key in [k for k, v in node.items() if v is None]:
            del node[key]
        for value in node.values():
            drop_nulls(value)
    elif isinstance(node, list):
        for value in node:
            drop_nulls(value)


def exit_code_policy(companion: Companion, job: str, container: str) -> None:
    """The legacy ExitCode restart policy as a Job podFailurePolicy: exit codes 1-127 are
    permanent failures (fail the Job), 128-255 (signals, OOM kills) are retried."""
    companion.job(job)["podFailurePolicy"] = yamlio.from_plain({"rules": [{
        "action": "FailJob",
        "onExitCodes": {"containerName": container, "operator": "In",
                        "values": yamlio.flow_seq(list(range(1, 128)))}}]})


def build(draft: Draft, runtime: RuntimeSpec, target: TargetSpec, num_nodes: int) -> CommentedMap:
    """The companion TrainingRuntime document for ``draft``."""
    companion = draft.companion
    if companion is None:
        raise ValueError("draft has no companion runtime")
    meta = yamlio.new_map([("name", companion.name)])
    if draft.namespace is not None:
        meta["namespace"] = draft.namespace
    framework = "plain" if companion.policy == "plain" else companion.policy
    loaded = catalog.load()
    created_by = loaded.integrations.created_by
    meta["labels"] = yamlio.new_map([(loaded.upgrade.labels.framework, framework),
                                     (created_by.label, created_by.value)])
    spec = yamlio.new_map([("mlPolicy", _ml_policy(companion, num_nodes))])
    if companion.pod_group is not None:
        spec["podGroupPolicy"] = yamlio.from_plain(companion.pod_group)
    spec["template"] = _jobset(draft, companion, runtime)
    return yamlio.new_map([("apiVersion", target.api_version),
                           ("kind", loaded.kinds.namespaced_runtime_kind),
                           ("metadata", meta), ("spec", spec)])


def _ml_policy(companion: Companion, num_nodes: int) -> CommentedMap:
    # An MPI runtime's numNodes sizes the launcher (the trainer-ancestor job), not the nodes:
    # kubeflow/trainer@v2.2.0 pkg/runtime/core/trainingruntime.go:171-176 (v2.3.0 :189-194)
    # counts that job from the runtime's mlPolicy.numNodes, and only the MPI plugin
    # (pkg/runtime/framework/plugins/mpi/mpi.go:104-110) resizes `node` from the TrainJob.
    # With the node count here, N launchers would each run mpirun.
    policy = yamlio.new_map([("numNodes", 1 if companion.policy == "mpi" else num_nodes)])
    if companion.policy == "mpi":
        fields = dict(companion.policy_fields)
        policy["mpi"] = yamlio.new_map([(key, fields.get(key, default))
                                        for key, default in MPI_DEFAULTS])
    elif companion.policy != "plain":
        policy[companion.policy] = yamlio.new_map()
    return policy


def _jobset(draft: Draft, companion: Companion, runtime: RuntimeSpec) -> CommentedMap:
    template = yamlio.new_map()
    if draft.jobset_labels or draft.jobset_annotations:
        meta = yamlio.new_map()
        if draft.jobset_labels:
            meta["labels"] = yamlio.from_plain(draft.jobset_labels)
        if draft.jobset_annotations:
            meta["annotations"] = yamlio.from_plain(draft.jobset_annotations)
        template["metadata"] = meta
    spec = yamlio.new_map()
    if "ttlSecondsAfterFinished" in companion.jobset:
        spec["ttlSecondsAfterFinished"] = companion.jobset["ttlSecondsAfterFinished"]
    if companion.policy == "mpi":
        spec["network"] = yamlio.new_map([("publishNotReadyAddresses", True)])
        spec["successPolicy"] = yamlio.new_map([
            ("operator", "All"), ("targetReplicatedJobs", yamlio.new_seq([runtime.trainer_job]))])
    jobs = yamlio.new_seq()
    for job in runtime.jobs:
        if job.name in companion.templates:
            jobs.append(_replicated_job(draft, companion, job.name, job.ancestor))
    spec["replicatedJobs"] = jobs
    template["spec"] = spec
    return template


def _replicated_job(draft: Draft, companion: Companion, name: str,
                    ancestor: str | None) -> CommentedMap:
    item = yamlio.new_map([("name", name)])
    depends = companion.depends_on.get(name)
    if depends:
        item["dependsOn"] = yamlio.new_seq([yamlio.new_map([("name", dep), ("status", status)])
                                            for dep, status in depends])
    job_template = yamlio.new_map()
    if ancestor is not None:
        job_template["metadata"] = yamlio.new_map([
            ("labels", yamlio.new_map([(catalog.load().upgrade.labels.ancestor, ancestor)]))])
    job_spec = yamlio.new_map(list(companion.job(name).items()))
    job_spec["template"] = _pod_template(draft, companion, name)
    job_template["spec"] = job_spec
    item["template"] = job_template
    return item


def _pod_template(draft: Draft, companion: Companion, job: str) -> Any:
    template = companion.templates[job]
    patch = draft.jobs.get(job)
    if patch is not None and (patch.labels or patch.annotations):
        meta = template.get("metadata")
        if not isinstance(meta, dict):
            meta = yamlio.new_map()
            template.insert(0, "metadata", meta)
        for key, values in (("labels", patch.labels), ("annotations", patch.annotations)):
            if values:
                target = meta.get(key)
                if not isinstance(target, dict):
                    target = meta[key] = yamlio.new_map()
                for name, value in values.items():
                    target.setdefault(name, value)
    spec = template["spec"]
    if "podFailurePolicy" in companion.job(job):
        spec["restartPolicy"] = "Never"  # a Job's podFailurePolicy requires it
    return template
