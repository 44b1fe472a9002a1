"""SIMULATE: the Trainer side — what Trainer v2.2.0/v2.3.0 (with JobSet and batch/v1 Jobs)
creates for a TrainJob and its runtime, and how the job behaves (``outcome``).

``world`` follows Trainer's runtime framework (``pkg/runtime/core/trainingruntime.go`` and the
plugins under ``pkg/runtime/framework/plugins``) from the objects alone: the runtime's JobSet
template, the TrainJob's ``runtimePatches`` merged in, pod counts (the trainer-step job starts
from the runtime's ``mlPolicy.numNodes``; the torch, JAX, XGBoost and plain plugins give it the
TrainJob's ``trainer.numNodes``; the MPI plugin resizes only the job named ``node``), the
TrainJob's ``trainer`` fields, the env, ports and volumes each plugin injects, the scheduler
plugins' labels and PodGroup, then the JobSet webhook's defaults and the JobSet controller's
Jobs, and the batch/v1 Job's pods with their hostnames. Every rule records its upstream
citation (``trainer_sources``).

Pods are named by the side-neutral identity of ``model.py``: with an MPI policy the job named
``launcher`` gives ``launcher-K`` and the job named ``node`` gives ``node-K``; otherwise the
trainer-step job gives ``node-K``; other jobs give ``ROLE-K`` when named after a legacy role
(``ROLE_JOBS``) and ``init:NAME-K`` else. K counts pods in order of job index, then completion
index.

Not modelled (the world's ``extras["notes"]`` says so where it applies): the torchtune command
rewrite, the Flux policy (a ``ValueError``), ``activeDeadlineSeconds`` and other timing, the
validating webhooks (a TrainJob the API would reject is simulated as if admitted), and labels
the Job controller adds to pods.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from migrator.simulate.model import Outcome, Pod, Scenario, World
from migrator.simulate.trainer_plugins import (
    LAUNCHER,
    NODE,
    TRAINER,
    Build,
    BuildError,
    enforce_jax,
    enforce_mpi,
    enforce_plain,
    enforce_torch,
    enforce_xgboost,
    mpi_hostfile,
)
from migrator.simulate.trainer_runtimes import RUNTIMES
from migrator.simulate.trainer_values import (
    JOBSET_MERGE_KEYS,
    POD_MERGE_KEYS,
    child,
    container,
    integer,
    mapping,
    plain,
    quantity,
    seq,
    strategic_merge,
    strings,
    text,
    upsert_env,
)

VERSIONS = ("2.2", "2.3")
CONTROLLER = {"2.2": "trainer v2.2.0 (jobset v0.11.1)", "2.3": "trainer v2.3.0 (jobset v0.12.0)"}
TRAINJOB_CONTROLLER = "trainer.kubeflow.org/trainjob-controller"
JOBSET_CONTROLLER = "jobset.sigs.k8s.io/jobset-controller"
ROLE_JOBS = ("chief", "ps", "evaluator", "master")
"""Replicated-job names that keep a legacy role's identity (``chief-0``, ``ps-1``)."""

COSCHEDULING_LABEL = "scheduling.x-k8s.io/pod-group"
VOLCANO_ANNOTATION = "scheduling.k8s.io/group-name"
VOLCANO_QUEUE = "scheduling.volcano.sh/queue-name"
DEFAULT_BACKOFF_LIMIT = 6


def default_runtime(name: str, version: str) -> Mapping[str, Any] | None:
    """The ClusterTrainingRuntime ``name`` as Trainer ``version`` ("2.2"/"2.3") installs it,
    None when it ships no such runtime (or one the simulator does not transcribe)."""
    _check_version(version)
    make = RUNTIMES.get(name)
    return make(version) if make is not None else None


