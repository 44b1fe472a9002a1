"""A TFJob whose worker count is templated (issue 29): the TF_CONFIG the companion runtime's
command exports lists one host per node, so the converted template writes that list with a
loop over the count; one node converts differently (no TF_CONFIG). Held with Helm's engine."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from migrator import ConvertOptions
from migrator.template import convert_template
from tests.templates.contract import check_inline_chart

# the shape of a TFJob chart (arena's tfjob, trimmed): optional Chief and PS, a templated
# worker count, GPUs or CPUs per pod
TFJOB = """apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: {{ .Release.Name }}
spec:
  tfReplicaSpecs:
    {{- if .Values.ps }}
    PS:
      replicas: {{ .Values.ps }}
      restartPolicy: Never
      template:
        spec:
          containers:
            - name: tensorflow
              image: {{ .Values.image }}
              command: ["python", "train.py"]
    {{- end }}
    {{- if .Values.chief }}
    Chief:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: tensorflow
              image: {{ .Values.image }}
              command: ["python", "train.py", "--epochs", "{{ .Values.epochs }}"]
              ports:
                - name: tfjob-port
                  containerPort: {{ .Values.port }}
              resources:
                limits:
                  {{- if .Values.gpus }}
                  nvidia.com/gpu: {{ .Values.gpus }}
                  {{- else }}
                  cpu: {{ .Values.cpu }}
                  {{- end }}
    {{- end }}
    Worker:
      replicas: {{ .Values.workers }}
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: tensorflow
              image: {{ .Values.image }}
              command: ["python", "train.py", "--epochs", "{{ .Values.epochs }}"]
              ports:
                - name: tfjob-port
                  containerPort: {{ .Values.port }}
              resources:
                limits:
                  {{- if .Values.gpus }}
                  nvidia.com/gpu: {{ .Values.gpus }}
                  {{- else }}
                  cpu: {{ .Values.cpu }}
                  {{- end }}
"""
BASE = {"image": "tensorflow/tensorflow:2.15.0", "port": 2222, "epochs": 10, "cpu": 4}
SETS = {
    "one-cpu-worker": {**BASE, "workers": 1},
    "two-gpu-workers": {**BASE, "workers": 2, "gpus": 1},
    "four-gpu-workers": {**BASE, "workers": 4, "gpus": 8},
    "chief-one-worker": {**BASE, "workers": 1, "chief": True, "gpus": 2},
    "chief-four-cpu-workers": {**BASE, "workers": 4, "chief": True},
    "ps-two-workers": {**BASE, "workers": 2, "ps": 1},  # PS: F512, the legacy job is kept
}


def test_a_templated_worker_count_writes_the_host_list_with_a_loop(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """kubeflow/trainer@v1.9.2 pkg/controller.v1/tensorflow/tensorflow.go genTFConfigJSONStr
    lists every replica's host; the companion runtime's wrapper lists every node (the Chief
    first), so for each worker count the template renders what converting its rendered job
    gives: a loop over the count (`until`), and for one node no TF_CONFIG at all (F532)."""
    pytest.importorskip("helm_python")
    outcomes = check_inline_chart(tmp_path, TFJOB, SETS, crdcheck, shared,
                                  {"companion_runtimes": True})
    text = outcomes["2.2"].text
    assert "until (int (add 1 (.Values.workers)))" in text
    assert "until (int (.Values.workers))" in text
    assert '{{- if eq (toString (.Values.workers)) "1" }}' in text
    codes = {n.code for n in outcomes["2.2"].notes}
    assert {"F511", "F532", "Y112"} <= codes
    assert not any(n.code == "Y110" for n in outcomes["2.2"].notes)
    # no internal count reaches a message
    assert not any("30" in n.message and "worker(s)" in n.message for n in outcomes["2.2"].notes)


def test_the_rendered_host_list_is_json(tmp_path: Path) -> None:
    """The loop renders the same JSON list Python's json.dumps writes for the rendered job."""
    helm_python = pytest.importorskip("helm_python")
    outcome = convert_template(TFJOB, options=ConvertOptions(companion_runtimes=True))
    assert outcome is not None
    assert outcome.status == "converted"
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n",
                                      encoding="utf-8")
    (chart / "templates" / "job.yaml").write_text(outcome.text, encoding="utf-8")
    rendered = dict(helm_python.Chart.load(str(chart)).render(
        {**BASE, "workers": 3, "chief": True}, name="mnist", namespace="team"))
    script = next(line for line in rendered["chart/templates/job.yaml"].split("\n")
                  if "TF_CONFIG" in line)
    hosts = json.loads(script.split("'")[1].split(',"task"')[0] + "}")["cluster"]["worker"]
    assert hosts == [f"mnist-node-0-{i}.mnist:2222" for i in range(4)]
