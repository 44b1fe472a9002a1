"""Fragments of the `helm create` scaffolding a survey of public charts found refused or
failed: `tolerations:` over `{{- toYaml .Values.tolerations | nindent 12 }}` (its stand-in item
had a `name`, which no Toleration has), an indentless list filled by a fragment (`env:` over
`{{- toYaml .Values.env | nindent 12 }}` at the column of `env:`), and a pod spec written by a
named template of another file (`spec:` over `{{- include "t.podSpec" . | nindent 10 }}`)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from ruamel.yaml import YAML

from migrator import ConvertOptions
from migrator.check import podschema
from migrator.template import convert_template
from migrator.template.codec import Slot, _line_placeholder
from migrator.template.knowledge import FIELDS
from migrator.template.tokens import Action
from tests.templates.contract import check_inline_chart

HEAD = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: {{ .Values.nodes }}
      restartPolicy: OnFailure
      template:
        spec:
"""
CONTAINER = """          containers:
          - name: pytorch
            image: {{ .Values.image }}
            command: [torchrun, --nproc-per-node=8, train.py]
"""
TOLERATIONS = {
    # the `helm create` scaffolding's form
    "plain": HEAD + """          tolerations:
            {{- toYaml .Values.tolerations | nindent 12 }}
""" + CONTAINER,
    "with": HEAD + """          {{- with .Values.tolerations }}
          tolerations:
            {{- toYaml . | nindent 12 }}
          {{- end }}
""" + CONTAINER,
}
GPU = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
BASE = {"nodes": 2, "image": "ghcr.io/x/y:1"}
TOLERATION_SETS: dict[str, dict[str, Any]] = {
    "scaffold-default": {**BASE, "tolerations": []},
    "one-gpu-toleration": {**BASE, "tolerations": [GPU]},
    "two": {**BASE, "nodes": 4, "tolerations": [GPU, {"key": "spot", "operator": "Equal",
                                                        "value": "yes"}]},
}


@pytest.mark.parametrize("form", sorted(TOLERATIONS))
@pytest.mark.parametrize("companions", [False, True], ids=["built-in", "companion"])
def test_tolerations_from_toyaml_convert(tmp_path: Path, shared: Path, crdcheck: ModuleType,
                                         form: str, companions: bool) -> None:
    """`tolerations:` filled by `toYaml` (alone or inside `with`) converts, and Helm renders
    the converted template as the converted rendering for no, one and two tolerations."""
    pytest.importorskip("helm_python")
    options = {"companion_runtimes": True} if companions else None
    outcomes = check_inline_chart(tmp_path, TOLERATIONS[form], TOLERATION_SETS, crdcheck,
                                  shared, options)
    for outcome in outcomes.values():
        assert "toYaml" in outcome.text
        assert "kind: TrainJob" in outcome.text
        assert not [n for n in outcome.notes if n.code == "V602"]


def _item_type(key: str) -> str | None:
    """The Kubernetes type of the items of a pod or container list field, or None."""
    for owner in ("PodSpec", "Container"):
        spec = podschema.types()[owner].fields.get(key)
        if isinstance(spec, list):
            return str(spec[0])
    return None


def test_every_list_stand_in_item_passes_the_kubernetes_check() -> None:
    """The placeholder item of each list a fragment may fill (mappings/templates.yaml:
    item_keys, item_fields) is a valid item of that list's Kubernetes type: a Toleration gets
    `key`, an EnvFromSource `prefix`, a VolumeMount `name` and `mountPath`."""
    checked = []
    for key in sorted(FIELDS.list_fields):
        item_type = _item_type(key)
        if item_type is None or item_type == "object":
            continue
        action = Action(0, 10, "{{ toYaml .Values.x }}", "toYaml .Values.x", "value")
        slot = Slot(1, "line", action, 1, (), shape="item", parent=key)
        item = YAML(typ="safe", pure=True).load(_line_placeholder(slot, 0))
        assert podschema.check(item, [item_type], (key,), "2.3") == [], (key, item)
        checked.append(key)
    assert {"tolerations", "envFrom", "volumeMounts", "volumes", "env"} <= set(checked)


