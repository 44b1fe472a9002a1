"""The Trainer side's world: what Trainer v2.2.0/v2.3.0 creates for a TrainJob and its runtime.

Expectations come from Trainer's own source and unit tests (each test names the upstream test it
mirrors, at the tag), never from this project's converter.
"""

from __future__ import annotations

from typing import Any

import pytest

from migrator.simulate.model import World
from migrator.simulate.trainer import default_runtime, world

VERSIONS = ("2.2", "2.3")
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"


def _trainjob(name: str = "test-job", **trainer: Any) -> dict[str, Any]:
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": name}, "spec": {"trainer": trainer}}


def _runtime(version: str, name: str) -> dict[str, Any]:
    found = default_runtime(name, version)
    assert found is not None
    return dict(found)


def _env(built: World, identity: str, container: str = "node") -> dict[str, Any]:
    pod = built.pod(identity)
    assert pod is not None, identity
    for item in pod.spec["containers"]:
        if item["name"] == container:
            return {e["name"]: e.get("value", e.get("valueFrom")) for e in item.get("env", [])}
    raise AssertionError(f"no container {container} in {identity}")


def _container(built: World, identity: str, name: str = "node") -> dict[str, Any]:
    pod = built.pod(identity)
    assert pod is not None, identity
    return next(c for c in pod.spec["containers"] if c["name"] == name)


# --- torch plugin: kubeflow/trainer pkg/runtime/framework/plugins/torch/torch_test.go -----------

