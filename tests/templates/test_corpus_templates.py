"""The contract on the templated single files of ../shared/corpus that render with Helm."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from migrator.template import convert_template
from tests.templates.contract import FIXTURES, compare, value_sets

helm_python = pytest.importorskip("helm_python")

# corpus file -> its value sets in fixtures/charts/
FILES = {
    "aws-sagemaker-hyperpod-recipes/launcher/evaluation/k8s_templates/EVAL/evaluation.yaml":
        "hyperpod-evaluation",
    # a PyTorchJob embedded in a ConfigMap's block scalar, its Worker count templated
    "kubeflow-manifests/experimental/helm/charts/katib/templates/controller/"
    "trial-templates-configmap.yaml": "katib-trial-templates",
    # Master replicas templated: converted for a master of 1, legacy job kept otherwise (Y112)
    "aws-sagemaker-hyperpod-recipes/launcher/nova/k8s_templates/SFT/training.yaml":
        "hyperpod-nova-sft",
}


def _render(text: str, values: dict[str, object], helpers: str = "") -> str:
    with tempfile.TemporaryDirectory(prefix="tjm-file-") as tmp:
        chart = Path(tmp) / "c"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
        (chart / "templates" / "job.yaml").write_text(text)
        if helpers:  # the named templates the file includes (its chart is not in the corpus)
            (chart / "templates" / "_helpers.tpl").write_text(helpers)
        return str(helm_python.Chart.load(str(chart)).render(
            values, name="rel", namespace="team")["c/templates/job.yaml"])


@pytest.mark.parametrize("rel", sorted(FILES))
def test_corpus_template_keeps_the_contract(shared: Path, rel: str) -> None:
    text = (shared / "corpus" / rel).read_text(encoding="utf-8")
    outcome = convert_template(text)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    sets = value_sets(FILES[rel])
    assert len(sets) >= 3
    helpers_file = FIXTURES / FILES[rel] / "_helpers.tpl"
    helpers = helpers_file.read_text(encoding="utf-8") if helpers_file.is_file() else ""
    rendered_jobs = 0
    for label, values in sets:
        rendered = _render(text, values, helpers)
        verdict = compare(_render(outcome.text, values, helpers), rendered, outcome)
        assert verdict.ok, f"{rel} {label}:\n" + "\n".join(verdict.problems)
        rendered_jobs += "kind: TrainJob" in verdict.direct
    assert rendered_jobs >= 3  # at least three value sets render a job that converts
