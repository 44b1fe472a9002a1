"""The legacy simulation (training-operator v1.9.2, mpi-operator v0.8.0): pods, env and outcomes.

Expectations come from the upstream source at those tags (cited per test), never from this
project's converter. Tests that mirror an upstream unit test name it.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from migrator.simulate import legacy
from migrator.simulate.legacy_common import Rejected, env_value
from migrator.simulate.model import Event, Outcome, Pod, Scenario, World


def container(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": "img", **extra}


def replica(name: str, replicas: int | None = 1, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"template": {"spec": {"containers": [container(name)]}}, **extra}
    if replicas is not None:
        out["replicas"] = replicas
    return out


def pytorch(workers: int = 2, master: bool = True, **spec: Any) -> dict[str, Any]:
    specs = {"Worker": replica("pytorch", workers)}
    if master:
        specs["Master"] = replica("pytorch", 1)
    return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
            "metadata": {"name": "pt", "namespace": "ns"},
            "spec": {"pytorchReplicaSpecs": specs, **spec}}


def mpi_v2(workers: int = 2, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob",
            "metadata": {"name": "foo", "namespace": "bar"},
            "spec": {"mpiReplicaSpecs": {"Launcher": replica("l", None),
                                         "Worker": replica("w", workers)}, **spec}}


def env(pod: Pod | None, name: str, container_name: str | None = None) -> str | None:
    assert pod is not None
    for item in pod.spec["containers"]:
        if container_name is None or item["name"] == container_name:
            return env_value(item.get("env", []), name)
    raise AssertionError(container_name)


def run(job: dict[str, Any], *events: Event) -> Outcome:
    return legacy.outcome(job, Scenario("test", events))


def trail(outcome: Outcome) -> list[tuple[str, str]]:
    return [(step.reaction, step.phase) for step in outcome.steps]


# --- PyTorchJob: the pods ---------------------------------------------------------------------


def test_pytorch_pods_names_identities_and_master_env() -> None:
    """pkg/controller.v1/pytorch/envvar.go:64-96, master.go:37-57 at v1.9.2."""
    world = legacy.world(pytorch(workers=2))
    assert [(p.identity, p.hostname, p.services) for p in world.pods] == [
        ("node-0", "pt-master-0", ("pt-master-0",)),
        ("node-1", "pt-worker-0", ("pt-worker-0",)),
        ("node-2", "pt-worker-1", ("pt-worker-1",))]
    worker = world.pod("node-2")
    assert env(worker, "MASTER_ADDR") == env(worker, "PET_MASTER_ADDR") == "pt-master-0"
    assert env(worker, "MASTER_PORT") == "23456"
    assert (env(worker, "WORLD_SIZE"), env(worker, "RANK"), env(worker, "PET_NODE_RANK")) == (
        "3", "2", "2")
    # nprocPerNode defaults to "auto", which counts as 1 in WORLD_SIZE
    assert env(worker, "PET_NPROC_PER_NODE") == "auto"
    assert env(worker, "PET_NNODES") == "3"
    assert env(world.pod("node-0"), "RANK") == "0"
    assert world.pod("node-0").labels["training.kubeflow.org/job-role"] == "master"  # type: ignore[union-attr]
    assert "training.kubeflow.org/job-role" not in world.pod("node-1").labels  # type: ignore[union-attr]
    assert world.extras["services"] == ["pt-master-0", "pt-worker-0", "pt-worker-1"]


def test_pytorch_world_size_multiplies_an_integer_nproc_per_node() -> None:
    """envvar.go:64 and :136: WORLD_SIZE = replicas x nprocPerNode when it is an integer."""
    world = legacy.world(pytorch(workers=1, nprocPerNode="4"))
    assert env(world.pod("node-1"), "WORLD_SIZE") == "8"
    assert env(world.pod("node-1"), "PET_NPROC_PER_NODE") == "4"


def test_pytorch_env_goes_to_every_container() -> None:
    """envvar.go:49: the loop covers every container, sidecars included."""
    job = pytorch(workers=1)
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"].append(
        container("sidecar"))
    pod = legacy.world(job).pod("node-1")
    assert env(pod, "RANK", "sidecar") == env(pod, "RANK", "pytorch") == "1"


def test_pytorch_worker_only_job_has_no_master_env_and_worker_0_is_master() -> None:
    """envvar.go:67 (no Master: no MASTER_ADDR/RANK), pytorchjob_controller.go:505."""
    world = legacy.world(pytorch(workers=2, master=False))
    assert [p.identity for p in world.pods] == ["node-0", "node-1"]
    assert env(world.pod("node-0"), "MASTER_ADDR") is None
    assert env(world.pod("node-0"), "RANK") is None
    assert env(world.pod("node-1"), "PET_NNODES") == "2"
    assert world.pod("node-0").labels.get("training.kubeflow.org/job-role") == "master"  # type: ignore[union-attr]


def test_pytorch_init_container_only_on_workers_with_a_master() -> None:
    """Mirrors TestInitContainer (pkg/controller.v1/pytorch/initcontainer_test.go@v1.9.2):
    Worker-only: 0 init containers; Worker with a Master: 1; the Master: 0."""
    assert "initContainers" not in legacy.world(pytorch(master=False)).pod("node-0").spec  # type: ignore[union-attr]
    world = legacy.world(pytorch(workers=1))
    assert "initContainers" not in world.pod("node-0").spec  # type: ignore[union-attr]
    init = world.pod("node-1").spec["initContainers"]  # type: ignore[union-attr]
    assert [(i["name"], i["image"]) for i in init] == [("init-pytorch", "alpine:3.10")]
    assert "nslookup pt-master-0" in init[0]["command"][2]
    assert "seq 100" in init[0]["command"][2]


def test_pytorch_elastic_env_mirrors_upstream() -> None:
    """Mirrors TestElasticGenerate "With ElasticPolicy" (pkg/controller.v1/pytorch/
    elastic_test.go@v1.9.2)."""
    job = pytorch(workers=1, master=False, elasticPolicy={
        "minReplicas": 1, "maxReplicas": 3, "rdzvBackend": "c10d", "rdzvPort": 1234,
        "rdzvHost": "localhost", "rdzvId": "rdzv-id",
        "rdzvConf": [{"key": "rdzv-conf-name", "value": "rdzv-conf-value"},
                     {"key": "rdzv-conf-name-1", "value": "rdzv-conf-value-1"}],
        "maxRestarts": 3})
    pod = legacy.world(job).pod("node-0")
    assert {name: env(pod, name) for name in (
        "PET_MAX_RESTARTS", "PET_RDZV_BACKEND", "PET_RDZV_ENDPOINT", "PET_RDZV_ID",
        "PET_RDZV_CONF", "PET_NNODES")} == {
        "PET_MAX_RESTARTS": "3", "PET_RDZV_BACKEND": "c10d", "PET_RDZV_ENDPOINT": "localhost:1234",
        "PET_RDZV_ID": "rdzv-id",
        "PET_RDZV_CONF": "rdzv-conf-name=rdzv-conf-value,rdzv-conf-name-1=rdzv-conf-value-1",
        "PET_NNODES": "1:3"}


def test_pytorch_elastic_defaults() -> None:
    """elastic.go:150 (host <job>-worker-0), :158 (the worker's port), :195 (c10d);
    pytorch_defaults.go:51 (min = max = Worker replicas)."""
    pod = legacy.world(pytorch(workers=3, master=False, elasticPolicy={})).pod("node-0")
    assert env(pod, "PET_RDZV_ENDPOINT") == "pt-worker-0:23456"
    assert env(pod, "PET_RDZV_BACKEND") == "c10d"
    assert env(pod, "PET_NNODES") == "3:3"


def test_pytorch_user_port_and_restart_policy() -> None:
    """master.go:37 (the Master's pytorchjob-port), common/pod.go:435 and core/pod.go:84."""
    job = pytorch(workers=1)
    job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["ports"] = [
        {"name": "pytorchjob-port", "containerPort": 29500}]
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["restartPolicy"] = "ExitCode"
    world = legacy.world(job)
    assert env(world.pod("node-1"), "MASTER_PORT") == "29500"
    assert world.pod("node-0").spec["restartPolicy"] == "OnFailure"  # type: ignore[union-attr]
    assert world.pod("node-1").spec["restartPolicy"] == "Never"  # type: ignore[union-attr]


def test_pytorch_gang_scheduling() -> None:
    """common/job.go:250-259 (PodGroup only with a gang scheduler), podgroup_control.go:67
    (schedulerName only when the template has none)."""
    assert "podGroup" not in legacy.world(pytorch()).extras
    job = pytorch(workers=1, runPolicy={"schedulingPolicy": {"minAvailable": 1}})
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["schedulerName"] = "mine"
    world = legacy.world(job, gang_scheduler="volcano")
    assert world.extras["podGroup"] == {"kind": "volcano", "name": "pt", "minMember": 1,
                                        "queue": "default", "priorityClassName": ""}
    assert world.pod("node-0").spec["schedulerName"] == "volcano"  # type: ignore[union-attr]
    assert world.pod("node-1").spec["schedulerName"] == "mine"  # type: ignore[union-attr]


@pytest.mark.parametrize(("change", "reason"), [
    (lambda j: j["spec"]["pytorchReplicaSpecs"]["Master"].pop("replicas"), "Master replicas"),
    (lambda j: j["spec"]["pytorchReplicaSpecs"].update(
        master=j["spec"]["pytorchReplicaSpecs"].pop("Master")), "replica type 'master'"),
    (lambda j: j["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
     .update(name="main"), "no container named 'pytorch'"),
    (lambda j: j["metadata"].update(name="Bad_Name"), "DNS-1035"),
    (lambda j: j["spec"].update(runPolicy={"managedBy": "someone/else"}), "managedBy"),
])
def test_pytorch_webhook_refusals(change: Any, reason: str) -> None:
    """pkg/webhooks/pytorch/pytorchjob_webhook.go@v1.9.2:80-157; common/util/webhooks.go:19."""
    job = pytorch()
    change(job)
    with pytest.raises(Rejected, match=reason) as raised:
        legacy.world(job)
    assert raised.value.citations


# --- PyTorchJob: outcomes ---------------------------------------------------------------------


def test_pytorch_master_success_ends_the_job_worker_success_does_not() -> None:
    """pytorchjob_controller.go:390."""
    outcome = run(pytorch(), Event("node-1", "exit", 0), Event("node-0", "exit", 0))
    assert trail(outcome) == [("kept", "Running"), ("kept", "Succeeded")]
    assert outcome.finished_at == (1, 0)


def test_pytorch_worker_only_needs_every_worker_unless_elastic() -> None:
    """pytorchjob_controller.go:409."""
    assert run(pytorch(master=False), Event("node-0", "exit", 0)).phase == "Running"
    assert run(pytorch(master=False), Event("node-0", "exit", 0),
               Event("node-1", "exit", 0)).phase == "Succeeded"
    elastic = pytorch(master=False, elasticPolicy={"rdzvPort": 1})
    assert run(elastic, Event("node-1", "exit", 0)).phase == "Succeeded"


def test_pytorch_on_failure_restarts_in_place_until_backoff_limit() -> None:
    """pkg/core/job.go:103-132: restarts of running OnFailure pods reach backoffLimit."""
    outcome = run(pytorch(runPolicy={"backoffLimit": 3}), Event("node-2", "exit", 1, times=8))
    assert trail(outcome) == [("restarted", "Running")] * 2 + [("restarted", "Failed")]
    assert outcome.phase == "Failed"
    assert any(c.path == "pkg/core/job.go" and c.line == 132 for c in outcome.citations)


def test_pytorch_without_backoff_limit_restarts_forever() -> None:
    outcome = run(pytorch(), Event("node-0", "exit", 1, times=8))
    assert outcome.phase == "Running"
    assert len(outcome.steps) == 8
    assert outcome.finished_at is None


def test_pytorch_backoff_limit_zero_fails_on_the_first_restart() -> None:
    """pkg/core/job.go:130."""
    assert trail(run(pytorch(runPolicy={"backoffLimit": 0}), Event("node-1", "exit", 1))) == [
        ("restarted", "Failed")]


def test_pytorch_exit_code_policy() -> None:
    """common/pod.go:352 and :367, util/train/train_util.go:25 (>= 128 is retryable)."""
    job = pytorch()
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["restartPolicy"] = "ExitCode"
    assert trail(run(job, Event("node-1", "exit", 137, times=3))) == [("recreated", "Running")] * 3
    assert trail(run(job, Event("node-1", "exit", 1))) == [("kept", "Failed")]


def test_pytorch_never_fails_and_eviction() -> None:
    """pytorchjob_controller.go:428-441; common/pod.go:352 (an evicted OnFailure pod is
    deleted and recreated)."""
    job = pytorch()
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["restartPolicy"] = "Never"
    assert trail(run(job, Event("node-1", "exit", 2))) == [("kept", "Failed")]
    assert trail(run(job, Event("node-1", "evict"))) == [("kept", "Failed")]
    assert trail(run(pytorch(), Event("node-0", "evict", times=2))) == [
        ("recreated", "Running")] * 2


def test_pytorch_always_restarts_even_a_success() -> None:
    """Pod restartPolicy Always: the kubelet restarts a container that exited 0, so the
    Master never succeeds (pytorchjob_controller.go:390 never sees it succeed)."""
    job = pytorch()
    job["spec"]["pytorchReplicaSpecs"]["Master"]["restartPolicy"] = "Always"
    assert trail(run(job, Event("node-0", "exit", 0))) == [("restarted", "Running")]


def test_events_for_absent_or_finished_pods_change_nothing() -> None:
    outcome = run(pytorch(), Event("node-9", "exit", 1), Event("node-1", "exit", 0),
                  Event("node-1", "exit", 1))
    assert trail(outcome) == [("kept", "Running")] * 3
    assert "creates no pod node-9" in outcome.steps[0].why
    assert "already succeeded" in outcome.steps[2].why


def test_suspended_and_externally_managed_jobs() -> None:
    """common/job.go:146 (suspend: no pods), :460 (another manager: skipped)."""
    suspended = pytorch(runPolicy={"suspend": True})
    assert legacy.world(suspended).pods == ()
    outcome = run(suspended, Event("node-0", "exit", 0))
    assert outcome.phase == "Suspended"
    assert trail(outcome) == [("kept", "Suspended")]
    managed = pytorch(runPolicy={"managedBy": "kueue.x-k8s.io/multikueue"})
    assert legacy.world(managed).pods == ()
    with pytest.raises(ValueError, match="multikueue"):
        run(managed, Event("node-0", "exit", 0))


# --- TFJob ------------------------------------------------------------------------------------


def tfjob(worker: int, ps: int = 0, evaluator: int = 0, chief: int = 0,
          namespace: str = "ns", **spec: Any) -> dict[str, Any]:
    specs: dict[str, Any] = {}
    for rtype, count in (("Worker", worker), ("PS", ps), ("Evaluator", evaluator),
                         ("Chief", chief)):
        if count:
            specs[rtype] = replica("tensorflow", count)
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
            "metadata": {"name": "test-tfjob", "namespace": namespace},
            "spec": {"tfReplicaSpecs": specs, **spec}}


def test_tf_config_mirrors_upstream_cluster_spec_cases() -> None:
    """Mirrors "should generate desired cluster spec" (pkg/controller.v1/tensorflow/
    pod_test.go@v1.9.2), the cases without CUSTOM_CLUSTER_DOMAIN."""
    single = legacy.world(tfjob(1, namespace="ns0"))
    assert env(single.pod("node-0"), "TF_CONFIG") is None
    with_ps = legacy.world(tfjob(1, 1, namespace="ns2"))
    assert env(with_ps.pod("node-0"), "TF_CONFIG") == (
        '{"cluster":{"ps":["test-tfjob-ps-0.ns2.svc:2222"],"worker":["test-tfjob-worker-0.ns2'
        '.svc:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}')
    with_eval = legacy.world(tfjob(1, 1, 1, namespace="ns3"))
    assert env(with_eval.pod("node-0"), "TF_CONFIG") == (
        '{"cluster":{"evaluator":["test-tfjob-evaluator-0.ns3.svc:2222"],"ps":["test-tfjob-ps-0'
        '.ns3.svc:2222"],"worker":["test-tfjob-worker-0.ns3.svc:2222"]},"task":{"type":"worker",'
        '"index":0},"environment":"cloud"}')
    assert sorted(p.identity for p in with_eval.pods) == ["evaluator-0", "node-0", "ps-0"]


def test_tf_config_only_in_the_tensorflow_container() -> None:
    """tfjob_controller.go:576."""
    job = tfjob(2)
    job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"].insert(
        0, container("sidecar"))
    pod = legacy.world(job).pod("node-1")
    assert env(pod, "TF_CONFIG", "sidecar") is None
    config = json.loads(env(pod, "TF_CONFIG", "tensorflow") or "")
    assert config["task"] == {"type": "worker", "index": 1}


def test_tf_success_rules() -> None:
    """tfjob_controller.go:445 (Chief decides), :467 (worker 0, or all with AllWorkers)."""
    assert run(tfjob(2, 1), Event("node-0", "exit", 0)).phase == "Succeeded"
    assert run(tfjob(2, 1), Event("node-1", "exit", 0)).phase == "Running"
    all_workers = tfjob(2, successPolicy="AllWorkers")
    assert trail(run(all_workers, Event("node-0", "exit", 0), Event("node-1", "exit", 0))) == [
        ("kept", "Running"), ("kept", "Succeeded")]
    chief = tfjob(2, chief=1)  # the chief is node-0, the workers node-1 and node-2
    assert run(chief, Event("node-1", "exit", 0)).phase == "Running"
    assert run(chief, Event("node-0", "exit", 0)).phase == "Succeeded"


def test_tf_failure_rules() -> None:
    """tfjob_controller.go:495 (enableDynamicWorker) and :507 (a failed replica fails it)."""
    assert trail(run(tfjob(2, 1), Event("ps-0", "exit", 1))) == [("kept", "Failed")]
    dynamic = tfjob(2, 1, enableDynamicWorker=True)
    assert trail(run(dynamic, Event("node-1", "exit", 1))) == [("kept", "Running")]


# --- XGBoost, Paddle, JAX ---------------------------------------------------------------------


def xgboost(workers: int = 2) -> dict[str, Any]:
    return {"apiVersion": "kubeflow.org/v1", "kind": "XGBoostJob", "metadata": {"name": "xg"},
            "spec": {"xgbReplicaSpecs": {"Master": replica("xgboost", 1),
                                         "Worker": replica("xgboost", workers)}}}


def test_xgboost_env() -> None:
    """xgboost/xgboost.go:46 (rank offset), :67 (WORKER_ADDRS), :78 (master env)."""
    world = legacy.world(xgboost(2))
    worker = world.pod("node-2")
    assert (env(worker, "RANK"), env(worker, "WORLD_SIZE"), env(worker, "MASTER_ADDR")) == (
        "2", "3", "xg-master-0")
    assert env(worker, "WORKER_ADDRS") == "xg-worker-0,xg-worker-1"
    assert env(worker, "MASTER_PORT") == env(worker, "WORKER_PORT") == "9999"


def test_xgboost_evicted_on_failure_worker_fails_the_job() -> None:
    """xgboostjob_controller.go:391: only ExitCode counts a failed replica as restarting."""
    job = xgboost()
    job["spec"]["xgbReplicaSpecs"]["Worker"]["restartPolicy"] = "OnFailure"
    assert trail(run(job, Event("node-1", "evict"))) == [("kept", "Failed")]
    assert run(job, Event("node-0", "exit", 0)).phase == "Succeeded"


def test_paddle_collective_and_ps_env() -> None:
    """paddlepaddle/envvar.go:75-138."""
    collective: dict[str, Any] = {"apiVersion": "kubeflow.org/v1", "kind": "PaddleJob",
                  "metadata": {"name": "pd"},
                  "spec": {"paddleReplicaSpecs": {"Worker": replica("paddle", 2)}}}
    world = legacy.world(collective)
    assert env(world.pod("node-0"), "PADDLE_MASTER") == "$(POD_IP_DUMMY):36543"
    assert env(world.pod("node-1"), "PADDLE_MASTER") == "pd-worker-0:36543"
    assert env(world.pod("node-1"), "PADDLE_NNODES") == "2"
    ps = copy.deepcopy(collective)
    ps["spec"]["paddleReplicaSpecs"]["Master"] = replica("paddle", 1)
    world = legacy.world(ps)
    assert [p.identity for p in world.pods] == ["node-0", "node-1", "ps-0"]
    assert env(world.pod("ps-0"), "PADDLE_SERVER_NUM") == "1"
    assert env(world.pod("node-1"), "PADDLE_TRAINER_NUM") == "1"
    assert env(world.pod("node-1"), "PADDLE_MASTER") == "pd-master-0:36543"


def test_jax_env_mirrors_upstream() -> None:
    """Mirrors TestSetPodEnv "successful environment variable setup" (pkg/controller.v1/jax/
    envvar_test.go@v1.9.2)."""
    job = {"apiVersion": "kubeflow.org/v1", "kind": "JAXJob", "metadata": {"name": "test-jaxjob"},
           "spec": {"jaxReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": {
               "containers": [container("jax", ports=[{"name": "jaxjob-port",
                                                       "containerPort": 6666}])]}}}}}}
    pod = legacy.world(job).pod("node-0")
    assert pod is not None
    assert [(e["name"], e["value"]) for e in pod.spec["containers"][0]["env"]] == [
        ("PYTHONUNBUFFERED", "1"), ("COORDINATOR_PORT", "6666"),
        ("COORDINATOR_ADDRESS", "test-jaxjob-worker-0"), ("NUM_PROCESSES", "1"),
        ("PROCESS_ID", "0")]