@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("requests", "nproc", "expected"), [
    # TestTorch "nproc_per_node=auto with CPU limit" (v2.3.0 torch_test.go:145)
    ({"cpu": "4"}, None, "4"),
    # "nproc_per_node=auto with no CPU resources" (torch_test.go:219)
    (None, None, "1"),
    # "nproc_per_node=auto with millicore CPU limit" (torch_test.go:439): 2.5 rounds up
    ({"cpu": "2.5"}, None, "3"),
    # "nproc_per_node=auto with fractional CPU limit" (torch_test.go:513)
    ({"cpu": "0.7"}, None, "1"),
    # "nproc_per_node=auto with GPU request should remain auto" (torch_test.go:587)
    ({"example.com/gpu": "2"}, None, "auto"),
    # "explicitly set nproc_per_node should be preserved" (torch_test.go:661)
    ({"cpu": "8"}, 3, "3"),
    # "nproc_per_node=auto with millicore CPU limit in m format" (torch_test.go:736)
    ({"cpu": "2500m"}, None, "3"),
])
def test_torch_nproc_per_node(version: str, requests: dict[str, str] | None, nproc: int | None,
                              expected: str) -> None:
    trainer: dict[str, Any] = {"image": "test:image"}
    if requests is not None:
        trainer["resourcesPerNode"] = {"requests": requests}
    if nproc is not None:
        trainer["numProcPerNode"] = nproc
    built = world(_trainjob(**trainer), _runtime(version, "torch-distributed"), version)
    env = _env(built, "node-0")
    assert env["PET_NPROC_PER_NODE"] == expected
    assert env["PET_NNODES"] == "1"
    assert env["PET_MASTER_ADDR"] == "test-job-node-0-0.test-job"
    assert env["PET_MASTER_PORT"] == "29500"
    assert env["PET_NODE_RANK"] == {"fieldRef": {
        "fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}
    assert _container(built, "node-0")["ports"] == [{"containerPort": 29500}]


@pytest.mark.parametrize("version", VERSIONS)
def test_torch_numnodes_of_the_trainjob_wins(version: str) -> None:
    # TestTorch "trainJob numNodes is respected rather than mlPolicy one" (torch_test.go:72)
    runtime = _runtime(version, "torch-distributed")
    runtime["spec"]["mlPolicy"]["numNodes"] = 5
    built = world(_trainjob(numNodes=2), runtime, version)
    assert [pod.identity for pod in built.pods] == ["node-0", "node-1"]
    assert _env(built, "node-1")["PET_NNODES"] == "2"
    assert built.extras["jobs"][0]["parallelism"] == 2
    assert built.extras["jobs"][0]["completions"] == 2


@pytest.mark.parametrize("version", VERSIONS)
def test_trainer_step_starts_from_the_runtime_numnodes(version: str) -> None:
    # trainingruntime.go: count = mlPolicy.numNodes for the trainer ancestor, before plugins
    runtime = _runtime(version, "torch-distributed")
    runtime["spec"]["mlPolicy"]["numNodes"] = 3
    built = world(_trainjob(image="x"), runtime, version)
    assert [pod.identity for pod in built.pods] == ["node-0", "node-1", "node-2"]
    assert _env(built, "node-0")["PET_NNODES"] == "3"


@pytest.mark.parametrize("version", VERSIONS)
def test_torch_without_spec_trainer_injects_no_env(version: str) -> None:
    # torch.go: the trainer container is only looked up when trainJob.Spec.Trainer != nil
    trainjob = {"metadata": {"name": "j"}, "spec": {"runtimeRef": {"name": "torch-distributed"}}}
    built = world(trainjob, _runtime(version, "torch-distributed"), version)
    assert "env" not in _container(built, "node-0")
    assert "ports" not in _container(built, "node-0")


@pytest.mark.parametrize("version", VERSIONS)
def test_trainer_env_precedes_plugin_env_and_keeps_its_values(version: str) -> None:
    built = world(_trainjob(image="i", command=["torchrun", "t.py"], args=["--x"],
                            env=[{"name": "FOO", "value": "bar"}]),
                  _runtime(version, "torch-distributed"), version)
    node = _container(built, "node-0")
    assert [e["name"] for e in node["env"]][:2] == ["FOO", "PET_NNODES"]
    assert (node["image"], node["command"], node["args"]) == ("i", ["torchrun", "t.py"], ["--x"])


# --- resourcesPerNode: v2.2 replaces, v2.3 merges key by key -----------------------------------

def _with_runtime_resources(version: str) -> dict[str, Any]:
    runtime = _runtime(version, "torch-distributed")
    node = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"][
        "template"]["spec"]["containers"][0]
    node["resources"] = {"limits": {"memory": "8Gi", "cpu": "4"}, "requests": {"cpu": "2"}}
    return runtime


def test_resources_per_node_replaces_in_v22() -> None:
    # v2.2.0 trainingruntime.go:182 and jobset/builder.go:148: the TrainJob's resources replace
    built = world(_trainjob(resourcesPerNode={"limits": {"nvidia.com/gpu": 1}}),
                  _with_runtime_resources("2.2"), "2.2")
    assert _container(built, "node-0")["resources"] == {"limits": {"nvidia.com/gpu": 1}}


def test_resources_per_node_merges_in_v23() -> None:
    # v2.3.0 trainingruntime.go:218: MergeResourceRequirements (strategic merge, per key)
    built = world(_trainjob(resourcesPerNode={"limits": {"nvidia.com/gpu": 1}}),
                  _with_runtime_resources("2.3"), "2.3")
    assert _container(built, "node-0")["resources"] == {
        "limits": {"memory": "8Gi", "cpu": "4", "nvidia.com/gpu": 1}, "requests": {"cpu": "2"}}


@pytest.mark.parametrize("version", VERSIONS)
def test_runtime_resources_decide_auto_without_resources_per_node(version: str) -> None:
    # runtime.go ExtractResourcePerNodeFromRuntime: the runtime's node container requests cpu 2
    built = world(_trainjob(image="x"), _with_runtime_resources(version), version)
    assert _env(built, "node-0")["PET_NPROC_PER_NODE"] == "2"


# --- MPI plugin: kubeflow/trainer pkg/runtime/framework/plugins/mpi/mpi_test.go -----------------

@pytest.mark.parametrize("version", VERSIONS)
def test_mpi_run_launcher_as_node(version: str) -> None:
    # TestMPI "runLauncherAsNode is true" (v2.3.0 mpi_test.go:520): numNodes 10 -> node count 9,
    # the launcher listed in the hostfile first
    built = world(_trainjob("trainJob", numNodes=10), _runtime(version, "deepspeed-distributed"),
                  version)
    assert [p.identity for p in built.pods if p.group == "node"] == [f"node-{i}" for i in range(9)]
    assert [p.identity for p in built.pods if p.group == "launcher"] == ["launcher-0"]
    hosts = built.extras["mpi"]["hostfile"].splitlines()
    assert len(hosts) == 10
    assert "trainJob-launcher-0-0.trainJob slots=1" in hosts
    # v2.2 lists the launcher (first in its runtime) first; v2.3's runtime puts node first
    assert (hosts[0] == "trainJob-launcher-0-0.trainJob slots=1") == (version == "2.2")


@pytest.mark.parametrize("version", VERSIONS)
def test_mpi_gpus_become_slots(version: str) -> None:
    # TestMPI "numProcPerNode is set to number of GPUs in TrainJob" (mpi_test.go:375)
    built = world(_trainjob("trainJob", numNodes=1,
                            resourcesPerNode={"requests": {"custom.com/gpu": "5"}}),
                  _runtime(version, "deepspeed-distributed"), version)
    assert built.extras["mpi"]["slots"] == 5
    assert _env(built, "launcher-0")["OMPI_MCA_orte_set_default_slots"] == "5"


@pytest.mark.parametrize("version", VERSIONS)
def test_mpi_numprocpernode_of_the_trainjob_wins(version: str) -> None:
    # TestMPI "trainJob numProcPerNode is respected rather than mlPolicy one" (mpi_test.go:232)
    built = world(_trainjob("t", numNodes=2, numProcPerNode=4),
                  _runtime(version, "mlx-distributed"), version)
    assert built.extras["mpi"]["hostfile"].count("slots=4") == 2
    launcher = _container(built, "launcher-0")
    assert {"name": "mpi-hostfile", "mountPath": "/etc/mpi"} in launcher["volumeMounts"]
    assert {"name": "mpi-ssh-auth", "mountPath": "/home/mpiuser/.ssh"} in launcher["volumeMounts"]
    assert _env(built, "launcher-0")["OMPI_MCA_orte_default_hostfile"] == "/etc/mpi/hostfile"
    # only the launcher's node container gets the OpenMPI env and the hostfile
    assert "OMPI_MCA_orte_default_hostfile" not in _env(built, "node-0")


@pytest.mark.parametrize("version", VERSIONS)
def test_mpi_launcher_keeps_the_runtime_numnodes(version: str) -> None:
    # trainingruntime.go: the trainer-ancestor job (the launcher) counts mlPolicy.numNodes; the
    # MPI plugin resizes only the job named node
    runtime = _runtime(version, "deepspeed-distributed")
    runtime["spec"]["mlPolicy"]["numNodes"] = 3
    runtime["spec"]["mlPolicy"]["mpi"]["runLauncherAsNode"] = False
    built = world(_trainjob("t", numNodes=2), runtime, version)
    assert [p.identity for p in built.pods if p.group == "launcher"] == [
        "launcher-0", "launcher-1", "launcher-2"]
    assert [p.identity for p in built.pods if p.group == "node"] == ["node-0", "node-1"]


@pytest.mark.parametrize("version", VERSIONS)
def test_mpi_other_implementations_fail_the_build(version: str) -> None:
    runtime = _runtime(version, "deepspeed-distributed")
    runtime["spec"]["mlPolicy"]["mpi"]["mpiImplementation"] = "Intel"
    built = world(_trainjob("t"), runtime, version)
    assert built.pods == ()
    assert "doesn't supported" in built.extras["error"]


def test_mpi_hostfile_lists_only_the_first_replica_in_v22() -> None:
    # v2.2.0 jobset.go:240 endpoints use replica index 0 only; v2.3.0 jobset.go:291 every replica
    def run(version: str) -> list[str]:
        runtime = _runtime(version, "deepspeed-distributed")
        for job in runtime["spec"]["template"]["spec"]["replicatedJobs"]:
            if job["name"] == "node":
                job["replicas"] = 2
        built = world(_trainjob("t", numNodes=2), runtime, version)
        return [line for line in built.extras["mpi"]["hostfile"].splitlines() if "node" in line]
    assert run("2.2") == ["t-node-0-0.t slots=1"]
    assert run("2.3") == ["t-node-0-0.t slots=1", "t-node-1-0.t slots=1"]


# --- JAX, XGBoost, plain -----------------------------------------------------------------------

@pytest.mark.parametrize("version", VERSIONS)
def test_jax_env(version: str) -> None:
    built = world(_trainjob("j", numNodes=2), _runtime(version, "jax-distributed"), version)
    env = _env(built, "node-1")
    assert env["JAX_NUM_PROCESSES"] == "2"
    assert env["JAX_COORDINATOR_ADDRESS"] == "j-node-0-0.j:29500"
    assert "fieldRef" in env["JAX_PROCESS_ID"]


@pytest.mark.parametrize("version", VERSIONS)
def test_xgboost_workers_are_nodes_times_gpus(version: str) -> None:
    built = world(_trainjob("x", numNodes=3, resourcesPerNode={"limits": {"nvidia.com/gpu": 2}},
                            env=[{"name": "A", "value": "1"}]),
                  _runtime(version, "xgboost-distributed"), version)
    env = _env(built, "node-2")
    assert env["DMLC_NUM_WORKER"] == "6"
    assert env["DMLC_TRACKER_URI"] == "x-node-0-0.x"
    assert env["DMLC_TRACKER_PORT"] == "29500"
    assert env["A"] == "1"  # the plain-ML plugin runs with XGBoost too


@pytest.mark.parametrize("version", VERSIONS)
def test_plain_runtime_without_ml_policy_keeps_parallelism(version: str) -> None:
    runtime = {"kind": "TrainingRuntime", "metadata": {"name": "plain"}, "spec": {"template": {
        "spec": {"replicatedJobs": [
            {"name": "chief", "template": {"spec": {"parallelism": 1, "template": {"spec": {
                "containers": [{"name": "node", "image": "tf"}]}}}}},
            {"name": "node", "template": {"metadata": {"labels": {ANCESTOR: "trainer"}},
                                          "spec": {"parallelism": 2, "template": {"spec": {
                                              "containers": [{"name": "node", "image": "tf"}]}}}}},
        ]}}}}
    built = world(_trainjob("tf", env=[{"name": "TF", "value": "1"}]), runtime, version)
    assert [p.identity for p in built.pods] == ["chief-0", "node-0", "node-1"]
    assert _env(built, "node-1") == {"TF": "1"}
    assert "env" not in _container(built, "chief-0")
    built = world(_trainjob("tf", numNodes=4), runtime, version)
    assert len([p for p in built.pods if p.group == "node"]) == 4


# --- patches, network, labels, schedulers, managedBy --------------------------------------------

def _patched(version: str, job: str) -> World:
    trainjob = _trainjob("p")
    trainjob["spec"]["runtimePatches"] = [{"manager": "x.io/m", "trainingRuntimeSpec": {
        "template": {"metadata": {"labels": {"team": "a"}}, "spec": {"replicatedJobs": [
            {"name": job, "template": {"spec": {"template": {"spec": {
                "nodeSelector": {"pool": "gpu"},
                "containers": [{"name": "node", "volumeMounts": [
                    {"name": "data", "mountPath": "/data"}]}]}}}}}]}}}}]
    return world(trainjob, _runtime(version, "torch-distributed"), version)


@pytest.mark.parametrize("version", VERSIONS)
def test_runtime_patch_merges_into_the_named_job(version: str) -> None:
    built = _patched(version, "node")
    pod = built.pod("node-0")
    assert pod is not None
    assert pod.spec["nodeSelector"] == {"pool": "gpu"}
    assert _container(built, "node-0")["volumeMounts"] == [{"name": "data", "mountPath": "/data"}]
    assert _container(built, "node-0")["image"].startswith("pytorch/pytorch:")
    assert built.extras["jobset"]["labels"] == {"team": "a"}


def test_runtime_patch_for_a_missing_job_is_dropped_in_v22_added_in_v23() -> None:
    # v2.2.0 trainingruntime.go:226 patches jobs by name; v2.3.0 trainingruntime.go:272 merges
    # the whole JobSet spec (jobset v0.12.0 replicatedJobs patchMergeKey name)
    assert [p.identity for p in _patched("2.2", "extra").pods] == ["node-0"]
    assert [p.identity for p in _patched("2.3", "extra").pods] == ["init:extra-0", "node-0"]


@pytest.mark.parametrize("version", VERSIONS)
def test_hostnames_and_subdomain(version: str) -> None:
    runtime = _runtime(version, "torch-distributed")
    built = world(_trainjob("h", numNodes=2), runtime, version)
    pod = built.pod("node-1")
    assert pod is not None
    assert pod.hostname == "h-node-0-1.h"
    assert (pod.spec["hostname"], pod.spec["subdomain"]) == ("h-node-0-1", "h")
    assert pod.spec["restartPolicy"] == "OnFailure"
    assert pod.labels["jobset.sigs.k8s.io/replicatedjob-name"] == "node"
    # the ancestor label is on the Job template, not the pod template: pods do not carry it
    assert ANCESTOR not in pod.labels
    runtime["spec"]["template"]["spec"]["network"] = {"subdomain": "net"}
    built = world(_trainjob("h", numNodes=2), runtime, version)
    assert [p.hostname for p in built.pods] == ["h-node-0-0.net", "h-node-0-1.net"]
    # torch's master address names the TrainJob, not the subdomain (torch.go PET_MASTER_ADDR)
    assert _env(built, "node-0")["PET_MASTER_ADDR"] == "h-node-0-0.h"


@pytest.mark.parametrize("version", VERSIONS)
def test_coscheduling_pod_group(version: str) -> None:
    runtime = _runtime(version, "deepspeed-distributed")
    runtime["spec"]["podGroupPolicy"] = {"coscheduling": {}}
    built = world(_trainjob("g", numNodes=3), runtime, version)
    assert built.extras["podGroup"] == {"kind": "scheduler-plugins", "name": "g", "minMember": 3,
                                        "scheduleTimeoutSeconds": 60}
    assert all(p.labels["scheduling.x-k8s.io/pod-group"] == "g" for p in built.pods)
    assert all("schedulerName" not in p.spec for p in built.pods)


@pytest.mark.parametrize("version", VERSIONS)
def test_volcano_pod_group(version: str) -> None:
    runtime = _runtime(version, "torch-distributed")
    runtime["spec"]["podGroupPolicy"] = {"volcano": {}}
    runtime["spec"]["template"]["metadata"] = {
        "annotations": {"scheduling.volcano.sh/queue-name": "q"}}
    built = world(_trainjob("v", numNodes=2), runtime, version)
    assert built.extras["podGroup"] == {"kind": "volcano", "name": "v", "minMember": 2,
                                        "queue": "q"}
    assert built.extras["jobs"][0]["podAnnotations"] == {"scheduling.k8s.io/group-name": "v"}


def test_managed_by_is_honoured_from_v23() -> None:
    trainjob = _trainjob("m")
    trainjob["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue"
    assert len(world(trainjob, _runtime("2.2", "torch-distributed"), "2.2").pods) == 1
    skipped = world(trainjob, _runtime("2.3", "torch-distributed"), "2.3")
    assert skipped.pods == ()
    assert skipped.extras["created"] is False


@pytest.mark.parametrize("version", VERSIONS)
def test_initializer_job_identity_and_env(version: str) -> None:
    trainjob = _trainjob("c")
    trainjob["spec"]["initializer"] = {"dataset": {"storageUri": "hf://x", "env": [
        {"name": "K", "value": "v"}]}}
    built = world(trainjob, _runtime(version, "torch-distributed-with-cache"), version)
    assert [p.identity for p in built.pods] == ["init:dataset-initializer-0", "node-0"]
    env = _env(built, "init:dataset-initializer-0", "dataset-initializer")
    assert (env["STORAGE_URI"], env["K"]) == ("hf://x", "v")
    assert built.extras["jobs"][1]["dependsOn"] == [
        {"name": "dataset-initializer", "status": "Complete"}]


# --- every rule is cited; odd input -------------------------------------------------------------

@pytest.mark.parametrize("version", VERSIONS)
def test_citations_name_the_tags_modelled(version: str) -> None:
    built = world(_trainjob("c", numNodes=2), _runtime(version, "deepspeed-distributed"), version)
    tags = {(c.repo, c.tag) for c in built.citations}
    expected = {"2.2": {("kubeflow/trainer", "v2.2.0"), ("kubernetes-sigs/jobset", "v0.11.1"),
                        ("kubernetes/api", "v0.35.2")},
                "2.3": {("kubeflow/trainer", "v2.3.0"), ("kubernetes-sigs/jobset", "v0.12.0"),
                        ("kubernetes/api", "v0.36.2")}}[version]
    assert tags == expected
    assert any(c.path.endswith("plugins/mpi/mpi.go") for c in built.citations)


@pytest.mark.parametrize("trainjob", [
    {}, {"spec": None}, {"metadata": [], "spec": {"trainer": "x", "runtimePatches": {}}},
    {"metadata": {"name": 3}, "spec": {"trainer": {"numNodes": "two", "env": [1, None],
                                                   "resourcesPerNode": {"limits": []}}}},
])
@pytest.mark.parametrize("runtime", [
    {}, {"spec": {"mlPolicy": {"torch": None}, "template": {"spec": {"replicatedJobs": [
        {"name": "node"}, "junk", {"template": 4}]}}}},
    {"spec": {"mlPolicy": {"mpi": {"numProcPerNode": "x"}}, "template": {"spec": {
        "replicatedJobs": [{"name": "launcher", "template": {"spec": {"template": {"spec": {
            "containers": [{"name": "node"}, "bad"]}}}}}]}}}},
])
def test_odd_input_degrades(trainjob: dict[str, Any], runtime: dict[str, Any]) -> None:
    for version in VERSIONS:
        built = world(trainjob, runtime, version)
        assert built.side == "trainer"


def test_bad_arguments_are_value_errors() -> None:
    with pytest.raises(ValueError, match="unknown Trainer version"):
        world({}, {}, "2.4")
    with pytest.raises(ValueError, match="mappings"):
        world([], {}, "2.2")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Flux"):
        world({}, {"spec": {"mlPolicy": {"flux": {}}}}, "2.3")
    assert default_runtime("no-such-runtime", "2.3") is None


def test_empty_resources_per_node_keeps_the_runtime_resources_in_v22() -> None:
    # v2.2.0 jobset/builder.go:148: the builder replaces only when limits or requests are set
    built = world(_trainjob(resourcesPerNode={}), _with_runtime_resources("2.2"), "2.2")
    assert _container(built, "node-0")["resources"]["limits"] == {"memory": "8Gi", "cpu": "4"}


def _injection(targets: list[dict[str, Any]]) -> dict[str, Any]:
    runtime = _runtime("2.3", "torch-distributed")
    runtime["spec"]["mlPolicy"]["torch"] = {"envInjection": {"targets": targets}}
    pod = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    pod["spec"]["initContainers"] = [{"name": "preflight", "image": "busybox"}]
    return runtime


def test_torch_env_injection_into_an_init_container() -> None:
    # TestTorch "envInjection with init container" (v2.3.0 torch_test.go:1368)
    built = world(_trainjob("e", numNodes=2),
                  _injection([{"jobName": "node", "containerNames": ["preflight"]}]), "2.3")
    pod = built.pod("node-0")
    assert pod is not None
    env = {e["name"]: e.get("value") for e in pod.spec["initContainers"][0]["env"]}
    assert (env["PET_NNODES"], env["PET_MASTER_ADDR"]) == ("2", "e-node-0-0.e")
    # v2.2.0 has no envInjection: the same runtime injects nothing into the init container
    built = world(_trainjob("e", numNodes=2),
                  _injection([{"jobName": "node", "containerNames": ["preflight"]}]), "2.2")
    pod = built.pod("node-0")
    assert pod is not None
    assert "env" not in pod.spec["initContainers"][0]


def test_torch_env_injection_target_missing_fails_the_build() -> None:
    # TestTorch "envInjection target container does not exist" (v2.3.0 torch_test.go:1488)
    built = world(_trainjob("e"), _injection([{"jobName": "node", "containerNames": ["nope"]}]),
                  "2.3")
    assert built.pods == ()
    assert "not found in runtime template" in built.extras["error"]


def test_jax_without_trainer_step_fails_only_in_v22() -> None:
    runtime = _runtime("2.2", "jax-distributed")
    runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"].pop("metadata")
    assert "nil pod set" in world(_trainjob("j"), runtime, "2.2").extras["error"]
    assert [p.identity for p in world(_trainjob("j"), runtime, "2.3").pods] == ["init:node-0"]


@pytest.mark.parametrize("version", VERSIONS)
def test_runtime_patch_fields_outside_the_patch_types_are_pruned(version: str) -> None:
    # trainjob_types.go PodSpecPatch / ContainerPatch: the API server prunes other fields
    trainjob = _trainjob("p")
    trainjob["spec"]["runtimePatches"] = [{"trainingRuntimeSpec": {"template": {"spec": {
        "replicatedJobs": [{"name": "node", "template": {"spec": {
            "parallelism": 9, "template": {"spec": {
                "hostNetwork": True, "terminationGracePeriodSeconds": 5,
                "containers": [{"name": "node", "image": "evil",
                                "securityContext": {"privileged": False}}]}}}}}]}}}}]
    built = world(trainjob, _runtime(version, "torch-distributed"), version)
    assert len(built.pods) == 1
    pod = built.pod("node-0")
    assert pod is not None
    assert "hostNetwork" not in pod.spec
    assert ("terminationGracePeriodSeconds" in pod.spec) == (version == "2.3")
    node = _container(built, "node-0")
    assert node["image"].startswith("pytorch/")
    assert node["securityContext"] == {"privileged": False}


@pytest.mark.parametrize("version", VERSIONS)
def test_a_jobset_managed_elsewhere_gets_no_jobs(version: str) -> None:
    # jobset jobset_controller.go managedByExternalController: the JobSet controller skips it
    runtime = _runtime(version, "torch-distributed")
    runtime["spec"]["template"]["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue"
    built = world(_trainjob("k"), runtime, version)
    assert (built.pods, built.extras["created"]) == ((), False)
    runtime["spec"]["template"]["spec"]["managedBy"] = "jobset.sigs.k8s.io/jobset-controller"
    assert len(world(_trainjob("k"), runtime, version).pods) == 1


@pytest.mark.parametrize("version", VERSIONS)
def test_master_address_names_node_whatever_the_trainer_job_is_called(version: str) -> None:
    # torch.go PET_MASTER_ADDR is "<trainjob>-node-0-0.<trainjob>" (constants.Node), while the
    # pods' hostnames follow the replicated job's own name
    runtime = _runtime(version, "torch-distributed")
    runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["name"] = "trainer"
    built = world(_trainjob("r", numNodes=2), runtime, version)
    pod = built.pod("node-0")
    assert pod is not None
    assert pod.hostname == "r-trainer-0-0.r"
    assert _env(built, "node-0")["PET_MASTER_ADDR"] == "r-node-0-0.r"


@pytest.mark.parametrize("version", VERSIONS)
def test_jobset_webhook_defaults(version: str) -> None:
    # jobset jobset_webhook_test.go TestJobSetDefaulting (v0.11.1): "success policy unset",
    # "pod restart policy unset" / "pod restart policy set", "enableDNSHostnames is unset",
    # "enableDNSHostnames is false", "job completion mode is unset"
    runtime = _runtime(version, "torch-distributed")
    built = world(_trainjob("d"), runtime, version)
    assert built.extras["jobset"]["successPolicy"] == {"operator": "All"}
    assert built.extras["jobset"]["network"] == {
        "enableDNSHostnames": True, "publishNotReadyAddresses": True, "subdomain": "d"}
    assert built.extras["jobs"][0]["completionMode"] == "Indexed"
    assert built.extras["jobs"][0]["restartPolicy"] == "OnFailure"
    spec = runtime["spec"]["template"]["spec"]
    spec["network"] = {"enableDNSHostnames": False}
    spec["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    built = world(_trainjob("d"), runtime, version)
    pod = built.pod("node-0")
    assert pod is not None
    assert (pod.hostname, "subdomain" in pod.spec) == ("", False)
    assert pod.spec["restartPolicy"] == "Never"


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("nodes", "requests", "workers"), [
    # TestXGBoost "single node XGBoost training (CPU)" (v2.3.0 xgboost_test.go:283)
    (1, None, "1"),
    # "multi-node XGBoost training (CPU)" (xgboost_test.go:350)
    (4, None, "4"),
    # "XGBoost training with GPU resources" (xgboost_test.go:417): 2 nodes x 4 GPUs
    (2, {"cpu": "8", "memory": "32Gi", "example.com/gpu": "4"}, "8"),
])
def test_xgboost_num_worker(version: str, nodes: int, requests: dict[str, str] | None,
                            workers: str) -> None:
    trainer: dict[str, Any] = {"numNodes": nodes, "image": "xgboost/xgboost:latest"}
    if requests is not None:
        trainer["resourcesPerNode"] = {"requests": requests}
    built = world(_trainjob("trainJob", **trainer), _runtime(version, "xgboost-distributed"),
                  version)
    assert _env(built, "node-0")["DMLC_NUM_WORKER"] == workers
    assert len(built.pods) == nodes
