"""Issue 28, "no silent behaviour change": each class pinned by a test written from the upstream
controllers' source (the file and line each test relies on is cited next to it)."""

from __future__ import annotations

import textwrap

import pytest

from tests.fidelity.helpers import codes, convert, finding, objects

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
                command: [torchrun, --nproc-per-node=1, t.py]
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


# 3. Processes per node on CPU --------------------------------------------------------------
# Legacy: nprocPerNode defaults to "auto" (kubeflow/trainer@v1.9.2
# pkg/apis/kubeflow.org/v1/pytorch_defaults.go:23,68-71) and reaches torchrun as
# PET_NPROC_PER_NODE (pkg/controller.v1/pytorch/envvar.go:99-102); torchrun's auto and cpu
# start os.cpu_count() processes: the node's CPUs. Trainer: without a GPU, "auto" becomes
# max(1, the container's CPU request, else limit) (kubeflow/trainer@v2.2.0
# pkg/runtime/framework/plugins/torch/torch.go:110-114,184-196; v2.3.0 :133-134,228).

CPU_TORCH = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: cpu, namespace: ns}
    spec:
      NPROC
      pytorchReplicaSpecs:
        Worker:
          replicas: 2
          template:
            spec:
              containers:
              - name: pytorch
                image: img:1
                command: [torchrun, t.py]
                RESOURCES
    """)


def _cpu(nproc: str, resources: str) -> str:
    return (CPU_TORCH.replace("NPROC", nproc or "# default nprocPerNode")
            .replace("RESOURCES", resources or "# no resources"))


@pytest.mark.parametrize("nproc", ["", "nprocPerNode: auto", "nprocPerNode: cpu"])
def test_cpu_processes_follow_the_container_not_the_node(nproc: str) -> None:
    doc = convert(_cpu(nproc, "resources: {requests: {cpu: 4}}"), allow_lossy=True)
    hit = finding(doc, "F505")
    # an error: 4 processes a node where torchrun started os.cpu_count(), so the world size
    # and global batch change (the job computes something else)
    assert hit.severity.value == "error"
    assert "4" in hit.message


@pytest.mark.parametrize("nproc", ["", "nprocPerNode: auto", "nprocPerNode: cpu"])
def test_cpu_processes_without_cpu_resources_drop_to_one_per_node(nproc: str) -> None:
    doc = convert(_cpu(nproc, ""))
    hit = finding(doc, "F530")
    # an error, as F505: torchrun started os.cpu_count() processes a node (kubeflow/trainer@v1.9.2
    # pkg/apis/kubeflow.org/v1/pytorch_defaults.go:23), Trainer starts 1 (kubeflow/trainer@v2.2.0
    # pkg/runtime/framework/plugins/torch/torch.go:110-114): the world size drops to the node
    # count, so the job computes something else and stays legacy without --allow-lossy
    assert hit.severity.value == "error"
    assert doc.status != "converted"
    assert "Trainer starts 1" in hit.message


@pytest.mark.parametrize("nproc", ["", "nprocPerNode: auto"])
def test_auto_with_a_gpu_is_the_same_on_both_sides(nproc: str) -> None:
    doc = convert(_cpu(nproc, "resources: {limits: {nvidia.com/gpu: 2, cpu: 8}}"))
    assert doc.status == "converted"
    assert "F505" not in codes(doc)
    assert "F530" not in codes(doc)


def test_an_explicit_count_is_the_same_on_both_sides() -> None:
    doc = convert(_cpu("nprocPerNode: \"3\"", ""))
    assert doc.status == "converted"
    assert "F505" not in codes(doc)
    assert "F530" not in codes(doc)


# 4. Success rules --------------------------------------------------------------------------
# Legacy (kubeflow/trainer@v1.9.2): a PyTorchJob with a Master succeeds when the Master does,
# a Worker-only one when every worker does, or any worker with an elasticPolicy
# (pkg/controller.v1/pytorch/pytorchjob_controller.go:382-417); an XGBoostJob when the Master
# does (pkg/controller.v1/xgboost/xgboostjob_controller.go:370-389); a TFJob when the Chief (or
# Master) does, else when worker 0 does unless successPolicy is AllWorkers
# (pkg/controller.v1/tensorflow/tfjob_controller.go:444-467). Trainer's JobSet defaults to
# successPolicy All over every replicated Job (kubernetes-sigs/jobset@v0.11.1
# pkg/webhooks/jobset_webhook.go:118-121), and an Indexed Job needs every completion unless its
# own successPolicy says otherwise (the Job API; kubeflow/trainer@v2.2.0
# manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml:721-780).

MASTER_TORCH = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: mt, namespace: ns}
    spec:
      ELASTIC
      pytorchReplicaSpecs:
        MASTER
        Worker:
          replicas: 3
          template:
            spec:
              containers:
              - name: pytorch
                image: img:1
                command: [torchrun, --nproc-per-node=1, t.py]
    """)