# --- mpi-operator v0.8.0 ----------------------------------------------------------------------


def test_mpi_v2_launcher_and_worker_mirror_upstream_defaults() -> None:
    """Mirrors TestNewLauncherAndWorker "defaults" (pkg/controller/mpi_job_controller_test.go
    @v0.8.0), with one worker replica (validation refuses the upstream case's unset one)."""
    world = legacy.world(mpi_v2(workers=1))
    launcher, worker = world.pod("launcher-0"), world.pod("node-0")
    assert launcher is not None
    assert worker is not None
    assert launcher.labels == {"training.kubeflow.org/operator-name": "mpi-operator",
                               "training.kubeflow.org/job-name": "foo",
                               "training.kubeflow.org/job-role": "launcher"}
    spec = launcher.spec
    assert (spec["hostname"], spec["subdomain"], spec["restartPolicy"]) == (
        "foo-launcher", "foo", "OnFailure")
    assert [(e["name"], e.get("value")) for e in spec["containers"][0]["env"]] == [
        ("K_MPI_JOB_ROLE", "launcher"), ("OMPI_MCA_orte_keep_fqdn_hostnames", "true"),
        ("OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"),
        ("OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10"),
        ("OMPI_MCA_orte_set_default_slots", "1"), ("NVIDIA_VISIBLE_DEVICES", None),
        ("NVIDIA_DRIVER_CAPABILITIES", None)]
    assert spec["containers"][0]["volumeMounts"] == [
        {"name": "ssh-auth", "mountPath": "/root/.ssh"},
        {"name": "mpi-job-config", "mountPath": "/etc/mpi"}]
    assert [v["name"] for v in spec["volumes"]] == ["ssh-auth", "mpi-job-config"]
    assert spec["volumes"][0]["secret"]["defaultMode"] == 0o600
    assert worker.labels == {"training.kubeflow.org/operator-name": "mpi-operator",
                             "training.kubeflow.org/job-name": "foo",
                             "training.kubeflow.org/job-role": "worker",
                             "training.kubeflow.org/replica-index": "0"}
    wspec = worker.spec
    assert (wspec["hostname"], wspec["subdomain"], wspec["restartPolicy"]) == (
        "foo-worker-0", "foo", "Never")
    assert wspec["dnsConfig"] == {"searches": ["foo.bar.svc.cluster.local"]}
    assert wspec["containers"][0]["command"] == ["/usr/sbin/sshd", "-De"]
    assert wspec["containers"][0]["env"] == [{"name": "K_MPI_JOB_ROLE", "value": "worker"}]
    assert world.extras["launcherJob"]["backoffLimit"] == 6


