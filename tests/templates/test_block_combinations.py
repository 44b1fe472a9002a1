"""Blocks whose effects show only in some combinations of their values: a block another one
hides in the reference world, an `else if` whose test an `if` elsewhere shares, a key written
twice only through a nested empty `if`. The template is checked for every combination of the
values its blocks read (both sides rendered by Helm's engine, helm_python): it converts, and
keeps the legacy job for exactly the values whose rendered job does not convert."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from migrator import ConvertOptions
from migrator.template import convert_template
from tests.templates.contract import check_every_combination

HEAD = """apiVersion: kubeflow.org/v1
kind: {kind}
metadata:
  name: job
spec:
  {specs}:
"""


def role(name: str, resources: str, kind: str = "PyTorchJob") -> str:
    container = "pytorch" if kind == "PyTorchJob" else "tensorflow"
    command = "[torchrun, train.py]" if kind == "PyTorchJob" else "[python, train.py]"
    return f"""    {name}:
      replicas: {1 if name in ("Master", "Chief") else 2}
      template:
        spec:
          containers:
          - name: {container}
            image: img:1
            command: {command}
            resources:
{resources}"""


def job(kind: str, roles: str) -> str:
    specs = "pytorchReplicaSpecs" if kind == "PyTorchJob" else "tfReplicaSpecs"
    return HEAD.format(kind=kind, specs=specs) + roles


def every(flags: tuple[str, ...], modes: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """Every combination of the boolean ``flags`` (and of ``mode``: unset or one of ``modes``)."""
    sets: dict[str, dict[str, Any]] = {}
    for bits in itertools.product((False, True), repeat=len(flags)):
        for mode in (None, *modes):
            values: dict[str, Any] = dict(zip(flags, bits, strict=True))
            if mode is not None:
                values["mode"] = mode
            sets[",".join(f"{k}={v}" for k, v in values.items())] = values
    return sets


# with `a` on, the Master's requests (cpu 3) cover the Worker's optional limit (cpu 1): in
# the reference world switching `b` changes nothing, so the fold took it for dead; with `a` off
# the Worker's limit alone decides (and with both off, resourcesPerNode is empty)
HIDDEN = job("PyTorchJob", role("Master", """              limits:
                {{- if .Values.b }}
                cpu: "1"
                {{- end }}
              {{- if .Values.a }}
              requests:
                cpu: "3"
              {{- end }}
""") + role("Worker", """              limits:
                memory: "1Gi"
"""))

# `if eq mode "y"` twice: once alone, once as the first (empty) branch of an `else if`. The
# `else if` writes `cpu` only when mode is not y, where the twin writes nothing: the converted
# template put the `else if` outside the guard of `resources:` (invalid YAML for c on)
ELSE_IF_TWIN = job("TFJob", role("Worker", """              limits:
                {{- if eq .Values.mode "y" }}
                memory: "8Gi"
                {{- end }}
                {{- if eq .Values.mode "y" }}
                {{- else if .Values.c }}
                cpu: "1"
                {{- end }}
""", "TFJob"))

# an optional Master under `if c`, and the Worker's requests under the `else if` of an
# `if c`: the Worker's requests and the Master never come together, which the fold's worlds
# (each block switched apart) did not know
MASTER_ELSE_IF = job("PyTorchJob", "    {{- if .Values.c }}\n" + role(
    "Master", """              limits:
                memory: "4Gi"
""") + "    {{- end }}\n" + role("Worker", """              {{- if .Values.c }}
              {{- else if eq .Values.mode "x" }}
              requests:
                memory: "2Gi"
              {{- end }}
"""))

@pytest.mark.parametrize(("template", "sets"), [
    pytest.param(HIDDEN, every(("a", "b")), id="hidden-by-another"),
    pytest.param(ELSE_IF_TWIN, every(("c",), ("x", "y")), id="else-if-twin"),
    pytest.param(MASTER_ELSE_IF, every(("c",), ("x", "y")), id="master-else-if"),
])
def test_every_combination_of_the_blocks_keeps_the_contract(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, template: str,
        sets: dict[str, dict[str, Any]]) -> None:
    pytest.importorskip("helm_python")
    check_every_combination(tmp_path, template, sets, crdcheck, shared)


# a Master whose resources two `if`s of one test write (the second never renders) and a
# Worker's nested `if`: the fold adds guards around keys of several piece lists
GUARDED = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          nodeSelector:
            {{- if not (eq .Values.mode "x") }}
            {{- else if not (eq .Values.mode "x") }}
            pool: "gpu"
            {{- end }}
          containers:
          - name: pytorch
            image: img:1
            command: [torchrun, train.py]
            resources:
              {{- if .Values.b }}
              limits:
                cpu: "1"
                {{- if not (eq .Values.mode "x") }}
                cpu: "4"
                {{- end }}
              {{- else if .Values.b }}
              limits:
                cpu: "1"
                memory: "8Gi"
              {{- end }}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: [torchrun, train.py]
            resources:
              {{- if .Values.a }}
              limits:
                {{- if not .Values.b }}
                memory: "8Gi"
                {{- end }}
                cpu: "1"
              {{- end }}
"""


def test_one_process_converts_a_template_alike_every_time() -> None:
    # the guards were numbered in an order of memory addresses: about one conversion in three
    # of this template gave another text in the same process
    options = ConvertOptions(companion_runtimes=True, allow_lossy=True)
    texts = set()
    for size in range(12):
        ballast = [[object()] * size for _ in range(50 * size)]  # (other addresses each time)
        outcome = convert_template(GUARDED, options=options)
        assert outcome is not None
        assert outcome.status == "converted"
        texts.add(outcome.text)
        del ballast
    assert len(texts) == 1
