"""Constructs carried since session 5: counts inside embedded jobs, pinned fixed counts, counters
stepped at the end of a range body, untrimmed nindent fragments under a block scalar."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from migrator.template import convert_template
from tests.templates.contract import COUNT_GUARD, check_inline_chart

EMBEDDED = """apiVersion: v1
kind: ConfigMap
metadata:
  name: trial-templates
data:
  pytorchJobTemplate: |-
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    spec:
      nprocPerNode: "1"
      pytorchReplicaSpecs:
        Master:
          replicas: 1
          template:
            spec:
              containers:
                - name: pytorch
                  image: {{ .Values.image }}
                  command: ["torchrun", "train.py"]
        Worker:
          replicas: {{ .Values.workers | default 2 }}
          template:
            spec:
              containers:
                - name: pytorch
                  image: {{ .Values.image }}
                  command: ["torchrun", "train.py"]
{{- range $name, $template := .Values.custom }}
  {{ $name }}: |-
{{ $template | nindent 4 }}
{{- end }}
"""


def test_a_count_inside_an_embedded_job_is_read_back_as_arithmetic() -> None:
    outcome = convert_template(EMBEDDED)
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    assert "numNodes: {{ add 1 (.Values.workers | default 2) }}" in outcome.text
    assert "kind: TrainJob" in outcome.text
    # the fragment did not move: it is written as it was (its blank line is part of the value)
    assert "\n{{ $template | nindent 4 }}\n" in outcome.text


MASTER = """{{ $c := .Values.job }}
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ $c.name }}
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Master:
      replicas: {{ $c.masters }}
      template:
        spec:
          containers:
            - name: pytorch
              image: train:1
              command: ["torchrun", "train.py"]
    Worker:
      replicas: {{ $c.workers }}
      template:
        spec:
          containers:
            - name: pytorch
              image: train:1
              command: ["torchrun", "train.py"]