def test_mpi_v2_launcher_as_worker() -> None:
    """Mirrors TestNewLauncherAndWorker "launcher-as-worker": replica-index 0 on the launcher,
    no NVIDIA override; workers shifted by one (mpi_job_controller.go:1465); the launcher is
    first in the hostfile (:1323)."""
    world = legacy.world(mpi_v2(workers=1, runLauncherAsWorker=True))
    launcher = world.pod("launcher-0")
    assert launcher is not None
    assert launcher.labels["training.kubeflow.org/replica-index"] == "0"
    assert env(launcher, "NVIDIA_VISIBLE_DEVICES") is None
    worker = world.pod("node-0")
    assert worker is not None
    assert worker.labels["training.kubeflow.org/replica-index"] == "1"
    assert world.extras["configMap"]["hostfile"] == (
        "foo-launcher.foo.bar.svc slots=1\nfoo-worker-0.foo.bar.svc slots=1\n")
    assert world.extras["service"]["publishNotReadyAddresses"] is True


def test_mpi_v2_hostfile_per_implementation() -> None:
    """mpi_job_controller.go:1333 (OpenMPI) and :1335 (Intel/MPICH)."""
    assert legacy.world(mpi_v2(workers=2, slotsPerWorker=4)).extras["configMap"]["hostfile"] == (
        "foo-worker-0.foo.bar.svc slots=4\nfoo-worker-1.foo.bar.svc slots=4\n")
    intel = legacy.world(mpi_v2(workers=1, slotsPerWorker=2, mpiImplementation="Intel"))
    assert intel.extras["configMap"]["hostfile"] == "foo-worker-0.foo.bar.svc:2\n"
    assert env(intel.pod("launcher-0"), "I_MPI_PERHOST") == "2"


