"""The contract on whole charts of ../shared/corpus/charts, rendered with helm_python."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from ruamel.yaml import YAML

from migrator import ConvertOptions
from migrator.template import Outcome
from tests.templates.contract import compare, legacy_templates, parse, render_chart, value_sets

pytest.importorskip("helm_python")

CHARTS = {
    "arena-pytorchjob": "kubeflow-arena/charts/pytorchjob",
    "arena-tfjob": "kubeflow-arena/charts/tfjob",
    "arena-mpijob": "kubeflow-arena/charts/mpijob",
    "arena-cron-tfjob": "kubeflow-arena/charts/cron-tfjob",
    "mlbatch-pytorchjob-generator": "project-codeflare-mlbatch/tools/pytorchjob-generator/chart",
    "nemo-training": "nvidia-nemo-framework-launcher/launcher_scripts/nemo_launcher/core/"
                     "k8s_templates/training",
    "nemo-peft": "nvidia-nemo-framework-launcher/launcher_scripts/nemo_launcher/core/"
                 "k8s_templates/peft",
    "nemo-data-preparation": "nvidia-nemo-framework-launcher/launcher_scripts/nemo_launcher/"
                             "core/k8s_templates/data_preparation",
}
# MPI and TF jobs need a generated runtime on Trainer 2.2 (K105 otherwise), as for rendered input
OPTIONS = {name: ConvertOptions(companion_runtimes=True)
           for name in ("arena-mpijob", "arena-tfjob", "nemo-data-preparation")}
# charts that convert in both modes are held in both (a templated boolean such as
# `hostNetwork: {{ .Values.useHostNetwork }}` lands in the companion runtime)
BOTH_MODES = ("arena-pytorchjob", "nemo-training", "nemo-peft")
RUNS = [(name, OPTIONS.get(name)) for name in sorted(CHARTS)] + \
    [(name, ConvertOptions(companion_runtimes=True)) for name in BOTH_MODES] + \
    [(name, ConvertOptions(companion_runtimes=True, target="2.3"))  # (and the 2.3 CRDs)
     for name in ("arena-pytorchjob", "arena-tfjob")]


# templates left as they are, each with the finding that says why (the rest must convert)
REFUSED = {
    # Trainer has no cron, and a kubedl Cron's template holds a workload it creates, which
    # cannot be a TrainJob (kubedl's Cron knows Kubeflow jobs only)
    ("arena-cron-tfjob", "templates/_tfjob.yaml"): "Y110",
    ("arena-cron-tfjob", "templates/cron.yaml"): "Y110",
    # mpi-operator v1alpha1: one pod template for launcher and workers, kubectl exec, and
    # arena's fork adds fields upstream never had (K101 says so)
    ("arena-mpijob", "templates/mpijob.yaml"): "K101",
    # an AppWrapper component needs pod sets: a TrainJob has no pod template to point at
    ("mlbatch-pytorchjob-generator", "templates/appwrapper.yaml"): "E802",
}
CRD_PROBLEMS: list[str] = []  # problems the converter itself has on the rendered jobs


def _arena_tfjob_shape(outcome: Outcome) -> None:
    """Four roles' pod templates, 95 distinct blocks in 49 KB: refused for its size before.
    Once the values that enable a PS or an Evaluator (F512), a Chief (P306: its pod template
    differs from the Workers'; converted again with the Chief on) or no Worker at all (K103)
    keep the legacy job, their roles' text and blocks are gone from every world the fold
    converts (worlds._still_switched), and the Worker-only job converts: TF_CONFIG over
    `replicas: {{ .Values.workers }}` is a loop, one worker has none (F532). (Checked on the
    conversion the contract below holds against Helm: converting this chart takes the longest
    of the corpus.)"""
    from migrator.template import worlds

    kept = [n.message for n in outcome.notes if n.code == "Y112"]
    for test in ("{{ .Values.ps }}", "{{ .Values.evaluator }}", "{{ not (.Values.workers) }}"):
        assert any(f"where {test} holds" in m for m in kept), (test, kept)
    # the Chief's `if` fails only with P306: converted again with the Chief on, and there the
    # Workers' `if` once more (a Chief alone, and a Chief with Workers whose pod templates are
    # alike, convert); the legacy job stays where the roles' templates differ, such as a node
    # selector for one of them (values-chief-workers.yaml)
    assert "{{- else if .Values.chief }}\n{{- if .Values.workers }}" in outcome.text
    assert not any("where {{ and (.Values.chief) (.Values.workers) }} holds" in m for m in kept)
    assert any("(ne (len $tfNodeSelectors.Chief) 0)" in m for m in kept), kept
    assert "range $node := until (int (.Values.workers))" in outcome.text
    assert '{{- if eq (toString (.Values.workers)) "1" }}' in outcome.text
    assert outcome.worlds <= 2 * worlds.MAX_BRANCH_RUNS


SHAPES = {"arena-tfjob": _arena_tfjob_shape}


def _base(chart: Path) -> dict[str, Any]:
    settings = chart / "tests" / "helloworld.settings.yaml"
    if settings.is_file():
        return YAML(typ="safe", pure=True).load(settings.read_text(encoding="utf-8")) or {}
    return {}


_CRDS: dict[Path, Any] = {}


def _crd_problems(crdcheck: ModuleType, shared: Path, text: str, target: str) -> list[str]:
    """Strict upstream-CRD problems of the v2 objects in a rendered stream."""
    found = []
    for crd in sorted((shared / "crds" / f"trainer-v{target}.0").glob("*.yaml")):
        if crd not in _CRDS:
            _CRDS[crd] = crdcheck.load_crd(crd)
        kind, api, validator = _CRDS[crd]
        for doc in parse(text):
            if isinstance(doc, dict) and doc.get("kind") == kind:
                found.extend(crdcheck.problems(doc, kind, api, validator))
    return found


@pytest.mark.parametrize(("name", "options"), RUNS,
                         ids=[n if o is None else f"{n}-companion" if o.target == "2.2" else
                              f"{n}-companion-{o.target}" for n, o in RUNS])
def test_every_value_set_keeps_the_contract(shared: Path, crdcheck: ModuleType,
                                             name: str, options: ConvertOptions | None) -> None:
    from migrator.template import convert_template

    chart = shared / "corpus" / "charts" / CHARTS[name]
    sets = value_sets(name, _base(chart))
    assert len(sets) >= 3, f"fixtures/charts/{name} needs at least three value sets"
    templates = legacy_templates(chart)
    assert templates, f"no legacy-job template found in {chart}"
    for template in templates:
        source = template.read_text(encoding="utf-8")
        outcome = convert_template(source, options=options)
        assert outcome is not None
        rel = template.relative_to(chart).as_posix()
        if not (chart / "templates").is_dir():
            rel = f"templates/{template.name}"
        key = rel
        refused = REFUSED.get((name, rel))
        if refused is None:
            assert outcome.status == "converted", \
                (rel, [(n.code, n.line, n.message) for n in outcome.notes])
            if name in SHAPES and (options is None or options.target == "2.2"):
                SHAPES[name](outcome)
        else:
            assert outcome.status != "converted"
            assert refused in {n.code for n in outcome.notes}, outcome.notes
        if outcome.status != "converted":
            # not carried: the template stays byte-identical and a finding says why
            assert outcome.text == source
            assert outcome.notes, f"{key}: {outcome.status} without a finding"
            continue
        for label, values in sets:
            rendered = _one(render_chart(chart, values), rel)
            after = _one(render_chart(chart, values, {rel: outcome.text}), rel)
            verdict = compare(after, rendered, outcome, options)
            assert verdict.ok, f"{name} {rel} {label}:\n" + "\n".join(verdict.problems)
            target = options.target if options is not None else "2.2"
            problems = _crd_problems(crdcheck, shared, after, target)
            # the converter's own output for the rendered job is the reference (the objects are
            # equal, see above): the template adds no CRD problem of its own
            assert problems == _crd_problems(crdcheck, shared, verdict.direct, target), \
                f"{name} {rel} {label}: {problems}"
            CRD_PROBLEMS.extend(f"{name} {label}: {p}" for p in problems)


def _one(rendered: dict[str, str], rel: str) -> str:
    """The rendered text of one template (keys are <chart name>/<path>)."""
    return next(text for key, text in rendered.items() if key.endswith("/" + rel))
