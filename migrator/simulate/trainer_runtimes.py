"""SIMULATE: the ClusterTrainingRuntimes Trainer v2.2.0 and v2.3.0 install, as plain objects.

Transcribed from ``kubeflow/trainer`` ``manifests/base/runtimes/`` at each tag (the tests compare
every object here with the manifests in ``../shared/runtimes/trainer-v<X.Y>.0`` when present).
The simulator reads its own copy rather than the converter's catalog, so that it does not share
the converter's beliefs about what the runtimes contain. The torchtune runtimes
(``torchtune-llama3.2-1b``, ``torchtune-llama3.2-3b``, ``torchtune-qwen2.5-1.5b``) are not
transcribed: their trainer command is rewritten by the torch plugin's torchtune path, which the
simulator does not model (``default_runtime`` returns None for them).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"

_TORCH_IMAGE = {"2.2": "pytorch/pytorch:2.10.0-cuda12.8-cudnn9-runtime",
                "2.3": "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"}
_XGBOOST_IMAGE = {"2.2": "ghcr.io/kubeflow/trainer/xgboost-runtime:latest",
                  "2.3": "ghcr.io/kubeflow/trainer/xgboost-runtime"}
_JAX_IMAGE = "nvcr.io/nvidia/jax:25.10-py3"
_JOBSET_NAME_ENV = {"name": "TRAIN_JOB_NAME", "valueFrom": {"fieldRef": {
    "apiVersion": "v1", "fieldPath": "metadata.labels['jobset.sigs.k8s.io/jobset-name']"}}}


def _runtime(name: str, framework: str, ml_policy: dict[str, Any], template_spec: dict[str, Any],
             labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "ClusterTrainingRuntime",
        "metadata": {"name": name,
                     "labels": {"trainer.kubeflow.org/framework": framework, **(labels or {})}},
        "spec": {"mlPolicy": ml_policy, "template": {"spec": template_spec}},
    }


def _job(name: str, pod_spec: dict[str, Any], ancestor: str | None = None,
         **extra: Any) -> dict[str, Any]:
    template: dict[str, Any] = {"spec": {"template": {"spec": pod_spec}}}
    if ancestor is not None:
        template = {"metadata": {"labels": {ANCESTOR: ancestor}}, **template}
    return {"name": name, **extra, "template": template}


def _single_node(name: str, framework: str, policy: str, image: str) -> dict[str, Any]:
    return _runtime(name, framework, {"numNodes": 1, policy: {}}, {"replicatedJobs": [
        _job("node", {"containers": [{"name": "node", "image": image}]}, ancestor="trainer")]})


def _torch(version: str) -> dict[str, Any]:
    return _single_node("torch-distributed", "torch", "torch", _TORCH_IMAGE[version])


def _jax(version: str) -> dict[str, Any]:
    return _single_node("jax-distributed", "jax", "jax", _JAX_IMAGE)


def _xgboost(version: str) -> dict[str, Any]:
    return _single_node("xgboost-distributed", "xgboost", "xgboost", _XGBOOST_IMAGE[version])


def _torch_with_cache(version: str) -> dict[str, Any]:
    cache = {"name": "CACHE_IMAGE", "value": f"ghcr.io/kubeflow/trainer/data-cache:v{version}.0"}
    initializer = _job("dataset-initializer", {
        "serviceAccountName": "kubeflow-trainer-cache-initializer",
        "containers": [{"name": "dataset-initializer",
                        "image": "ghcr.io/kubeflow/trainer/dataset-initializer",
                        "env": [cache, copy.deepcopy(_JOBSET_NAME_ENV)]}]},
        ancestor="dataset-initializer", replicas=1)
    # the manifest writes `replicas` before `template`; _job puts extras first, as there
    node = _job("node", {"containers": [{"name": "node", "image": _TORCH_IMAGE[version],
                                         "env": [copy.deepcopy(_JOBSET_NAME_ENV)]}]},
                ancestor="trainer", dependsOn=[{"name": "dataset-initializer",
                                                "status": "Complete"}])
    labels = {"trainer.kubeflow.org/webhook-validation": "disabled"} if version == "2.3" else None
    return _runtime("torch-distributed-with-cache", "torch", {"numNodes": 1, "torch": {}},
                    {"replicatedJobs": [initializer, node]}, labels)


def _mpi(name: str, framework: str, image: str, version: str) -> dict[str, Any]:
    user = {"runAsUser": 1000}
    worker: dict[str, Any] = {"containers": [{
        "name": "node", "image": image, "securityContext": dict(user),
        "command": ["/usr/sbin/sshd"], "args": ["-De", "-f", "/home/mpiuser/.sshd_config"],
        "readinessProbe": {"tcpSocket": {"port": 2222}, "initialDelaySeconds": 5}}]}
    launcher: dict[str, Any] = {"containers": [{"name": "node", "image": image,
                                                "securityContext": dict(user)}]}
    if version == "2.3":
        worker = {"securityContext": {"fsGroup": 1000}, **worker}
        launcher = {"securityContext": {"fsGroup": 1000}, **launcher}
        jobs = [_job("node", worker),
                _job("launcher", launcher, ancestor="trainer",
                     dependsOn=[{"name": "node", "status": "Ready"}])]
    else:
        jobs = [_job("launcher", launcher, ancestor="trainer"), _job("node", worker)]
    policy = {"numNodes": 1, "mpi": {"numProcPerNode": 1, "mpiImplementation": "OpenMPI",
                                     "sshAuthMountPath": "/home/mpiuser/.ssh",
                                     "runLauncherAsNode": True}}
    return _runtime(name, framework, policy, {
        "network": {"publishNotReadyAddresses": True},
        "successPolicy": {"operator": "All", "targetReplicatedJobs": ["launcher"]},
        "replicatedJobs": jobs})


def _deepspeed(version: str) -> dict[str, Any]:
    return _mpi("deepspeed-distributed", "deepspeed", "ghcr.io/kubeflow/trainer/deepspeed-runtime",
                version)


def _mlx(version: str) -> dict[str, Any]:
    return _mpi("mlx-distributed", "mlx", "ghcr.io/kubeflow/trainer/mlx-runtime", version)


RUNTIMES: dict[str, Callable[[str], dict[str, Any]]] = {
    "torch-distributed": _torch,
    "torch-distributed-with-cache": _torch_with_cache,
    "deepspeed-distributed": _deepspeed,
    "mlx-distributed": _mlx,
    "jax-distributed": _jax,
    "xgboost-distributed": _xgboost,
}
"""Runtime name -> its object at a release ("2.2" or "2.3")."""

MANIFESTS: dict[str, str] = {
    "torch-distributed": "torch_distributed.yaml",
    "torch-distributed-with-cache": "torch_distributed_with_cache.yaml",
    "deepspeed-distributed": "deepspeed_distributed.yaml",
    "mlx-distributed": "mlx_distributed.yaml",
    "jax-distributed": "jax_distributed.yaml",
    "xgboost-distributed": "xgboost_distributed.yaml",
}
"""Runtime name -> the manifest file it is transcribed from (for the tests)."""