def test_mpi_v2_gang_scheduler_overwrites_scheduler_name() -> None:
    """podgroup.go:163 (overwritten, unlike training-operator) and :396 (workers + 1)."""
    job = mpi_v2(workers=3)
    job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["schedulerName"] = "mine"
    world = legacy.world(job, gang_scheduler="volcano")
    assert world.extras["podGroup"]["minMember"] == 4
    assert {p.spec["schedulerName"] for p in world.pods} == {"volcano"}


@pytest.mark.parametrize(("change", "reason"), [
    (lambda j: j["spec"]["mpiReplicaSpecs"]["Worker"].pop("replicas"), "Worker replicas"),
    (lambda j: j["spec"]["mpiReplicaSpecs"]["Launcher"].update(restartPolicy="ExitCode"),
     "restartPolicy 'ExitCode'"),
    (lambda j: j["spec"]["mpiReplicaSpecs"].pop("Launcher"), "Launcher replica spec"),
    (lambda j: j["spec"].update(mpiImplementation="Other"), "mpiImplementation"),
])
def test_mpi_v2_validation_refusals(change: Any, reason: str) -> None:
    """pkg/apis/kubeflow/validation/validation.go@v0.8.0 (run after defaulting)."""
    job = mpi_v2()
    change(job)
    with pytest.raises(Rejected, match=reason):
        legacy.world(job)