MASTER = textwrap.indent(textwrap.dedent("""\
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: [torchrun, --nproc-per-node=1, t.py]
    """), "    ").strip()


def _master(master: bool = True, elastic: str = "") -> str:
    return (MASTER_TORCH.replace("MASTER", MASTER if master else "# no Master")
            .replace("ELASTIC", elastic or "# not elastic"))


def test_master_success_rule_is_reported_on_a_builtin_runtime() -> None:
    hit = finding(convert(_master()), "F531")
    assert hit.severity.value == "warning"
    assert hit.path.startswith("spec.pytorchReplicaSpecs.Master")


def test_master_success_rule_is_carried_by_a_companion() -> None:
    doc = convert(_master(), companion_runtimes=True)
    job = _job(objects(doc)["TrainingRuntime"], "node")
    assert job["successPolicy"] == {"rules": [{"succeededIndexes": "0"}]}
    assert "F531" not in codes(doc)


def test_worker_only_pytorchjob_succeeds_the_same_way() -> None:
    doc = convert(_master(master=False))
    assert doc.status == "converted"
    assert "F531" not in codes(doc)
    runtime = objects(convert(_master(master=False), companion_runtimes=True))
    assert "successPolicy" not in _job(runtime["TrainingRuntime"], "node")


def test_worker_only_elastic_job_succeeded_when_any_worker_did() -> None:
    elastic = "elasticPolicy: {minReplicas: 3, maxReplicas: 3}"
    assert "F531" in codes(convert(_master(master=False, elastic=elastic)))
    doc = convert(_master(master=False, elastic=elastic), companion_runtimes=True)
    job = _job(objects(doc)["TrainingRuntime"], "node")
    assert job["successPolicy"] == {"rules": [{"succeededCount": 1}]}


