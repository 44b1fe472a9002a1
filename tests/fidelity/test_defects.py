"""The five behaviour defects of issue 15, each pinned by a test (public API and CLI only)."""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from migrator.cli import main
from tests.fidelity.helpers import codes, container, convert, finding, objects, pod

MPI_V2 = textwrap.dedent("""\
    apiVersion: kubeflow.org/v2beta1
    kind: MPIJob
    metadata: {name: pi, namespace: ns}
    spec:
      slotsPerWorker: 1
      mpiReplicaSpecs:
        Launcher:
          replicas: 1
          template:
            spec:
              initContainers:
              - name: wait-hosts
                image: busybox
                command: [sh, -c, /etc/mpi/discover_hosts.sh]
                volumeMounts:
                - {name: mpi-job-config, mountPath: /etc/mpi}
                - {name: ssh-auth, mountPath: /root/.ssh}
              containers:
              - name: launcher
                image: mpi:1
                command: [mpirun, -n, "2", /pi]
        Worker:
          replicas: 2
          template:
            spec:
              containers:
              - name: worker
                image: mpi:1
    """)

MPI_V1 = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: MPIJob
    metadata: {name: hvd, namespace: ns}
    spec:
      slotsPerWorker: 1
      mpiReplicaSpecs:
        Launcher:
          replicas: 1
          template:
            spec:
              containers:
              - name: launcher
                image: hvd:1
                command: [mpirun, -np, "2", --mca, plm_rsh_agent, /etc/mpi/kubexec.sh, python, t.py]
        Worker:
          replicas: 2
          template:
            spec:
              containers:
              - name: worker
                image: hvd:1
    """)


# 1. MPI workers lose sshd ---------------------------------------------------------------


def test_mpi_v2beta1_worker_without_command_runs_sshd_in_the_companion() -> None:
    doc = convert(MPI_V2, companion_runtimes=True)
    assert doc.status == "converted"
    node = container(pod(objects(doc)["TrainingRuntime"], "node"))
    assert node["command"] == ["/usr/sbin/sshd", "-De"]
    assert "args" not in node
    carried = finding(doc, "F524")
    assert carried.severity.value == "info"
    assert carried.path.startswith("spec.mpiReplicaSpecs.Worker")


def test_mpi_v2beta1_worker_with_args_keeps_the_image_entrypoint() -> None:
    text = MPI_V2.rstrip("\n") + "\n            args: [--serve]\n"
    doc = convert(text, companion_runtimes=True)
    node = container(pod(objects(doc)["TrainingRuntime"], "node"))
    assert "command" not in node  # mpi-operator only sets sshd when command and args are empty
    assert node["args"] == ["--serve"]
    assert "F524" not in codes(doc)


def test_mpi_v1_worker_sleep_is_replaced_by_sshd_with_a_warning() -> None:
    doc = convert(MPI_V1, companion_runtimes=True)
    node = container(pod(objects(doc)["TrainingRuntime"], "node"))
    assert node["command"] == ["/usr/sbin/sshd", "-De"]
    replaced = finding(doc, "F525")
    assert replaced.severity.value == "warning"
    assert "sleep 365d" in replaced.message


def test_mpi_worker_without_command_on_a_configured_runtime_is_reported() -> None:
    doc = convert(MPI_V2, runtime="my-mpi", runtime_kind="TrainingRuntime")
    assert "F524" in codes(doc) or "F519" in codes(doc)


# 2. mpi-operator's own volumes -------------------------------------------------------------


def test_mpi_operator_volume_names_are_mapped_to_trainer_names() -> None:
    doc = convert(MPI_V2, companion_runtimes=True)
    init = container(pod(objects(doc)["TrainingRuntime"], "launcher"), "wait-hosts",
                     "initContainers")
    assert {m["name"] for m in init["volumeMounts"]} == {"mpi-hostfile", "mpi-ssh-auth"}
    assert "F526" in codes(doc)


def test_discover_hosts_script_reference_is_a_warning() -> None:
    doc = convert(MPI_V2, companion_runtimes=True)
    hit = [f for f in doc.findings if f.code == "F526" and "discover_hosts.sh" in f.message]
    assert hit
    assert hit[0].severity.value == "warning"
    assert "initContainers" in hit[0].path


def test_kubexec_reference_of_a_v1_launcher_is_a_warning() -> None:
    doc = convert(MPI_V1, companion_runtimes=True)
    hit = [f for f in doc.findings if f.code == "F526" and "kubexec.sh" in f.message]
    assert hit
    assert hit[0].severity.value == "warning"


def test_mpi_ssh_mount_follows_a_custom_ssh_auth_mount_path() -> None:
    text = MPI_V2.replace("  slotsPerWorker: 1\n", "  slotsPerWorker: 1\n"
                          "  sshAuthMountPath: /home/mpiuser/.ssh\n")
    text = text.replace("mountPath: /root/.ssh", "mountPath: /home/mpiuser/.ssh")
    doc = convert(text, companion_runtimes=True)
    init = container(pod(objects(doc)["TrainingRuntime"], "launcher"), "wait-hosts",
                     "initContainers")
    assert {"name": "mpi-ssh-auth", "mountPath": "/home/mpiuser/.ssh"} in init["volumeMounts"]


# 3. Role merges: one rule ----------------------------------------------------------------

TORCH = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: roles}
    spec:
      nprocPerNode: "1"
      pytorchReplicaSpecs:
        Master:
          replicas: 1
          template:
            spec:
    MASTER_POD
              containers:
              - name: pytorch
                image: img:1
                command: [torchrun, t.py]
    MASTER_CONTAINERS
        Worker:
          replicas: 2
          template:
            spec:
    WORKER_POD
              containers:
              - name: pytorch
                image: img:1
                command: [torchrun, t.py]
    WORKER_CONTAINERS
    """)

