"""SIMULATE: Trainer's ML-policy plugins (torch, MPI, JAX, XGBoost, plain ML) over plain data.

Each ``enforce_*`` function is one plugin's ``EnforceMLPolicy`` at Trainer v2.2.0 / v2.3.0: it
changes the pod counts and the pod templates of a ``Build`` (the replicated jobs of the JobSet
being built) and records the citations of the rules it applied. Plugins write to Trainer's
``runtime.Info`` pod sets, which the JobSet plugin's ``Build`` upserts into the JobSet
(``podset_env``); writing the templates directly has the same effect.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from migrator.simulate.model import Citation
from migrator.simulate.trainer_sources import cite
from migrator.simulate.trainer_values import (
    ceil_value,
    child,
    container,
    integer,
    mapping,
    plain,
    seq,
    strings,
    text,
    upsert_env,
    upsert_mount,
    upsert_port,
    upsert_volume,
)

ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
TRAINER = "trainer"
NODE = "node"
LAUNCHER = "launcher"
PORT = 29500
COMPLETION_INDEX = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
TORCHTUNE = ["tune", "run"]


class BuildError(Exception):
    """The controller's reconcile fails: no JobSet is created (the message says why)."""


@dataclass
class Build:
    """The JobSet being built: the TrainJob's name and ``spec.trainer``, the runtime's ML policy,
    the replicated jobs (plain dicts, in order) with each one's pod count, and what was cited."""

    version: str
    name: str
    trainer: Mapping[str, Any] | None
    ml_policy: Mapping[str, Any] | None
    jobs: list[dict[str, Any]]
    counts: list[int]
    citations: list[Citation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)

    def cite(self, *keys: str) -> None:
        """Record the rules ``keys`` at this build's release."""
        for key in keys:
            found = cite(key, self.version)
            if found is not None and found not in self.citations:
                self.citations.append(found)

    def ancestor(self, index: int) -> str | None:
        """The trainjob-ancestor-step label of job ``index``."""
        labels = mapping(mapping(self.jobs[index].get("template")).get("metadata")).get("labels")
        return text(mapping(labels).get(ANCESTOR_LABEL))

    def trainer_index(self) -> int | None:
        """``FindPodSetByAncestor(trainer)``: the first job labelled as the trainer step."""
        return next((i for i in range(len(self.jobs)) if self.ancestor(i) == TRAINER), None)

    def named(self, name: str) -> int | None:
        """``FindPodSetByName``: the first job of that name."""
        return next((i for i, job in enumerate(self.jobs) if job.get("name") == name), None)

    def pod_spec(self, index: int) -> dict[str, Any]:
        """Job ``index``'s pod template spec (created empty when missing)."""
        job_template = child(self.jobs[index], "template")
        return child(child(child(job_template, "spec"), "template"), "spec")

    def node_container(self, index: int | None) -> dict[str, Any] | None:
        """The container named ``node`` of job ``index``."""
        return None if index is None else container(self.pod_spec(index), NODE)

    def trainer_field(self, key: str) -> Any:
        return mapping(self.trainer).get(key)

    def num_nodes(self) -> int | None:
        """``spec.trainer.numNodes``."""
        return integer(self.trainer_field("numNodes"))

    def runtime_resources(self) -> Mapping[str, Any]:
        """``ExtractResourcePerNodeFromRuntime``: the resources of the ``node`` container of the
        first job named node or labelled as the trainer step that has resources."""
        for index, job in enumerate(self.jobs):
            if job.get("name") != NODE and self.ancestor(index) != TRAINER:
                continue
            found = container(self.pod_spec(index), NODE)
            if found is not None and isinstance(found.get("resources"), Mapping):
                return mapping(found["resources"])
        return {}

    def resources_per_node(self) -> Mapping[str, Any]:
        """``trainer.resourcesPerNode`` when set, else the runtime's node resources (the torch,
        MPI and XGBoost plugins decide process counts from these)."""
        given = self.trainer_field("resourcesPerNode")
        if isinstance(given, Mapping):
            return given
        return self.runtime_resources()


def gpus(resources: Mapping[str, Any]) -> int:
    """``GetNumGPUPerNode``: the first resource whose name contains "gpu" in requests, else in
    limits (rounded up)."""
    def first(resource_list: Mapping[str, Any]) -> int:
        for name, value in resource_list.items():
            if "gpu" in str(name).lower():
                return ceil_value(value)
        return 0
    found = first(mapping(resources.get("requests")))
    return found if found else first(mapping(resources.get("limits")))


def cpus(resources: Mapping[str, Any]) -> int:
    """``getNumCPUPerNode``: requests.cpu rounded up when non-zero, else limits.cpu, else 0."""
    requested = ceil_value(mapping(resources.get("requests")).get("cpu"))
    if requested:
        return requested
    return ceil_value(mapping(resources.get("limits")).get("cpu"))


