"""Constructs of public charts that a survey found refused: string-map entries named like a
count (labels, annotations, nodeSelector) and YAML comments after a control action."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from migrator.template import convert_template
from migrator.template.structure import build
from migrator.template.tokens import tokenize
from tests.templates.contract import check_inline_chart

PYTORCH = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}-job
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        metadata:
          labels:
            gpu-topology: {{ .Release.Name }}
{{- with .Values.annotations }}
          annotations:
            scheduling.example.com/gpu-pool: {{ .pool }}
            priority: {{ .tier }}
{{- end }}
        spec:
          nodeSelector:
            nvidia.com/gpu.product: {{ .Values.gpuProduct }}
          containers:
          - name: pytorch
            image: {{ .Values.image }}
            command: ["torchrun", "train.py"]
            env:
            - name: GPU_KIND
              value: {{ .Values.gpuProduct }}
    Worker:
      replicas: {{ .Values.workers }}
      template:
        metadata:
          labels:
            gpu-topology: {{ .Release.Name }}
{{- with .Values.annotations }}
          annotations:
            scheduling.example.com/gpu-pool: {{ .pool }}
            priority: {{ .tier }}
{{- end }}
        spec:
          nodeSelector:
            nvidia.com/gpu.product: {{ .Values.gpuProduct }}
          containers:
          - name: pytorch
            image: {{ .Values.image }}
            command: ["torchrun", "train.py"]
            env:
            - name: GPU_KIND
              value: {{ .Values.gpuProduct }}
"""

MPI = """apiVersion: kubeflow.org/v1
kind: MPIJob
metadata:
  name: {{ .Release.Name }}
spec:
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        metadata:
          labels:
            gpu-topology: {{ .Release.Name }}
        spec:
          containers:
          - image: {{ .Values.image }}
            name: mpi
            command: ["mpirun", "python", "train.py"]
    Worker:
      replicas: {{ .Values.workers }}
      template:
        spec:
          containers:
          - image: {{ .Values.image }}
            name: mpi
"""

