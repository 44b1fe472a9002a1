"""Fields whose conversion depends on their value (issue 29): the converted template tests the
value (a number, auto, gpu, cpu) instead of refusing the file; other values keep the legacy job."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from migrator.template import convert_template
from tests.templates.contract import COUNT_GUARD, check_inline_chart

NPROC = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}-job
spec:
  nprocPerNode: {{ .Values.gpus | quote }}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: {{ .Values.image }}
              command: ["torchrun", "train.py"]
              resources:
                limits:
                  cpu: {{ .Values.cpu }}
                  nvidia.com/gpu: {{ .Values.gpuCount }}
    Worker:
      replicas: {{ .Values.workers }}
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: {{ .Values.image }}
              command: ["torchrun", "train.py"]
              resources:
                limits:
                  cpu: {{ .Values.cpu }}
                  nvidia.com/gpu: {{ .Values.gpuCount }}
"""

NEMO_STYLE = """{{ $config := .Values.trainingConfig }}
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
spec:
  nprocPerNode: "{{ $config.ntasksPerNode }}"
  pytorchReplicaSpecs:
    Worker:
      replicas: {{ $config.numNodes }}
      template:
        spec:
          containers:
            - name: pytorch
              image: {{ .Values.image }}
              command: ["torchrun", "train.py"]
"""

RESTART = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}-job
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Worker:
      replicas: {{ .Values.nodes }}
      restartPolicy: {{ .Values.restartPolicy | quote }}
      template:
        spec:
          containers:
            - name: pytorch
              image: pytorch:2
              command: ["torchrun", "train.py"]
"""


TWINS = RESTART.replace("""    Worker:
""", """    Master:
      replicas: 1
      restartPolicy: {{ .Values.restartPolicy | quote }}
      template:
        spec:
          containers:
            - name: pytorch
              image: pytorch:2
              command: ["torchrun", "train.py"]
    Worker:
""")


def test_other_values_of_a_quoted_restart_policy_keep_the_legacy_job_named_once() -> None:
    outcome = convert_template(TWINS)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    kept = [n for n in outcome.notes if n.code == "Y112" and COUNT_GUARD not in n.message]
    assert [n.line for n in kept] == [10]  # the Master's and the Worker's test are one
    assert '(not (eq (print (.Values.restartPolicy)) "Never"))' in kept[0].message
    assert outcome.text.count("(and (not (eq (print (.Values.restartPolicy))") == 1
    # the legacy job kept for those values is judged as rendered, naming the action
    assert any(n.code == "R212" and "{{ .Values.restartPolicy | quote }}" in n.message
               for n in outcome.notes)


def test_a_templated_nproc_per_node_is_tested_not_refused() -> None:
    outcome = convert_template(NPROC)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    assert '{{- if regexMatch "^[1-9][0-9]*$" (print (.Values.gpus)) }}' in outcome.text
    assert "numProcPerNode: {{ .Values.gpus }}" in outcome.text
    # values that write nothing at the end of the test are not spelled out (without a CPU
    # limit, cpu writes nothing either)
    plain = convert_template(NPROC.replace("                  cpu: {{ .Values.cpu }}\n", ""))
    assert plain is not None
    converted = plain.text.split("{{- else }}\napiVersion: trainer")[1]
    assert 'numProcPerNode: {{ .Values.gpus }}\n    {{- end }}' in converted
    # any other value keeps the legacy job (its rendered conversion fails too), named by Y112
    kept = [n for n in outcome.notes if n.code == "Y112" and COUNT_GUARD not in n.message
            and "renders null" not in n.message]
    assert [n.line for n in kept] == [6]
    assert "nprocPerNode must be one of" in kept[0].message
    # (an unset CPU or GPU count is a null quantity: refused when rendered, K103)
    assert {n.line for n in outcome.notes if n.code == "Y112" and "renders null" in n.message} \
        == {19, 20}
    # nprocPerNode cpu with GPUs: the rendered job does not convert (F505 is an error: the
    # world size changes), so cpu keeps the legacy job and Y112 says why
    assert "nprocPerNode: cpu does not convert here (F505" in kept[0].message
    assert "ceil (divf" not in outcome.text
    assert "{{- fail" not in outcome.text


@pytest.mark.parametrize("template", [NPROC, NEMO_STYLE, RESTART, TWINS],
                         ids=["quote", "quoted-action", "restart-policy", "restart-twins"])
def test_nproc_per_node_keeps_the_contract_with_helm(tmp_path: Path, shared: Path,
                                                       crdcheck: ModuleType,
                                                       template: str) -> None:
    pytest.importorskip("helm_python")
    if template is NPROC:
        base = {"image": "pytorch:2", "workers": 3, "cpu": 8, "gpuCount": 4}
        sets = {"number": {**base, "gpus": 4},
                "auto": {**base, "gpus": "auto"},
                "gpu": {**base, "gpus": "gpu"},
                "cpu-only": {**base, "gpus": "cpu", "gpuCount": 0},
                "cpu-with-gpus": {**base, "gpus": "cpu"},
                "cpu-quantity": {**base, "gpus": "cpu", "cpu": "1500m"},
                "unknown": {**base, "gpus": "all"},
                "zero": {**base, "gpus": 0}}
    elif template in (RESTART, TWINS):
        sets = {label: {"nodes": nodes, "restartPolicy": policy}
                for label, nodes, policy in [("always", 2, "Always"),
                                             ("on-failure", 4, "OnFailure"),
                                             ("never", 1, "Never"), ("unknown", 2, "Sometimes")]}
    else:
        sets = {"one-node": {"image": "nemo:24", "trainingConfig": {"ntasksPerNode": 8,
                                                                     "numNodes": 1}},
                "multi-node": {"image": "nemo:24", "trainingConfig": {"ntasksPerNode": 4,
                                                                       "numNodes": 16}},
                "auto": {"image": "nemo:24", "trainingConfig": {"ntasksPerNode": "auto",
                                                                 "numNodes": 2}}}
    check_inline_chart(tmp_path, template, sets, crdcheck, shared)


def test_an_enum_value_that_does_not_convert_joins_the_other_values(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A branch of an enum block whose world fails keeps the legacy job for its value only:
    the block's other branches stay (forcing the block to one branch would write that branch
    for every value)."""
    import dataclasses

    from migrator.template import knowledge

    fields = knowledge.load()
    listed = {**fields.enum_fields, "restartPolicy": ("Always", "Sometimes", "Never")}
    monkeypatch.setattr(knowledge, "load", lambda: dataclasses.replace(fields,
                                                                         enum_fields=listed))
    outcome = convert_template(RESTART)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    kept = [n for n in outcome.notes if n.code == "Y112" and COUNT_GUARD not in n.message]
    assert len(kept) == 1
    assert '(not (eq (print (.Values.restartPolicy)) "Always"))' in kept[0].message
    assert '(not (eq (print (.Values.restartPolicy)) "Never"))' in kept[0].message
    assert "restartPolicy: Sometimes does not convert here (R212" in kept[0].message
    assert '"Sometimes"' not in outcome.text.split("{{- else }}", 1)[0]


