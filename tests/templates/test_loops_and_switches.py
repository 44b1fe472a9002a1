"""Jobs generated in a range over a list of jobs, and kind switches (issue 29): the loop body
is converted inside the same range; a switch between a legacy kind and another converts the
legacy side and keeps the original, byte for byte, for the other."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from migrator.template import convert_template
from tests.templates.contract import COUNT_GUARD, check_inline_chart

JOB_LIST = """{{- range $i, $job := .Values.jobList }}
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ $job.name }}
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Master:
      replicas: {{ $job.master_nodes }}
      template:
        spec:
          containers:
            - name: pytorch
              image: {{ $job.image }}
              command: ["torchrun", "train.py"]
    Worker:
      replicas: {{ $job.worker_nodes }}
      template:
        spec:
          containers:
            - name: pytorch
              image: {{ $job.image }}
              command: ["torchrun", "train.py"]
{{- end }}
"""

BLOCK_SWITCH = """{{- if .Values.useHyperPod }}
apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
{{- else }}
apiVersion: kubeflow.org/v1
kind: PyTorchJob
{{- end }}
metadata:
  name: {{ .Release.Name }}-job
spec:
  {{- if .Values.useHyperPod }}
  runPolicy:
    jobMaxRetryCount: 3
  {{- end }}
  pytorchReplicaSpecs:
    Worker:
      replicas: {{ .Values.nodes }}
      template:
        spec:
          containers:
            - name: pytorch
              image: pytorch:2
              command: ["torchrun", "train.py"]
              resources:
                limits:
                  nvidia.com/gpu: {{ .Values.gpus }}
"""

INLINE_SWITCH = """apiVersion: {{ if .Values.useHyperPod }}sagemaker.amazonaws.com/v1{{ else }}\
kubeflow.org/v1{{ end }}
kind: {{ if .Values.useHyperPod }}HyperPodPyTorchJob{{ else }}PyTorchJob{{ end }}
metadata:
  name: {{ .Release.Name }}-job
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Worker:
      replicas: {{ .Values.nodes }}
      template:
        spec:
          containers:
            - name: pytorch
              image: pytorch:2
              command: ["torchrun", "train.py"]
"""


def _job(name: str, masters: int, workers: int, image: str = "pytorch:2") -> dict[str, object]:
    return {"name": name, "master_nodes": masters, "worker_nodes": workers, "image": image}


def test_the_body_of_a_range_over_jobs_is_converted_inside_the_range() -> None:
    outcome = convert_template(JOB_LIST)
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    lines = outcome.text.split("\n")
    assert lines[1] == "{{- range $i, $job := .Values.jobList }}"
    assert lines[2] == "---"  # each iteration still starts a document
    # (a Master count other than 1 keeps the legacy job; one that renders null is the legacy
    # default 1, U901)
    null = ('(or (kindIs "invalid" ($job.master_nodes)) (has (trim (toString ($job.master_nodes)))'
            ' (list "null" "Null" "NULL" "~" "")))')
    assert lines[3] == ('{{- if or (and (not ' + null + ') (ne (toString ($job.master_nodes)) "1"))'
                        ' (not (regexMatch "^[1-9][0-9]*$" (toString ($job.worker_nodes)))) }}')
    assert "numNodes: {{ add 1 ($job.worker_nodes) }}" in outcome.text
    kept = [n for n in outcome.notes if n.code == "Y112" and COUNT_GUARD not in n.message]
    assert [n.line for n in kept] == [11]
    # and the Worker count
    assert len([n for n in outcome.notes if n.code == "Y112"]) == 2


def test_a_job_list_keeps_the_contract_with_helm(tmp_path: Path, shared: Path,
                                                  crdcheck: ModuleType) -> None:
    pytest.importorskip("helm_python")
    sets: dict[str, dict[str, Any]] = {"one-job": {"jobList": [_job("a", 1, 1)]},
            "three-jobs": {"jobList": [_job("a", 1, 3), _job("b", 1, 1, "img:1"),
                                       _job("c", 1, 15)]},
            "a-worker-only-job": {"jobList": [_job("a", 1, 2), _job("b", 0, 4)]},
            "no-jobs": {"jobList": []}}
    check_inline_chart(tmp_path, JOB_LIST, sets, crdcheck, shared)


@pytest.mark.parametrize("template", [BLOCK_SWITCH, INLINE_SWITCH], ids=["block", "inline"])
def test_a_kind_switch_converts_the_legacy_side_only(template: str) -> None:
    outcome = convert_template(template)
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    head, _, converted = outcome.text.partition("{{- else }}\napiVersion: trainer.kubeflow.org")
    # the other side is the original, byte for byte
    # (and a Worker count that is not a positive number keeps it too)
    # (and, where the null quantities are measured, an unset GPU count)
    assert head.split("\n", 2)[1].startswith('{{- if or (.Values.useHyperPod) (not (regexMatch '
                                             '"^[1-9][0-9]*$" (toString (.Values.nodes))))')
    assert head.split("\n", 2)[2] == template
    assert "kind: TrainJob" in converted
    assert "HyperPod" not in converted
    assert not [n for n in outcome.notes
                if n.code == "Y110" or (n.code == "Y112" and COUNT_GUARD not in n.message
                                        and "renders null" not in n.message)]


@pytest.mark.parametrize("template", [BLOCK_SWITCH, INLINE_SWITCH], ids=["block", "inline"])
def test_a_kind_switch_keeps_the_contract_with_helm(tmp_path: Path, shared: Path,
                                                     crdcheck: ModuleType, template: str) -> None:
    pytest.importorskip("helm_python")
    sets = {"legacy-gpu": {"useHyperPod": False, "nodes": 4, "gpus": 8},
            "legacy-cpu": {"useHyperPod": False, "nodes": 1, "gpus": 0},
            "hyperpod": {"useHyperPod": True, "nodes": 2, "gpus": 8}}
    check_inline_chart(tmp_path, template, sets, crdcheck, shared)