def world(trainjob: Mapping[str, Any], runtime: Mapping[str, Any], version: str) -> World:
    """What Trainer ``version`` creates for ``trainjob`` with ``runtime`` (the runtime object its
    runtimeRef names). A reconcile the controller would fail yields a world without pods whose
    ``extras["error"]`` says why."""
    _check_version(version)
    if not isinstance(trainjob, Mapping) or not isinstance(runtime, Mapping):
        raise ValueError("the TrainJob and the runtime must be mappings")
    build = _start(trainjob, runtime, version)
    spec = mapping(trainjob.get("spec"))
    managed_by = text(spec.get("managedBy"))
    if version == "2.3" and managed_by is not None and managed_by != TRAINJOB_CONTROLLER:
        build.cite("managed_by")
        return _empty(build, {"managedBy": managed_by},
                      f"managed by {managed_by}: Trainer's TrainJob controller skips it")
    if mapping(build.ml_policy).get("flux") is not None:
        raise ValueError("the Flux ML policy is not modelled by the simulator")
    template_spec = mapping(mapping(mapping(runtime.get("spec")).get("template")).get("spec"))
    jobset_manager = text(template_spec.get("managedBy"))
    if jobset_manager is not None and jobset_manager != JOBSET_CONTROLLER:
        build.cite("js_managed_by")
        return _empty(build, {"jobSetManagedBy": jobset_manager},
                      f"the JobSet is managed by {jobset_manager}: the JobSet controller "
                      f"creates no Jobs")
    try:
        return _finish(build, trainjob, runtime)
    except BuildError as error:
        return _empty(build, {"error": str(error)}, str(error))


def outcome(trainjob: Mapping[str, Any], runtime: Mapping[str, Any], version: str,
            scenario: Scenario) -> Outcome:
    """How the job ``world`` describes reacts to ``scenario`` (see ``jobset.play``)."""
    from migrator.simulate.jobset import play

    built = world(trainjob, runtime, version)
    return play(built, scenario, version)


# --- building ----------------------------------------------------------------------------------


def _check_version(version: str) -> None:
    if version not in VERSIONS:
        raise ValueError(f"unknown Trainer version {version!r} (expected one of {VERSIONS})")


def _start(trainjob: Mapping[str, Any], runtime: Mapping[str, Any], version: str) -> Build:
    name = text(mapping(trainjob.get("metadata")).get("name")) or ""
    spec = mapping(trainjob.get("spec"))
    runtime_spec = mapping(runtime.get("spec"))
    policy = runtime_spec.get("mlPolicy")
    trainer = spec.get("trainer")
    template = mapping(runtime_spec.get("template"))
    jobs = [plain(job) for job in seq(mapping(template.get("spec")).get("replicatedJobs"))
            if isinstance(job, Mapping) and isinstance(job.get("name"), str)]
    return Build(version=version, name=name,
                 trainer=trainer if isinstance(trainer, Mapping) else None,
                 ml_policy=policy if isinstance(policy, Mapping) else None,
                 jobs=jobs, counts=[1] * len(jobs))


def _empty(build: Build, extra: dict[str, Any], why: str) -> World:
    return World(side="trainer", controller=CONTROLLER[build.version], pods=(),
                 extras={**extra, "created": False, "why": why, "notes": list(build.notes)},
                 citations=tuple(sorted(build.citations)))