INDENTLESS = {
    "toYaml": HEAD + CONTAINER + """            env:
            {{- toYaml .Values.envList | nindent 12 }}
""",
    "include": """{{- define "t.env" -}}
- name: NCCL_DEBUG
  value: {{ .Values.ncclDebug | quote }}
{{- range .Values.envList }}
- name: {{ .name }}
  value: {{ .value | quote }}
{{- end }}
{{- end }}
""" + HEAD + CONTAINER + """            env:
            {{- include "t.env" . | nindent 12 }}
""",
    "tolerations": HEAD + """          tolerations:
          {{- toYaml .Values.tolerations | nindent 10 }}
""" + CONTAINER,
}
INDENTLESS_SETS: dict[str, dict[str, Any]] = {
    "one": {**BASE, "ncclDebug": "WARN", "envList": [{"name": "A", "value": "1"}],
            "tolerations": [GPU]},
    "two": {**BASE, "nodes": 3, "ncclDebug": "INFO",
            "envList": [{"name": "A", "value": "1"}, {"name": "B", "value": "x"}],
            "tolerations": [GPU, {"key": "spot", "operator": "Exists"}]},
}


@pytest.mark.parametrize("form", sorted(INDENTLESS))
@pytest.mark.parametrize("companions", [False, True], ids=["built-in", "companion"])
def test_an_indentless_list_filled_by_a_fragment_converts(
        tmp_path: Path, shared: Path, crdcheck: ModuleType, form: str, companions: bool) -> None:
    """`env:` over `{{- toYaml .Values.envList | nindent 12 }}` (or an `include`) with 12 the
    column of `env:` is an indentless sequence, legal YAML: the fragment writes env's items,
    not the container's fields, and the template converts as with `nindent 14`."""
    pytest.importorskip("helm_python")
    options = {"companion_runtimes": True} if companions else None
    check_inline_chart(tmp_path, INDENTLESS[form], INDENTLESS_SETS, crdcheck, shared, options)


ENV = HEAD + CONTAINER + """            env:
              {{- toYaml .Values.env | nindent 14 }}
"""


def test_an_empty_env_fragment_beside_the_items_the_converter_adds_renders_nothing(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """`env:` over `{{- toYaml .Values.env | nindent 14 }}` with `env: []`: the converted
    `env` also holds the PYTHONUNBUFFERED the converter adds, and the fragment's `[]` beside it
    was broken YAML; it now renders nothing when empty, as the rendered job converts. (With
    companion runtimes the runtime's `env: []` is still kept: a known limit.)"""
    pytest.importorskip("helm_python")
    options = None
    sets = {"empty": {**BASE, "env": []}, "one": {**BASE, "env": [{"name": "A", "value": "1"}]},
            "two": {**BASE, "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}}
    check_inline_chart(tmp_path, ENV, sets, crdcheck, shared, options)


POD_SPEC = HEAD + """          {{- include "t.podSpec" . | nindent 10 }}
"""


@pytest.mark.parametrize("companions", [False, True], ids=["built-in", "companion"])
def test_a_pod_spec_from_a_named_template_of_another_file_is_refused_with_its_line(
        companions: bool) -> None:
    """`spec:` filled by `include "t.podSpec"` defined in _helpers.tpl: the converter cannot
    read the containers it needs; the template is refused with a Y110 naming the include, its
    line and why (it failed before, with a K103 about a stand-in and no Y110)."""
    outcome = convert_template(POD_SPEC,
                               options=ConvertOptions(companion_runtimes=companions))
    assert outcome is not None
    assert outcome.status == "skipped"
    y110 = [n for n in outcome.notes if n.code == "Y110"]
    assert len(y110) == 1, [(n.code, n.message) for n in outcome.notes]
    assert y110[0].line == 12
    assert 'include "t.podSpec"' in y110[0].message
    assert "defined elsewhere" in y110[0].message
    assert "render the chart first" in y110[0].message
    assert "K103" in y110[0].message


def test_a_stand_in_the_converter_rejects_is_refused_with_its_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Should a stand-in item not fit its list (a Toleration given a `name`), the template is
    refused with a Y110 naming the fragment and its line, never failed with a finding about
    the stand-in alone."""
    monkeypatch.setattr(type(FIELDS), "item_key", lambda _self, _parent: "name", raising=False)
    outcome = convert_template(TOLERATIONS["plain"])
    assert outcome is not None
    assert outcome.status == "skipped"
    y110 = [n for n in outcome.notes if n.code == "Y110"]
    assert [n.line for n in y110] == [13]
    assert "toYaml .Values.tolerations" in y110[0].message
    assert "V602" in y110[0].message
