"""A Helm `with` block around a role: the fields it writes land outside the with in the
converted job (trainer.numNodes, trainer.image, runtimePatches), where `.` is no longer the
with's value; they are written for where they stand (`.replicas` in `with .Values.worker` is
`.Values.worker.replicas` there), a nested with or range stays what it is with its header read
the same way, and a replica count inside a with gets the whole-number guard of any other count.
Both sides rendered by Helm's engine (helm_python) for every combination of the values."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from migrator import ConvertOptions
from tests.templates.contract import check_every_combination, check_inline_chart

HEAD = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: job
spec:
  pytorchReplicaSpecs:
"""
MASTER = """    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: img
            command: ["torchrun", "--nproc_per_node=1", "train.py"]
            resources:
              limits:
                nvidia.com/gpu: 1
"""
GPU = {"limits": {"nvidia.com/gpu": 1}}
ABSENT = object()


def worker(extra: str = "", image: str = "{{ $.Values.image }}") -> str:
    """The Worker role inside `with .Values.worker`, as charts write it."""
    return """{{- with .Values.worker }}
    Worker:
      replicas: {{ .replicas }}
      template:
        spec:
          {{- with .nodeSelector }}
          nodeSelector:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          containers:
          - name: pytorch
            image: IMAGE
            command: ["torchrun", "--nproc_per_node=1", "train.py"]
            resources:
              {{- toYaml .resources | nindent 14 }}
EXTRA{{- end }}
""".replace("IMAGE", image).replace("EXTRA", extra)


def combinations(space: dict[str, list[Any]]) -> dict[str, dict[str, Any]]:
    """Every combination of the values (ABSENT: the key is not set)."""
    keys = list(space)
    sets = {}
    for choice in itertools.product(*(space[k] for k in keys)):
        values = {k: v for k, v in zip(keys, choice, strict=True) if v is not ABSENT}
        sets[repr(values)] = values
    return sets


@pytest.fixture(autouse=True)
def _helm() -> None:
    pytest.importorskip("helm_python")