"""


NULL_MASTERS = '(not (or (kindIs "invalid" ($c.masters)) (has (trim (toString ($c.masters))) ' \
    '(list "null" "Null" "NULL" "~" ""))))'


def test_a_templated_master_count_is_pinned_and_other_values_keep_the_legacy_job() -> None:
    outcome = convert_template(MASTER)
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    kept = [n for n in outcome.notes if n.code == "Y112" and COUNT_GUARD not in n.message]
    assert len(kept) == 1
    # (a count that renders null is left out, the legacy default 1: it converts, U901)
    pinned = 'and ' + NULL_MASTERS + ' (ne (toString ($c.masters)) "1")'
    assert "{ " + pinned + " }" in kept[0].message
    assert kept[0].line == 10
    assert "{{- if or (" + pinned + ") (not (regexMatch" in outcome.text
    assert "numNodes: {{ add 1 ($c.workers) }}" in outcome.text
    # the legacy job is kept verbatim in the if branch
    assert MASTER.split("\n", 1)[1].rstrip("\n") in outcome.text


WITH_ROLES = (MASTER.replace("{{ $c.masters }}", "{{ .masters }}")
              .replace("spec:\n  nprocPerNode: \"1\"\n  pytorchReplicaSpecs:\n",
                       "spec:\n  nprocPerNode: \"1\"\n  {{- with .Values.roles }}\n"
                       "  pytorchReplicaSpecs:\n")
              .rstrip("\n") + "\n  {{- end }}\n")


def test_a_master_count_inside_a_with_is_pinned_and_other_values_keep_the_legacy_job(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """The Master count `.masters` inside `with .Values.roles` is read at the top as
    `.Values.roles.masters` where the with's value is not empty (06ece2c): converted as 1,
    the legacy job for other counts and for no roles (its job has no replica specs, K103).
    Before 06ece2c it was refused (Y110 "Master replicas", the count could not be tested
    before the job); this test then left out `nprocPerNode`, and once the count was pinned its
    job failed F530 (no process count: an error) and every value set failed."""
    pytest.importorskip("helm_python")
    # (roles without `masters`: a null count, test_an_unset_master_count_keeps_the_contract)
    roles: list[Any] = [None, {}, {"masters": 1}, {"masters": "1"}, {"masters": 2},
                        {"masters": 0}]
    jobs: list[Any] = [{"name": "j", "workers": 2}, {"name": "j", "workers": 0},
                       {"name": "j", "workers": "three"}]
    sets = {f"{r}-{j}": {"job": j, **({} if r is None else {"roles": r})}
            for r in roles for j in jobs}
    outcomes = check_inline_chart(tmp_path, WITH_ROLES, sets, crdcheck, shared)
    kept = [n for n in outcomes["2.2"].notes if n.code == "Y112"]
    assert any('{ and (.Values.roles) (and (not (or (kindIs "invalid" (.Values.roles.masters))'
               in n.message and '(ne (toString (.Values.roles.masters)) "1")) }' in n.message
               and n.line == 11 for n in kept), [n.message for n in kept]
    assert any("{ not (.Values.roles) }" in n.message for n in kept)
    assert "numNodes: {{ add 1 ($c.workers) }}" in outcomes["2.2"].text


# an unset Master count renders `replicas:` (null), which the converter leaves out (U901):
# the legacy default 1, so the job converts (before: the pin's test kept the legacy job)
@pytest.mark.parametrize(("template", "values"), [
    (MASTER, {"job": {"name": "j", "workers": 2}}),
    (WITH_ROLES, {"roles": {"other": 1}, "job": {"name": "j", "workers": 2}})],
    ids=["top", "with"])
def test_an_unset_master_count_keeps_the_contract(template: str, values: dict[str, Any],
                                                  tmp_path: Path, shared: Path,
                                                  crdcheck: ModuleType) -> None:
    pytest.importorskip("helm_python")
    check_inline_chart(tmp_path, template, {"unset": values}, crdcheck, shared)


COUNTER = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: job
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: pytorch
              image: train:1
              command: ["torchrun", "train.py"]
          {{- if .Values.preferred }}
          affinity:
            nodeAffinity:
              {{- $i := 0 }}
              preferredDuringSchedulingIgnoredDuringExecution:
                {{- range $key, $values := .Values.preferred }}
                - weight: {{ index $.Values.weights $i }}
                  preference:
                    matchExpressions:
                      - key: {{ $key | quote }}
                        operator: Exists
                {{- $i = add $i 1 }}
                {{- end }}
          {{- end }}
"""


def test_a_counter_stepped_at_the_end_of_a_range_body_stays_at_the_end() -> None:
    outcome = convert_template(COUNTER)
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    lines = outcome.text.split("\n")
    step = next(i for i, x in enumerate(lines) if "$i = add $i 1" in x)
    use = next(i for i, x in enumerate(lines) if "index $.Values.weights $i" in x)
    end = next(i for i in range(step, len(lines)) if lines[i].strip() == "{{- end }}")
    assert use < step < end  # used, then stepped, then the range ends


def test_a_counter_stepped_between_fields_is_refused_with_its_line() -> None:
    text = COUNTER.replace("""                - weight: {{ index $.Values.weights $i }}
                  preference:""", """                - weight: {{ index $.Values.weights $i }}
                {{- $i = add $i 1 }}
                  preference:""")
    outcome = convert_template(text)
    assert outcome is not None
    assert outcome.status == "skipped"
    assert [n.code for n in outcome.notes] == ["Y110"]
    assert outcome.notes[0].line == 23
    assert "{{- $i = add $i 1 }}" in outcome.notes[0].message
    assert outcome.text == text