def _finish(build: Build, trainjob: Mapping[str, Any], runtime: Mapping[str, Any]) -> World:
    spec = mapping(trainjob.get("spec"))
    runtime_spec = mapping(runtime.get("spec"))
    template = mapping(runtime_spec.get("template"))
    jobset_spec: dict[str, Any] = plain(mapping(template.get("spec")))
    labels = dict(mapping(mapping(template.get("metadata")).get("labels")))
    annotations = dict(mapping(mapping(template.get("metadata")).get("annotations")))
    _patch(build, spec, jobset_spec, labels, annotations)
    _count(build)
    _resources(build)
    _refused_resources(build)
    policy = mapping(build.ml_policy)
    if policy.get("torch") is not None:
        enforce_torch(build)
    if policy.get("mpi") is not None:
        enforce_mpi(build)
    if policy.get("jax") is not None:
        enforce_jax(build)
    enforce_plain(build)
    if policy.get("xgboost") is not None:
        enforce_xgboost(build)
        build.notes.append("plain-ML and XGBoost plugins both run; Trainer runs plugins in Go "
                           "map order, so the order of trainer.env and DMLC_* env may differ")
        build.cite("plugin_order")
    pod_labels, pod_annotations = _pod_groups(build, mapping(runtime_spec.get("podGroupPolicy")),
                                              annotations)
    network = mapping(jobset_spec.get("network"))
    subdomain = text(network.get("subdomain")) or build.name
    endpoints = _endpoints(build, subdomain)
    if "mpi" in build.extras:
        build.extras["mpi"]["hostfile"] = mpi_hostfile(build, endpoints)
    _builder(build, spec, pod_labels, pod_annotations)
    return _jobset(build, spec, jobset_spec, labels, annotations)


POD_PATCH_FIELDS = ("serviceAccountName", "volumes", "initContainers", "containers",
                    "imagePullSecrets", "securityContext", "nodeSelector", "affinity",
                    "tolerations", "schedulingGates")
"""``PodSpecPatch`` fields (v2.2.0 trainjob_types.go; v2.3.0 adds terminationGracePeriodSeconds):
the API server prunes any other field of a runtime patch."""
CONTAINER_PATCH_FIELDS = ("name", "env", "volumeMounts", "securityContext")


def _pruned_job_template(template: Mapping[str, Any], version: str) -> dict[str, Any]:
    """A runtime patch's job template as the API stores it: ``JobTemplatePatch`` keeps
    metadata labels/annotations and ``spec.template`` (its metadata and a ``PodSpecPatch``)."""
    def meta(value: Any) -> dict[str, Any]:
        return {key: plain(item) for key, item in mapping(value).items()
                if key in ("labels", "annotations") and isinstance(item, Mapping)}

    def containers(value: Any) -> list[Any]:
        return [{key: plain(item) for key, item in entry.items() if key in CONTAINER_PATCH_FIELDS}
                for entry in seq(value) if isinstance(entry, Mapping)]

    fields = POD_PATCH_FIELDS + (("terminationGracePeriodSeconds",) if version == "2.3" else ())
    pod = mapping(mapping(mapping(template.get("spec")).get("template")))
    pod_spec: dict[str, Any] = {}
    for key, value in mapping(pod.get("spec")).items():
        if key in ("containers", "initContainers") and isinstance(value, list):
            pod_spec[key] = containers(value)
        elif key in fields:
            pod_spec[key] = plain(value)
    result: dict[str, Any] = {}
    if isinstance(template.get("metadata"), Mapping):
        result["metadata"] = meta(template["metadata"])
    if isinstance(template.get("spec"), Mapping):
        inner: dict[str, Any] = {}
        if isinstance(pod.get("metadata"), Mapping):
            inner["metadata"] = meta(pod["metadata"])
        if isinstance(pod.get("spec"), Mapping):
            inner["spec"] = pod_spec
        result["spec"] = {"template": inner} if pod else {}
    return result


