"""The contract on the envsubst files of ../shared/corpus, each with three environments."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from migrator import ConvertOptions
from migrator.template import convert_template
from tests.templates.contract import compare, envsubst

FILES = [
    "3.test_cases/pytorch/FSDP/kubernetes/fsdp.yaml-template",
    "3.test_cases/megatron/megatron-lm/kubernetes/gpt3/manifests/pytorchjob.yaml-template",
    "3.test_cases/pytorch/distillation/kubernetes/distill.yaml-template",
    "3.test_cases/pytorch/neuronx-distributed/llama3/kubernetes/llama3_train.yaml-template",
    "3.test_cases/pytorch/FSDP/kubernetes/llama3_1_8b-fsdp.yaml",
]
# every file keeps an elasticPolicy (F501, an error): the contract is checked with --allow-lossy
OPTIONS = ConvertOptions(allow_lossy=True)


def _environments(names: list[str]) -> list[dict[str, str]]:
    def count(name: str) -> bool:
        return any(w in name for w in ("NODE", "GPU", "EFA", "NUM", "REPLICA"))
    return [{n: ("4" if count(n) else f"value{i}") for i, n in enumerate(names)},
            {n: ("1" if count(n) else "x") for n in names},
            {n: ("16" if count(n) else "registry.example.com/img:1") for n in names}]


@pytest.mark.parametrize("rel", FILES)
def test_envsubst_file_keeps_the_contract(shared: Path, rel: str) -> None:
    path = shared / "corpus" / "aws-samples-awsome-distributed-training" / rel
    text = path.read_text(encoding="utf-8")
    outcome = convert_template(text, "envsubst", OPTIONS)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    assert "kind: TrainJob" in outcome.text
    names = sorted(set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", text)))
    for env in _environments(names):
        verdict = compare(envsubst(outcome.text, env), envsubst(text, env), outcome, OPTIONS)
        assert verdict.ok, "\n".join(verdict.problems)


def test_without_allow_lossy_the_file_fails_for_the_same_reason_as_rendered(shared: Path) -> None:
    from migrator import convert_text

    text = (shared / "corpus" / "aws-samples-awsome-distributed-training" / FILES[0]).read_text()
    outcome = convert_template(text, "envsubst")
    assert outcome is not None
    assert outcome.status == "failed"
    assert outcome.text == text
    names = sorted(set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", text)))
    rendered = convert_text(envsubst(text, _environments(names)[0]))
    assert {f.code for f in rendered.findings if f.severity.value == "error"} <= \
        {n.code for n in outcome.notes}


# aws-do-eks's NCCL tests (and the EFA generate-*-test.sh heredocs): the slots per worker and the
# Workers' GPUs are one variable. The process count the converted job takes from the slots was
# read back as that GPU quantity rounded up, which envsubst cannot compute (Y111 before)
NCCL = """apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: nccl
spec:
  slotsPerWorker: ${GPU_PER_WORKER}
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
            - image: ${IMAGE_URI}
              name: launcher
              command: ["mpirun", "-np", "${TOTAL_GPUS}", "/opt/all_reduce_perf"]
    Worker:
      replicas: ${NUM_WORKERS}
      template:
        spec:
          containers:
            - image: ${IMAGE_URI}
              name: worker
              resources:
                limits:
                  nvidia.com/gpu: ${GPU_PER_WORKER}
"""


@pytest.mark.parametrize("target", ["2.2", "2.3"])
def test_slots_and_gpus_from_one_variable_keep_the_contract(target: str) -> None:
    options = ConvertOptions(companion_runtimes=True, target=target)
    outcome = convert_template(NCCL, "envsubst", options)
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    assert "numProcPerNode: ${GPU_PER_WORKER}" in outcome.text
    for gpus, workers in (("8", "2"), ("4", "16"), ("1", "1")):
        env = {"GPU_PER_WORKER": gpus, "NUM_WORKERS": workers, "IMAGE_URI": "img:1",
               "TOTAL_GPUS": str(int(gpus) * int(workers))}
        verdict = compare(envsubst(outcome.text, env), envsubst(NCCL, env), outcome, options)
        assert verdict.ok, "\n".join(verdict.problems)


# kubeflow-pretrain-job's LoRA template (jbymy2000/kubeflow-pretrain-job
# train/peft/lora/lora-example-pytorchjob.tpl.yaml), cut down: the Master and the Workers list the
# same env in another order (MODEL_NAME and GPUS_PER_NODE swapped), the Worker count literal
REORDERED = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: ${JOB_NAME}
spec:
  nprocPerNode: "${GPUS_PER_NODE}"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
            - name: pytorch
              image: ${IMAGE}
              command: [bash, -c, torchrun train.py]
              env:
                - name: MODEL_NAME
                  value: ${MODEL_NAME}
                - name: GPUS_PER_NODE
                  value: "${GPUS_PER_NODE}"
                - name: JOB_NAME
                  valueFrom:
                    fieldRef:
                      fieldPath: metadata.name
    Worker:
      replicas: 3
      restartPolicy: Never
      template:
        spec:
          containers:
            - name: pytorch
              image: ${IMAGE}
              command: [bash, -c, torchrun train.py]
              env:
                - name: GPUS_PER_NODE
                  value: "${GPUS_PER_NODE}"
                - name: MODEL_NAME
                  value: ${MODEL_NAME}
                - name: JOB_NAME
                  valueFrom:
                    fieldRef:
                      fieldPath: metadata.name
"""


def test_roles_whose_env_is_reordered_keep_the_contract() -> None:
    """The kubelet expands a value's $(NAME) with the variables before it
    (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables): with no such reference the two
    orders set one environment, so the template converts (P316) as its renders do."""
    outcome = convert_template(REORDERED, "envsubst", ConvertOptions())
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    assert "P316" in {n.code for n in outcome.notes}
    for gpus, model in (("8", "Meta-Llama-3.1-8B-Instruct"), ("1", "x"), ("2", "m")):
        env = {"JOB_NAME": "lora", "GPUS_PER_NODE": gpus, "MODEL_NAME": model, "IMAGE": "img:1"}
        verdict = compare(envsubst(outcome.text, env), envsubst(REORDERED, env), outcome,
                          ConvertOptions())
        assert verdict.ok, "\n".join(verdict.problems)