def _index_env(name: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": COMPLETION_INDEX}}}


def enforce_torch(build: Build) -> None:
    """torch plugin: trainer.numNodes sizes the trainer job; PET_* env, master address and port
    29500 go to its ``node`` container (only when the TrainJob sets ``spec.trainer``)."""
    torch = mapping(mapping(build.ml_policy).get("torch"))
    trainer_at = build.trainer_index()
    nodes = build.num_nodes()
    if trainer_at is not None and nodes is not None:
        build.counts[trainer_at] = nodes
        build.cite("torch_numnodes")
    given = integer(build.trainer_field("numProcPerNode"))
    nproc = str(given) if given is not None else "auto"
    resources = build.resources_per_node()
    gpu = gpus(resources)
    build.cite("torch_nproc_auto", "torch_resources", "gpu_count")
    if nproc == "auto" and gpu == 0:
        nproc = str(max(1, cpus(resources)))
        build.cite("torch_nproc_cpu", "torch_cpu_count")
    count = build.counts[trainer_at] if trainer_at is not None else 1
    pet = [{"name": "PET_NNODES", "value": str(count)},
           {"name": "PET_NPROC_PER_NODE", "value": nproc},
           _index_env("PET_NODE_RANK")]
    master = [{"name": "PET_MASTER_ADDR", "value": f"{build.name}-{NODE}-0-0.{build.name}"},
              {"name": "PET_MASTER_PORT", "value": str(PORT)}]
    target = build.node_container(trainer_at) if build.trainer is not None else None
    if target is not None:
        upsert_env(target, seq(build.trainer_field("env")))
        upsert_env(target, pet)
        build.cite("torch_env_trainer", "torch_pet", "completion_index")
        if strings(build.trainer_field("command")) != TORCHTUNE:
            upsert_env(target, master)
            build.cite("torch_tune", "torch_master")
        else:
            build.notes.append("torchtune: the torch plugin appends recipe, config and "
                               "rendezvous arguments to `tune run`; not modelled")
        upsert_port(target, PORT)
        build.cite("torch_port", "trainer_port")
    injection = mapping(torch.get("envInjection"))
    if build.version == "2.3" and injection:
        for item in seq(injection.get("targets")):
            job_at = build.named(str(mapping(item).get("jobName")))
            for name in strings(mapping(item).get("containerNames")) or []:
                found = None if job_at is None else (
                    container(build.pod_spec(job_at), name)
                    or container(build.pod_spec(job_at), name, init=True))
                if found is None:
                    raise BuildError(f"envInjection target podSet {mapping(item).get('jobName')!r}"
                                     f" container {name!r} not found in runtime template")
                upsert_env(found, pet)
                upsert_env(found, master)
        build.cite("torch_env_injection")


def enforce_mpi(build: Build) -> None:
    """MPI plugin: trainer.numNodes sizes the job named ``node`` (one less with
    runLauncherAsNode; the trainer-step job keeps the runtime's mlPolicy.numNodes), slots, the
    ssh-auth and hostfile volumes and mounts, and the OpenMPI env on the launcher."""
    mpi = mapping(mapping(build.ml_policy).get("mpi"))
    slots = integer(mpi.get("numProcPerNode"))
    slots = 1 if slots is None else slots
    implementation = text(mpi.get("mpiImplementation")) or "OpenMPI"
    ssh_path = text(mpi.get("sshAuthMountPath")) or "/root/.ssh"
    as_node = mpi.get("runLauncherAsNode") is True
    build.cite("mpi_default_nproc", "mpi_default_impl", "mpi_default_ssh", "mpi_default_lan")
    node_at = build.named(NODE)
    nodes = build.num_nodes()
    if nodes is not None and node_at is not None:
        build.counts[node_at] = max(nodes - 1, 1) if as_node else nodes
        build.cite("mpi_node_count_lan" if as_node else "mpi_node_count")
    given = integer(build.trainer_field("numProcPerNode"))
    if given is not None:
        slots = given
        build.cite("mpi_nproc")
    elif slots == 1:
        gpu = gpus(build.resources_per_node())
        build.cite("mpi_nproc_gpu", "gpu_count")
        if gpu > 1:
            slots = gpu
    secret = f"{build.name}-mpi-ssh-auth"
    config_map = f"{build.name}-mpi-hostfile"
    key_mode = {"mode": 0o640} if build.version == "2.3" else {}
    public_mode = {"mode": 0o644} if build.version == "2.3" else {}
    ssh_volume: dict[str, Any] = {"name": "mpi-ssh-auth", "secret": {
        "secretName": secret,
        **({"defaultMode": 0o400} if build.version == "2.3" else {}),
        "items": [{"key": "ssh-privatekey", "path": "id_rsa", **key_mode},
                  {"key": "ssh-publickey", "path": "id_rsa.pub", **public_mode},
                  {"key": "ssh-publickey", "path": "authorized_keys", **public_mode}]}}
    hostfile_volume = {"name": "mpi-hostfile", "configMap": {
        "name": config_map, "items": [{"key": "hostfile", "path": "hostfile", "mode": 0o444}]}}
    for index, job in enumerate(build.jobs):
        if job.get("name") not in (NODE, LAUNCHER):
            continue
        pod_spec = build.pod_spec(index)
        upsert_volume(pod_spec, plain(ssh_volume))
        if job.get("name") == LAUNCHER:
            upsert_volume(pod_spec, plain(hostfile_volume))
        for item in seq(pod_spec.get("containers")):
            if not isinstance(item, dict) or item.get("name") != NODE:
                continue
            upsert_mount(item, "mpi-ssh-auth", ssh_path)
            if job.get("name") == LAUNCHER:
                upsert_mount(item, "mpi-hostfile", "/etc/mpi")
                if implementation != "OpenMPI":
                    build.cite("mpi_impl_error")
                    raise BuildError(f"MPI implementation for {implementation} doesn't supported")
                upsert_env(item, [
                    {"name": "OMPI_MCA_orte_default_hostfile", "value": "/etc/mpi/hostfile"},
                    {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "true"},
                    {"name": "OMPI_MCA_orte_set_default_slots", "value": str(slots)},
                    {"name": "OMPI_MCA_plm_rsh_args", "value": "-o ConnectionAttempts=10"}])
                build.cite("mpi_hostfile_mount", "mpi_env")
    build.cite("mpi_ssh_volume", "mpi_hostfile_volume", "mpi_ssh_mount")
    build.extras["mpi"] = {"slots": slots, "runLauncherAsNode": as_node,
                           "implementation": implementation, "sshAuthMountPath": ssh_path,
                           "sshAuthSecret": secret, "hostfileConfigMap": config_map}


def mpi_hostfile(build: Build, endpoints: list[list[str]]) -> str:
    """The hostfile ConfigMap's text: every endpoint of the ``node`` job (and of the launcher
    with runLauncherAsNode) with ``slots=``."""
    info = mapping(build.extras.get("mpi"))
    slots = integer(info.get("slots")) or 1
    as_node = info.get("runLauncherAsNode") is True
    lines: list[str] = []
    for index, job in enumerate(build.jobs):
        if job.get("name") == NODE or (as_node and job.get("name") == LAUNCHER):
            lines.extend(f"{endpoint} slots={slots}\n" for endpoint in endpoints[index])
    build.cite("mpi_hostfile", "mpi_hostfile_jobs")
    return "".join(lines)


def enforce_jax(build: Build) -> None:
    """JAX plugin: trainer.numNodes sizes the trainer job; JAX_* env and port 29500."""
    trainer_at = build.trainer_index()
    if trainer_at is None and build.version == "2.2":
        # v2.2.0 jax.go dereferences the missing pod set (`trainerPS.Count`): the reconcile panics
        build.cite("jax_numnodes")
        raise BuildError("JAX runtime without a trainer-step job: the JAX plugin dereferences "
                         "a nil pod set")
    nodes = build.num_nodes()
    if trainer_at is not None and nodes is not None:
        build.counts[trainer_at] = nodes
        build.cite("jax_numnodes")
    target = build.node_container(trainer_at) if build.trainer is not None else None
    if target is not None and trainer_at is not None:
        upsert_env(target, [
            {"name": "JAX_NUM_PROCESSES", "value": str(build.counts[trainer_at])},
            _index_env("JAX_PROCESS_ID"),
            {"name": "JAX_COORDINATOR_ADDRESS",
             "value": f"{build.name}-{NODE}-0-0.{build.name}:{PORT}"}])
        upsert_port(target, PORT)
        build.cite("jax_env", "completion_index", "trainer_port")


def enforce_xgboost(build: Build) -> None:
    """XGBoost plugin: trainer.numNodes sizes the trainer job; DMLC_* env (workers = nodes x GPUs
    per node, 1 per node without GPUs) and port 29500."""
    trainer_at = build.trainer_index()
    if trainer_at is None:
        return
    nodes = build.num_nodes()
    if nodes is not None:
        build.counts[trainer_at] = nodes
        build.cite("xgb_numnodes")
    target = build.node_container(trainer_at) if build.trainer is not None else None
    if target is None:
        return
    per_node = gpus(build.resources_per_node()) or 1
    upsert_env(target, [
        {"name": "DMLC_TRACKER_URI", "value": f"{build.name}-{NODE}-0-0.{build.name}"},
        {"name": "DMLC_TRACKER_PORT", "value": str(PORT)},
        _index_env("DMLC_TASK_ID"),
        {"name": "DMLC_NUM_WORKER", "value": str(build.counts[trainer_at] * per_node)}])
    upsert_port(target, PORT)
    build.cite("xgb_env", "xgb_workers", "gpu_count", "completion_index", "trainer_port")


def enforce_plain(build: Build) -> None:
    """Plain ML plugin (every policy but torch, MPI and JAX; XGBoost too): trainer.numNodes
    sizes the trainer job and trainer.env goes to its ``node`` container."""
    policy = mapping(build.ml_policy)
    if any(policy.get(key) is not None for key in ("torch", "mpi", "jax")):
        return
    build.cite("plain_skip")
    trainer_at = build.trainer_index()
    nodes = build.num_nodes()
    if trainer_at is not None and nodes is not None:
        build.counts[trainer_at] = nodes
        build.cite("plain_numnodes")
    target = build.node_container(trainer_at) if build.trainer is not None else None
    if target is not None:
        upsert_env(target, seq(build.trainer_field("env")))