def test_mpi_v2_launcher_job_backoff() -> None:
    """The launcher Job: OnFailure restarts counted against backoffLimit (default 6,
    k8s.io/api batch/v1/types.go:351); with Never, failed pods counted (:333); the MPIJob fails
    with the Job (mpi_job_controller.go:1124, as TestLauncherFailed at v0.8.0 sees it)."""
    outcome = run(mpi_v2(), Event("launcher-0", "exit", 1, times=8))
    assert trail(outcome) == [("restarted", "Running")] * 5 + [("restarted", "Failed")]
    never = mpi_v2(runPolicy={"backoffLimit": 2})
    never["spec"]["mpiReplicaSpecs"]["Launcher"]["restartPolicy"] = "Never"
    assert trail(run(never, Event("launcher-0", "exit", 1, times=5))) == [
        ("recreated", "Running"), ("recreated", "Running"), ("kept", "Failed")]
    assert trail(run(mpi_v2(runPolicy={"backoffLimit": 0}), Event("launcher-0", "evict"))) == [
        ("kept", "Failed")]


def test_mpi_v2_workers_and_success() -> None:
    """mpi_job_controller.go:1016 (a failed worker stays), :1143-1156 (an evicted worker fails
    the MPIJob), :1115 (the launcher Job's completion: mirrors TestLauncherSucceeded,
    pkg/controller/mpi_job_controller_test.go@v0.8.0)."""
    assert trail(run(mpi_v2(), Event("node-1", "exit", 1))) == [("kept", "Running")]
    assert trail(run(mpi_v2(), Event("node-1", "evict"))) == [("kept", "Failed")]
    outcome = run(mpi_v2(), Event("node-0", "exit", 0), Event("launcher-0", "exit", 0))
    assert trail(outcome) == [("kept", "Running"), ("kept", "Succeeded")]