TF = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: TFJob
    metadata: {name: tf, namespace: ns}
    spec:
      POLICY
      tfReplicaSpecs:
        CHIEF
        Worker:
          replicas: 2
          template:
            spec:
              containers:
              - name: tensorflow
                image: tf:1
                command: [python, t.py]
    """)
CHIEF = textwrap.indent(textwrap.dedent("""\
    Chief:
      replicas: 1
      template:
        spec:
          containers:
          - name: tensorflow
            image: tf:1
            command: [python, t.py]
    """), "    ").strip()


@pytest.mark.parametrize("chief", [True, False])
def test_tf_chief_or_worker_zero_decides_in_the_companion(chief: bool) -> None:
    text = TF.replace("CHIEF", CHIEF if chief else "# no chief").replace("POLICY", "# default")
    doc = convert(text, companion_runtimes=True)
    job = _job(objects(doc)["TrainingRuntime"], "node")
    assert job["successPolicy"] == {"rules": [{"succeededIndexes": "0"}]}
    assert "F513" not in codes(doc)


def test_tf_all_workers_without_chief_is_the_same_and_not_reported() -> None:
    text = TF.replace("CHIEF", "# no chief").replace("POLICY", "successPolicy: AllWorkers")
    doc = convert(text, companion_runtimes=True)
    assert "F513" not in codes(doc)
    assert "successPolicy" not in _job(objects(doc)["TrainingRuntime"], "node")


def test_tf_all_workers_with_a_chief_still_follows_the_chief() -> None:
    text = TF.replace("CHIEF", CHIEF).replace("POLICY", "successPolicy: AllWorkers")
    doc = convert(text, companion_runtimes=True)
    job = _job(objects(doc)["TrainingRuntime"], "node")
    assert job["successPolicy"] == {"rules": [{"succeededIndexes": "0"}]}


# 6. schedulingPolicy.priorityClass ---------------------------------------------------------
# kubeflow/trainer@v1.9.2 pkg/controller.v1/common/job.go:250-295: priorityClass went only to
# the gang scheduler's PodGroup (and only when the operator ran with --gang-scheduler-name,
# cmd/training-operator.v1/main.go:96); the pods never got a priorityClassName.


@pytest.mark.parametrize("companion", [True, False])
def test_priority_class_is_not_put_on_the_pods(companion: bool) -> None:
    text = _torch(run_policy="runPolicy: {schedulingPolicy: {priorityClass: high}}")
    doc = convert(text, companion_runtimes=companion)
    for item in objects(doc)["TrainJob" if not companion else "TrainingRuntime"]["spec"] \
            .get("template", {}).get("spec", {}).get("replicatedJobs", []):
        assert "priorityClassName" not in item["template"]["spec"]["template"]["spec"]
    assert "priorityClassName" not in doc.text
    hit = finding(doc, "R205")
    assert hit.path == "spec.runPolicy.schedulingPolicy.priorityClass"


# 7. Env in other containers ----------------------------------------------------------------
# The PyTorch operator appended MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK to every
# container of a job with a Master (kubeflow/trainer@v1.9.2 pkg/controller.v1/pytorch/
# envvar.go:49-128, a loop over podTemplateSpec.Spec.Containers); Trainer's torch plugin sets
# its env in the `node` container only (kubeflow/trainer@v2.2.0
# pkg/runtime/framework/plugins/torch/torch.go:116-119, FindContainerByPodSetAncestorContainerName
# with constants.Node).

SIDECAR = textwrap.dedent("""\
              - name: reporter
                image: busybox
                COMMAND
    """)


def _with_sidecar(command: str) -> str:
    sidecar = textwrap.indent(SIDECAR.replace("COMMAND", command or "# image entrypoint"),
                              " " * 10)
    return _master() + sidecar


def test_a_sidecar_reading_the_legacy_env_is_an_error() -> None:
    doc = convert(_with_sidecar('command: [sh, -c, "echo $MASTER_ADDR $RANK"]'),
                  companion_runtimes=True, allow_lossy=True)  # P306: a Worker-only sidecar
    hit = finding(doc, "C412")
    assert hit.severity.value == "error"
    assert "MASTER_ADDR" in hit.message
    assert "reporter" in hit.path


def test_a_sidecar_running_its_entrypoint_is_a_warning() -> None:
    doc = convert(_with_sidecar(""), companion_runtimes=True, allow_lossy=True)
    assert finding(doc, "C413").severity.value == "warning"
    assert "C412" not in codes(doc)


def test_a_sidecar_not_reading_the_env_is_not_reported() -> None:
    doc = convert(_with_sidecar("command: [sleep, infinity]"), companion_runtimes=True,
                  allow_lossy=True)
    assert doc.text.startswith("apiVersion: trainer.kubeflow.org")
    assert "C412" not in codes(doc)
    assert "C413" not in codes(doc)


def test_worker_only_jobs_had_no_master_env_in_sidecars() -> None:
    text = _master(master=False) + textwrap.indent(
        SIDECAR.replace("COMMAND", 'command: [sh, -c, "echo $MASTER_ADDR"]'), " " * 10)
    doc = convert(text, companion_runtimes=True, allow_lossy=True)
    assert doc.text.startswith("apiVersion: trainer.kubeflow.org")
    assert "C412" not in codes(doc)


# 9. Severities and a false alarm -----------------------------------------------------------


def test_env_from_dropped_is_an_error() -> None:
    text = _torch().replace("command: [torchrun, --nproc-per-node=1, t.py]",
                            "command: [torchrun, --nproc-per-node=1, t.py]\n"
                            "            envFrom: [{secretRef: {name: creds}}]")
    assert finding(convert(text, allow_lossy=True), "C402").severity.value == "error"


def test_legacy_env_in_the_launch_command_is_an_error() -> None:
    text = _master().replace("command: [torchrun, --nproc-per-node=1, t.py]",
                             'command: [python, t.py, --rank, "$(RANK)"]')
    hit = finding(convert(text, allow_lossy=True), "C410")
    assert hit.severity.value == "error"


def test_operator_env_a_companion_sets_is_not_a_legacy_reference() -> None:
    # mpi-operator@v0.8.0 set K_MPI_JOB_ROLE; the companion sets it literally (F529)
    text = MPI.replace("RLAW", "false").replace(
        "command: [mpirun, -n, \"8\", /pi]",
        "command: [mpirun, -n, \"8\", /pi]\n            env: [{name: R, value: "
        "\"$(K_MPI_JOB_ROLE)\"}]")
    doc = convert(text, companion_runtimes=True)
    assert doc.status == "converted"
    assert "C410" not in codes(doc)


def test_multikueue_on_22_runs_twice_and_is_an_error() -> None:
    # kubeflow/trainer@v2.2.0 pkg/controller/trainjob_controller.go has no managedBy check;
    # v2.3.0 skips such TrainJobs (pkg/controller/trainjob_controller.go:89-90)
    text = _torch(run_policy="runPolicy: {managedBy: kueue.x-k8s.io/multikueue}")
    assert finding(convert(text, allow_lossy=True, target="2.2"),
                   "R208").severity.value == "error"
    on_23 = convert(text, target="2.3")
    assert on_23.status == "converted"
    assert "R208" not in codes(on_23)


def test_no_f506_for_a_worker_only_pytorchjob() -> None:
    # kubeflow/trainer@v1.9.2 pkg/controller.v1/pytorch/envvar.go:49-128 sets MASTER_ADDR,
    # WORLD_SIZE and RANK only when the job has a Master
    plain = "command: [python, t.py]"
    worker_only = _master(master=False).replace(
        "command: [torchrun, --nproc-per-node=1, t.py]", plain)
    doc = convert(worker_only)
    assert doc.status == "converted"
    assert "F506" not in codes(doc)
    with_master = _master().replace("command: [torchrun, --nproc-per-node=1, t.py]", plain)
    assert "F506" in codes(convert(with_master))


# 8. Ports and TF details -------------------------------------------------------------------
# TF_CONFIG (kubeflow/trainer@v1.9.2): the port is the `tensorflow` container's port named
# tfjob-port, else 2222 (pkg/controller.v1/tensorflow/util.go:24-37); a job with one replica in
# all gets no TF_CONFIG (util.go:74-94, tfjob_controller.go:561-564); TF_CONFIG goes to the
# `tensorflow` container only (tfjob_controller.go:575-586).

ONE_TF = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: TFJob
    metadata: {name: tf, namespace: ns}
    spec:
      tfReplicaSpecs:
        Worker:
          replicas: REPLICAS
          template:
            spec:
              containers:
              - name: tensorflow
                image: tf:1
                command: [python, t.py]
                PORTS
    """)