COMMENTED = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Worker:
      replicas: {{ .Values.workers }}
      template:
        spec:
          containers:
          - name: pytorch
            image: {{ .Values.image }}
            command: ["torchrun", "train.py"]
            env:
            - name: MODE
              value: train
{{ if .Values.debug }}  # verbose logs when debugging
            - name: LOGLEVEL
              value: debug
{{ else }}  # quiet otherwise
            - name: LOGLEVEL
              value: warning
{{ end }}  # end of the log level
{{ if .Values.useGPU }}  # request a GPU only when asked
            resources:
              limits:
                nvidia.com/gpu: 1
{{ end }}
"""

VALUES: dict[str, dict[str, Any]] = {
    "a100": {"image": "pytorch:2", "workers": 2, "gpuProduct": "A100-SXM4-80GB",
             "annotations": {"pool": "batch", "tier": "high"}},
    "h100": {"image": "pytorch:2.1", "workers": 4, "gpuProduct": "H100",
             "annotations": {"pool": "spot", "tier": "low"}},
    "t4-no-annotations": {"image": "pytorch:2", "workers": 1, "gpuProduct": "Tesla-T4"},
}


@pytest.mark.parametrize("companions", [False, True], ids=["built-in", "companion"])
def test_string_map_entries_named_like_counts_stay_strings(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, companions: bool) -> None:
    """A pod label `gpu-topology: {{ .Release.Name }}` (the survey's GPU-topology charts), an
    annotation `priority: {{ .tier }}`, a GPU-feature-discovery node selector
    `nvidia.com/gpu.product: {{ .Values.gpuProduct }}` and an env value: entries of string
    maps are names, whatever a field of that name would hold, so each converts as the string
    it renders, and Helm renders the converted template as the converted rendering."""
    pytest.importorskip("helm_python")
    options = {"companion_runtimes": True} if companions else None
    check_inline_chart(tmp_path, PYTORCH, VALUES, crdcheck, shared, options)


def test_an_mpi_launcher_labelled_by_release_converts_with_a_companion_runtime(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """An MPIJob whose Launcher pod's only label is `gpu-topology: {{ .Release.Name }}` (the
    survey's MPI chart): the label travels to the companion runtime as a string."""
    pytest.importorskip("helm_python")
    sets = {k: {"image": v["image"], "workers": v["workers"]} for k, v in VALUES.items()}
    check_inline_chart(tmp_path, MPI, sets, crdcheck, shared, {"companion_runtimes": True})


def test_a_label_named_like_a_count_gets_a_string_stand_in() -> None:
    """The stand-in of a string-map entry is a word, not a number, even where the key alone
    reads like a GPU count (`gpu-topology`, `nvidia.com/gpu.product`)."""
    outcome = convert_template(PYTORCH)
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    assert "gpu-topology: {{ .Release.Name }}" in outcome.text
    assert "nvidia.com/gpu.product: {{ .Values.gpuProduct }}" in outcome.text


def test_a_yaml_comment_after_a_control_action_is_part_of_its_branch() -> None:
    """`{{ if X }}  # why` at column 0 (charts that explain a switch on its line): the
    comment is the text the branch renders, so it is a line of that branch, not YAML text
    sharing the line with the action."""
    text = COMMENTED
    template = build(text, tokenize(text, "go"))
    debug, gpu = template.blocks

    def comments(items: list[Any]) -> list[str]:
        return [template.units[i].text.strip() for i in items
                if isinstance(i, int) and template.units[i].text.strip().startswith("#")]

    assert comments(debug.branches[0].items) == ["# verbose logs when debugging"]
    assert comments(debug.branches[1].items) == ["# quiet otherwise"]
    assert comments(gpu.branches[0].items) == ["# request a GPU only when asked"]
    assert comments(template.root.items) == ["# end of the log level"]


def test_yaml_comments_after_control_actions_keep_the_contract(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """`{{ if .Values.useGPU }}  # request a GPU only when asked` and the like after else and
    end (the survey's commented switches): the template converts, Helm renders it as the
    converted rendering, and the comments stay in the converted template where the converted
    job keeps the text they stand in (the env entries)."""
    pytest.importorskip("helm_python")
    sets = {"debug-gpu": {"image": "pytorch:2", "workers": 2, "debug": True, "useGPU": True},
            "quiet": {"image": "pytorch:2", "workers": 3},
            "quiet-gpu": {"image": "pytorch:2.1", "workers": 1, "useGPU": True}}
    outcomes = check_inline_chart(tmp_path, COMMENTED, sets, crdcheck, shared)
    converted = outcomes["2.2"].text
    assert "# verbose logs when debugging" in converted
    assert "# quiet otherwise" in converted


def test_string_maps_cover_the_string_maps_of_the_pod_tables() -> None:
    """Every map of names to strings the Kubernetes tables type (labels, annotations,
    nodeSelector) is a string map to the template stage too."""
    from migrator.knowledge import catalog
    from migrator.template.knowledge import FIELDS

    typed = {name for kube in catalog.load().kube.types.values()
             for name, spec in kube.fields.items() if spec == "map"}
    assert typed
    assert typed <= FIELDS.string_maps


GO_COMMENT = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Worker:
      replicas: {{ .Values.workers }}
      template:
        spec:
          containers:
            - name: pytorch
              image: {{ .Values.image }}
              {{- if .Values.gpu }}
              {{/* request a GPU */}}
              resources:
                limits:
                  nvidia.com/gpu: 1
              {{- end }}
"""


def test_a_template_comment_inside_a_block_is_written_as_helm_reads_it(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """A `{{/* ... */}}` comment inside an `if` is written again with the block's control
    actions: `*/` must close the action (`{{- /* x */}}`; Helm refuses `{{- /* x */ }}`)."""
    pytest.importorskip("helm_python")
    outcome = convert_template(GO_COMMENT)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    assert "{{- /* request a GPU */}}" in outcome.text
    sets: dict[str, dict[str, Any]] = {
        "gpu": {"image": "pytorch:2", "workers": 2, "gpu": True},
        "cpu": {"image": "pytorch:2", "workers": 3},
        "one": {"image": "pytorch:2", "workers": 1, "gpu": False}}
    check_inline_chart(tmp_path, GO_COMMENT, sets, crdcheck, shared)


SCRIPT = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Worker:
      replicas: {{ .Values.workers }}
      template:
        spec:
          containers:
            - name: pytorch
              image: {{ .Values.image }}
              command: ["sh", "-c"]
              args:
                - |
                  cat > cfg.yaml <<EOF
                  cfg:
                      {}
                  SPACES
                  EOF
                  torchrun train.py
""".replace("                  SPACES", " " * 20)  # (a line of spaces only)


def test_block_scalar_lines_are_carried_as_written(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """The fold's outputs are compared line by line in one layout; the lines of a block
    scalar are content (a script writing a YAML file: `cfg:` and `{}` on the next line, a line
    of spaces) and reach the converted template as written (review: they were merged into
    `cfg: {}` and emptied)."""
    pytest.importorskip("helm_python")
    outcome = convert_template(SCRIPT)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    assert "        cfg:\n            {}\n          \n        EOF\n" in outcome.text
    sets: dict[str, dict[str, Any]] = {
        "two": {"image": "pytorch:2", "workers": 2},
        "one": {"image": "pytorch:2", "workers": 1},
        "eight": {"image": "registry.example.com/t:1", "workers": 8}}
    check_inline_chart(tmp_path, SCRIPT, sets, crdcheck, shared)


# Azure llm-foundry: the command reads $MASTER_ADDR and $RANK (C410, an error whatever the
# values), and the Worker role stands in `if gt nodes 1`. The failure was blamed on that `if`
# (Y110 "when it takes another branch the job cannot be converted"), the error the template's
# own values have was not
UNCONDITIONAL = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: ["sh", "-c", "torchrun --master_addr=$MASTER_ADDR --node_rank=$RANK train.py"]
            resources:
              limits:
                nvidia.com/gpu: 8
{{- if gt (.Values.nodes | int) 1 }}
    Worker:
      replicas: {{ sub (.Values.nodes | int) 1 }}
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: ["sh", "-c", "torchrun --master_addr=$MASTER_ADDR --node_rank=$RANK train.py"]
            resources:
              limits:
                nvidia.com/gpu: 8
{{- end }}
"""


def test_an_error_of_every_value_is_not_blamed_on_a_block() -> None:
    outcome = convert_template(UNCONDITIONAL)
    assert outcome is not None
    assert outcome.status == "failed"
    assert outcome.text == UNCONDITIONAL
    assert "C410" in {n.code for n in outcome.notes if n.severity == "error"}
    assert not [n for n in outcome.notes if n.code == "Y110"], \
        [(n.code, n.line, n.message) for n in outcome.notes]