def test_mpi_v2_suspended() -> None:
    """mpi_job_controller.go:665 (no workers) and :1548 (a suspended launcher Job)."""
    world = legacy.world(mpi_v2(runPolicy={"suspend": True}))
    assert world.pods == ()
    assert world.extras["launcherJob"]["suspend"] is True
    assert run(mpi_v2(runPolicy={"suspend": True})).phase == "Suspended"


# --- training-operator's MPIJob v1 ------------------------------------------------------------


def mpi_v1(workers: int = 2, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "kubeflow.org/v1", "kind": "MPIJob", "metadata": {"name": "m1"},
            "spec": {"mpiReplicaSpecs": {"Launcher": replica("mpi", 1),
                                         "Worker": replica("mpi", workers)}, **spec}}


def test_mpi_v1_pods() -> None:
    """pkg/controller.v1/mpi/mpijob_controller.go@v1.9.2: 873, 943, 1006-1148, 1248."""
    world = legacy.world(mpi_v1(2, slotsPerWorker=2))
    assert [(p.identity, p.hostname) for p in world.pods] == [
        ("launcher-0", "m1-launcher"), ("node-0", "m1-worker-0"), ("node-1", "m1-worker-1")]
    launcher = world.pod("launcher-0")
    assert launcher is not None
    assert env(launcher, "OMPI_MCA_plm_rsh_agent") == "/etc/mpi/kubexec.sh"
    assert env(launcher, "I_MPI_HYDRA_BOOTSTRAP") == "rsh"
    assert launcher.spec["initContainers"][0]["name"] == "kubectl-delivery"
    assert launcher.spec["serviceAccountName"] == "m1-launcher"
    assert launcher.spec["restartPolicy"] == "Never"
    assert world.pod("node-0").spec["containers"][0]["command"] == ["sleep"]  # type: ignore[union-attr]
    assert world.extras["configMap"]["hostfile"] == "m1-worker-0 slots=2\nm1-worker-1 slots=2\n"
    assert world.extras["services"] == []


def test_mpi_v1_outcomes() -> None:
    """mpijob_controller.go:581 (launcher success), :601 (a failed replica; ExitCode:
    Restarting, and nothing recreates it)."""
    assert run(mpi_v1(), Event("launcher-0", "exit", 0)).phase == "Succeeded"
    assert trail(run(mpi_v1(), Event("launcher-0", "exit", 1))) == [("kept", "Failed")]
    exit_code = mpi_v1()
    exit_code["spec"]["mpiReplicaSpecs"]["Worker"]["restartPolicy"] = "ExitCode"
    outcome = run(exit_code, Event("node-0", "exit", 137, times=2))
    assert trail(outcome) == [("kept", "Running"), ("kept", "Running")]


# --- hostile input ----------------------------------------------------------------------------


@pytest.mark.parametrize("job", [
    None, [], {}, {"kind": "PyTorchJob"},
    {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": 3}},
    {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "a"},
     "spec": []},
    {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "a"},
     "spec": {"pytorchReplicaSpecs": {"Worker": "x"}}},
    {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "a"},
     "spec": {"tfReplicaSpecs": {"Worker": {"replicas": "two", "template": {"spec": {
         "containers": [{"name": "tensorflow", "image": "i", "env": "x", "ports": 5}]}}}}}},
    {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "a"},
     "spec": {"mpiReplicaSpecs": {"Launcher": {"template": {"spec": {"containers": [7]}}},
                                  "Worker": {"replicas": True}}}},
    {"apiVersion": "kubeflow.org/v1", "kind": "MPIJob", "metadata": {"name": "a"},
     "spec": {"mpiReplicaSpecs": {"Launcher": {"template": {"spec": {"containers": [
         {"name": "l", "image": "i", "resources": {"limits": []}}]}}}},
              "slotsPerWorker": "x", "runPolicy": {"backoffLimit": "3"}}},
])
def test_hostile_input_gives_a_world_or_a_value_error(job: Any) -> None:
    try:
        world = legacy.world(job)
    except ValueError:
        return
    assert isinstance(world, World)
    outcome = run(job, *(Event(p.identity, "exit", 1, times=2) for p in world.pods))
    assert outcome.phase in ("Running", "Succeeded", "Failed", "Suspended")


def test_hostile_scenarios_are_harmless() -> None:
    outcome = legacy.outcome(pytorch(), Scenario("odd", (
        Event("node-0", "exit", 1, times=-3), Event("", "evict"), Event("node-1", "exit", 0))))
    assert trail(outcome) == [("kept", "Running"), ("kept", "Running")]


def test_pytorch_service_ports_and_hpa() -> None:
    """pkg/core/service.go:94 (the framework container's ports), pytorch/hpa.go:36 and :93."""
    job = pytorch(workers=2, master=False, elasticPolicy={"maxReplicas": 4, "metrics": [
        {"type": "Resource"}]})
    world = legacy.world(job)
    assert world.extras["serviceSpecs"][1]["ports"] == [{"name": "pytorchjob-port",
                                                         "port": 23456}]
    assert world.extras["serviceSpecs"][1]["selector"][
        "training.kubeflow.org/replica-index"] == "1"
    assert world.extras["hpa"] == {"name": "pt", "minReplicas": 4, "maxReplicas": 4,
                                   "metrics": [{"type": "Resource"}]}
    assert "hpa" not in legacy.world(pytorch()).extras


def test_unknown_event_actions_and_codes_are_harmless() -> None:
    outcome = legacy.outcome(pytorch(), Scenario("odd", (
        Event("node-0", "explode"),  # type: ignore[arg-type]
        Event("node-0", "exit", "1"),  # type: ignore[arg-type]
    )))
    assert trail(outcome) == [("kept", "Running"), ("kept", "Running")]


def test_mpi_v2_managed_elsewhere_is_not_validated() -> None:
    """mpi_job_controller.go:598 skips the job before validating it (:608)."""
    job = mpi_v2(runPolicy={"managedBy": "example.com/other"})
    job["spec"]["mpiReplicaSpecs"]["Worker"].pop("replicas")
    world = legacy.world(job)
    assert world.pods == ()
    assert world.extras["managedBy"] == "example.com/other"