def test_the_fields_of_a_with_around_the_only_role_read_its_value(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """numNodes, image, resources and a nested with's nodeSelector all come from the with
    (before: `numNodes: {{ .replicas }}` rendered empty, or the nested with was refused)."""
    outcomes = check_inline_chart(tmp_path, HEAD + worker(image="{{ .image }}"), combinations({
        "worker": [ABSENT, {"replicas": 2, "image": "a:1", "resources": GPU},
                   {"replicas": 3, "image": "b:2", "resources": GPU, "nodeSelector": {"a": "b"}},
                   {"replicas": 0, "image": "a:1", "resources": GPU},
                   {"replicas": "two", "image": "a:1", "resources": GPU},
                   {"replicas": 1, "resources": {"limits": {"nvidia.com/gpu": 2}}}]}),
        crdcheck, shared)
    text = outcomes["2.2"].text
    assert "numNodes: {{ .Values.worker.replicas }}" in text
    assert "{{- with .Values.worker.nodeSelector }}" in text


def test_a_range_inside_the_with_stays_a_range(tmp_path: Path, shared: Path,
                                               crdcheck: ModuleType) -> None:
    """A range over the with's field whose entries move to trainer.env loops over the same
    list (before: refused, or an `if` whose body read an undefined `$k`)."""
    env = """            env:
            {{- range $k, $v := .env }}
            - name: {{ $k }}
              value: {{ $v | quote }}
            {{- end }}
"""
    outcomes = check_inline_chart(tmp_path, HEAD + worker(env), combinations({
        "image": ["img:1"],
        "worker": [ABSENT, {"replicas": 2, "resources": GPU},
                   {"replicas": 2, "resources": GPU, "env": {"A": "1"}},
                   {"replicas": 4, "resources": GPU, "env": {"A": "1", "B": "x"},
                    "nodeSelector": {"pool": "gpu"}}]}), crdcheck, shared)
    assert "{{- range $k, $v := .Values.worker.env }}" in outcomes["2.2"].text


def test_a_range_over_top_values_inside_the_with(tmp_path: Path, shared: Path,
                                                 crdcheck: ModuleType) -> None:
    env = """            env:
            {{- range $k, $v := $.Values.env }}
            - name: {{ $k }}
              value: {{ $v | quote }}
            {{- end }}
"""
    check_inline_chart(tmp_path, HEAD + worker(env), combinations({
        "image": ["img:1"], "env": [ABSENT, {"A": "1"}, {"A": "1", "B": "2"}],
        "worker": [ABSENT, {"replicas": 2, "resources": GPU},
                   {"replicas": 3, "resources": GPU, "nodeSelector": {"a": "b"}}]}),
        crdcheck, shared)


def test_a_nested_with_over_a_top_value_inside_the_role_with(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """`{{- with $.Values.dir }}` inside `with .Values.worker`: `.` is the dir there."""
    env = """            {{- with $.Values.dir }}
            env:
            - name: DATA_DIR
              value: {{ . | quote }}
            {{- end }}
"""
    check_inline_chart(tmp_path, HEAD + worker(env), combinations({
        "image": ["img:1"], "dir": [ABSENT, "", "/data"],
        "worker": [ABSENT, {"replicas": 2, "resources": GPU},
                   {"replicas": 1, "resources": GPU, "nodeSelector": {"a": "b"}}]}),
        crdcheck, shared)


@pytest.mark.parametrize("role", [
    pytest.param(HEAD + MASTER + """{{- with .Values.worker }}
    Worker:
      replicas: {{ .replicas }}
      template:
        spec:
          containers:
          - name: pytorch
            image: img
            command: ["torchrun", "--nproc_per_node=1", "train.py"]
            resources:
              limits:
                nvidia.com/gpu: 1
{{- end }}
""", id="field"),
    pytest.param(HEAD + MASTER + """    Worker:
      {{- with .Values.worker }}
      replicas: {{ . }}
      {{- end }}
      template:
        spec:
          containers:
          - name: pytorch
            image: img
            command: ["torchrun", "--nproc_per_node=1", "train.py"]
            resources:
              limits:
                nvidia.com/gpu: 1
""", id="dot")])
def test_a_count_inside_a_with_keeps_the_legacy_job_for_zero_or_a_word(
        role: str, tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """Before, the count inside a with got no whole-number guard: 0, -1 or a word rendered a
    TrainJob where the rendered job keeps its legacy form (K103)."""
    counts: list[Any] = [0, 1, 3, "two", -1, "4"]
    values = [ABSENT, *({"replicas": c} for c in counts)] if "{{ .replicas }}" in role \
        else [ABSENT, "", *counts]
    outcomes = check_inline_chart(tmp_path, role, combinations({"worker": values}),
                                  crdcheck, shared)
    assert any('regexMatch "^[1-9][0-9]*$"' in n.message and "(.Values.worker" in n.message
               for n in outcomes["2.2"].notes if n.code == "Y112")


def test_both_roles_in_withs_pin_the_master_count(tmp_path: Path, shared: Path,
                                                  crdcheck: ModuleType) -> None:
    """The realistic chart shape: each role in a with of its own values; the Master's count is
    converted as 1 and other values keep the legacy job (before: refused, Y110). The roles'
    `.resources` are two values: alike, they convert (unify); unlike, the legacy job is kept
    (Y112), as the rendered job's maximum of the two cannot be written. `$.Values.image` is
    one value in both withs. With a Master and no Workers the job converts as well (the
    Worker's with is converted again, off)."""
    master = worker().replace(".Values.worker", ".Values.master").replace("Worker:", "Master:")
    sets = combinations({
        "image": ["img:1"],
        "master": [ABSENT, {"replicas": 1, "resources": GPU}, {"replicas": 2, "resources": GPU}],
        "worker": [ABSENT, {"replicas": 2, "resources": GPU}, {"replicas": 0, "resources": GPU},
                   {"replicas": 3, "resources": {"limits": {"nvidia.com/gpu": 2}}}]})
    alike = repr({"image": "img:1", "master": {"replicas": 1, "resources": GPU},
                  "worker": {"replicas": 2, "resources": GPU}})
    alone = repr({"image": "img:1", "master": {"replicas": 1, "resources": GPU}})
    outcome = check_every_combination(tmp_path, HEAD + master + worker(), sets, crdcheck,
                                      shared, ConvertOptions(), converts=(alike, alone))
    assert any('ne (toString (.Values.master.replicas)) "1"' in n.message
               for n in outcome.notes if n.code == "Y112")


AFFINITY = HEAD.replace("  pytorchReplicaSpecs:\n",
                        '  nprocPerNode: "1"\n  pytorchReplicaSpecs:\n') + """    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: img
            command: ["torchrun", "train.py"]
          {{- if (or .Values.required .Values.preferred) }}
          affinity:
            nodeAffinity:
            {{- if .Values.required }}
              requiredDuringSchedulingIgnoredDuringExecution:
                nodeSelectorTerms:
                  - matchExpressions:
                    {{- range $key, $values := .Values.required }}
                    - key: {{ $key | quote }}
                      operator: In
                      values:
                        {{- range $values }}
                        - {{ . | quote }}
                        {{- end}}
                    {{- end }}
            {{- end }}
            {{- if .Values.preferred }}
              preferredDuringSchedulingIgnoredDuringExecution:
                {{- range $key, $values := .Values.preferred }}
                - weight: 1
                  preference:
                    matchExpressions:
                      - key: {{ $key | quote }}
                        operator: In
                        values:
                          {{- range $values }}
                          - {{ . | quote }}
                          {{- end }}
                {{- end }}
            {{- end }}
          {{- end }}
"""


@pytest.mark.parametrize("companions", [False, True], ids=["plain", "companions"])
def test_a_nested_range_in_two_ranges_reads_the_range_it_stands_in(
        companions: bool, tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """`{{- range $values }}` inside the required terms' range and inside the preferred terms'
    range (HyperPod Nova SFT's node affinity) switch together in the fold, which writes them
    with the first; where the converted job writes the preferred one, it is that one (and the
    guard around its `values:` tests that range's `$values`). Before: Y110 "writes the lines
    of {{- range $values }} outside {{ range $key, $values := .Values.required }}"."""
    terms: list[Any] = [ABSENT, {}, {"zone": ["a", "b"]}, {"zone": ["a"], "type": []}]
    sets = combinations({"required": terms, "preferred": terms})
    outcomes = check_inline_chart(tmp_path, AFFINITY, sets, crdcheck, shared,
                                  {"companion_runtimes": companions})
    assert "{{- range $key, $values := .Values.preferred }}" in outcomes["2.2"].text


def test_an_env_fragment_inside_the_with_is_tested_for_where_it_lands(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """The test around the Worker's env fragment (beside the PYTHONUNBUFFERED the converter
    adds) read `.env` at the top, always empty: the env items were dropped from trainer.env."""
    env = "            env:\n              {{- toYaml .env | nindent 14 }}\n"
    template = HEAD + worker(image="img:1").replace(
        "            resources:\n", env + "            resources:\n", 1)
    sets = {str(env): {"worker": {"replicas": 2, "resources": GPU,
                                  **({} if env is ABSENT else {"env": env})}}
            for env in (ABSENT, None, [], [{"name": "A", "value": "1"}])}
    check_inline_chart(tmp_path, template, sets, crdcheck, shared,
                       options={"allow_lossy": True})
