"""Unit tests of the template stage: tokenizer, blocks, placeholders and their way back."""

from __future__ import annotations

import pytest

from migrator.template import convert_template, dialect_of
from migrator.template.codec import INT_BASE, Codec, decode_int
from migrator.template.structure import Unsupported, build
from migrator.template.tokens import TemplateSyntaxError, tokenize

JOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}-job
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: "{{ .Values.image }}"
            command: ["torchrun", "train.py"]
    Worker:
      replicas: {{ .Values.workers }}
      template:
        spec:
          containers:
          - name: pytorch
            image: "{{ .Values.image }}"
            command: ["torchrun", "train.py"]
"""


def test_tokenizer_reads_trim_markers_comments_and_strings() -> None:
    text = ('{{- if .Values.x }}a{{/* a }} comment */}}{{ "}}" | quote -}}'
            "{{ `raw }}` }}{{ $v := 1 }}")
    acts = tokenize(text, "go")
    assert [a.kind for a in acts] == ["control", "comment", "value", "value", "assign"]
    assert acts[0].trim_left
    assert not acts[0].trim_right
    assert acts[0].keyword == "if"
    assert acts[2].trim_right
    assert acts[2].body == '"}}" | quote'


@pytest.mark.parametrize("bad", ["{{ .Values.x ", '{{ "unterminated }}', "{{ {{ }}"])
def test_tokenizer_refuses_unclosed_actions(bad: str) -> None:
    with pytest.raises(TemplateSyntaxError):
        tokenize(bad, "go")


def test_envsubst_tokens() -> None:
    acts = tokenize("a: $A\nb: ${B_2}-x\nc: $(date) $1 $$", "envsubst")
    assert [a.body for a in acts] == ["A", "B_2"]


def test_dialects() -> None:
    assert dialect_of("a: {{ .x }}") == "go"
    assert dialect_of("a: ${X}") == "envsubst"
    assert dialect_of("a: {% if x %}") is None
    assert dialect_of("a: b") is None


def test_blocks_nest_and_else_branches_are_kept() -> None:
    text = "{{- if .a }}\nx: 1\n{{- else if .b }}\nx: 2\n{{- else }}\nx: 3\n{{- end }}\n"
    tpl = build(text, tokenize(text, "go"))
    assert len(tpl.blocks) == 1
    assert len(tpl.blocks[0].branches) == 3
    assert tpl.blocks[0].alternatives == 3


def test_unbalanced_blocks_are_unsupported() -> None:
    text = "x: 1\n{{- end }}\n"
    with pytest.raises(Unsupported):
        build(text, tokenize(text, "go"))


def test_item_with_control_on_the_dash_line_is_split() -> None:
    text = "l:\n- {{- if .k }}\n  key: a\n  {{- end }}\n"
    tpl = build(text, tokenize(text, "go"))
    assert [u.kind for u in tpl.units][:3] == ["line", "line", "control"]


def test_integer_stand_ins_decode_sums() -> None:
    text = "replicas: {{ .a }}\nport: {{ .b }}\n"
    codec = Codec(build(text, tokenize(text, "go")), "go")
    encoded = codec.encode({}).text
    a, b = codec.ints
    assert a.token in encoded
    assert b.token in encoded
    assert decode_int(int(a.token) + 1, codec.ints) == ([a], 1)
    assert decode_int(int(a.token) + int(b.token), codec.ints) == ([a, b], 0)
    assert decode_int(INT_BASE - 10_000, codec.ints) is None


def test_chart_template_keeps_actions_and_adds_numnodes_arithmetic() -> None:
    outcome = convert_template(JOB)
    assert outcome is not None
    assert outcome.status == "converted"
    assert "numNodes: {{ add 1 (.Values.workers) }}" in outcome.text
    assert 'image: "{{ .Values.image }}"' in outcome.text
    assert "name: {{ .Release.Name }}-job" in outcome.text
    moved = {p["action"]: p["to"] for p in outcome.provenance}
    assert moved["{{ .Values.workers }}"] == ["spec.trainer.numNodes"]


def test_envsubst_cannot_add_so_the_file_is_left_alone() -> None:
    text = JOB.replace("{{ .Values.workers }}", "$WORKERS").replace(
        "{{ .Release.Name }}", "${NAME}").replace('"{{ .Values.image }}"', "${IMAGE}")
    outcome = convert_template(text)
    assert outcome is not None
    assert outcome.status == "skipped"
    assert outcome.text == text
    assert [n.code for n in outcome.notes] == ["Y111"]
    assert "$WORKERS" in outcome.notes[0].message


def test_envsubst_single_role_keeps_the_variable() -> None:
    text = JOB.split("    Master:")[0] + "    Worker:" + JOB.split("    Worker:")[1]
    text = text.replace("{{ .Values.workers }}", "${NUM_NODES}").replace(
        "{{ .Release.Name }}", "${NAME}").replace('"{{ .Values.image }}"', "${IMAGE}")
    outcome = convert_template(text)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    assert "numNodes: ${NUM_NODES}" in outcome.text
    assert "image: ${IMAGE}" in outcome.text


def test_conditional_field_travels_with_its_field() -> None:
    text = JOB.replace("          containers:\n          - name: pytorch\n            image: "
                       "\"{{ .Values.image }}\"\n            command: [\"torchrun\", \"train.py\"]"
                       "\n", "          {{- if .Values.sel }}\n          nodeSelector:\n"
                       "            pool: gpu\n          {{- end }}\n          containers:\n"
                       "          - name: pytorch\n            image: \"{{ .Values.image }}\"\n"
                       "            command: [\"torchrun\", \"train.py\"]\n")
    outcome = convert_template(text)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    body = outcome.text
    assert "{{- if .Values.sel }}" in body
    assert "pool: gpu" in body
    assert body.index("{{- if .Values.sel }}") < body.index("pool: gpu") < body.index("{{- end }}")