def test_single_replica_tfjob_gets_no_tf_config() -> None:
    doc = convert(ONE_TF.replace("REPLICAS", "1").replace("PORTS", "# no ports"),
                  companion_runtimes=True)
    trainjob = objects(doc)["TrainJob"]
    assert trainjob["spec"]["trainer"]["command"] == ["python", "t.py"]
    assert "TF_CONFIG" not in doc.text
    assert "F511" not in codes(doc)
    assert finding(doc, "F532").severity.value == "info"


def test_tf_config_uses_the_port_the_job_named() -> None:
    text = ONE_TF.replace("REPLICAS", "2").replace(
        "PORTS", "ports: [{name: tfjob-port, containerPort: 3333}]")
    doc = convert(text, companion_runtimes=True)
    script = objects(doc)["TrainJob"]["spec"]["trainer"]["command"][2]
    assert "tf-node-0-0.tf:3333" in script
    assert ":2222" not in script


# hostNetwork: Trainer's torch plugin adds container port 29500 to the node container
# (kubeflow/trainer@v2.2.0 pkg/runtime/framework/plugins/torch/torch.go:177,
# pkg/constants/constants.go:72); with hostNetwork that port is the node's. The PyTorch
# operator used the container's pytorchjob-port, default 23456 (v1.9.2
# pkg/controller.v1/pytorch/pytorchjob_controller.go GetPortFromPyTorchJob).


def test_host_network_reports_the_host_port_trainer_binds() -> None:
    text = _master().replace("        spec:\n          containers:",
                             "        spec:\n          hostNetwork: true\n          containers:")
    doc = convert(text, companion_runtimes=True)
    hit = finding(doc, "P312")
    assert hit.severity.value == "warning"
    assert "29500" in hit.message


# 5. Legacy identities ----------------------------------------------------------------------
# The legacy operators labelled their pods training.kubeflow.org/job-name, replica-type,
# replica-index, job-role (kubeflow/trainer@v1.9.2 pkg/controller.v1/common/pod.go and
# pkg/apis/kubeflow.org/v1/common_types.go); Trainer's pods carry JobSet's and Trainer's labels
# instead, so selectors on the legacy labels match nothing.

ANTI = """\
          affinity:
            podAntiAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
              - topologyKey: kubernetes.io/hostname
                labelSelector:
                  matchLabels: {training.kubeflow.org/job-name: mt}
          containers:"""
CO = """\
          affinity:
            podAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
              - topologyKey: kubernetes.io/hostname
                labelSelector:
                  matchExpressions:
                  - {key: training.kubeflow.org/replica-type, operator: In, values: [master]}
          containers:"""


def test_anti_affinity_on_legacy_labels_no_longer_spreads_the_pods() -> None:
    text = _master(master=False).replace("          containers:", ANTI)
    hit = finding(convert(text), "P313")
    assert hit.severity.value == "warning"
    assert "training.kubeflow.org/job-name" in hit.message


def test_required_affinity_on_legacy_labels_never_schedules() -> None:
    text = _master(master=False).replace("          containers:", CO)
    hit = finding(convert(text, allow_lossy=True), "P314")
    assert hit.severity.value == "error"


