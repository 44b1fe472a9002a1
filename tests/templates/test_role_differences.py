"""Roles whose pod templates differ for some values, and blocks that misbehave only in pairs:
the template converts and keeps the legacy job for exactly the values that need it (both sides
rendered by Helm's engine, helm_python)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from migrator import ConvertOptions
from migrator.template import convert_template
from tests.templates.contract import check_every_combination, check_inline_chart, render_chart

HEAD = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: job
spec:
  pytorchReplicaSpecs:
"""


def role(name: str, replicas: int | str, extra: str = "") -> str:
    return f"""    {name}:
      replicas: {replicas}
      template:
        spec:
          containers:
          - name: pytorch
            image: img
            command: ["torchrun", "--nproc_per_node=1", "train.py"]
            resources:
              limits:
                nvidia.com/gpu: 1
{extra}"""


def _if(test: str, lines: str, indent: int, other: str = "") -> str:
    pad = " " * indent
    body = "".join(f"{pad}{line}\n" for line in lines.split("\n"))
    alt = "".join(f"{pad}{line}\n" for line in other.split("\n")) if other else ""
    return f"{pad}{{{{- if {test} }}}}\n{body}" + (f"{pad}{{{{- else }}}}\n{alt}" if alt else "") \
        + f"{pad}{{{{- end }}}}\n"


# an optional Master (nested in another if) whose `x` block writes volumeMounts, where the
# Worker's `x` block writes env: the roles differ only when the Master runs and x is set
NESTED_ROLE = HEAD + "{{- if .Values.on }}\n{{- if .Values.master }}\n" + role(
    "Master", 1, """            {{- if .Values.x }}
            volumeMounts:
            - name: data
              mountPath: /data
            {{- end }}
""") + "{{- end }}\n" + role("Worker", 2, """            {{- if .Values.x }}
            env:
            - name: X
              value: "1"
            {{- end }}
""") + "{{- end }}\n"


def _kept(outcome: Any) -> list[str]:
    return [n.message for n in outcome.notes if n.code == "Y112"]


def _rendered(tmp: Path, text: str, values: dict[str, Any]) -> str:
    chart = tmp / "chart"
    (chart / "templates").mkdir(parents=True, exist_ok=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n",
                                      encoding="utf-8")
    (chart / "templates" / "job.yaml").write_text(text, encoding="utf-8")
    return render_chart(chart, values)["chart/templates/job.yaml"]


