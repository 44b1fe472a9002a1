"""Env lists built by a range with an if inside (`range $k, $v := .Values.env` + `if $v`, the
survey's NCCL env maps) in companion-runtime mode: the companion runtime leaves out an
emptied `env:`, so the key is written only when some iteration writes an item; an MPI
launcher's env (where the operator's variables are added) stands where the job wrote it,
empty or not."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.templates.contract import check_inline_chart

COMPANION = {"companion_runtimes": True}

PYTORCH = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: {{ .Values.image }}
            env:
            {{- range $key, $value := .Values.env }}
            {{- if $value }}
            - name: {{ $key }}
              value: "{{ $value }}"
            {{- end }}
            {{- end }}
            command: [torchrun, --nproc-per-node=8, train.py]
"""

MPI = """apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: {{ .Release.Name }}
spec:
  slotsPerWorker: 8
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - image: {{ .Values.image }}
            name: nccl
            env:
            {{- range $key, $value := .Values.env }}
            {{- if $value }}
            - name: {{ $key }}
              value: "{{ $value }}"
            {{- end }}
            {{- end }}
            command: [mpirun, all_reduce_perf_mpi]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - image: {{ .Values.image }}
            name: nccl
"""

ENV_SETS: dict[str, dict[str, Any]] = {
    "several": {"image": "nccl:1", "env": {"NCCL_DEBUG": "WARN", "UCX_TLS": "rc"}},
    "one-null": {"image": "nccl:1", "env": {"NCCL_DEBUG": "INFO", "UCX_TLS": None}},
    "all-falsy": {"image": "nccl:1", "env": {"NCCL_DEBUG": "", "UCX_TLS": None}},
    "one": {"image": "nccl:1", "env": {"NCCL_DEBUG": "INFO"}},
    "empty": {"image": "nccl:1", "env": {}},
    "unset": {"image": "nccl:1"},
}


def test_a_range_of_env_entries_filtered_by_an_if_converts_with_a_companion_runtime(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """The runtime's `env:` is written when some entry passes the if (found by running the
    range before it), the TrainJob's always (it holds PYTHONUNBUFFERED): no values are kept
    legacy, and Helm renders the converted template as the converted rendering, also when
    every entry is falsy."""
    pytest.importorskip("helm_python")
    outcomes = check_inline_chart(tmp_path, PYTORCH, ENV_SETS, crdcheck, shared, COMPANION)
    for outcome in outcomes.values():
        assert not [n for n in outcome.notes if n.code in ("Y110", "Y112")]


def test_an_mpi_launcher_env_range_converts_for_any_env(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """The launcher's env gets the operator's variables (K_MPI_JOB_ROLE ...) whether the range
    writes entries or not; the list stands where the job wrote `env:` in both cases, so the
    template converts for every env map (it kept the legacy job for any non-empty one)."""
    pytest.importorskip("helm_python")
    outcomes = check_inline_chart(tmp_path, MPI, ENV_SETS, crdcheck, shared, COMPANION)
    for outcome in outcomes.values():
        assert not [n for n in outcome.notes if n.code in ("Y110", "Y112")]


TWO_SOURCES = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: {{ .Values.image }}
            env:
            {{- range $key, $value := .Values.env }}
            {{- if $value }}
            - name: {{ $key }}
              value: {{ $value | quote }}
            {{- end }}
            {{- end }}
            {{- range .Values.extraEnv }}
            {{- if .enabled }}
            - name: {{ .name }}
              value: {{ .value | quote }}
            {{- end }}
            {{- end }}
            command: [torchrun, --nproc-per-node=8, train.py]
"""


def test_two_filtered_env_ranges_write_the_key_when_either_writes(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """Two ranges under one `env:`, the second over a list whose items the if reads (`.enabled`
    of the item): the key is written when either writes an item."""
    pytest.importorskip("helm_python")
    extra = [{"name": "A", "value": "1", "enabled": True}, {"name": "B", "value": "2"}]
    sets: dict[str, dict[str, Any]] = {
        "both": {"image": "x:1", "env": {"NCCL_DEBUG": "WARN"}, "extraEnv": extra},
        "map-only": {"image": "x:1", "env": {"NCCL_DEBUG": "WARN"}, "extraEnv": extra[1:]},
        "list-only": {"image": "x:1", "env": {"NCCL_DEBUG": None}, "extraEnv": extra},
        "neither": {"image": "x:1", "env": {"NCCL_DEBUG": None}, "extraEnv": extra[1:]},
        "unset": {"image": "x:1"},
    }
    outcomes = check_inline_chart(tmp_path, TWO_SOURCES, sets, crdcheck, shared, COMPANION)
    for outcome in outcomes.values():
        assert not [n for n in outcome.notes if n.code in ("Y110", "Y112")]


NULL_VALUE = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: {{ .Values.image }}
            env:
            - name: BLOB_STORAGE_ACCOUNT
              value: {{ .Values.blob.storageAccount | quote }}
            - name: BLOB_CONTAINER
              value: {{ .Values.blob.container }}
            command: [torchrun, --nproc-per-node=8, train.py]
"""


@pytest.mark.parametrize("companions", [False, True], ids=["built-in", "companion"])
def test_an_env_value_that_renders_empty_is_left_out_everywhere(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, companions: bool) -> None:
    """`value: {{ .Values.unset | quote }}` renders `value:` (quote prints nothing for an unset
    value), as does an unquoted unset value: the converter leaves the null out of the
    TrainJob's env as out of the companion runtime's (an env var without a value; the CRDs
    take no null there), and the converted template writes the key only when the action
    renders something. An unset image likewise (it rendered `image: null` into the companion
    runtime)."""
    pytest.importorskip("helm_python")
    sets: dict[str, dict[str, Any]] = {
        "unset": {"image": "x:1", "blob": {"account": ""}},
        "set": {"image": "x:1", "blob": {"storageAccount": "acct1", "container": "data"}},
        "empty-strings": {"image": "", "blob": {"storageAccount": "", "container": ""}},
        "null-words": {"blob": {"storageAccount": "null", "container": "~"}},
    }
    check_inline_chart(tmp_path, NULL_VALUE, sets, crdcheck, shared,
                       COMPANION if companions else None)
