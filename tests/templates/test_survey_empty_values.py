"""Values that render null or empty (survey of public charts): the converted template renders
what converting the rendered job gives, for unset, null and real values."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.templates.contract import check_inline_chart

HEAD = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: demo
spec:
  nprocPerNode: "2"
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
"""

RUN_AS = HEAD + """          securityContext:
            runAsUser: {{ .Values.runAsUser }}
          containers:
          - name: pytorch
            image: img
            command: ["torchrun", "train.py"]
"""

SECURITY = HEAD + """          securityContext:
            runAsUser: {{ .Values.securityContext.runAsUser }}
            runAsGroup: {{ .Values.securityContext.runAsGroup }}
            fsGroup: {{ .Values.securityContext.fsGroup }}
          containers:
          - name: pytorch
            image: img
            command: ["torchrun", "train.py"]
"""

RESOURCES = HEAD + """          containers:
            - name: pytorch
              image: img
              command: ["torchrun", "train.py"]
              resources:
                {{- if .Values.resources.cpuLimit }}
                limits:
                  cpu: {{ .Values.resources.cpuLimit }}
                {{- end }}
                {{- if .Values.resources.cpuRequest }}
                requests:
                  cpu: {{ .Values.resources.cpuRequest }}
                {{- end }}
"""


@pytest.mark.parametrize("companions", [True, False], ids=["companion", "built-in"])
def test_a_scalar_that_renders_null_is_dropped_as_the_rendered_job_drops_it(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, companions: bool) -> None:
    """`runAsUser: {{ .Values.runAsUser }}` with the value unset renders `runAsUser:` (null):
    a companion runtime carries no null (Kubernetes reads it as unset), and keeps the map it
    emptied as `securityContext: {}`, so the converted template guards the key on the same
    renderings (the survey's repro 5)."""
    pytest.importorskip("helm_python")
    options = {"companion_runtimes": True} if companions else None
    sets: dict[str, dict[str, object]] = {
        "unset": {}, "null": {"runAsUser": None}, "tilde": {"runAsUser": "~"},
        "empty": {"runAsUser": ""}, "zero": {"runAsUser": 0}, "real": {"runAsUser": 1000}}
    check_inline_chart(tmp_path, RUN_AS, sets, crdcheck, shared, options, targets=("2.2",))


def test_some_of_several_null_scalars_leave_the_others(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """The intel transfer-learning hf_k8s chart's pod securityContext: three scalars, each
    unset by default (the chart's values hold the map); the runtime keeps those set and
    `{}` when none is."""
    pytest.importorskip("helm_python")
    sets: dict[str, dict[str, object]] = {
        "unset": {"securityContext": {}},
        "null": {"securityContext": {"runAsUser": None, "runAsGroup": None}},
        "some": {"securityContext": {"runAsUser": 1000, "fsGroup": None}},
        "all": {"securityContext": {"runAsUser": 1000, "runAsGroup": 1000, "fsGroup": 1000}}}
    check_inline_chart(tmp_path, SECURITY, sets, crdcheck, shared,
                       {"companion_runtimes": True}, targets=("2.2",))


@pytest.mark.parametrize("wrapped", [False, True], ids=["top", "in-if"])
def test_a_key_whose_blocks_are_all_off_is_guarded_inside_an_outer_if(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, wrapped: bool) -> None:
    """The intel transfer-learning hf_k8s chart: `resources:` holds only `if` blocks (limits,
    requests) and the whole job is inside `{{ if ne .Values.distributed.train.useHabana true
    }}`; with every block off `resources:` renders null and the rendered job gets no
    resourcesPerNode, so neither may the converted template (survey repro 6, reduced)."""
    pytest.importorskip("helm_python")
    template = RESOURCES
    if wrapped:
        template = "{{- if ne .Values.habana true }}\n" + RESOURCES + "{{- end }}\n"
    sets: dict[str, dict[str, object]] = {
        "unset": {"habana": False, "resources": {}},
        "null": {"habana": False, "resources": {"cpuLimit": None, "cpuRequest": None}},
        "limits": {"habana": False, "resources": {"cpuLimit": 4}},
        "both": {"habana": False, "resources": {"cpuLimit": 4, "cpuRequest": 2}}}
    check_inline_chart(tmp_path, template, sets, crdcheck, shared, targets=("2.2",))


NESTED = HEAD + """          containers:
            - name: pytorch
              image: img
              command: ["torchrun", "train.py"]
              resources:
                {{- if or .Values.resources.cpuLimit .Values.resources.memoryLimit }}
                limits:
                  {{- if .Values.resources.cpuLimit }}
                  cpu: {{ .Values.resources.cpuLimit }}
                  {{- end }}
                  {{- if .Values.resources.memoryLimit }}
                  memory: {{ .Values.resources.memoryLimit }}
                  {{- end }}
                {{- end }}
                {{- if or .Values.resources.cpuRequest .Values.resources.memoryRequest }}
                requests:
                  {{- if .Values.resources.cpuRequest }}
                  cpu: {{ .Values.resources.cpuRequest }}
                  {{- end }}
                  {{- if .Values.resources.memoryRequest }}
                  memory: {{ .Values.resources.memoryRequest }}
                  {{- end }}
                {{- end }}
"""


@pytest.mark.parametrize("companions", [True, False], ids=["companion", "built-in"])
def test_nested_ifs_under_a_key_guard_it_as_the_rendered_job_keeps_it(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, companions: bool) -> None:
    """The intel transfer-learning hf_k8s chart's exact shape: the job inside an `if`,
    `limits:` under `if or cpuLimit memoryLimit`, each entry under its own if. With nothing
    set `resources:` renders null and the rendered job's companion container has no
    resources; a fold world with the outer ifs on and the inner ones off (no values give it)
    shows `resources: {}`, which must not become what the template writes when the outer ifs
    are off. (The fold is checked with all blocks but the job's `if` switched.)"""
    pytest.importorskip("helm_python")
    options = {"companion_runtimes": True} if companions else None
    sets: dict[str, dict[str, object]] = {
        "unset": {"resources": {}},
        "nulls": {"resources": {"cpuLimit": None, "memoryLimit": None, "cpuRequest": None}},
        "limits": {"resources": {"cpuLimit": 32, "memoryLimit": "64Gi"}},
        "requests": {"resources": {"cpuRequest": 16}},
        "both": {"resources": {"cpuLimit": 32, "memoryRequest": "64Gi"}}}
    template = "{{- if ne .Values.habana true }}\n" + NESTED + "{{- end }}\n"
    check_inline_chart(tmp_path, template, sets, crdcheck, shared, options, targets=("2.2",))


def test_a_long_run_of_digits_in_a_block_scalar_is_text() -> None:
    """The null-scalar measurement reads `key: <stand-in>` lines of the output; a line of a
    block scalar holding thousands of digits is no stand-in (int() of it raised: a traceback
    for a user's file, found by review)."""
    from migrator.template import convert_template

    digits = "1" * 5000
    template = RUN_AS.replace('            command: ["torchrun", "train.py"]\n',
                              '            command: ["torchrun", "train.py"]\n'
                              "            args:\n              - |\n"
                              f"                n: {digits}\n")
    assert digits in template
    outcome = convert_template(template)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    assert f"n: {digits}" in outcome.text
