"""A pre-2.2 TrainJob or runtime in an envsubst file or a Helm template is upgraded with its
placeholders carried, as a legacy job in the same dialect is converted; a placeholder the
upgrade cannot carry is reported at the line of its field."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrator import convert_text
from migrator.template.marks import ENV_MARK, MARK
from tests.goldens import FIXTURES
from tests.templates.contract import compare, envsubst, parse

TRAINJOB = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llama
spec:
  podTemplateOverrides:
    - targetJobs:
        - name: node
      spec:
        nodeSelector:
          node.kubernetes.io/instance-type: ${INSTANCE_TYPE}
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: ${NODE_NUM}
    image: img:1
"""
PYTORCHJOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: llama
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Worker:
      replicas: ${NODE_NUM}
      template:
        spec:
          nodeSelector:
            node.kubernetes.io/instance-type: ${INSTANCE_TYPE}
          containers:
          - name: pytorch
            image: img:1
            command: [torchrun, train.py]
"""
ENVIRONMENTS = [{"NODE_NUM": "4", "INSTANCE_TYPE": "p4d.24xlarge"},
                {"NODE_NUM": "1", "INSTANCE_TYPE": "x"}]


def _trainjob_output(text: str) -> dict[str, object]:
    docs = [d for d in parse(text) if d.get("kind") == "TrainJob"]
    assert len(docs) == 1
    return docs[0]  # type: ignore[no-any-return]


def _contract(text: str) -> None:
    """render(convert(T), V) converts to what convert(render(T, V)) gives, for each V."""
    from migrator.template import convert_template

    outcome = convert_template(text, "envsubst")
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    for env in ENVIRONMENTS:
        verdict = compare(envsubst(outcome.text, env), envsubst(text, env), outcome)
        assert verdict.ok, "\n".join(verdict.problems)


@pytest.mark.parametrize("comment", ["", "   # nodes"])
def test_envsubst_trainjob_is_upgraded_with_its_placeholders(comment: str) -> None:
    text = TRAINJOB.replace("${NODE_NUM}", "${NODE_NUM}" + comment)
    result = convert_text(text)
    assert [d.status for d in result.documents] == ["converted"], result.findings
    assert not [f for f in result.findings if f.severity.value == "error"]
    assert result.text.startswith(ENV_MARK)
    assert f"    numNodes: ${{NODE_NUM}}{comment}\n" in result.text
    assert "podTemplateOverrides" not in result.text
    assert "node.kubernetes.io/instance-type: ${INSTANCE_TYPE}" in result.text
    assert "T702" in {f.code for f in result.findings}
    _contract(text)


def test_the_legacy_job_with_a_commented_placeholder_converts_too() -> None:
    text = PYTORCHJOB.replace("replicas: ${NODE_NUM}", "replicas: ${NODE_NUM}  # nodes")
    result = convert_text(text)
    assert [d.status for d in result.documents] == ["converted"], result.findings
    assert "numNodes: ${NODE_NUM}" in result.text
    _contract(text)


def test_both_dialects_give_the_same_trainjob() -> None:
    upgraded = convert_text(TRAINJOB)
    converted = convert_text(PYTORCHJOB)
    for env in ENVIRONMENTS:
        ours = _trainjob_output(envsubst(upgraded.text, env))
        spec = ours["spec"]
        assert isinstance(spec, dict)
        assert spec["trainer"]["numNodes"] == int(env["NODE_NUM"])
        legacy = _trainjob_output(envsubst(converted.text, env))
        assert spec["runtimePatches"] == legacy["spec"]["runtimePatches"]  # type: ignore[index]


def test_helm_trainjob_is_upgraded_with_its_actions() -> None:
    text = TRAINJOB.replace("${NODE_NUM}", "{{ .Values.nodes }}").replace(
        "${INSTANCE_TYPE}", "{{ .Values.instanceType }}")
    result = convert_text(text)
    assert [d.status for d in result.documents] == ["converted"], result.findings
    assert result.text.startswith(MARK)
    assert "    numNodes: {{ .Values.nodes }}\n" in result.text
    assert "node.kubernetes.io/instance-type: {{ .Values.instanceType }}" in result.text
    rendered = result.text.replace(MARK, "").replace("{{ .Values.nodes }}", "3").replace(
        "{{ .Values.instanceType }}", "m5")
    direct = convert_text(TRAINJOB.replace("${NODE_NUM}", "3").replace("${INSTANCE_TYPE}", "m5"))
    assert _trainjob_output(rendered) == _trainjob_output(direct.text)


def test_envsubst_runtime_is_upgraded_with_its_placeholders() -> None:
    source = (FIXTURES / "trainer-upgrades" / "runtime-v2.1.in.yaml").read_text(encoding="utf-8")
    text = source.replace("    numNodes: 1\n", "    numNodes: ${NODES}\n")
    assert text != source
    result = convert_text(text)
    assert [d.status for d in result.documents] == ["converted"], result.findings
    assert "    numNodes: ${NODES}\n" in result.text
    assert "elasticPolicy:" not in result.text
    assert "maxRestarts" not in result.text
    assert {"T704", "T705"} <= {f.code for f in result.findings}


def test_current_trainjobs_in_templates_are_judged_as_before() -> None:
    current = TRAINJOB.replace(TRAINJOB[TRAINJOB.index("  podTemplateOverrides"):
                                       TRAINJOB.index("  runtimeRef")], "")
    result = convert_text(current)
    assert [d.status for d in result.documents] == ["unchanged"]
    assert result.text == current
    assert result.findings == []
    helm = convert_text(current.replace("${NODE_NUM}", "{{ .Values.nodes }}"))
    assert [(d.status, [f.code for f in d.findings]) for d in helm.documents] == \
        [("skipped", ["Y103"])]


def test_a_current_trainjob_template_the_stage_cannot_read_is_judged_as_before() -> None:
    """(review 13) An inline ``{{ if }}...{{ end }}`` line: the template stage cannot read
    it; a current TrainJob needs no upgrade, so it stays a Y103 warning, not a Y101 error."""
    current = TRAINJOB.replace(TRAINJOB[TRAINJOB.index("  podTemplateOverrides"):
                                        TRAINJOB.index("  runtimeRef")], "")
    text = current.replace("${NODE_NUM}", "{{ .Values.nodes }}").replace(
        "    numNodes:", "    {{ if .Values.gpu }}resourcesPerNode: {limits: {nvidia.com/gpu: 1}}"
        "{{ end }}\n    numNodes:")
    result = convert_text(text)
    assert [(d.status, [f.code for f in d.findings]) for d in result.documents] == \
        [("skipped", ["Y103"])]
    assert result.text == text


def test_a_placeholder_the_upgrade_cannot_carry_is_reported_at_its_line(tmp_path: Path) -> None:
    text = TRAINJOB.replace("${NODE_NUM}", "${A}${B}")  # not a whole value: not carried
    result = convert_text(text)
    assert [d.status for d in result.documents] == ["failed"]
    errors = [f for f in result.findings if f.severity.value == "error"]
    assert [(f.code, f.path, f.line, f.column) for f in errors] == \
        [("V602", "spec.trainer.numNodes", 15, 5)]


def test_validation_findings_of_an_upgrade_point_at_the_source_line() -> None:
    """An output path that is no source field keeps no line (nothing to point at)."""
    text = TRAINJOB.replace("${NODE_NUM}", "0").replace("${INSTANCE_TYPE}", "m5")
    result = convert_text("# leading comment\n---\n" + text)
    found = [f for f in result.findings if f.code.startswith("V")]
    assert found, result.findings
    for finding in found:
        assert finding.path == "spec.trainer.numNodes"
        assert (finding.line, finding.column) == (17, 5)


@pytest.mark.parametrize(("value", "kept"), [
    ("\x00  # nodes", "\x00"), ('"\x00" # nodes', '"\x00"'), ("'\x00' # n", "'\x00'"),
    ('"\x00 #y"', '"\x00 #y"'),  # (review 13) a ``#`` inside quotes is text, not a comment
    ("\x00#c", "\x00#c"),  # no blank before it: not a comment either
])
def test_only_a_comment_after_a_whole_value_action_is_dropped(value: str, kept: str) -> None:
    from migrator.template import codec

    assert codec._COMMENTED.sub(r"\1", value) == kept


def test_a_hash_inside_a_quoted_placeholder_value_is_kept() -> None:
    text = PYTORCHJOB.replace("- name: pytorch\n", '- name: pytorch\n'
                              '            env: [{name: TAG, value: "${TAG} #y"}]\n', 1)
    result = convert_text(text)
    assert [d.status for d in result.documents] == ["converted"]
    assert result.text != text
    assert '{name: TAG, value: "${TAG} #y"}' in result.text
