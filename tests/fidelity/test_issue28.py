"""Issue 28, "no silent behaviour change": each class pinned by a test written from the upstream
controllers' source (the file and line each test relies on is cited next to it)."""

from __future__ import annotations

import textwrap

import pytest

from tests.fidelity.helpers import convert, finding, objects

MPI = textwrap.dedent("""\
    apiVersion: kubeflow.org/v2beta1
    kind: MPIJob
    metadata: {name: pi, namespace: ns}
    spec:
      slotsPerWorker: 2
      runLauncherAsWorker: RLAW
      mpiReplicaSpecs:
        Launcher:
          replicas: 1
          template:
            spec:
              containers:
              - name: launcher
                image: mpi:1
                command: [mpirun, -n, "8", /pi]
        Worker:
          replicas: 3
          template:
            spec:
              containers:
              - name: worker
                image: mpi:1
                command: [/usr/sbin/sshd, -De]
    """)


# 1. MPI companion runtimes start one launcher ----------------------------------------------
# kubeflow/trainer@v2.2.0 pkg/runtime/core/trainingruntime.go:171-176 (v2.3.0 :189-194): the
# replicated job labelled trainjob-ancestor-step: trainer gets count = the RUNTIME's
# mlPolicy.numNodes; only the MPI plugin (pkg/runtime/framework/plugins/mpi/mpi.go:104-110 at
# both tags) resizes the `node` pod set from the TrainJob's numNodes (minus one with
# runLauncherAsNode). So the launcher's count is the runtime's numNodes: it must be 1.


@pytest.mark.parametrize("as_worker", ["true", "false"])
@pytest.mark.parametrize("target", ["2.2", "2.3"])
def test_mpi_companion_runtime_sizes_the_launcher_job_to_one(as_worker: str,
                                                             target: str) -> None:
    doc = convert(MPI.replace("RLAW", as_worker), companion_runtimes=True, target=target)
    written = objects(doc)
    runtime, trainjob = written["TrainingRuntime"], written["TrainJob"]
    assert runtime["spec"]["mlPolicy"]["numNodes"] == 1
    # the node job is sized by the MPI plugin from the TrainJob: 3 workers (+ the launcher)
    nodes = 3 + (1 if as_worker == "true" else 0)
    assert trainjob["spec"]["trainer"]["numNodes"] == nodes
    assert runtime["spec"]["mlPolicy"]["mpi"]["runLauncherAsNode"] is (as_worker == "true")


# 2. Retry limits ---------------------------------------------------------------------------
# Legacy (kubeflow/trainer@v1.9.2, the training-operator): pkg/controller.v1/common/job.go:192
# applies a backoff limit only when runPolicy.backoffLimit is set (no limit otherwise), and
# pkg/controller.v1/pytorch/pytorchjob_controller.go:420-432 fails the job at the first failed
# pod of a replica with restartPolicy Never. mpi-operator@v0.8.0
# pkg/controller/mpi_job_controller.go:1543 runs the launcher as a batch Job whose backoffLimit
# is runPolicy.backoffLimit (unset: the Job default). Target: a Job's backoffLimit defaults to 6
# (kubeflow/trainer@v2.2.0 manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml:450,
# the Job API's field doc), and a JobSet without failurePolicy fails when one Job fails
# (kubernetes-sigs/jobset@v0.11.1 pkg/controllers/failure_policy.go:49-57).

TORCH = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: tj, namespace: ns}
    spec:
      RUNPOLICY
      pytorchReplicaSpecs:
        Worker:
          replicas: 2
          RESTART
          template:
            spec:
              containers:
              - name: pytorch
                image: img:1
                command: [torchrun, t.py]
    """)


def _torch(restart: str = "", run_policy: str = "") -> str:
    return (TORCH.replace("RESTART", restart or "# default restartPolicy")
            .replace("RUNPOLICY", run_policy or "# no runPolicy"))


def _job(runtime: dict[str, object], name: str) -> dict[str, object]:
    for item in runtime["spec"]["template"]["spec"]["replicatedJobs"]:  # type: ignore[index]
        if item["name"] == name:
            spec: dict[str, object] = item["template"]["spec"]
            return spec
    raise AssertionError(name)


def test_companion_never_fails_at_the_first_failed_pod() -> None:
    doc = convert(_torch("restartPolicy: Never"), companion_runtimes=True)
    job = _job(objects(doc)["TrainingRuntime"], "node")
    assert job["backoffLimit"] == 0
    assert job["template"]["spec"]["restartPolicy"] == "Never"  # type: ignore[index]


def test_companion_never_ignores_a_backoff_limit_as_the_legacy_operator_did() -> None:
    text = _torch("restartPolicy: Never", "runPolicy: {backoffLimit: 3}")
    job = _job(objects(convert(text, companion_runtimes=True))["TrainingRuntime"], "node")
    assert job["backoffLimit"] == 0


def test_companion_on_failure_without_a_limit_restarts_without_limit() -> None:
    job = _job(objects(convert(_torch(), companion_runtimes=True))["TrainingRuntime"], "node")
    assert job["backoffLimit"] == 2147483647


def test_companion_on_failure_keeps_the_given_limit() -> None:
    text = _torch(run_policy="runPolicy: {backoffLimit: 3}")
    job = _job(objects(convert(text, companion_runtimes=True))["TrainingRuntime"], "node")
    assert job["backoffLimit"] == 3


def test_companion_mpi_launcher_keeps_the_job_default_and_workers_fail_fast() -> None:
    doc = convert(MPI.replace("RLAW", "false"), companion_runtimes=True)
    runtime = objects(doc)["TrainingRuntime"]
    assert "backoffLimit" not in _job(runtime, "launcher")  # a Job then, a Job now: 6
    assert _job(runtime, "node")["backoffLimit"] == 0  # Worker default Never


def test_builtin_runtime_on_failure_without_limit_warns_about_six_retries() -> None:
    hit = finding(convert(_torch("restartPolicy: OnFailure")), "R214")
    assert hit.severity.value == "warning"
    assert "6" in hit.message
    assert "same way" not in hit.message


def test_builtin_runtime_never_is_a_warning() -> None:
    hit = finding(convert(_torch("restartPolicy: Never")), "R210")
    assert hit.severity.value == "warning"
    assert "first failed pod" in hit.message
