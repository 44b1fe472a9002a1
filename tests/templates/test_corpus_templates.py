"""The contract on the templated single files of ../shared/corpus that render with Helm."""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import ModuleType

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


def _crd_problems(crdcheck: ModuleType, shared: Path, text: str) -> tuple[list[str], int]:
    from tests.templates.contract import parse

    docs = parse(text)
    for doc in list(docs):  # jobs embedded in string values (katib's trial templates)
        if isinstance(doc, dict) and isinstance(doc.get("data"), dict):
            for value in doc["data"].values():
                if isinstance(value, str) and "kind: TrainJob" in value:
                    docs.extend(parse(value))
    found, checked = [], 0
    for crd in sorted((shared / "crds" / "trainer-v2.2.0").glob("*.yaml")):
        kind, api, validator = crdcheck.load_crd(crd)
        for doc in docs:
            if isinstance(doc, dict) and doc.get("kind") == kind:
                checked += 1
                found.extend(crdcheck.problems(doc, kind, api, validator))
    return found, checked


@pytest.mark.parametrize("rel", sorted(FILES))
def test_corpus_template_keeps_the_contract(shared: Path, crdcheck: ModuleType,
                                            rel: str) -> None:
    text = (shared / "corpus" / rel).read_text(encoding="utf-8")
    outcome = convert_template(text)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    sets = value_sets(FILES[rel])
    assert len(sets) >= 3
    helpers_file = FIXTURES / FILES[rel] / "_helpers.tpl"
    helpers = helpers_file.read_text(encoding="utf-8") if helpers_file.is_file() else ""
    rendered_jobs = validated = 0
    for label, values in sets:
        rendered = _render(text, values, helpers)
        after = _render(outcome.text, values, helpers)
        verdict = compare(after, rendered, outcome)
        assert verdict.ok, f"{rel} {label}:\n" + "\n".join(verdict.problems)
        rendered_jobs += "kind: TrainJob" in verdict.direct
        # TrainJobs rendered from the converted template (top level or embedded in a
        # ConfigMap's block scalar) pass the strict upstream CRD check
        problems, checked = _crd_problems(crdcheck, shared, after)
        assert problems == [], f"{rel} {label}"
        validated += checked
    assert rendered_jobs >= 3  # at least three value sets render a job that converts
    assert validated >= rendered_jobs
