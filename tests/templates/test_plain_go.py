"""Plain Go templates (text/template without Helm's sprig functions, e.g. knavigator's): the
converted template calls only Go's own functions (issue 29); arithmetic it cannot do is Y111."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from migrator import ConvertOptions
from migrator.template import convert_template
from migrator.template.tokens import tokenize_go

# the functions text/template defines (everything else is sprig or Helm)
GO_BUILTINS = {"and", "call", "html", "index", "slice", "js", "len", "not", "or", "print",
               "printf", "println", "urlquery", "eq", "ne", "lt", "le", "gt", "ge"}
KEYWORDS = {"if", "else", "end", "range", "with", "define", "block", "template", "break",
            "continue", "nil", "true", "false"}


def _functions(text: str) -> set[str]:
    """The identifiers a template calls (words not after a dot, a $ or inside a string)."""
    called: set[str] = set()
    for action in tokenize_go(text):
        body = re.sub(r'"(?:[^"\\]|\\.)*"|`[^`]*`|/\*.*?\*/', "", action.body, flags=re.S)
        called.update(m.group(1) for m in re.finditer(r"(?<![.$\w])([A-Za-z_]\w*)", body))
    return called - KEYWORDS


WORKERS_ONLY = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: "{{._NAME_}}"
  namespace: "{{.namespace}}"
spec:
  nprocPerNode: "{{.gpu}}"
  pytorchReplicaSpecs:
    Worker:
      replicas: {{.workers}}
      restartPolicy: {{.restartPolicy}}
      template:
        spec:
          containers:
          - image: {{.image}}
            name: pytorch
            command: ["torchrun", "train.py"]
            resources:
              limits:
                nvidia.com/gpu: "{{.gpu}}"
"""


def test_a_plain_go_template_gets_no_sprig_function() -> None:
    outcome = convert_template(WORKERS_ONLY)
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    assert _functions(outcome.text) <= GO_BUILTINS, _functions(outcome.text)
    assert "numNodes: {{.workers}}" in outcome.text
    # no regexMatch for a number: nprocPerNode other than auto/gpu/cpu keeps the legacy job
    assert any(n.code == "Y112" and n.line == 7 for n in outcome.notes)


def test_knavigator_mpijob_needs_no_arithmetic(shared: Path) -> None:
    """mpi-operator v0.8.0 reads runLauncherAsWorker alone, false when unset, whatever the
    launcher requests (kubeflow/mpi-operator@v0.8.0 pkg/controller/mpi_job_controller.go:
    1457-1458): knavigator's GPU launcher is no node, so numNodes is the worker count as
    written, and a plain Go template needs no sprig function for it."""
    path = shared / "corpus" / "nvidia-knavigator" / "resources" / "templates" / "kai" / \
        "mpijob.yaml"
    if not path.is_file():
        pytest.skip("knavigator is not in the corpus")
    source = path.read_text(encoding="utf-8")
    outcome = convert_template(source, options=ConvertOptions(companion_runtimes=True))
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    assert "numNodes: {{.workers}}\n" in outcome.text
    assert "runLauncherAsNode: false" in outcome.text
    assert not re.search(r"\{\{-? *(add|sub|mul|regexMatch|toString)\b", outcome.text)


def test_a_helm_template_still_gets_sprig_arithmetic() -> None:
    worker = WORKERS_ONLY[WORKERS_ONLY.index("    Worker:"):]
    master = worker.replace("Worker:", "Master:").replace("{{.workers}}", "1")
    helm = (WORKERS_ONLY.replace(worker, master + worker)).replace("{{.workers}}",
                                                                   "{{ .Values.workers }}")
    outcome = convert_template(helm)
    assert outcome is not None
    assert "numNodes: {{ add 1 (.Values.workers) }}" in outcome.text