def test_a_sidecar_naming_the_legacy_master_host_is_an_error() -> None:
    doc = convert(_with_sidecar('command: [sh, -c, "ping mt-master-0"]'),
                  companion_runtimes=True, allow_lossy=True)
    assert "mt-master-N" in finding(doc, "C412").message


# Also from the issue: resourcesPerNode.claims. Trainer applies only the limits and requests of
# resourcesPerNode (kubeflow/trainer@v2.2.0 pkg/runtime/framework/plugins/jobset/builder.go:
# 148-158; v2.3.0 pkg/runtime/core/trainingruntime.go:222-231), so claims are ignored.


def test_resource_claims_are_not_written_where_trainer_ignores_them() -> None:
    text = _torch().replace(
        "command: [torchrun, --nproc-per-node=1, t.py]",
        "command: [torchrun, --nproc-per-node=1, t.py]\n"
        "            resources: {limits: {cpu: 2}, claims: [{name: gpu}]}")
    doc = convert(text, allow_lossy=True)
    resources = objects(doc)["TrainJob"]["spec"]["trainer"]["resourcesPerNode"]
    assert "claims" not in resources
    assert resources["limits"] == {"cpu": 2}
    hit = finding(doc, "C414")
    assert hit.severity.value == "error"


# Gang scheduling: the legacy operator, run with --gang-scheduler-name, also set each pod's
# schedulerName to that scheduler (kubeflow/trainer@v1.9.2 pkg/controller.v1/common/pod.go:
# 439-446); Trainer's coscheduling plugin creates the PodGroup only (v2.2.0
# pkg/runtime/framework/plugins/coscheduling/coscheduling.go sets no schedulerName).


def test_carried_gang_scheduling_warns_that_no_scheduler_name_is_set() -> None:
    text = _torch(run_policy="runPolicy: {schedulingPolicy: {scheduleTimeoutSeconds: 60}}")
    hit = finding(convert(text, companion_runtimes=True), "R217")
    assert hit.severity.value == "warning"
    assert "schedulerName" in hit.message


# A missing framework container: kubeflow/trainer@v1.9.2 rejected such a job
# (pkg/webhooks/pytorch/pytorchjob_webhook.go:144-150, and tensorflow, xgboost, jax,
# paddlepaddle alike: "must have at least one container with name ..."); it never ran, so the
# first container was never a fallback.


def test_a_job_without_the_framework_container_is_an_error() -> None:
    text = _torch().replace("- name: pytorch", "- name: trainer")
    hit = finding(convert(text, allow_lossy=True), "C415")
    assert hit.severity.value == "error"
    assert "C404" not in codes(convert(text, allow_lossy=True))


# A MultiKueue JAXJob ran locally: kubeflow/trainer@v1.9.2 pkg/controller.v1/jax/
# jaxjob_controller.go has no ManagedByExternalController check (the other kinds skip such
# jobs, e.g. pytorch/pytorchjob_controller.go:135), so the manager cluster ran it; the
# TrainJob on 2.3 is left to MultiKueue (kubeflow/trainer@v2.3.0
# pkg/controller/trainjob_controller.go:89-90).

JAX_MK = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: JAXJob
    metadata: {name: jx, namespace: ns}
    spec:
      runPolicy: {managedBy: kueue.x-k8s.io/multikueue}
      jaxReplicaSpecs:
        Worker:
          replicas: 2
          template:
            spec:
              containers:
              - name: jax
                image: jax:1
                command: [python, t.py]
    """)


def test_a_multikueue_jaxjob_ran_on_the_manager_cluster() -> None:
    hit = finding(convert(JAX_MK, target="2.3"), "R218")
    assert hit.severity.value == "warning"
    assert "R218" not in codes(convert(_torch(
        run_policy="runPolicy: {managedBy: kueue.x-k8s.io/multikueue}"), target="2.3"))


def test_a_legacy_host_name_in_the_command_is_a_warning_of_its_own() -> None:
    # the legacy Services were <job>-<role>-<index> (kubeflow/trainer@v1.9.2
    # pkg/controller.v1/common/service.go); TrainJob pods are <job>-node-0-<index>.<job>
    text = _master().replace("command: [torchrun, --nproc-per-node=1, t.py]",
                             "command: [torchrun, --nproc-per-node=1, "
                             "--rdzv-endpoint=mt-master-0, t.py]")
    doc = convert(text)
    hit = finding(doc, "C416")
    assert hit.severity.value == "warning"
    assert "mt-master-N" in hit.message
    assert "C410" not in codes(doc)