SIDECAR = "          - {name: proxy, image: envoy:1}"
INIT = "          initContainers:\n          - {name: prep, image: busybox:1}"
HOST_NETWORK = "          hostNetwork: true"
PRIORITY = "          priorityClassName: high"


def _roles(master_pod: str = "", master_containers: str = "", worker_pod: str = "",
           worker_containers: str = "") -> str:
    text = TORCH
    for marker, value in (("MASTER_POD", master_pod), ("MASTER_CONTAINERS", master_containers),
                          ("WORKER_POD", worker_pod), ("WORKER_CONTAINERS", worker_containers)):
        text = text.replace(marker + "\n", value + "\n" if value else "")
    return text


DIFFERENCES = {
    "sidecar": {"containers": SIDECAR},
    "initContainer": {"pod": INIT},
    "hostNetwork": {"pod": HOST_NETWORK},
    "priorityClassName": {"pod": PRIORITY},
}


@pytest.mark.parametrize("companion", [False, True], ids=["builtin", "companion"])
@pytest.mark.parametrize("role", ["Master", "Worker"])
@pytest.mark.parametrize("what", sorted(DIFFERENCES))
def test_a_field_on_one_role_only_is_one_rule(what: str, role: str, companion: bool) -> None:
    """Whatever the field and whichever role has it, the other role's pods would change:
    P306 names the role whose pods change, in both modes."""
    extra = DIFFERENCES[what]
    prefix = role.lower()
    text = _roles(**{f"{prefix}_{key}": value for key, value in
                     {"pod": extra.get("pod", ""),
                      "containers": extra.get("containers", "")}.items()})
    doc = convert(text, companion_runtimes=companion)
    mismatch = [f for f in doc.findings if f.code == "P306"]
    assert mismatch, [(f.code, f.path) for f in doc.findings]
    assert all(f.severity.value == "error" for f in mismatch)
    assert doc.status == "failed"
    assert "P302" not in [f.code for f in doc.findings if f.path.startswith(
        "spec.pytorchReplicaSpecs.Master")] or not companion


def test_a_worker_only_sidecar_is_not_silently_put_on_rank_0() -> None:
    doc = convert(_roles(worker_containers=SIDECAR), companion_runtimes=True)
    paths = [f.path for f in doc.findings if f.code == "P306"]
    assert any("Master" in p for p in paths), paths


XGB = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: XGBoostJob
    metadata: {name: xgb}
    spec:
      xgbReplicaSpecs:
        Master:
          replicas: 1
          restartPolicy: Never
          template:
            spec:
              containers: [{name: xgboost, image: xgb:1}]
        Worker:
          replicas: 2
          restartPolicy: ExitCode
          template:
            spec:
              containers: [{name: xgboost, image: xgb:1}]
    """)


def test_a_master_restart_policy_that_differs_from_the_workers_is_reported() -> None:
    doc = convert(XGB, companion_runtimes=True)
    hit = finding(doc, "P311")
    assert hit.path == "spec.xgbReplicaSpecs.Master.restartPolicy"
    assert hit.severity.value == "warning"
    assert "podFailurePolicy" in hit.message


def test_equal_restart_policies_are_not_reported() -> None:
    doc = convert(XGB.replace("restartPolicy: Never", "restartPolicy: ExitCode"),
                  companion_runtimes=True)
    assert "P311" not in codes(doc)


# 4. Severities and texts -------------------------------------------------------------------

JAX = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: JAXJob
    metadata: {name: jx}
    spec:
      jaxReplicaSpecs:
        Worker:
          replicas: 2
          restartPolicy: OnFailure
          template:
            spec:
              containers:
              - name: jax
                image: jax:1
                imagePullPolicy: Always
                workingDir: /app
                readinessProbe: {exec: {command: ["true"]}}
    """)