def _patch(build: Build, spec: Mapping[str, Any], jobset_spec: dict[str, Any],
           labels: dict[str, str], annotations: dict[str, str]) -> None:
    """Merge ``spec.runtimePatches`` (in order) into the runtime's JobSet template."""
    ignored: list[str] = []
    for patch in seq(spec.get("runtimePatches")):
        template = mapping(mapping(mapping(patch).get("trainingRuntimeSpec")).get("template"))
        metadata = mapping(template.get("metadata"))
        if metadata:
            labels.update({str(k): str(v) for k, v in mapping(metadata.get("labels")).items()})
            annotations.update(
                {str(k): str(v) for k, v in mapping(metadata.get("annotations")).items()})
            build.cite("patch_metadata")
        job_patches = [item for item in seq(mapping(template.get("spec")).get("replicatedJobs"))
                       if isinstance(item, Mapping) and isinstance(item.get("name"), str)]
        if build.version == "2.2":
            for item in job_patches:
                if not isinstance(item.get("template"), Mapping):
                    continue
                targets = [job for job in build.jobs if job.get("name") == item["name"]]
                if not targets:
                    ignored.append(item["name"])
                for job in targets:
                    job["template"] = strategic_merge(
                        job.get("template"), _pruned_job_template(item["template"], "2.2"),
                        POD_MERGE_KEYS)
            if job_patches:
                build.cite("patch_per_job", "patch_fields")
        elif job_patches:
            order = {job["name"]: index for index, job in enumerate(build.jobs)}
            pruned = {"replicatedJobs": [
                {"name": item["name"], **({"template": _pruned_job_template(item["template"],
                                                                             "2.3")}
                                          if isinstance(item.get("template"), Mapping) else {})}
                for item in job_patches]}
            merged = strategic_merge({"replicatedJobs": build.jobs}, pruned, JOBSET_MERGE_KEYS)
            jobs = [job for job in seq(merged.get("replicatedJobs")) if isinstance(job, dict)]
            jobs.sort(key=lambda job: order.get(job.get("name"), 0))
            build.jobs[:] = jobs
            build.counts[:] = [1] * len(jobs)
            build.cite("patch_jobset_spec", "patch_order", "patch_fields")
    if ignored:
        build.notes.append(f"runtimePatches for replicated jobs the runtime lacks are not applied "
                           f"(v2.2): {sorted(set(ignored))}")
    jobset_spec["replicatedJobs"] = build.jobs


def _count(build: Build) -> None:
    """Each job's starting pod count: its parallelism, or the runtime's mlPolicy.numNodes for
    the trainer-step job; at least 1."""
    for index, job in enumerate(build.jobs):
        count = integer(mapping(mapping(job.get("template")).get("spec")).get("parallelism"))
        if build.ancestor(index) == TRAINER and build.ml_policy is not None:
            count = integer(build.ml_policy.get("numNodes"))
            build.cite("count_trainer_mlpolicy")
        build.counts[index] = max(count if count is not None else 1, 1)
    build.cite("count_parallelism", "count_min_one")


def _refused_resources(build: Build) -> None:
    """A container whose request of a resource exceeds its limit (after resourcesPerNode was
    applied) is refused by the API server: the Job controller creates none of its job's pods, and
    the TrainJob never runs."""
    for job in build.jobs:
        pod = mapping(mapping(mapping(job.get("template")).get("spec")).get("template"))
        for kind in ("initContainers", "containers"):
            for item in seq(mapping(pod.get("spec")).get(kind)):
                resources = mapping(mapping(item).get("resources"))
                limits, requests = mapping(resources.get("limits")), mapping(
                    resources.get("requests"))
                for key, value in requests.items():
                    asked, cap = quantity(value), quantity(limits.get(key))
                    if asked is not None and cap is not None and asked > cap:
                        build.cite("k_requests_limits")
                        raise BuildError(
                            f"job {job.get('name')}: container {mapping(item).get('name')} "
                            f"requests {key} {value} above its limit {limits.get(key)}: the API "
                            "server refuses the pods, none runs")