def test_exit_code_retries_forever_under_a_positive_backoff_limit() -> None:
    """common/pod.go:352 recreates a pod that failed with a retryable code; core/job.go:115
    counts only restarts of running pods (a recreated pod has none) and common/job.go:197
    needs work-queue requeues: backoffLimit 2 never stops the retries."""
    job = pytorch(runPolicy={"backoffLimit": 2})
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["restartPolicy"] = "ExitCode"
    assert trail(run(job, Event("node-2", "exit", 137, times=5))) == [("recreated", "Running")] * 5


def test_pod_group_details() -> None:
    """training-operator common/job.go:252-272; mpi-operator podgroup.go:115, :245, :407."""
    job = pytorch(runPolicy={"schedulingPolicy": {"queue": "q", "priorityClass": "high"}})
    assert legacy.world(job, gang_scheduler="volcano").extras["podGroup"] == {
        "kind": "volcano", "name": "pt", "minMember": 3, "queue": "q",
        "priorityClassName": "high"}
    plugins = legacy.world(pytorch(), gang_scheduler="my-scheduler")
    assert plugins.extras["podGroup"]["scheduleTimeoutSeconds"] is None
    assert {p.spec["schedulerName"] for p in plugins.pods} == {"my-scheduler"}
    assert {p.labels["scheduling.x-k8s.io/pod-group"] for p in plugins.pods} == {"pt"}
    mpi = mpi_v2()
    mpi["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["priorityClassName"] = "w"
    group = legacy.world(mpi, gang_scheduler="volcano").extras["podGroup"]
    assert (group["minMember"], group["queue"], group["priorityClassName"]) == (3, "", "w")
    assert legacy.world(mpi_v2(), gang_scheduler="sp").extras["podGroup"][
        "scheduleTimeoutSeconds"] == 0


def _tf_restart_everywhere(job: dict[str, Any]) -> dict[str, Any]:
    for spec in job["spec"]["tfReplicaSpecs"].values():
        spec["restartPolicy"] = "ExitCode"
    return job


@pytest.mark.parametrize(("case", "job", "events", "phase"), [
    ("Chief worker is succeeded", tfjob(1, chief=1),
     [Event("node-1", "exit", 0), Event("node-0", "exit", 0)], "Succeeded"),
    ("Chief worker is failed", tfjob(1, chief=1), [Event("node-0", "exit", 1)], "Failed"),
    ("(No chief worker) Worker is failed", tfjob(1), [Event("node-0", "exit", 1)], "Failed"),
    ("(No chief worker) Worker is succeeded", tfjob(1), [Event("node-0", "exit", 0)],
     "Succeeded"),
    ("(No chief worker) worker-0 are succeeded, 3 workers are active", tfjob(4, 2),
     [Event("node-0", "exit", 0)], "Succeeded"),
    ("(No chief worker, successPolicy: AllWorkers) worker-0 are succeeded, 3 workers are active",
     tfjob(4, successPolicy="AllWorkers"), [Event("node-0", "exit", 0)], "Running"),
    ("(No chief worker, successPolicy: AllWorkers) 4 workers are succeeded",
     tfjob(4, successPolicy="AllWorkers"),
     [Event(f"node-{i}", "exit", 0) for i in (1, 2, 3, 0)], "Succeeded"),
    ("Chief is running, a PS is failed", tfjob(4, 2, chief=1), [Event("ps-1", "exit", 1)],
     "Failed"),
    ("Chief is failed and restarting", _tf_restart_everywhere(tfjob(4, 2, chief=1)),
     [Event("node-0", "exit", 130)], "Running"),
])
def test_tf_status_cases_mirror_upstream(case: str, job: dict[str, Any], events: list[Event],
                                         phase: str) -> None:
    """Mirrors "should update TFJob with desired status" (pkg/controller.v1/tensorflow/
    status_test.go@v1.9.2), each case's pods reached by events in order; "restarting" is
    Running here (the job's phase), with the pod recreated."""
    outcome = run(job, *events)
    assert outcome.phase == phase, case
    if case == "Chief is failed and restarting":
        assert trail(outcome) == [("recreated", "Running")]


def test_mpi_v2_hostfile_mirrors_upstream_new_config_map() -> None:
    """Mirrors TestNewConfigMap "OpenMPI without slots, enable launcher as worker" and "...,
    zero explicit workers" (pkg/controller/mpi_job_controller_test.go@v0.8.0), without a
    cluster domain; a job without a Worker spec is valid (validation.go:138)."""
    job = mpi_v2(workers=2, runLauncherAsWorker=True)
    job["metadata"] = {"name": "openmpi-without-slots", "namespace": "tenant-a"}
    assert legacy.world(job).extras["configMap"] == {
        "name": "openmpi-without-slots-config",
        "hostfile": "openmpi-without-slots-launcher.openmpi-without-slots.tenant-a.svc slots=1\n"
                    "openmpi-without-slots-worker-0.openmpi-without-slots.tenant-a.svc slots=1\n"
                    "openmpi-without-slots-worker-1.openmpi-without-slots.tenant-a.svc slots=1\n"}
    del job["spec"]["mpiReplicaSpecs"]["Worker"]
    world = legacy.world(job)
    assert world.extras["configMap"]["hostfile"] == (
        "openmpi-without-slots-launcher.openmpi-without-slots.tenant-a.svc slots=1\n")
    assert [pod.identity for pod in world.pods] == ["launcher-0"]


def test_cleanup_after_the_job_finishes() -> None:
    """training-operator common/job.go:49-57 (cleanPodPolicy; a backoff failure deletes every
    pod itself); mpi-operator mpi_job_controller.go:625 (needs a completionTime, which an
    eviction does not set) and :1075 — the cleanPodPolicy All case mirrors TestShutdownWorker
    (pkg/controller/mpi_job_controller_test.go@v0.8.0: every worker deleted after the launcher
    Job completes); MPIJob v1 runPolicy over spec.cleanPodPolicy (:163)."""
    assert "cleanPodPolicy None: every pod stays" in run(
        pytorch(), Event("node-0", "exit", 0)).why
    running = run(pytorch(runPolicy={"cleanPodPolicy": "Running"}), Event("node-0", "exit", 0))
    assert "deletes the running pods (node-1, node-2)" in running.why
    backoff = run(pytorch(runPolicy={"backoffLimit": 0, "cleanPodPolicy": "None"}),
                  Event("node-1", "exit", 1))
    assert "deletes every pod" in backoff.why
    assert "cleanPodPolicy" not in backoff.why
    assert "keep running" in run(mpi_v2(), Event("node-0", "evict")).why
    assert "deletes every worker pod" in run(mpi_v2(runPolicy={"cleanPodPolicy": "All"}),
                                             Event("launcher-0", "exit", 0)).why
    assert "cleanPodPolicy All" in run(mpi_v1(cleanPodPolicy="All"),
                                       Event("launcher-0", "exit", 0)).why


def test_sizes_beyond_the_simulation_are_refused_not_attempted() -> None:
    with pytest.raises(Rejected, match="at most 10000 pods"):
        legacy.world(pytorch(workers=2_000_000_000))
    with pytest.raises(Rejected, match="at most 10000 pods"):
        legacy.world(mpi_v2(workers=10**9))
    with pytest.raises(Rejected, match="event occurrences"):
        run(pytorch(), Event("node-0", "exit", 1, times=10**9))
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(5000):
        node["x"] = {}
        node = node["x"]
    job = pytorch()
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["metadata"] = deep
    with pytest.raises(ValueError, match="nests too deeply"):
        legacy.world(job)


def test_suspended_jobs_get_no_pod_group() -> None:
    """training-operator common/job.go:146 returns before :250; mpi-operator
    mpi_job_controller.go:665 guards the PodGroup and the workers."""
    assert "podGroup" not in legacy.world(pytorch(runPolicy={"suspend": True}),
                                          gang_scheduler="volcano").extras
    assert "podGroup" not in legacy.world(mpi_v2(runPolicy={"suspend": True}),
                                          gang_scheduler="volcano").extras


def test_tf_sparse_cluster_spec() -> None:
    """tensorflow.go:74-83 and :126: enableDynamicWorker sends each worker only itself and the
    PS list (null without PS: a nil slice), each PS only itself."""
    world = legacy.world(tfjob(2, 2, enableDynamicWorker=True))
    assert json.loads(env(world.pod("node-1"), "TF_CONFIG") or "") == {
        "cluster": {"worker": {"1": "test-tfjob-worker-1.ns.svc:2222"},
                    "ps": ["test-tfjob-ps-0.ns.svc:2222", "test-tfjob-ps-1.ns.svc:2222"]},
        "task": {"type": "worker", "index": 1}}
    assert json.loads(env(world.pod("ps-1"), "TF_CONFIG") or "")["cluster"] == {
        "worker": {}, "ps": ["test-tfjob-ps-1.ns.svc:2222"]}
    alone = legacy.world(tfjob(2, enableDynamicWorker=True))
    assert env(alone.pod("node-0"), "TF_CONFIG") == (
        '{"cluster":{"worker":{"0":"test-tfjob-worker-0.ns.svc:2222"},"ps":null},'
        '"task":{"type":"worker","index":0}}')


def test_service_names_past_63_characters_are_refused() -> None:
    """common/service.go:243 names each headless service <job>-<rtype>-<i>; the webhook checks
    only the job name, the API server refuses a longer service name."""
    job = pytorch(workers=10)
    job["metadata"]["name"] = "a" * 55
    with pytest.raises(Rejected, match="worker-9' is not a DNS-1035 label"):
        legacy.world(job)
    job["metadata"]["name"] = "a" * 54
    assert len(legacy.world(job).pods) == 11


def _ported(job: dict[str, Any], port: int) -> dict[str, Any]:
    for spec in job["spec"]["pytorchReplicaSpecs"].values():
        spec["template"]["spec"]["containers"][0]["ports"] = [
            {"name": "pytorchjob-port", "containerPort": port, "protocol": "TCP"}]
    return job


def test_pytorch_envtest_resources_mirror_upstream() -> None:
    """Mirrors "Should get the corresponding resources successfully", both the plain and the
    elastic PyTorchJob (pkg/controller.v1/pytorch/pytorchjob_controller_test.go@v1.9.2):
    MASTER_PORT is the master service's port, MASTER_ADDR its name, PET_NPROC_PER_NODE auto;
    elastic PET_RDZV_BACKEND c10d, PET_NNODES 1:3, PET_RDZV_ENDPOINT <worker-0 service>:port,
    PET_MAX_RESTARTS; an HPA for the metrics."""
    world = legacy.world(_ported(pytorch(workers=2), 8080))
    master = world.pod("node-0")
    service = world.extras["serviceSpecs"][0]
    assert service["name"] == "pt-master-0"
    assert service["ports"] == [{"name": "pytorchjob-port", "port": 8080}]
    assert env(master, "MASTER_PORT") == "8080"
    assert env(master, "MASTER_ADDR") == service["name"]
    assert env(master, "PET_NPROC_PER_NODE") == "auto"
    elastic = _ported(pytorch(workers=1, master=False, elasticPolicy={
        "rdzvBackend": "c10d", "minReplicas": 1, "maxReplicas": 3, "maxRestarts": 3,
        "metrics": [{"type": "Resource"}]}), 8080)
    world = legacy.world(elastic)
    worker = world.pod("node-0")
    assert (env(worker, "PET_RDZV_BACKEND"), env(worker, "PET_NNODES"),
            env(worker, "PET_RDZV_ENDPOINT"), env(worker, "PET_MAX_RESTARTS")) == (
        "c10d", "1:3", "pt-worker-0:8080", "3")
    assert world.extras["serviceSpecs"][0]["ports"] == [{"name": "pytorchjob-port", "port": 8080}]
    assert world.extras["hpa"]["maxReplicas"] == 3