def test_jax_contract_change_is_a_warning() -> None:
    assert finding(convert(JAX), "F510").severity.value == "warning"


def test_replica_restart_policy_on_failure_without_a_limit_is_a_warning() -> None:
    # issue 28: unlimited restarts before, 6 (the Job default) after: not "the same way"
    hit = finding(convert(JAX), "R214")
    assert hit.severity.value == "warning"
    assert hit.path == "spec.jaxReplicaSpecs.Worker.restartPolicy"


def test_c401_fix_text_fits_the_field() -> None:
    doc = convert(JAX)
    hints = {f.path.rsplit(".", 1)[-1]: f.hint for f in doc.findings if f.code == "C401"}
    assert set(hints) == {"imagePullPolicy", "workingDir", "readinessProbe"}
    assert "workingDir" not in hints["imagePullPolicy"]
    assert "workingDir" not in hints["readinessProbe"]
    assert "cd " in hints["workingDir"]


def test_p302_advises_companion_runtimes() -> None:
    doc = convert(_roles(master_containers=SIDECAR, worker_containers=SIDECAR))
    assert "--companion-runtimes" in finding(doc, "P302").hint


def test_f521_never_prints_empty_parentheses() -> None:
    text = MPI_V2.replace("  slotsPerWorker: 1\n", "  slotsPerWorker: 1\n"
                          "  sshAuthMountPath: /home/mpiuser/.ssh\n")
    doc = convert(text)
    assert "()" not in finding(doc, "F521").message


PADDLE = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: PaddleJob
    metadata: {name: pd}
    spec:
      paddleReplicaSpecs:
        Worker:
          replicas: 2
          template:
            spec:
              containers: [{name: paddle, image: paddle:1, command: [python, t.py]}]
    """)


def test_f515_names_trainer_env_with_a_companion() -> None:
    message = finding(convert(PADDLE, companion_runtimes=True), "F515").message
    assert "trainer.env" in message
    assert "companion runtime" not in message.split("trainer.env")[0] or "set" in message


def test_f515_does_not_claim_values_without_a_companion() -> None:
    message = finding(convert(PADDLE), "F515").message
    assert message.startswith("Trainer sets none of PADDLE_")


UPGRADE = textwrap.dedent("""\
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainJob
    metadata: {name: up}
    spec:
      runtimeRef: {name: RUNTIME}
      podTemplateOverrides:
      - targetJobs: [{name: node}]
        spec:
          containers:
          - name: node
            env: [{name: A, value: "1"}]
    """)


def test_t707_names_the_target_version() -> None:
    doc = convert(UPGRADE.replace("RUNTIME", "torch-distributed"), target="2.3")
    messages = [f.message for f in doc.findings if f.code == "T707"]
    assert messages
    assert all("2.2" not in m for m in messages)


def test_t707_says_mpi_trainer_env_reaches_the_launcher_only() -> None:
    doc = convert(UPGRADE.replace("RUNTIME", "deepspeed-distributed"))
    messages = " ".join(f.message for f in doc.findings if f.code == "T707")
    assert "launcher" in messages


OVERRIDE_POD_FIELDS = textwrap.dedent("""\
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainJob
    metadata: {name: up}
    spec:
      runtimeRef: {name: torch-distributed}
      podTemplateOverrides:
      - targetJobs: [{name: node}]
        spec:
          securityContext: {runAsUser: 1000, fsGroup: 2000}
          terminationGracePeriodSeconds: 30
          hostNetwork: true
    """)


@pytest.mark.parametrize("target", ["2.2", "2.3"])
def test_override_pod_fields_follow_the_targets_runtime_patches(target: str) -> None:
    """An override's pod securityContext is carried (every target's runtime patches take it);
    terminationGracePeriodSeconds only where the target's patches take it (2.3); hostNetwork
    nowhere. What is dropped is reported with T707."""
    doc = convert(OVERRIDE_POD_FIELDS, target=target)
    job = objects(doc)["TrainJob"]
    [patch] = job["spec"]["runtimePatches"]
    replicated = patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]
    pod_spec = next(j for j in replicated if j["name"] == "node")["template"]["spec"][
        "template"]["spec"]
    assert pod_spec["securityContext"] == {"runAsUser": 1000, "fsGroup": 2000}
    dropped = " ".join(f.message for f in doc.findings if f.code == "T707")
    assert "securityContext" not in dropped
    assert "'hostNetwork'" in dropped
    assert "hostNetwork" not in pod_spec
    if target == "2.3":
        assert pod_spec["terminationGracePeriodSeconds"] == 30
        assert "terminationGracePeriodSeconds" not in dropped
    else:
        assert "terminationGracePeriodSeconds" not in pod_spec
        assert "'terminationGracePeriodSeconds'" in dropped
    assert not [f for f in doc.findings if f.severity.value == "error"], doc.findings


# 5. Outputs the API server would reject --------------------------------------------------

POD_TEMPLATE_KIND = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: tk}
    spec:
      nprocPerNode: "1"
      pytorchReplicaSpecs:
        Worker:
          replicas: 2
          template:
            apiVersion: v1
            kind: PodTemplate
            spec:
              initContainers: [{name: prep, image: busybox:1}]
              containers: [{name: pytorch, image: img:1, command: [torchrun, t.py]}]
    """)


