"""The contract on the templated single files of ../shared/corpus that render with Helm."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from migrator.template import convert_template
from tests.templates.contract import compare, value_sets

helm_python = pytest.importorskip("helm_python")

# corpus file -> its value sets in fixtures/charts/
FILES = {
    "aws-sagemaker-hyperpod-recipes/launcher/evaluation/k8s_templates/EVAL/evaluation.yaml":
        "hyperpod-evaluation",
}


def _render(text: str, values: dict[str, object]) -> str:
    with tempfile.TemporaryDirectory(prefix="tjm-file-") as tmp:
        chart = Path(tmp) / "c"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
        (chart / "templates" / "job.yaml").write_text(text)
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
    for label, values in sets:
        verdict = compare(_render(outcome.text, values), _render(text, values), outcome)
        assert verdict.ok, f"{rel} {label}:\n" + "\n".join(verdict.problems)