def _resources(build: Build) -> None:
    """``trainer.resourcesPerNode`` into the ``node`` container of the trainer-step job (and of
    the job named node when the MPI launcher runs as a node): replaced in v2.2 (by the
    runtime framework, then by the JobSet builder), merged key by key in v2.3."""
    given = build.trainer_field("resourcesPerNode")
    if not isinstance(given, Mapping):
        return
    mpi = mapping(mapping(build.ml_policy).get("mpi"))
    as_node = mpi.get("runLauncherAsNode") is True
    for index, job in enumerate(build.jobs):
        is_trainer = build.ancestor(index) == TRAINER
        node = build.node_container(index)
        if node is None:
            continue
        if build.version == "2.2":
            # trainingruntime.go replaces the typed copy only (it sizes PodGroups); the JobSet
            # gets the builder's replacement, made only when limits or requests are set
            if is_trainer and build.ml_policy is not None:
                build.cite("resources_replace_info")
            if (is_trainer or (as_node and job.get("name") == NODE)) and (
                    given.get("limits") is not None or given.get("requests") is not None):
                node["resources"] = {key: plain(given[key]) for key in ("limits", "requests")
                                     if given.get(key) is not None}
                build.cite("resources_replace_builder")
        elif (is_trainer and build.ml_policy is not None) or (
                mapping(build.ml_policy).get("mpi") is not None and as_node
                and job.get("name") == NODE):
            base = mapping(node.get("resources"))
            merged = plain(base)
            for key in ("limits", "requests", "claims"):
                if key in given:
                    merged[key] = strategic_merge(base.get(key), given[key],
                                                  {"claims": "name"})
                    if merged[key] is None:
                        del merged[key]
            node["resources"] = merged
            build.cite("resources_merge", "resources_merge_targets")


