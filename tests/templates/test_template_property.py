"""Property: templatising fields of a legacy job keeps the contract (rendered with helm_python)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from migrator.template import convert_template
from tests.templates.contract import compare

helm_python = pytest.importorskip("helm_python")

# few examples in the default and ci profiles (each renders a chart twice), many under `fuzz`
EXAMPLES = settings().max_examples if settings().max_examples > 1000 else 12

NAME = st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True)
IMAGE = st.sampled_from(["pytorch/pytorch:2.3", "registry.example.com/t/train:1", "img:1"])
QUANTITY = st.sampled_from(["1", "2", "500m", "4Gi", "16Gi"])


@st.composite
def jobs(draw: Any) -> tuple[str, dict[str, Any]]:
    """A PyTorchJob template and the values it is rendered with."""
    values: dict[str, Any] = {}

    def field(key: str, literal: str, value: Any, quote: bool = False) -> str:
        if draw(st.booleans()):
            values[key] = value
            action = f"{{{{ .Values.{key} }}}}"
            return f'"{action}"' if quote else action
        return literal

    name = draw(NAME)
    image = draw(IMAGE)
    workers = draw(st.integers(1, 6))
    master = draw(st.booleans())
    resources = {"requests": {"cpu": draw(QUANTITY)}, "limits": {"cpu": draw(QUANTITY)}}
    env_value = draw(NAME)
    name_text = field("name", name, name)
    image_text = field("image", json.dumps(image), image, quote=True)
    workers_text = field("workers", str(workers), workers)
    env_text = field("envValue", json.dumps(env_value), env_value, quote=True)
    subtree = draw(st.booleans())
    if subtree:
        values["resources"] = resources
    selector = draw(st.booleans())
    values["pool"] = draw(st.sampled_from([None, "gpu"]))

    def role(title: str, replicas: str) -> str:
        res = ("              {{- toYaml .Values.resources | nindent 14 }}\n" if subtree
               else "              requests: {cpu: '1'}\n")
        sel = ("          {{- if .Values.pool }}\n          nodeSelector:\n"
               "            pool: {{ .Values.pool }}\n          {{- end }}\n" if selector else "")
        return (f"    {title}:\n      replicas: {replicas}\n      template:\n        spec:\n"
                f"{sel}          containers:\n          - name: pytorch\n"
                f"            image: {image_text}\n"
                "            command: [torchrun, train.py]\n"
                f"            env:\n            - name: MODE\n              value: {env_text}\n"
                f"            resources:\n{res}")

    text = ("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n"
            f"  name: {name_text}\nspec:\n  pytorchReplicaSpecs:\n")
    if master:
        text += role("Master", "1")
    text += role("Worker", workers_text)
    return text, values


def _render(template: str, values: dict[str, Any]) -> str:
    with tempfile.TemporaryDirectory(prefix="tjm-prop-") as tmp:
        chart = Path(tmp) / "c"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
        (chart / "templates" / "job.yaml").write_text(template)
        return str(helm_python.Chart.load(str(chart)).render(values, name="r",
                                                               namespace="n")["c/templates/job.yaml"])


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(jobs())
def test_templatised_job_keeps_the_contract(case: tuple[str, dict[str, Any]]) -> None:
    template, values = case
    outcome = convert_template(template)
    if outcome is None:  # nothing was templatised: a plain job, not this stage's input
        assert "{{" not in template
        return
    rendered = _render(template, values)
    if outcome.status != "converted":
        assert outcome.text == template
        assert outcome.notes
        return
    verdict = compare(_render(outcome.text, values), rendered, outcome)
    assert verdict.ok, "\n".join(verdict.problems) + "\n--- template\n" + template \
        + "\n--- converted\n" + outcome.text