def test_helm_renders_the_pinned_template_as_the_converter_would(tmp_path: Path) -> None:
    helm_python = pytest.importorskip("helm_python")
    from tests.templates.contract import compare

    outcome = convert_template(MASTER)
    assert outcome is not None

    def render(text: str, values: dict[str, object]) -> str:
        chart = tmp_path / "c"
        (chart / "templates").mkdir(parents=True, exist_ok=True)
        (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
        (chart / "templates" / "job.yaml").write_text(text)
        return str(helm_python.Chart.load(str(chart)).render(
            values, name="rel", namespace="team")["c/templates/job.yaml"])

    kinds = []
    for masters in (1, 2, "1", 0):
        values: dict[str, object] = {"job": {"name": "j", "masters": masters, "workers": 3}}
        verdict = compare(render(outcome.text, values), render(MASTER, values), outcome)
        assert verdict.ok, "\n".join(verdict.problems)
        kinds.append("TrainJob" in verdict.direct)
    assert kinds == [True, False, True, False]


JINJA = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ model_name }}-fsdp
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: $NUM_NODES
      template:
        spec:
          containers:
            - name: pytorch
              image: train:1
              command:
                - torchrun
              {%- for p in params %}
                - {{ p }}
              {%- endfor %}
"""
PLAIN = (Path(__file__).resolve().parents[2] / "fixtures" / "pytorchjob" / "minimal.in.yaml"
         ).read_text(encoding="utf-8")


def test_a_jinja_job_names_its_first_construct_line_and_the_decision() -> None:
    from migrator import convert_text

    result = convert_text(JINJA + "---\n" + PLAIN)
    first, second = result.documents[0], result.documents[1]
    assert first.status == "skipped"
    assert [f.code for f in first.findings] == ["Y114"]
    finding = first.findings[0]
    assert finding.line == 4
    assert "{{ model_name }} at line 4" in finding.message
    assert "{%- for p in params %} at line 16" in finding.message
    assert "$NUM_NODES (line 8)" in finding.message
    assert "decide" in finding.message
    assert second.status == "converted"  # the plain job of the same stream converts as before
    assert result.text.startswith(JINJA)


def test_a_shell_array_length_is_no_jinja_comment() -> None:
    from migrator import convert_text

    text = PLAIN.replace('command: ["torchrun", "/app/train.py"]',
                         'command: ["bash", "-c", "echo ${#A[@]}; torchrun /app/train.py"]')
    result = convert_text(text)
    assert not any(f.code == "Y114" for d in result.documents for f in d.findings)


def test_a_named_template_writing_pod_fields_is_not_dropped() -> None:
    """The converter would drop an unknown pod field (a warning); a placeholder standing for
    whatever `include` writes must not be judged so: the template is left unchanged, naming
    the include and its line."""
    text = PLAIN.replace("          containers:\n",
                         '          {{- include "x.affinity" . | nindent 10 }}\n'
                         "          containers:\n", 1)
    outcome = convert_template(text)
    assert outcome is not None
    assert outcome.status == "skipped"
    assert outcome.text == text
    [note] = outcome.notes
    assert note.code == "Y110"
    assert note.line == 11
    assert '{{- include "x.affinity" . | nindent 10 }} writes' in note.message
    assert "decide" in note.message


def test_hugo_shortcodes_are_no_jinja() -> None:
    from migrator.template.route import _JINJA_OPEN, first_closed

    assert first_closed('{{% include "job.md" %}}', _JINJA_OPEN) is None
    assert first_closed("{%- for i in params %}", _JINJA_OPEN) is not None
    assert first_closed("{# a comment #}", _JINJA_OPEN) is not None


def test_list_items_of_a_block_at_another_column_are_named() -> None:
    """HyperPod NeMo training's `volumes`: the items of one block sit two columns deeper than
    the item after it; when its blocks end up interleaved, that slip is what is reported."""
    from migrator.template import structure
    from migrator.template.convert import _misaligned_items
    from migrator.template.tokens import tokenize

    text = """volumes:
- name: a
  emptyDir: {}
{{- if .Values.extra }}
{{- range .Values.extra }}
  - name: {{ .name }}
    emptyDir: {}
{{- end }}
{{- end }}
- name: b
  emptyDir: {}
"""
    found = _misaligned_items(structure.build(text, tokenize(text, "go")))
    assert found is not None
    assert found.line == 6
    assert "column 3 (line 6)" in str(found)
    assert "column 1 (line 10)" in str(found)
    aligned = text.replace("  - name: {{ .name }}\n    emptyDir", "- name: {{ .name }}\n  emptyDir")
    assert _misaligned_items(structure.build(aligned, tokenize(aligned, "go"))) is None
