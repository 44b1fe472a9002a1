"""Two roles whose pod templates differ only in their values (`toYaml .Values.master.resources`
against `toYaml .Values.worker.resources`, per-role images, GPU counts and node selectors, as
charts write a Master and its Workers): the converted job is written with one role's values
under a test that the two render alike, and the legacy job is kept where they do not (Y112).
Both sides rendered by Helm's engine (helm_python) for every combination of the values."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from migrator import ConvertOptions
from tests.templates.contract import check_every_combination

HEAD = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
spec:
  pytorchReplicaSpecs:
"""


def role(name: str, count: str, spec: str, resources: str, image: str) -> str:
    """One role of the job, its values under ``.Values.<name in lower case>``."""
    return f"""    {name}:
      replicas: {count}
      restartPolicy: OnFailure
      template:
        spec:
{spec}          containers:
          - name: pytorch
            image: IMAGE
            command: ["torchrun", "train.py"]
            resources:
{resources}""".replace("IMAGE", image).replace("VALUES", f".Values.{name.lower()}")


FRAGMENT = "              {{- toYaml VALUES.resources | nindent 14 }}\n"
COUNTS = (("Master", "1"), ("Worker", "{{ .Values.worker.replicas }}"))
RESOURCES = HEAD + "".join(role(name, count, "", FRAGMENT, "{{ .Values.image }}")
                           for name, count in COUNTS)

SELECTORS = HEAD + "".join(role(name, count, """          {{- with VALUES.nodeSelector }}
          nodeSelector:
            {{- toYaml . | nindent 12 }}
          {{- end }}
""", """              limits:
                nvidia.com/gpu: {{ VALUES.gpus }}
""", "{{ VALUES.image | default .Values.image }}") for name, count in COUNTS)

GPU, TWO = {"limits": {"nvidia.com/gpu": 1}}, {"limits": {"nvidia.com/gpu": 2}}


def sets(space: dict[str, list[tuple[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Every combination of the labelled values, labelled `key=label,...`."""
    out = {}
    for choice in itertools.product(*space.values()):
        label = ",".join(f"{key}={name}" for key, (name, _v) in zip(space, choice, strict=True))
        out[label] = {key: value for key, (_n, value) in zip(space, choice, strict=True)}
    return out


@pytest.fixture(autouse=True)
def _helm() -> None:
    pytest.importorskip("helm_python")


@pytest.mark.parametrize("companion", [False, True], ids=["builtin", "companion"])
def test_roles_whose_resources_are_two_values_convert_where_the_values_are_alike(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, companion: bool) -> None:
    """Refused before (Y110: the two fragments were merged into one maximum)."""
    values = sets({"image": [("img", "img:1")],
                   "master": [("gpu", {"resources": GPU}), ("two", {"resources": TWO}),
                              ("cpu", {"resources": {"limits": {"cpu": 4}}})],
                   "worker": [("gpu", {"replicas": 2, "resources": GPU}),
                              ("two", {"replicas": 3, "resources": TWO})]})
    outcome = check_every_combination(
        tmp_path, RESOURCES, values, crdcheck, shared,
        ConvertOptions(companion_runtimes=companion),
        converts=("image=img,master=gpu,worker=gpu", "image=img,master=two,worker=two"))
    assert any("ne (toYaml (.Values.worker.resources)) (toYaml (.Values.master.resources))"
               in n.message for n in outcome.notes if n.code == "Y112")


def test_roles_with_their_own_selectors_images_and_gpus_convert_where_alike(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """Both without a node selector, or both with the same one, convert (each role's `with`
    is converted again on its other branch); a selector on one role only, other GPU counts or
    images keep the legacy job. Refused before (Y110)."""
    values = sets({"image": [("img", "img:1")],
                   "master": [("bare", {"gpus": 1}), ("pool", {"gpus": 1, "nodeSelector":
                                                                {"pool": "a"}}),
                              ("two", {"gpus": 2}), ("own", {"gpus": 1, "image": "img:2"})],
                   "worker": [("bare", {"replicas": 2, "gpus": 1}),
                              ("pool", {"replicas": 3, "gpus": 1, "nodeSelector": {"pool": "a"}})]})
    check_every_combination(tmp_path, SELECTORS, values, crdcheck, shared,
                            ConvertOptions(companion_runtimes=True),
                            converts=("image=img,master=bare,worker=bare",
                                      "image=img,master=pool,worker=pool"))


# a role's GPU count through a variable declared in its pod spec (lifted to the top of the
# converted template); the Y112 test is written with the variable's value, so that it holds
# on its own
LIMIT = "              limits:\n                nvidia.com/gpu: {{ GPUS }}\n"
VARIABLE = HEAD + role("Master", "1", "          {{- $g := .Values.master.gpus }}\n",
                       LIMIT.replace("GPUS", "$g"), "img:1") \
    + role("Worker", "2", "", LIMIT.replace("GPUS", ".Values.worker.gpus"), "img:1")


@pytest.mark.parametrize("lossy", [False, True], ids=["strict", "lossy"])
def test_per_role_gpu_counts_keep_the_legacy_job_where_they_differ_even_when_lossy(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, lossy: bool) -> None:
    """With --allow-lossy, the rendered job's maximum of the two counts was written as the
    Worker's count (a silent difference); the test named `$g`, undefined on its own."""
    values = sets({"master": [("one", {"gpus": 1}), ("two", {"gpus": 2})],
                   "worker": [("one", {"gpus": 1}), ("two", {"gpus": 2})]})
    outcome = check_every_combination(
        tmp_path, VARIABLE, values, crdcheck, shared, ConvertOptions(allow_lossy=lossy),
        converts=("master=one,worker=one", "master=two,worker=two"))
    assert any("ne (toYaml (.Values.worker.gpus)) (toYaml (.Values.master.gpus))" in n.message
               for n in outcome.notes if n.code == "Y112")
