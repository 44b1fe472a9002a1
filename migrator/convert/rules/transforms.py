"""CONVERT (rules): named transforms that mapping rules call with ``op: transform, fn: <name>``.

Each takes the source value with its path and records what it did on the ledger; the
``TRANSFORMS`` registry is checked against every mapping file by the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from migrator import paths
from migrator.check import quantity
from migrator.convert.draft import Draft
from migrator.convert.ledger import Ledger
from migrator.knowledge import catalog
from migrator.knowledge.specs import TargetSpec
from migrator.load import yamlio
from migrator.paths import FieldPath
from migrator.results import FrozenValue, _set

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only


@fields_only
class Call(FrozenValue):
    """What a transform gets: the value, where it was, and the conversion it contributes to
    (a frozen value written by hand: see migrator/results.py)."""

    FIELDS = ("value", "path", "draft", "ledger", "target")
    value: Any
    path: FieldPath
    draft: Draft
    ledger: Ledger
    target: TargetSpec

    def __init__(self, value: Any, path: FieldPath, draft: Draft, ledger: Ledger,
                 target: TargetSpec) -> None:
        _set(self, "value", value)
        _set(self, "path", path)
        _set(self, "draft", draft)
        _set(self, "ledger", ledger)
        _set(self, "target", target)


Transform = Callable[[Call], None]
TRANSFORMS: dict[str, Transform] = {}

GPU_MARK = "gpu"


def transform(name: str) -> Callable[[Transform], Transform]:
    def register(func: Transform) -> Transform:
        TRANSFORMS[name] = func
        return func
    return register


@transform("active-deadline")
def active_deadline(call: Call) -> None:
    if isinstance(call.value, bool) or not isinstance(call.value, int) or call.value < 1:
        call.ledger.report("R207", call.path, f"activeDeadlineSeconds {call.value!r} is not a "
                           "positive integer")
        return
    call.draft.active_deadline_seconds = call.value
    call.ledger.mapped(call.path, "spec.activeDeadlineSeconds")


@transform("managed-by")
def managed_by(call: Call) -> None:
    known = catalog.load()
    if call.value is None or call.value in known.kinds.legacy_managers:
        call.ledger.report("R209", call.path, f"managedBy {call.value!r} named the legacy "
                           "operator; the TrainJob uses Trainer's default controller")
    elif call.value in known.integrations.external_managers:
        call.draft.managed_by = call.value
        call.ledger.mapped(call.path, "spec.managedBy")
        if not call.target.honours_managed_by:
            call.ledger.report("R208", call.path, f"Trainer {call.target.version} does not "
                               "honour managedBy; the job may run on the manager cluster too",
                               consume=False)
    else:
        call.ledger.report("R212", call.path, f"managedBy {call.value!r} is not a value the "
                           "legacy API allowed")


@transform("managed-by-ignored")
def managed_by_ignored(call: Call) -> None:
    """managedBy of a kind whose legacy controller ignored it (kubeflow/trainer@v1.9.2: the
    JAX controller has no ManagedByExternalController check): the job ran on this cluster."""
    managed_by(call)
    known = catalog.load()
    if call.value in known.integrations.external_managers:
        call.ledger.report("R218", call.path, f"the legacy controller ignored managedBy "
                           f"{call.value!r} and ran the job on this cluster; the TrainJob is "
                           "left to that manager", consume=False)


@transform("clean-pod-policy")
def clean_pod_policy(call: Call) -> None:
    if call.value == "All":
        call.ledger.report("R201", call.path, "cleanPodPolicy All: completed pods are kept "
                           "until the TrainJob is deleted")
    elif call.value in ("None", "Running"):
        call.ledger.report("R202", call.path, f"cleanPodPolicy {call.value} was dropped; "
                           "JobSet removes still-running Jobs when the TrainJob finishes")
    else:
        call.ledger.report("R212", call.path, f"cleanPodPolicy {call.value!r} is not one of "
                           "All, Running, None")


@transform("ttl-after-finished")
def ttl_after_finished(call: Call) -> None:
    companion = call.draft.companion
    if companion is None or not _non_negative(call.value):
        call.ledger.report("R203", call.path, "runPolicy.ttlSecondsAfterFinished has no "
                           "TrainJob equivalent and was not carried over")
        return
    companion.jobset["ttlSecondsAfterFinished"] = call.value
    call.ledger.mapped(call.path, f"{companion.ref}: "
                       "spec.template.spec.ttlSecondsAfterFinished")
    call.ledger.report("R213", call.path, "ttlSecondsAfterFinished is carried by companion "
                       f"runtime {companion.name} (it deletes the JobSet, not the TrainJob)",
                       consume=False)
    call.ledger.report("R215", call.path, "on Trainer 2.3.0 and earlier the TrainJob controller "
                       "recreates a JobSet that ttlSecondsAfterFinished deleted after it failed, "
                       "so the failed job runs again (kubeflow/trainer#3779, #3737)",
                       consume=False)


@transform("backoff-limit")
def backoff_limit(call: Call) -> None:
    companion = call.draft.companion
    if companion is None or not _non_negative(call.value):
        call.ledger.report("R204", call.path, "runPolicy.backoffLimit has no TrainJob "
                           "equivalent and was not carried over")
        return
    # companion.retry_limit wrote it on every Job whose pods the legacy operator restarted
    jobs = sorted(name for name, fields in companion.job_fields.items()
                  if fields.get("backoffLimit") == call.value)
    where = ", ".join(jobs) if jobs else "no"
    call.ledger.mapped(call.path, f"{companion.ref}: spec.template.spec."
                       f"replicatedJobs[name={where}].template.spec.backoffLimit")
    call.ledger.report("R213", call.path, f"backoffLimit is carried by companion runtime "
                       f"{companion.name} as the backoffLimit of each Job whose pods the legacy "
                       f"operator restarted ({where}; per Job, not per TrainJob); a replica with "
                       "restartPolicy Never still fails the job at its first failed pod",
                       consume=False)


def _non_negative(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@transform("scheduling-policy")
def scheduling_policy(call: Call) -> None:
    if not isinstance(call.value, dict):
        call.ledger.report("R212", call.path, "schedulingPolicy must be a mapping")
        return
    companion = call.draft.companion
    volcano_queue = catalog.load().integrations.volcano_queue_annotation
    for key, value in call.value.items():
        path = (*call.path, str(key))
        if key == "queue" and isinstance(value, str) and value:
            call.draft.jobset_annotations[volcano_queue] = value
            where = (f"{companion.ref}: spec.template" if companion else
                     "spec.runtimePatches[0].trainingRuntimeSpec.template")
            call.ledger.mapped(path, f"{where}.metadata.annotations.{volcano_queue}")
            call.ledger.report("R206", path, f"queue {value!r} was mapped to the JobSet "
                               f"annotation {volcano_queue}; it only works with a volcano "
                               "runtime", consume=False)
        elif key == "scheduleTimeoutSeconds" and companion is not None and _non_negative(value):
            companion.pod_group = {"coscheduling": {"scheduleTimeoutSeconds": value}}
            call.ledger.mapped(path, f"{companion.ref}: spec.podGroupPolicy."
                               "coscheduling.scheduleTimeoutSeconds")
            call.ledger.report("R213", path, "gang scheduling (coscheduling, minMember = every "
                               f"pod) is carried by companion runtime {companion.name}; it "
                               "needs the scheduler-plugins coscheduling scheduler",
                               consume=False)
            if not any(paths.get(t, ("spec", "schedulerName"))
                       for t in companion.templates.values()):
                # kubeflow/trainer@v1.9.2 pkg/controller.v1/common/pod.go:439-446 set it
                call.ledger.report("R217", path, "the legacy operator (run with "
                                   "--gang-scheduler-name) set each pod's schedulerName to the "
                                   "gang scheduler; Trainer's coscheduling plugin does not, so "
                                   "without schedulerName in the pod templates the default "
                                   "scheduler places the pods one by one", consume=False)
        elif key == "priorityClass":
            # kubeflow/trainer@v1.9.2 pkg/controller.v1/common/job.go:250-295: the gang
            # scheduler's PodGroup only, never the pods (a pod priority may preempt others, or
            # fail pod creation when the class does not exist)
            call.ledger.report("R205", path, f"schedulingPolicy.priorityClass {value!r} was "
                               "the gang scheduler's PodGroup priority, never the pods'; it "
                               "was not carried over (a pod priorityClassName would change "
                               "preemption)")
        else:
            call.ledger.report("R205", path, f"schedulingPolicy.{key} has no TrainJob "
                               "equivalent; gang scheduling is not automatic in Trainer v2 "
                               "(the default runtimes have no podGroupPolicy)")
    if not call.value:
        call.ledger.default(call.path)


@transform("torch-nproc-per-node")
def torch_nproc_per_node(call: Call) -> None:
    value = call.value
    text = str(value).strip() if isinstance(value, (str, int)) and not isinstance(value, bool) \
        else None
    resources = call.draft.trainer.get("resourcesPerNode")
    if text is None or not (text in ("auto", "cpu", "gpu") or text.isdigit()):
        call.ledger.report("K103", call.path, f"nprocPerNode {value!r} is not auto, cpu, gpu or "
                           "a number")
    elif text.isdigit() and int(text) > 0:
        call.draft.set_trainer("numProcPerNode", int(text))
        call.ledger.mapped(call.path, "spec.trainer.numProcPerNode")
    elif text == "auto":
        call.ledger.default(call.path)
    elif text == "gpu":
        call.ledger.default(call.path)
        if gpu_count(resources) is None:
            call.ledger.report("F504", call.path, "nprocPerNode gpu, but the trainer requests "
                               "no *gpu* resource: Trainer will start one process per CPU",
                               consume=False)
    elif text == "cpu":
        _nproc_cpu(call, resources)
    else:
        call.ledger.report("K103", call.path, f"nprocPerNode {value!r} must be positive")


def _nproc_cpu(call: Call, resources: Any) -> None:
    if gpu_count(resources) is None:
        call.ledger.default(call.path)  # the contract rule reports the process count (F505)
        return
    cpu = _resource(resources, "cpu")
    count = quantity.ceil_count(cpu) if cpu is not None else None
    if count is None:
        call.ledger.report("F505", call.path, "nprocPerNode cpu with a GPU resource but no CPU "
                           "resource: Trainer will start one process per GPU")
        return
    call.draft.set_trainer("numProcPerNode", count)
    call.ledger.mapped(call.path, "spec.trainer.numProcPerNode")
    call.ledger.report("F505", call.path, f"nprocPerNode cpu became numProcPerNode {count} "
                       "(the container's CPU resources, not the host's CPU count)",
                       consume=False)


def elastic_policy(call: Call) -> dict[str, Any] | None:
    """The elasticPolicy mapping, or None after reporting that it is not one."""
    if isinstance(call.value, dict):
        return call.value
    call.ledger.report("K103", call.path, "elasticPolicy must be a mapping")
    return None


def is_scaling(policy: dict[str, Any]) -> bool:
    """Whether an elasticPolicy really scales (min != max, or autoscaling metrics)."""
    low, high = policy.get("minReplicas"), policy.get("maxReplicas")
    return (low is not None and high is not None and low != high) or bool(policy.get("metrics"))


@transform("torch-elastic-policy")
def torch_elastic_policy(call: Call) -> None:
    policy = elastic_policy(call)
    if policy is None:
        return
    low, high = policy.get("minReplicas"), policy.get("maxReplicas")
    scaling = is_scaling(policy)
    rest = []
    for key, value in policy.items():
        path = (*call.path, str(key))
        if key == "nProcPerNode":
            if "numProcPerNode" not in call.draft.trainer and isinstance(value, int) and value > 0:
                call.draft.set_trainer("numProcPerNode", value)
                call.ledger.mapped(path, "spec.trainer.numProcPerNode")
            else:
                call.ledger.default(path)
        elif key == "maxRestarts" and isinstance(value, int):
            _max_restarts(call, path, value)
        else:
            rest.append(str(key))
    if not rest:
        call.ledger.default(call.path)
    elif scaling:
        bounds = f"minReplicas={low}, maxReplicas={high}" if low is not None else "metrics"
        call.ledger.report("F501", call.path, f"elastic training ({bounds}) is not available in "
                           "Trainer 2.2/2.3; the job runs with a fixed node count "
                           f"(dropped: {', '.join(rest)})")
    else:
        call.ledger.report("F502", call.path, f"elasticPolicy {', '.join(rest)} dropped; the "
                           "job has a fixed node count and torchrun gets Trainer's PET_* settings")


def _max_restarts(call: Call, path: FieldPath, value: int) -> None:
    env = call.draft.trainer.get("env")
    if env is None:
        env = yamlio.new_seq()
        call.draft.set_trainer("env", env)
    if not any(isinstance(e, dict) and e.get("name") == "PET_MAX_RESTARTS" for e in env):
        env.append(yamlio.new_map([("name", "PET_MAX_RESTARTS"),
                                   ("value", yamlio.quoted(str(value)))]))
    call.ledger.mapped(path, "spec.trainer.env[name=PET_MAX_RESTARTS]")
    call.ledger.report("F503", path, f"maxRestarts {value} is carried as PET_MAX_RESTARTS, the "
                       "variable the legacy operator set for torchrun", consume=False)


def _resource(resources: Any, name: str) -> Any:
    if not isinstance(resources, dict):
        return None
    for section in ("requests", "limits"):
        values = resources.get(section)
        if isinstance(values, dict) and name in values:
            return values[name]
    return None


def gpu_count(resources: Any) -> int | None:
    """GPUs per node the way Trainer counts them: first ``*gpu*`` resource, requests first."""
    if not isinstance(resources, dict):
        return None
    for section in ("requests", "limits"):
        values = resources.get(section)
        if isinstance(values, dict):
            for key, value in values.items():
                if GPU_MARK in str(key).lower():
                    return quantity.ceil_count(value)
    return None
