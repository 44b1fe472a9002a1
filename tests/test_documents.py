"""Single documents through the pipeline: bad input becomes findings, comments travel."""

from __future__ import annotations

import pytest

from migrator import convert_text

HEAD = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\n"
JOB = HEAD + """metadata:
  name: x  # name comment
  labels:
    # about the queue
    kueue.x-k8s.io/queue-name: q  # queue comment
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: i
            command: [torchrun, t.py]
"""


@pytest.mark.parametrize(("text", "status", "code"), [
    pytest.param(HEAD + "kind: PyTorchJob\n", "failed", "Y101", id="duplicate-key"),
    pytest.param(HEAD + "metadata:\n\tname: x\n", "failed", "Y101", id="tab-indent"),
    pytest.param(HEAD + "spec: [\n", "failed", "Y101", id="unclosed-flow"),
    pytest.param(HEAD + "spec: 5\n", "failed", "K103", id="spec-scalar"),
    pytest.param(HEAD + "metadata: {name: x}\nspec: {pytorchReplicaSpecs: {Chief: {}}}\n",
                 "failed", "K103", id="unknown-role"),
    pytest.param(JOB.replace("replicas: 1", "replicas: -1"), "failed", "K103", id="negative"),
    pytest.param(JOB.replace("- name: pytorch", "- name: pytorch\n            env: oops"),
                 "failed", "K103", id="env-string"),
    pytest.param(JOB.replace("image: i", "image: '{{ .Values.image'"), "skipped", "Y103",
                 id="unparseable-template"),
    pytest.param("apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: t}\n", "failed",
                 "K103", id="tfjob-without-replicas"),
    pytest.param("apiVersion: kubeflow.org/v1alpha2\nkind: MPIJob\nmetadata: {name: t}\n",
                 "skipped", "K101", id="old-api"),
    pytest.param("apiVersion: kubeflow.org/v1beta1\nkind: Experiment\nspec:\n  trialTemplate:\n"
                 "    trialSpec:\n      apiVersion: kubeflow.org/v1\n      kind: PyTorchJob\n",
                 "failed", "K103", id="embedded-invalid"),
    pytest.param("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: t}\ndata:\n  job.yaml: |\n"
                 "    apiVersion: kubeflow.org/v1\n    kind: PyTorchJob\n", "failed", "K103",
                 id="embedded-in-configmap"),
    pytest.param("apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nspec:\n  templates:\n"
                 "  - resource:\n      manifest: |\n        apiVersion: kubeflow.org/v1\n"
                 "        kind: PyTorchJob\n", "failed", "K103", id="embedded-in-argo"),
])
def test_bad_or_unsupported_input_is_a_finding(text: str, status: str, code: str) -> None:
    result = convert_text(text)
    (doc,) = [d for d in result.documents if d.reportable]
    assert doc.status == status
    assert code in {f.code for f in doc.findings}
    assert result.text == text


@pytest.mark.parametrize(("text", "action", "carried"), [
    pytest.param(JOB.replace("image: i", "image: '{{ .Values.image }}'"), "{{ .Values.image }}",
                 "image: '{{ .Values.image }}'", id="helm"),
    pytest.param(JOB.replace("replicas: 1", "replicas: ${N}"), "${N}", "numNodes: ${N}",
                 id="envsubst"),
])
def test_templated_jobs_become_templated_trainjobs(text: str, action: str, carried: str) -> None:
    """A template action travels with its field; the values it yields are judged after rendering
    (Y113), never skipped."""
    result = convert_text(text)
    (doc,) = [d for d in result.documents if d.reportable]
    assert doc.status == "converted"
    assert "Y113" in {f.code for f in doc.findings}
    assert "kind: TrainJob" in result.text
    assert carried in result.text
    assert "PyTorchJob" not in result.text
    assert convert_text(result.text).text == result.text


def test_alias_bomb_is_refused_quickly() -> None:
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 8)]
    text = HEAD + "metadata:\n  name: bomb\n" + "\n".join(levels) + "\n"
    result = convert_text(text)
    assert {f.code for f in result.findings} == {"Y104"}
    assert result.text == text


def test_comments_travel_with_carried_keys() -> None:
    out = convert_text("# file header\n" + JOB).text
    assert out.startswith("# file header\napiVersion: trainer.kubeflow.org/v1alpha1\n")
    assert "name: x  # name comment" in out
    assert "# about the queue" in out
    assert "kueue.x-k8s.io/queue-name: q  # queue comment" in out


def test_current_trainjob_is_left_alone() -> None:
    text = ("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\n"
            "spec: {runtimeRef: {name: torch-distributed}}\n")
    result = convert_text(text)
    assert result.text == text
    assert [d.status for d in result.documents] == ["unchanged"]


def test_pre_22_trainjob_is_upgraded() -> None:
    text = ("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\n"
            "spec: {runtimeRef: {name: r}, podTemplateOverrides: []}\n")
    (doc,) = convert_text(text).documents
    assert doc.status == "converted"
    assert [f.code for f in doc.findings] == ["T702"]
    assert "podTemplateOverrides" not in doc.text
    assert convert_text(doc.text).text == doc.text


def test_a_bad_name_is_reported_once_not_again_by_the_output_check() -> None:
    text = ("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: Not_A_Label\n"
            "spec:\n  pytorchReplicaSpecs:\n    Worker:\n      replicas: 1\n      template:\n"
            "        spec:\n          containers:\n            - name: pytorch\n"
            "              image: x\n")
    result = convert_text(text)
    at_name = [f.code for f in result.findings if f.path == "metadata.name"]
    assert at_name == ["M101"]
