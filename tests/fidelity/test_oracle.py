"""Generated legacy jobs of every kind (the simulator's verdict, the shared-runtime catalog and
the written objects run them), and the oracle's own cases.

The verdict itself, that every simulated difference between the legacy pods and outcomes and
those of a conversion is named by a finding of the document, runs over every fixture, the
corpus and these generated jobs in ``tests/simulate/test_property.py``.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from migrator import convert_text
from migrator.simulate import run

YAML_DUMP = YAML(typ="safe", pure=True)


# --- generated jobs ------------------------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "data", "cache"])
IMAGES = st.sampled_from(["img:1", "img:2"])
ENV = st.lists(st.fixed_dictionaries({"name": st.sampled_from(
    ["A", "B", "MASTER_ADDR", "PET_NNODES", "RANK", "K_MPI_JOB_ROLE", "PYTHONUNBUFFERED"]),
    "value": st.sampled_from(["1", "x", "$(RANK)", 4, True])}), max_size=3,
    unique_by=lambda e: e["name"])
RESOURCES = st.one_of(st.none(), st.fixed_dictionaries({}, optional={
    "limits": st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]),
                              st.sampled_from([1, 2, "500m", "1Gi"]), max_size=2),
    "requests": st.dictionaries(st.sampled_from(["cpu", "memory"]),
                                st.sampled_from([1, "250m", "1Gi"]), max_size=2)}))
COMMANDS = st.one_of(st.none(), st.sampled_from([["torchrun", "t.py"], ["python", "t.py"],
                                                 ["mpirun", "-n", "2", "/pi"], ["sh", "-c", "x"]]))


@st.composite
def containers(draw: st.DrawFn, main: str) -> dict[str, Any]:
    out: dict[str, Any] = {"name": main, "image": draw(IMAGES)}
    command = draw(COMMANDS)
    if command is not None:
        out["command"] = command
    if draw(st.booleans()):
        out["args"] = draw(st.sampled_from([["--epochs=1"], ["-v"]]))
    env = draw(ENV)
    if env:
        out["env"] = env
    resources = draw(RESOURCES)
    if resources:
        out["resources"] = resources
    for key, values in (("imagePullPolicy", ["Always", "IfNotPresent"]),
                        ("workingDir", ["/app"])):
        if draw(st.integers(0, 4)) == 0:
            out[key] = draw(st.sampled_from(values))
    if draw(st.integers(0, 3)) == 0:
        out["ports"] = [{"containerPort": draw(st.sampled_from([23456, 8080]))}]
    if draw(st.integers(0, 3)) == 0:
        out["volumeMounts"] = [{"name": draw(NAMES), "mountPath": "/mnt"}]
    return out


@st.composite
def templates(draw: st.DrawFn, main: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [draw(containers(main))]}
    if draw(st.integers(0, 4)) == 0:
        spec["containers"].append({"name": "sidecar", "image": "envoy:1"})
    if draw(st.integers(0, 4)) == 0:
        spec["initContainers"] = [{"name": "init", "image": "busybox:1"}]
    for key, values in (("nodeSelector", [{"pool": "gpu"}]), ("priorityClassName", ["high"]),
                        ("hostNetwork", [True]), ("restartPolicy", ["Never"]),
                        ("tolerations", [[{"key": "gpu", "operator": "Exists"}]]),
                        ("volumes", [[{"name": "data", "emptyDir": {}}]]),
                        ("serviceAccountName", ["sa"])):
        if draw(st.integers(0, 4)) == 0:
            spec[key] = draw(st.sampled_from(values))
    template: dict[str, Any] = {"spec": spec}
    if draw(st.integers(0, 6)) == 0:
        template.update({"apiVersion": "v1", "kind": "PodTemplate"})
    if draw(st.integers(0, 3)) == 0:
        template["metadata"] = {"labels": {"team": draw(st.sampled_from(["a", "b"]))}}
    return template


POLICIES = st.sampled_from([None, "OnFailure", "Never", "ExitCode", "Always"])

KINDS = {
    # kind: (apiVersion, replica field, main container, roles)
    "PyTorchJob": ("kubeflow.org/v1", "pytorchReplicaSpecs", "pytorch", ("Master", "Worker")),
    "XGBoostJob": ("kubeflow.org/v1", "xgbReplicaSpecs", "xgboost", ("Master", "Worker")),
    "JAXJob": ("kubeflow.org/v1", "jaxReplicaSpecs", "jax", ("Worker",)),
    # every replica type of training-operator v1.9.2: tensorflow_types.go:101-122 at
    # kubeflow/trainer@v1.9.2 (Chief and Master are aliases, at most one: tfjob_webhook.go:123),
    # paddlepaddle_types.go:40-43 (Master makes it parameter-server mode: envvar.go:77)
    "TFJob": ("kubeflow.org/v1", "tfReplicaSpecs", "tensorflow",
              ("Chief", "Master", "PS", "Worker", "Evaluator")),
    "PaddleJob": ("kubeflow.org/v1", "paddleReplicaSpecs", "paddle", ("Master", "Worker")),
    "MPIJob-v1": ("kubeflow.org/v1", "mpiReplicaSpecs", "mpi", ("Launcher", "Worker")),
    "MPIJob": ("kubeflow.org/v2beta1", "mpiReplicaSpecs", "mpi", ("Launcher", "Worker")),
}


@st.composite
def jobs(draw: st.DrawFn, kind: str) -> str:
    api, field, main, roles = KINDS[kind]
    specs: dict[str, Any] = {}
    shared = draw(templates(main))
    for role in roles:
        if role == "Master" and "Chief" in specs:
            continue  # aliases: at most one of them
        if role in ("PS", "Evaluator") or (kind == "PaddleJob" and role == "Master"):
            # a rarer role (a quarter of the jobs): one evaluator, up to two servers
            if draw(st.integers(0, 3)) > 0:
                continue
            replicas = 1 if role == "Evaluator" else draw(st.integers(1, 2))
        elif role in ("Master", "Chief", "Launcher"):
            replicas = 1
            if kind in ("XGBoostJob",) or role == "Launcher" or draw(st.booleans()):
                pass
            else:
                continue
        elif role == "Worker" and specs and kind in ("TFJob", "PaddleJob") and draw(
                st.integers(0, 4)) == 0:
            continue  # a TFJob or PaddleJob without workers (a Chief alone, servers alone)
        else:
            replicas = draw(st.integers(1, 3))
        same = draw(st.integers(0, 2)) > 0
        replica: dict[str, Any] = {"replicas": replicas,
                                   "template": shared if same else draw(templates(main))}
        policy = draw(POLICIES)
        if policy is not None and (not kind.startswith("MPIJob") or kind == "MPIJob-v1"
                                   or policy in ("Never", "OnFailure")):
            replica["restartPolicy"] = policy
        specs[role] = replica
    job: dict[str, Any] = {"apiVersion": api, "kind": kind.split("-")[0],
                           "metadata": {"name": "gen", "namespace": "ns"},
                           "spec": {field: specs}}
    if kind.startswith("MPIJob"):
        job["spec"]["slotsPerWorker"] = draw(st.integers(1, 4))
        if kind == "MPIJob" and draw(st.booleans()):
            job["spec"]["runLauncherAsWorker"] = True
    if draw(st.integers(0, 3)) == 0:
        job["spec"]["runPolicy"] = draw(st.sampled_from([
            {"backoffLimit": 3}, {"ttlSecondsAfterFinished": 60},
            {"cleanPodPolicy": "All"}, {"suspend": True}]))
    return json.dumps(job)  # JSON is YAML


# A tenth of the profile's examples per kind and mode: 6 (dev), 15 (ci), 2,000 (fuzz). Each
# (kind, mode) is its own hypothesis test, so ``--hypothesis-show-statistics`` prints the count
# that ran for each; the target is drawn.
EXAMPLES = max(6, settings().max_examples // 10)  # settings(): the loaded profile's


def _unnamed(text: str, **options: Any) -> list[str]:
    result = convert_text(text, allow_lossy=True, **options)
    return [str(d) for judged in run.judge(text, result, "2.2") for d in judged.unnamed]


def test_the_oracle_catches_a_lost_mpi_worker_command() -> None:
    """Had the companion runtime's workers no command (defect 1), the simulator's verdict would
    fail: mpi-operator's workers ran sshd, a worker without a command runs its image's."""
    from tests.fidelity.test_defects import MPI_V2

    (doc,) = convert_text(MPI_V2, companion_runtimes=True).documents
    objects = list(YAML_DUMP.load_all(doc.text))
    runtime = next(o for o in objects if o["kind"] == "TrainingRuntime")
    node = next(j for j in runtime["spec"]["template"]["spec"]["replicatedJobs"]
                if j["name"] == "node")
    del node["template"]["spec"]["template"]["spec"]["containers"][0]["command"]  # the defect
    legacy = YAML_DUMP.load(MPI_V2)
    simulation = run.simulate(legacy, objects, "2.2")
    from migrator.simulate import attribute

    findings = [f for f in doc.findings if f.code != "F524"]
    unnamed = [d for d, codes in attribute.attribute(simulation.differences, findings, legacy,
                                                     simulation.legacy) if not codes]
    assert {(d.identity, d.path) for d in unnamed} == {
        ("node-0", "containers[node].command"), ("node-1", "containers[node].command")}


def test_empty_resources_are_no_difference() -> None:
    """Found by the fuzz profile: ``resources: {limits: {}}`` on one role requests nothing."""
    job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
           "metadata": {"name": "gen", "namespace": "ns"}, "spec": {"pytorchReplicaSpecs": {
               "Master": {"replicas": 1, "template": {"spec": {"containers": [
                   {"name": "pytorch", "image": "img:1", "resources": {"limits": {}}}]}}},
               "Worker": {"replicas": 2, "template": {"spec": {"containers": [
                   {"name": "pytorch", "image": "img:1"}]}}}}}}
    for options in ({}, {"companion_runtimes": True}):
        assert not _unnamed(json.dumps(job), **options)