def test_pod_template_api_version_is_not_copied_into_a_companion() -> None:
    doc = convert(POD_TEMPLATE_KIND, companion_runtimes=True)
    template = pod(objects(doc)["TrainingRuntime"], "node")
    assert set(template) <= {"metadata", "spec"}
    dropped = {f.path for f in doc.findings if f.code == "U901"}
    assert dropped == {"spec.pytorchReplicaSpecs.Worker.template.apiVersion",
                       "spec.pytorchReplicaSpecs.Worker.template.kind"}


INT_ENV = MPI_V2.replace("            image: mpi:1\n            command: [mpirun",
                         "            image: mpi:1\n            env: [{name: N, value: 4}]\n"
                         "            command: [mpirun").replace(
    "          - name: worker\n            image: mpi:1",
    "          - name: worker\n            image: mpi:1\n            env: [{name: W, value: 2}]")


@pytest.mark.parametrize("companion", [False, True], ids=["builtin", "companion"])
def test_integer_env_values_are_written_as_strings(companion: bool) -> None:
    options = {"companion_runtimes": True} if companion else {"runtime": "my-mpi",
                                                              "runtime_kind": "TrainingRuntime"}
    doc = convert(INT_ENV, allow_lossy=True, **options)
    assert doc.status == "converted", [(f.code, f.path, f.message) for f in doc.findings]
    written = objects(doc)
    if companion:
        launcher = container(pod(written["TrainingRuntime"], "launcher"))
        assert {"name": "N", "value": "4"} in launcher["env"]
        worker = container(pod(written["TrainingRuntime"], "node"))
        assert {"name": "W", "value": "2"} in worker["env"]
    else:
        env = {e["name"]: e for e in written["TrainJob"]["spec"]["trainer"]["env"]}
        assert env["N"]["value"] == "4"
    assert "C411" in codes(doc)


NULL_ITEMS_RUNTIME = textwrap.dedent("""\
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainingRuntime
    metadata: {name: rt}
    spec:
      mlPolicy: {numNodes: 1, torch: {}}
      template:
        spec:
          replicatedJobs:
          - name: node
            template:
              metadata:
                labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
              spec:
                template:
                  spec:
                    containers:
                    - name: node
                      image: img
                      env: [null]
                    volumes: [null]
    """)


def _validate(tmp_path: object, text: str, *args: str) -> tuple[int, str]:
    from pathlib import Path

    path = Path(str(tmp_path)) / "obj.yaml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(path), *args])
    return result.exit_code, result.output


def test_validate_rejects_null_list_items_in_a_runtime(tmp_path: object) -> None:
    code, output = _validate(tmp_path, NULL_ITEMS_RUNTIME)
    assert code == 1, output
    assert "env[0]" in output
    assert "volumes[0]" in output


def test_validate_rejects_a_pod_template_field_the_crd_lacks(tmp_path: object) -> None:
    text = NULL_ITEMS_RUNTIME.replace("volumes: [null]", "hostNetwrk: true").replace(
        "env: [null]", "env: []")
    code, output = _validate(tmp_path, text)
    assert code == 1, output
    assert "hostNetwrk" in output


def test_validate_rejects_a_non_string_env_value_in_a_runtime(tmp_path: object) -> None:
    text = NULL_ITEMS_RUNTIME.replace("env: [null]", "env: [{name: A, value: 1}]").replace(
        "volumes: [null]", "volumes: []")
    code, output = _validate(tmp_path, text)
    assert code == 1, output


def test_validate_fails_closed_on_an_unknown_api_version(tmp_path: object) -> None:
    text = NULL_ITEMS_RUNTIME.replace("trainer.kubeflow.org/v1alpha1",
                                      "trainer.kubeflow.org/v1beta9")
    code, output = _validate(tmp_path, text)
    assert code == 1, output


def test_validate_fails_closed_without_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """A target the tool has no model for (a newer data file, a new kind) is never 'valid'."""
    from migrator.check import validate
    from migrator.knowledge import catalog

    loaded = catalog.load()
    monkeypatch.setattr(validate, "model_for", lambda version, kind: None)
    doc = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
           "metadata": {"name": "x"}, "spec": {"runtimeRef": {"name": "torch-distributed"}}}
    findings = validate.check(doc, loaded.target("2.2"), loaded.codes)
    assert [(f.code, f.severity.value) for f in findings] == [("V602", "error")]
