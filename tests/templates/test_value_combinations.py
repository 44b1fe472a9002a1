"""Values where only some combinations of blocks fail: the template keeps the legacy job for
those combinations, not for every value of one block. Reduced from public charts a survey
tried (arena tfjob 2019/2024/2026 and the corpus chart; arena mpijob 2026). A strict xfail is
a known gap: it passes once the template keeps the legacy job for exactly the failing values."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.templates.contract import check_inline_chart, render_chart

CHIEF_SELECTORS = """{{- $sel := .Values.sel -}}
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: {{ .Release.Name }}
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          {{- if ne (len $sel.Worker) 0 }}
          nodeSelector:
          {{- range $k, $v := $sel.Worker }}
            {{ $k }}: "{{ $v }}"
          {{- end }}
          {{- end }}
          containers:
            - name: tensorflow
              image: tf:2
              command: ["python", "train.py"]
    {{- if .Values.chief }}
    Chief:
      template:
        spec:
          {{- if ne (len $sel.Chief) 0 }}
          nodeSelector:
          {{- range $k, $v := $sel.Chief }}
            {{ $k }}: "{{ $v }}"
          {{- end }}
          {{- end }}
          containers:
            - name: tensorflow
              image: tf:2
              command: ["python", "train.py"]
    {{- end }}
"""

DEVICES = """apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: {{ .Release.Name }}
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
            - image: "{{ .Values.image }}"
              name: mpi
              command: ["mpirun", "python", "train.py"]
              resources:
                limits:
                 {{- range $key, $value := .Values.devices }}
                 {{ $key }}: {{ $value }}
                 {{- end }}
                 {{- if .Values.cpu }}
                  cpu: {{ .Values.cpu | quote }}
                 {{- end }}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - image: "{{ .Values.image }}"
              name: mpi
"""


def test_a_chief_with_the_workers_pod_template_converts(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """arena tfjob's optional Chief: each role has its own node-selector block. With no
    selectors the rendered Chief + Worker job converts (one template for every node); with
    different ones it is refused (P306). The Chief's `if` fails only with P306
    (FIELDS.split_codes), so the template is converted again with the Chief on, and keeps the
    legacy job there only where a role's selectors are set (equal selectors keep it too: the
    template cannot compare them)."""
    pytest.importorskip("helm_python")
    sets: dict[str, dict[str, Any]] = {
        "workers": {"sel": {"Worker": {}, "Chief": {}}},
        "chief": {"chief": True, "sel": {"Worker": {}, "Chief": {}}},
        "chief-selectors-differ": {"chief": True, "sel": {"Worker": {"a": "b"}, "Chief": {}}}}
    check_inline_chart(tmp_path, CHIEF_SELECTORS, sets, crdcheck, shared,
                       {"companion_runtimes": True}, targets=("2.2",))


def test_a_branch_broken_only_beside_another_keeps_the_legacy_job_for_both(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """arena mpijob (2026): `range .Values.devices` writes limits one column left of `cpu:`,
    so the rendered job is broken YAML only when both are set; with a CPU and no devices it
    converts. The `if` fails only beside the range (switching the range off mends the world):
    the template is converted again with the `if` on, and there keeps the legacy job for the
    devices (before: for every CPU; `cpu:` was also typed by the range's line above it)."""
    pytest.importorskip("helm_python")
    sets: dict[str, dict[str, Any]] = {
        "plain": {"image": "x"},
        "cpu": {"image": "x", "cpu": "2"},
        "devices": {"image": "x", "devices": {"rdma/hca": 1}}}
    outcome = check_inline_chart(tmp_path, DEVICES, sets, crdcheck, shared,
                                 {"companion_runtimes": True}, targets=("2.2",))["2.2"]
    kept = [n.message for n in outcome.notes if n.code == "Y112"]
    assert [m.split(" holds")[0] for m in kept] == \
        ["for values where {{ and (.Values.cpu) (.Values.devices) }}"]
    both = {"image": "x", "cpu": "2", "devices": {"rdma/hca": 1}}
    chart = tmp_path / "chart"
    (chart / "templates" / "job.yaml").write_text(DEVICES, encoding="utf-8")
    broken = render_chart(chart, both)["chart/templates/job.yaml"]
    (chart / "templates" / "job.yaml").write_text(outcome.text, encoding="utf-8")
    assert render_chart(chart, both)["chart/templates/job.yaml"].lstrip() == broken