RESOURCES = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}-job
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: {{ .Values.workers }}
      template:
        spec:
          containers:
            - name: pytorch
              image: {{ .Values.image }}
              command: ["torchrun", "train.py"]
              resources:
                {{- toYaml .Values.resources | nindent 16 }}
"""


def test_templated_resources_keep_the_legacy_job_where_they_name_no_gpu(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """torchrun's default process count follows the resources (kubeflow/trainer@v2.2.0
    pkg/runtime/framework/plugins/torch/torch.go:110-114: a GPU count, else the CPU request or
    limit, else 1) where the legacy operator's torchrun started one per CPU of the node
    (kubeflow/trainer@v1.9.2 pkg/apis/kubeflow.org/v1/pytorch_defaults.go:23): with CPUs and no
    GPU the rendered job is refused (F505), with neither too (F530, both errors), with a GPU
    it converts. The converted template writes that test, so each value set renders what
    converting its rendered job gives (Helm's engine)."""
    pytest.importorskip("helm_python")
    outcome = convert_template(RESOURCES)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    [kept] = [n for n in outcome.notes if n.code == "Y112" and COUNT_GUARD not in n.message]
    assert "name no GPU" in kept.message
    assert "F537" in {n.code for n in outcome.notes}
    base = {"image": "pytorch:2", "workers": 2}
    sets = {"gpu": {**base, "resources": {"limits": {"nvidia.com/gpu": 8, "cpu": 16}}},
            "gpu-request": {**base, "resources": {"requests": {"amd.com/gpu": "1"}}},
            "cpu": {**base, "resources": {"limits": {"cpu": 4, "memory": "8Gi"}}},
            "millicpu": {**base, "resources": {"requests": {"cpu": "500m"}}},
            "fraction": {**base, "resources": {"requests": {"cpu": 0.5}}},
            "zero-cpu": {**base, "resources": {"limits": {"cpu": 0, "memory": "1Gi"}}},
            "memory-only": {**base, "resources": {"limits": {"memory": "1Gi"}}}}
    check_inline_chart(tmp_path, RESOURCES, sets, crdcheck, shared)


@pytest.mark.parametrize("same_line", [False, True], ids=["next-line", "same-line"])
@pytest.mark.parametrize("companions", [False, True], ids=["built-in", "companion"])
def test_templated_resources_that_render_empty_write_what_the_rendered_job_converts_to(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, companions: bool,
        same_line: bool) -> None:
    """`resources:` over `{{- toYaml .Values.resources | nindent 16 }}` (or on its line)
    renders `{}` (or
    `null` when unset, Helm's toYaml of nil): the converter writes no resourcesPerNode for the
    rendered job, so the converted template guards the key on the same renderings; with a
    companion runtime `resources: {}` is kept in its container and only null is dropped.
    Helm's engine renders both sides. (The job states its process count, so the resources do
    not decide whether it converts: see the test above.)"""
    pytest.importorskip("helm_python")
    options = {"companion_runtimes": True} if companions else None
    base = {"image": "pytorch:2", "workers": 2}
    sets = {"empty": {**base, "resources": {}},
            "unset": dict(base),
            "null": {**base, "resources": None},
            "gpu": {**base, "resources": {"limits": {"nvidia.com/gpu": 8}}},
            "memory-only": {**base, "resources": {"limits": {"memory": "1Gi"}}}}
    stated = RESOURCES.replace("spec:\n  pytorchReplicaSpecs:",
                               "spec:\n  nprocPerNode: \"1\"\n  pytorchReplicaSpecs:")
    template = stated.replace("resources:\n                {{- toYaml",
                              "resources: {{ toYaml") if same_line else stated
    assert stated != RESOURCES
    assert same_line == (template != stated)
    outcomes = check_inline_chart(tmp_path, template, sets, crdcheck, shared, options)
    guard = outcomes["2.2"].text
    if companions:
        assert '(list "null" "")' in guard
    else:
        assert '(list "{}" "null" "")' in guard
