"""A pod or container field filled by `toYaml` of a value that may be unset (a value commented
out in values.yaml, or overridden with null): Helm renders the key holding null, which the
converter drops (with a built-in TrainJob's runtimePatches entry when the key was all it held).
The converted template renders what converting the rendered job gives, for the value unset,
null, empty, one item and several, in both runtime modes."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

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

CONTAINER = """          - name: pytorch
            image: img
            command: ["torchrun", "train.py"]
"""

# field -> (where it stands, one value, another value); a list field's "several" is both
# items, a map field's both maps merged
POD: dict[str, tuple[Any, Any]] = {
    "tolerations": ({"key": "a", "operator": "Exists"},
                    {"key": "b", "operator": "Exists", "effect": "NoSchedule"}),
    "affinity": (
        {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "k", "operator": "In", "values": ["v"]}]}]}}},
        {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname"}}]}}),
    "nodeSelector": ({"pool": "gpu"}, {"zone": "a"}),
    "imagePullSecrets": ({"name": "s1"}, {"name": "s2"}),
    "volumes": ({"name": "v1", "emptyDir": {}}, {"name": "v2", "emptyDir": {}}),
    "securityContext": ({"runAsUser": 1000}, {"fsGroup": 100}),
}
CONTAINER_FIELDS: dict[str, tuple[Any, Any]] = {
    "volumeMounts": ({"name": "v1", "mountPath": "/a"}, {"name": "v2", "mountPath": "/b"}),
    "env": ({"name": "A", "value": "1"}, {"name": "B", "value": "2"}),
    "envFrom": ({"configMapRef": {"name": "c"}}, {"secretRef": {"name": "s"}}),
    "securityContext": ({"runAsUser": 1000}, {"privileged": False}),
    "ports": ({"containerPort": 80}, {"containerPort": 81, "name": "x"}),
}
LISTS = {"tolerations", "imagePullSecrets", "volumes", "volumeMounts", "env", "envFrom",
         "ports"}


def pod_template(field: str) -> str:
    return HEAD + f"""          {field}:
            {{{{- toYaml .Values.{field} | nindent 12 }}}}
          containers:
""" + CONTAINER


def container_template(field: str) -> str:
    return HEAD + "          containers:\n" + CONTAINER + f"""            {field}:
              {{{{- toYaml .Values.{field} | nindent 14 }}}}
"""


def value_sets(field: str, one: Any, other: Any) -> dict[str, dict[str, Any]]:
    listed = field in LISTS
    return {"unset": {}, "null": {field: None}, "empty": {field: [] if listed else {}},
            "one": {field: [one] if listed else one},
            "several": {field: [one, other] if listed else {**one, **other}}}


# (a built-in TrainJob carries no container envFrom on any target, C402: that job does not
# convert, so it has no unset case of its own)
CASES = [pytest.param(pod_template(f), f, v, c, id=f"pod-{f}-{m}")
         for f, v in POD.items() for c, m in ((False, "built-in"), (True, "companion"))] + \
    [pytest.param(container_template(f), f, v, c, id=f"container-{f}-{m}")
     for f, v in CONTAINER_FIELDS.items() for c, m in ((False, "built-in"), (True, "companion"))
     if c or f != "envFrom"]


@pytest.mark.parametrize(("template", "field", "values", "companions"), CASES)
def test_a_fragment_of_an_unset_value_renders_what_the_rendered_job_converts_to(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, template: str, field: str,
        values: tuple[Any, Any], companions: bool) -> None:
    pytest.importorskip("helm_python")
    check_inline_chart(tmp_path, template, value_sets(field, *values), crdcheck, shared,
                       {"companion_runtimes": companions}, targets=("2.2",))


SEVERAL = HEAD + """          nodeSelector:
            {{- toYaml .Values.nodeSelector | nindent 12 }}
          tolerations:
            {{- toYaml .Values.tolerations | nindent 12 }}
          affinity:
            {{- toYaml .Values.affinity | nindent 12 }}
          containers:
""" + CONTAINER


@pytest.mark.parametrize("companions", [False, True], ids=["built-in", "companion"])
def test_several_fragments_that_may_be_unset_drop_their_lines_only_when_all_are(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, companions: bool) -> None:
    """The helm create scaffolding's three pod fields, each unset or set on its own: a built-in
    TrainJob's runtimePatches entry goes only when none is set."""
    pytest.importorskip("helm_python")
    toleration = [{"key": "a", "operator": "Exists"}]
    affinity = POD["affinity"][0]
    sets: dict[str, dict[str, Any]] = {
        "none": {}, "nulls": {"nodeSelector": None, "tolerations": None, "affinity": None},
        "selector": {"nodeSelector": {"pool": "gpu"}}, "toleration": {"tolerations": toleration},
        "affinity": {"affinity": affinity, "tolerations": []},
        "all": {"nodeSelector": {"pool": "gpu"}, "tolerations": toleration,
                "affinity": affinity}}
    check_inline_chart(tmp_path, SEVERAL, sets, crdcheck, shared,
                       {"companion_runtimes": companions}, targets=("2.2",))


# a GPU count from a value that is not set renders `nvidia.com/gpu:` (a null quantity): the
# rendered job is refused (K103), and the converted template rendered a TrainJob with it
GPU_FROM_VALUE = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: job
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: ["torchrun", "train.py"]
            resources:
              limits:
                nvidia.com/gpu: {{ .Values.gpus }}
"""


@pytest.mark.parametrize("companion", [False, True], ids=["builtin", "companion"])
def test_a_quantity_that_renders_null_keeps_the_legacy_job(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, companion: bool) -> None:
    pytest.importorskip("helm_python")
    sets: dict[str, dict[str, Any]] = {"unset": {}, "null": {"gpus": None}, "empty": {"gpus": ""},
                                       "one": {"gpus": 1}, "eight": {"gpus": 8}}
    outcomes = check_inline_chart(tmp_path, GPU_FROM_VALUE, sets, crdcheck, shared,
                                  options={"companion_runtimes": companion})
    assert any(n.code == "Y112" and 'kindIs "invalid" (.Values.gpus)' in n.message
               for n in outcomes["2.2"].notes)
