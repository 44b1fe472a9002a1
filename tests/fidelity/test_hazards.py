"""Version hazards: documented Trainer behaviour a migrated job can hit is reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.fidelity.helpers import codes, convert, finding

TORCH = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: hz, namespace: ns}
    spec:
      runPolicy: {ttlSecondsAfterFinished: 600}
      pytorchReplicaSpecs:
        Worker:
          replicas: 2
          template:
            spec:
              containers:
              - name: pytorch
                image: img:1
                command: [torchrun, t.py]
                resources: {limits: {cpu: 4}}
    """)

RUNTIME = textwrap.dedent("""\
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: ClusterTrainingRuntime
    metadata: {name: gpu-torch}
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
                      resources: {limits: {nvidia.com/gpu: 2}}
    """)


def test_a_companion_ttl_warns_about_the_recreate_loop() -> None:
    hit = finding(convert(TORCH, companion_runtimes=True), "R215")
    assert hit.severity.value == "warning"
    assert "3779" in hit.message


def test_no_ttl_no_loop_warning() -> None:
    text = TORCH.replace("  runPolicy: {ttlSecondsAfterFinished: 600}\n", "")
    assert "R215" not in codes(convert(text, companion_runtimes=True))


@pytest.mark.parametrize(("target", "effect"), [("2.2", "dropped"), ("2.3", "kept")])
def test_runtime_resources_replace_on_22_and_merge_on_23(tmp_path: Path, target: str,
                                                         effect: str) -> None:
    runtime = tmp_path / "runtime.yaml"
    runtime.write_text(RUNTIME, encoding="utf-8")
    doc = convert(TORCH, target=target, runtime="gpu-torch", runtime_files=(str(runtime),))
    hit = finding(doc, "R216")
    assert "limits.nvidia.com/gpu" in hit.message
    assert effect in hit.message


def test_no_resource_hazard_when_the_runtime_sets_none() -> None:
    assert "R216" not in codes(convert(TORCH))


MPI = textwrap.dedent("""\
    apiVersion: kubeflow.org/v2beta1
    kind: MPIJob
    metadata: {name: hz}
    spec:
      mpiReplicaSpecs:
        Launcher:
          replicas: 1
          template:
            spec:
              containers:
              - name: l
                image: mpi:1
                command: [mpirun, /pi]
                env: [{name: NCCL_DEBUG, value: INFO}]
        Worker:
          replicas: 2
          template:
            spec:
              containers: [{name: w, image: mpi:1, command: [/usr/sbin/sshd, -De]}]
    """)


def test_mpi_trainer_env_reaching_the_launcher_only_is_reported() -> None:
    hit = finding(convert(MPI, runtime="my-mpi", runtime_kind="TrainingRuntime"), "F528")
    assert "3427" in hit.message
    assert hit.path.endswith("env")


def test_mpi_env_stays_in_the_companion_template() -> None:
    assert "F528" not in codes(convert(MPI, companion_runtimes=True))