def _pod_groups(build: Build, group_policy: Mapping[str, Any],
                annotations: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """Coscheduling / Volcano: the pod labels or annotations and the PodGroup."""
    labels: dict[str, str] = {}
    pod_annotations: dict[str, str] = {}
    members = sum(build.counts)
    coscheduling = group_policy.get("coscheduling")
    volcano = group_policy.get("volcano")
    if isinstance(coscheduling, Mapping):
        labels[COSCHEDULING_LABEL] = build.name
        timeout = integer(coscheduling.get("scheduleTimeoutSeconds"))
        build.extras["podGroup"] = {"kind": "scheduler-plugins", "name": build.name,
                                    "minMember": members,
                                    "scheduleTimeoutSeconds": 60 if timeout is None else timeout}
        build.cite("cosched_label", "cosched_pg", "cosched_timeout")
    elif isinstance(volcano, Mapping):
        pod_annotations[VOLCANO_ANNOTATION] = build.name
        group: dict[str, Any] = {"kind": "volcano", "name": build.name, "minMember": members}
        if VOLCANO_QUEUE in annotations:
            group["queue"] = annotations[VOLCANO_QUEUE]
        priority = [text(build.pod_spec(i).get("priorityClassName"))
                    for i in range(len(build.jobs))]
        if any(priority):
            group["priorityClassName"] = [p for p in priority if p][-1]
        if isinstance(volcano.get("networkTopology"), Mapping):
            group["networkTopology"] = plain(volcano["networkTopology"])
        build.extras["podGroup"] = group
        build.cite("volcano_annotation", "volcano_pg", "volcano_queue")
    if "podGroup" in build.extras:
        build.notes.append("Trainer sets no schedulerName for a PodGroup policy: pods keep the "
                           "runtime template's (the default scheduler when unset)")
    return labels, pod_annotations


def _endpoints(build: Build, subdomain: str) -> list[list[str]]:
    """``IdentifyPodNetwork``: each job's endpoints (v2.2: the first replica's only)."""
    result: list[list[str]] = []
    for index, job in enumerate(build.jobs):
        replicas = integer(job.get("replicas"))
        replicas = 1 if replicas is None or build.version == "2.2" else replicas
        result.append([f"{build.name}-{job['name']}-{replica}-{pod}.{subdomain}"
                       for replica in range(replicas) for pod in range(build.counts[index])])
    build.cite("endpoints_first_replica" if build.version == "2.2" else "endpoints",
               "endpoints_subdomain")
    return result


def _builder(build: Build, spec: Mapping[str, Any], pod_labels: Mapping[str, str],
             pod_annotations: Mapping[str, str]) -> None:
    """The JobSet builder: initializers, the trainer's image/command/args/env, scheduler pod
    labels and annotations."""
    initializer = mapping(spec.get("initializer"))
    for index, job in enumerate(build.jobs):
        ancestor = build.ancestor(index)
        for step, key in (("dataset-initializer", "dataset"), ("model-initializer", "model")):
            if ancestor != step:
                continue
            job["replicas"] = 1
            source = initializer.get(key)
            target = container(build.pod_spec(index), step)
            if target is None or not isinstance(source, Mapping):
                continue
            if isinstance(source.get("storageUri"), str):
                upsert_env(target, [{"name": "STORAGE_URI", "value": source["storageUri"]}])
            upsert_env(target, seq(source.get("env")))
            secret = text(mapping(source.get("secretRef")).get("name"))
            if secret is not None:
                target.setdefault("envFrom", []).append({"secretRef": {"name": secret}})
            build.cite("builder_init")
        as_node = mapping(mapping(build.ml_policy).get("mpi")).get("runLauncherAsNode") is True
        node = build.node_container(index)
        if ancestor == TRAINER:
            job["replicas"] = 1
            build.cite("builder_replicas")
            if node is not None and build.trainer is not None:
                if text(build.trainer.get("image")) is not None:
                    node["image"] = build.trainer["image"]
                for field_name in ("command", "args"):
                    if strings(build.trainer.get(field_name)) is not None:
                        node[field_name] = list(build.trainer[field_name])
                build.cite("builder_image")
        if (ancestor == TRAINER or (as_node and job.get("name") == NODE)) and (
                node is not None and build.trainer is not None):
            upsert_env(node, seq(build.trainer.get("env")))
            build.cite("builder_env")
        metadata = child(child(child(child(job, "template"), "spec"), "template"), "metadata")
        if pod_labels:
            child(metadata, "labels").update(pod_labels)
            build.cite("builder_pod_labels")
        if pod_annotations:
            child(metadata, "annotations").update(pod_annotations)


def _identity(build: Build, index: int, ordinal: int) -> str:
    name = str(build.jobs[index]["name"])
    if mapping(build.ml_policy).get("mpi") is not None and name in (NODE, LAUNCHER):
        return f"{name}-{ordinal}"
    if build.ancestor(index) == TRAINER:
        return f"{NODE}-{ordinal}"
    if name.lower() in ROLE_JOBS:
        return f"{name.lower()}-{ordinal}"
    return f"init:{name}-{ordinal}"


def _jobset(build: Build, spec: Mapping[str, Any], jobset_spec: dict[str, Any],
            labels: Mapping[str, str], annotations: Mapping[str, str]) -> World:
    """The JobSet as the webhook defaults it, its Jobs and their pods."""
    success = jobset_spec.get("successPolicy")
    if not isinstance(success, Mapping):
        success = {"operator": "All"}
    network = dict(mapping(jobset_spec.get("network")))
    network.setdefault("enableDNSHostnames", True)
    network.setdefault("publishNotReadyAddresses", True)
    dns = network.get("enableDNSHostnames") is not False
    subdomain = text(network.get("subdomain")) or build.name
    suspend = spec.get("suspend") is True
    build.cite("js_success_default", "js_indexed", "js_restart_policy", "js_dns", "js_publish",
               "js_subdomain", "js_jobs", "js_labels", "builder_suspend", "parallelism",
               "podset_env", "k_backoff", "k_hostname", "k_restart_policies")
    if suspend:
        build.cite("js_suspend")
    jobs_extra: list[dict[str, Any]] = []
    pods: list[Pod] = []
    for index, job in enumerate(build.jobs):
        name = str(job["name"])
        job_spec = mapping(mapping(job.get("template")).get("spec"))
        pod_template = mapping(job_spec.get("template"))
        replicas = integer(job.get("replicas"))
        replicas = 1 if replicas is None else max(replicas, 0)
        count = build.counts[index]
        completion_mode = text(job_spec.get("completionMode")) or "Indexed"
        backoff = integer(job_spec.get("backoffLimit"))
        per_index = integer(job_spec.get("backoffLimitPerIndex"))
        if backoff is None:
            backoff = 2**31 - 1 if per_index is not None else DEFAULT_BACKOFF_LIMIT
        pod_spec: dict[str, Any] = plain(mapping(pod_template.get("spec")))
        restart = text(pod_spec.get("restartPolicy")) or "OnFailure"
        pod_spec["restartPolicy"] = restart
        jobs_extra.append({
            "name": name, "ancestor": build.ancestor(index), "replicas": replicas,
            "parallelism": count, "completions": count, "completionMode": completion_mode,
            "backoffLimit": backoff, "backoffLimitPerIndex": per_index,
            "maxFailedIndexes": integer(job_spec.get("maxFailedIndexes")),
            "podFailurePolicy": plain(job_spec.get("podFailurePolicy")),
            "successPolicy": plain(job_spec.get("successPolicy")),
            "activeDeadlineSeconds": integer(job_spec.get("activeDeadlineSeconds")),
            "restartPolicy": restart, "dependsOn": plain(seq(job.get("dependsOn"))),
            "schedulerName": text(pod_spec.get("schedulerName")),
            # the Pod value has no annotations: the pod template's (scheduler ones included)
            "podAnnotations": {str(k): str(v) for k, v in mapping(
                mapping(pod_template.get("metadata")).get("annotations")).items()},
        })
        template_labels = {str(k): str(v)
                           for k, v in mapping(mapping(pod_template.get("metadata"))
                                               .get("labels")).items()}
        for job_index in range(replicas):
            for pod_index in range(count):
                ordinal = job_index * count + pod_index
                hostname = f"{build.name}-{name}-{job_index}-{pod_index}"
                this_spec = plain(pod_spec)
                if completion_mode == "Indexed":
                    this_spec["hostname"] = hostname
                if dns:
                    this_spec["subdomain"] = subdomain
                pod_labels = {**template_labels,
                              "jobset.sigs.k8s.io/jobset-name": build.name,
                              "jobset.sigs.k8s.io/replicatedjob-name": name,
                              "jobset.sigs.k8s.io/replicatedjob-replicas": str(replicas),
                              "jobset.sigs.k8s.io/job-index": str(job_index),
                              "jobset.sigs.k8s.io/restart-attempt": "0"}
                pods.append(Pod(
                    identity=_identity(build, index, ordinal), group=name, index=ordinal,
                    hostname=f"{hostname}.{subdomain}" if dns and completion_mode == "Indexed"
                    else "",
                    labels=pod_labels, spec=this_spec))
    for info in jobs_extra:
        if info["activeDeadlineSeconds"] is not None:
            build.notes.append(f"job {info['name']}: activeDeadlineSeconds is not modelled")
    if mapping(jobset_spec.get("startupPolicy")).get("startupPolicyOrder") == "InOrder":
        build.notes.append("startupPolicy InOrder (jobs start one after another once ready) is "
                           "not modelled")
    extras: dict[str, Any] = {
        "created": True,
        "jobset": {"name": build.name, "suspend": suspend, "labels": dict(labels),
                   "annotations": dict(annotations), "successPolicy": plain(success),
                   "failurePolicy": plain(jobset_spec.get("failurePolicy")),
                   "network": {**plain(network), "subdomain": subdomain}},
        "jobs": jobs_extra,
        "notes": list(build.notes),
        **build.extras,
    }
    return World(side="trainer", controller=CONTROLLER[build.version],
                 pods=tuple(sorted(pods, key=lambda pod: _sort_key(pod.identity))),
                 extras=extras, citations=tuple(sorted(build.citations)))


def _sort_key(identity: str) -> tuple[str, int]:
    stem, _, number = identity.rpartition("-")
    return (stem, int(number)) if number.isdigit() else (identity, -1)