def test_a_nested_role_keeps_the_legacy_job_only_where_it_runs_beside_the_other(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """The block around the Master is taken (the template converted again with it on); there
    the Master's own `x` block is kept apart from its twin in the Worker: the legacy job stays
    for master and x together, not for x alone (before: for every Master)."""
    pytest.importorskip("helm_python")
    sets = {f"master={m} x={x}": {"on": True, "master": m, "x": x}
            for m in (True, False) for x in (True, False)}
    sets["off"] = {"on": False}
    outcome = check_inline_chart(tmp_path, NESTED_ROLE, sets, crdcheck, shared)["2.2"]
    assert any(".Values.master" in m and ".Values.x" in m and "P306" in m
               for m in _kept(outcome)), _kept(outcome)


# per-role optional resources: each alone is a request (the other role had no limit), both
# a limit of the larger (P307), so the output for both is neither one's
LITERAL_RESOURCES = HEAD + role("Master", 1, """                {{- if .Values.a }}
                cpu: "2"
                memory: 1Gi
                {{- end }}
""") + role("Worker", 2, """                {{- if .Values.b }}
                memory: 2Gi
                cpu: "1"
                {{- end }}
""")


def test_per_role_optional_resources_convert_for_every_combination(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """The two blocks do not combine independently (refused before, Y110): one of them is
    found by bisecting the failing world and taken, and the template is converted again with it
    on; each side then switches the other alone."""
    pytest.importorskip("helm_python")
    sets = {f"a={a} b={b}": {"a": a, "b": b} for a in (True, False) for b in (True, False)}
    outcome = check_inline_chart(tmp_path, LITERAL_RESOURCES, sets, crdcheck, shared)["2.2"]
    assert _kept(outcome) == []


TEMPLATED_RESOURCES = HEAD + role("Master", 1, """                {{- if .Values.masterMemory }}
                memory: {{ .Values.masterMemory }}
                {{- end }}
""") + role("Worker", 2, """                {{- if .Values.workerMemory }}
                memory: {{ .Values.workerMemory }}
                {{- end }}
""")


def test_the_maximum_of_two_templated_resources_keeps_the_legacy_job(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """Every node gets the larger of the roles' memory, known only once rendered: with both set
    and different the template keeps the legacy job (Y112 names both), with one, none or both
    alike it converts."""
    pytest.importorskip("helm_python")
    sets = {"master": {"masterMemory": "8Gi"}, "worker": {"workerMemory": "16Gi"}, "none": {},
            "both": {"masterMemory": "8Gi", "workerMemory": "8Gi"}}
    outcome = check_inline_chart(tmp_path, TEMPLATED_RESOURCES, sets, crdcheck, shared,
                                 targets=("2.2",))["2.2"]
    # (both set and alike convert too, with one role's value: unify)
    assert any("ne (toYaml (.Values.workerMemory)) (toYaml (.Values.masterMemory))" in m
               and "maximum" in m for m in _kept(outcome)), _kept(outcome)
    for values in ({"masterMemory": "32Gi", "workerMemory": "16Gi"},
                   {"masterMemory": "8Gi", "workerMemory": "16Gi"}):
        assert _rendered(tmp_path, outcome.text, values).lstrip() == \
            _rendered(tmp_path, TEMPLATED_RESOURCES, values)


def test_templated_resources_of_two_roles_are_never_maxed_by_their_stand_ins(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """Before, the stand-ins' own order chose the Worker's value for every node, whatever the
    values (32Gi for the Master rendered 16Gi); then the template stayed as it was. Now the
    TrainJob takes the Master's value where the two are alike, and the legacy job is kept
    where they differ (unify: the maximum is known only once rendered)."""
    pytest.importorskip("helm_python")
    text = TEMPLATED_RESOURCES.replace("                {{- if .Values.masterMemory }}\n", "") \
        .replace("                {{- if .Values.workerMemory }}\n", "") \
        .replace("                {{- end }}\n", "")
    sets = {"alike": {"masterMemory": "16Gi", "workerMemory": "16Gi"},
            "larger-master": {"masterMemory": "32Gi", "workerMemory": "16Gi"},
            "larger-worker": {"masterMemory": "8Gi", "workerMemory": "16Gi"}}
    outcome = check_every_combination(tmp_path, text, sets, crdcheck, shared,
                                      ConvertOptions(), converts=("alike",))
    assert any("ne (toYaml (.Values.workerMemory)) (toYaml (.Values.masterMemory))" in m
               for m in _kept(outcome)), _kept(outcome)


# two blocks writing the same label: the rendered YAML has a duplicate key only with both
DUPLICATE = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: job
  labels:
    {{- if .Values.a }}
    team: a
    {{- end }}
    {{- if .Values.b }}
    team: b
    {{- end }}
spec:
  pytorchReplicaSpecs:
""" + role("Worker", 2)


def test_blocks_that_fail_only_together_keep_the_legacy_job_only_together(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """The failing block's neighbour alone mends the world, so the template is converted again
    with the failing block on, and keeps the legacy job there for the neighbour (before: the
    legacy job for every value of b)."""
    pytest.importorskip("helm_python")
    sets = {"a": {"a": True}, "b": {"b": True}, "none": {}}
    outcome = check_inline_chart(tmp_path, DUPLICATE, sets, crdcheck, shared)["2.2"]
    assert any("and (.Values.b) (.Values.a)" in m for m in _kept(outcome)), _kept(outcome)
    both = {"a": True, "b": True}
    assert _rendered(tmp_path, outcome.text, both).lstrip() == \
        _rendered(tmp_path, DUPLICATE, both)


def _head(block: Any) -> str:
    header = block.branches[0].header
    return header.text if header is not None else ""


def test_the_condition_of_blocks_that_switch_together_names_every_place() -> None:
    """Blocks with one test switch together: forcing one forces its twins, so the legacy job
    must be kept wherever any of them renders (a twin inside another's test adds nothing)."""
    from migrator.template import structure
    from migrator.template.codec import Codec
    from migrator.template.conditions import condition
    from migrator.template.tokens import tokenize

    text = ("{{- if .Values.a }}\nx: 1\n{{- if .Values.t }}\ny: 1\n{{- end }}\n{{- end }}\n"
            "{{- if .Values.b }}\nz: 1\n{{- if .Values.t }}\nw: 1\n{{- end }}\n{{- end }}\n")
    codec = Codec(structure.build(text, tokenize(text, "go")), "go")
    first = next(b for b in codec.template.blocks if "Values.t" in _head(b))
    assert condition(codec, first, 0, {}) == "and (.Values.a) (.Values.t)"
    assert condition(codec, first, 0, {}, every=True) == \
        "or (and (.Values.a) (.Values.t)) (and (.Values.b) (.Values.t))"
    # a twin at the top holds the others
    top = text + "{{- if .Values.t }}\nv: 1\n{{- end }}\n"
    codec = Codec(structure.build(top, tokenize(top, "go")), "go")
    first = next(b for b in codec.template.blocks if "Values.t" in _head(b))
    assert condition(codec, first, 0, {}, every=True) == ".Values.t"
    # a twin under the else of an if no choice was made for is reached too
    other = ("{{- if .Values.a }}\n{{- if .Values.t }}\nx: 1\n{{- end }}\n{{- else }}\n"
             "{{- if .Values.t }}\ny: 1\n{{- end }}\n{{- end }}\n")
    codec = Codec(structure.build(other, tokenize(other, "go")), "go")
    first = next(b for b in codec.template.blocks if "Values.t" in _head(b))
    assert condition(codec, first, 0, {}, every=True) == \
        "or (and (.Values.a) (.Values.t)) (and (not (.Values.a)) (.Values.t))"
    # a twin kept off by the choices made is not reachable
    codec = Codec(structure.build(text, tokenize(text, "go")), "go")
    first = next(b for b in codec.template.blocks if "Values.t" in _head(b))
    outer = next(b for b in codec.template.blocks if "Values.b" in _head(b))
    assert condition(codec, first, 0, {outer.id: 1}, every=True) == \
        "and (.Values.a) (.Values.t)"


# one test (x) in two places: its else fails only under m (an init container, P303)
TWINS = HEAD + role("Worker", 2, _if(".Values.x", 'env:\n- name: X\n  value: "1"', 12,
                                     "workingDir: /w")).replace("          containers:\n", _if(
    ".Values.m", "{{- if .Values.x }}\npriorityClassName: high\n{{- else }}\ninitContainers:\n"
    "- name: init\n  image: busybox\n{{- end }}", 10) + "          containers:\n", 1)


def test_a_failing_branch_with_a_twin_elsewhere_keeps_the_legacy_job_where_it_renders(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """The failing `else` is the one under m (its lines hold the error): it is kept legacy
    alone, and its twin in the container still switches. Before, every `x` block was forced on
    while the legacy job was kept only under m: m and x unset rendered the TrainJob with x's env
    and without the workingDir the values give."""
    pytest.importorskip("helm_python")
    sets = {f"m={m} x={x}": {"m": m, "x": x} for m in (True, False) for x in (True, False)}
    outcome = check_inline_chart(tmp_path, TWINS, sets, crdcheck, shared)["2.2"]
    assert [m.split(" holds")[0] for m in _kept(outcome)] == \
        ["for values where {{ and (.Values.m) (not (.Values.x)) }}"]
    assert "kind: TrainJob" in _rendered(tmp_path, outcome.text, {"m": False, "x": False})


# a job inside an `if` whose test closes with its own parenthesis
NOT_SKIPPED = '{{- if not (eq .Values.mode "skip") }}\n' + HEAD + role("Master", 1) \
    + "    {{- if .Values.workers }}\n" + role("Worker", "{{ .Values.workers }}") \
    + "    {{- end }}\n{{- end }}\n"


def test_a_test_that_ends_in_its_own_parenthesis_keeps_it(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    """Found on sagemaker-hyperpod-recipes (nova PPO, `if not (regexMatch "-ag$" ...)`): a
    condition written back lost every closing parenthesis at its end (`strip("()")`), and Helm
    refused the converted template (unclosed left paren)."""
    pytest.importorskip("helm_python")
    sets: dict[str, dict[str, Any]] = {
        "run": {"mode": "run", "workers": 2}, "master-only": {"mode": "run"},
        "skip": {"mode": "skip", "workers": 2}}
    check_inline_chart(tmp_path, NOT_SKIPPED, sets, crdcheck, shared, targets=("2.2",))


# found by an attack pass on these mechanisms (each rendered a TrainJob other than converting
# the rendered job gives, for some values)
ATTACKS = {
    # the pair's block has a twin outside the Master's if: the split must not take that if
    "split-on-an-or": (HEAD + "{{- if .Values.q }}\n" + role("Master", 1, _if(
        ".Values.s", 'cpu: "1"', 16)) + "{{- end }}\n" + role("Worker", 2, _if(
            ".Values.s", "memory: 2Gi", 16)), ("q", "s")),
    # two entries kept legacy under the same test: the split is the second one
    "split-twice-the-same-test": (HEAD + "{{- if .Values.q }}\n" + role("Master", 1, _if(
        ".Values.p", "workingDir: /m", 12)) + "{{- end }}\n" + role(
            "Worker", 2, '                cpu: "1"\n' + _if(".Values.q", 'cpu: "1"', 16,
                                                            "memory: 1Gi")), ("q", "p")),
    # twins under an else of an if that is not forced are switched with the others
    "twins-under-an-else": (HEAD + role("Master", 1, _if(".Values.b", 'memory: 2Gi\ncpu: "1"', 16))
                            + role("Worker", 2, "                {{- if .Values.s }}\n" + _if(
                                ".Values.a", 'cpu: "2"\nmemory: 1Gi', 16)
                                + "                {{- else }}\n" + _if(
                                ".Values.a", 'cpu: "3"\nmemory: 3Gi', 16)
                                + "                {{- end }}\n"), ("b", "s", "a")),
    # the if around a role has a twin elsewhere (metadata labels)
    "role-if-with-a-twin": (HEAD.replace("  name: job\n", "  name: job\n" + _if(
        ".Values.q", "{{- if .Values.master }}\nlabels:\n  m: \"1\"\n{{- end }}", 2))
        + "{{- if .Values.master }}\n" + role("Master", 1, "            workingDir: /m\n")
        + "{{- end }}\n" + role("Worker", 2), ("q", "master")),
    # an if whose only field the converter drops, around one that writes
    "a-dropped-field-around-a-block": (HEAD + role("Worker", 2, "            {{- if .Values.p }}\n"
                                        + _if(".Values.r", "workingDir: /w", 12,
                                              'env:\n- name: X\n  value: "1"')
                                        + "            {{- end }}\n"), ("p", "r")),
    # a label two else branches write: broken YAML only with both off and the outer if on (a
    # combination the fold was checked with, passed over before as values no chart gives)
    "broken-only-in-a-combination": (HEAD.replace("  name: job\n", "  name: job\n" + _if(
        "or .Values.p .Values.q .Values.r", "labels:\n" + _if(".Values.r", 'l0: "0"', 2, "team: b")
        + _if(".Values.p", 'l1: "1"', 2, "team: b"), 2).replace("\n  \n", "\n"))
        + role("Worker", 2), ("p", "q", "r")),
    # an `else if` whose branch breaks the job (a key written twice): the block was forced to
    # its first branch, so no value took "neither" any more (env X rendered for both unset)
    "an-else-if-that-fails": (HEAD + role("Worker", 2, "            {{- if .Values.p }}\n"
                                          '            env:\n            - name: X\n'
                                          '              value: "1"\n'
                                          "            {{- else if .Values.q }}\n"
                                          "            image: other\n            {{- end }}\n"),
                              ("p", "q")),
    # an if/else whose else writes what the if's inner block writes (switching it alone
    # changes nothing): it still guards the block inside
    "an-else-that-writes-the-same": (HEAD + role("Worker", 2, _if(
        ".Values.p", '{{- if .Values.q }}\nargs: ["--fast"]\n{{- end }}', 12,
        'args: ["--fast"]')), ("p", "q")),
    # a range over m under `if q`, twin of one under `if m`: the range was taken as never
    # empty everywhere (m unset with q rendered empty labels into a runtime patch)
    "a-range-twin-under-another-test": (HEAD.replace("  name: job\n", "  name: job\n" + _if(
        ".Values.m", "annotations:\n  {{- range $k, $v := .Values.m }}\n"
        "  {{ $k }}: {{ $v | quote }}\n  {{- end }}", 2)) + role("Worker", 2).replace(
        "        spec:\n", "        metadata:\n          labels:\n" + _if(
            ".Values.q", "{{- range $k, $v := .Values.m }}\n{{ $k }}: {{ $v | quote }}\n"
            "{{- end }}", 12) + "        spec:\n", 1), ("m", "q")),
    # an if inside its own else (the fold recursed without end: a traceback)
    "a-test-inside-its-own-else": (HEAD + role("Worker", 2, _if(
        ".Values.r", "workingDir: /a", 12, "{{- if .Values.r }}\nworkingDir: /b\n{{- else }}\n"
        "workingDir: /c\n{{- end }}")), ("r",)),
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_no_values_render_another_trainjob(tmp_path: Path, name: str) -> None:
    """For every combination: the converted template renders what converting the rendered
    job gives, or (where it cannot say) the legacy job as written."""
    pytest.importorskip("helm_python")
    from migrator import convert_text
    from tests.templates.contract import parse

    text, keys = ATTACKS[name]
    outcome = convert_template(text)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    converted = 0
    for combo in range(2 ** len(keys)):
        values: dict[str, Any] = {k: bool(combo >> i & 1) for i, k in enumerate(keys)}
        if "m" in values:  # (a map to range over, or none)
            values["m"] = {"team": "a"} if values["m"] else None
        rendered, after = _rendered(tmp_path, text, values), _rendered(tmp_path, outcome.text,
                                                                       values)
        if after.lstrip() == rendered:
            continue  # the legacy job, kept for these values
        assert parse(after) == parse(convert_text(rendered).text), (values, after)
        converted += 1
    assert converted, "no values convert"
