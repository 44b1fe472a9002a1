"""Placeholders in typed fields of envsubst files and shell heredocs (issue 29): carried into
the converted field, with what they must render to; no internal token reaches a message, a
name or the output."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from migrator import ConvertOptions, convert_text
from migrator.convert import shell
from migrator.template import convert_template
from tests.templates.contract import compare, envsubst

# the template stage's placeholders, its number stand-ins and the shell masks
INTERNAL = re.compile(r"tjm[zl]\d{4}[zl]|tjmph\d+x\d+z|(?<![0-9])(?:3\d{8}|[3-8]\d{4})(?![0-9])")
EXAMPLES = settings().max_examples if settings().max_examples > 1000 else 20

MPI = """apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: ${JOB_NAME}
spec:
  slotsPerWorker: ${GPUS}
  runPolicy:
    cleanPodPolicy: Running
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - image: ${IMAGE}
            name: launcher
            command: ["mpirun", "-np", "$(( N * GPUS ))", "python", "train.py"]
    Worker:
      replicas: ${N}
      template:
        spec:
          containers:
          - image: ${IMAGE}
            name: worker
            resources:
              limits:
                nvidia.com/gpu: $GPUS
"""

NPROC = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: ${JOB_NAME}
spec:
  nprocPerNode: "${GPU_PER_NODE}"
  pytorchReplicaSpecs:
    Worker:
      replicas: ${NUM_NODES}
      template:
        spec:
          containers:
          - image: ${IMAGE}
            name: pytorch
            command: ["torchrun", "train.py"]
            resources:
              limits:
                nvidia.com/gpu: ${GPU_PER_NODE}
"""


def _script(body: str) -> str:
    return f"#!/bin/bash\nset -e\ncat <<EOF | kubectl apply -f -\n{body}EOF\necho done\n"


def _strings(result: Any) -> list[str]:
    """Every text a user sees of a conversion: output, messages, paths, names."""
    found = [result.text]
    for doc in result.documents:
        found += [f"{f.path} {f.message} {f.hint}" for f in doc.findings]
        found += [str(v) for v in doc.source.values()] + [str(v) for v in
                                                           (doc.output or {}).values()]
        found += [f"{a} {b}" for a, b in doc.mappings] + [f"{k} {v}" for k, v in
                                                          doc.values.items()]
    return found


HELM = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
  labels:
    {{- toYaml .Values.labels | nindent 4 }}
  annotations:
    {{ .Values.annotationKey }}: "on"
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Worker:
      replicas: {{ .Values.workers }}
      template:
        spec:
          containers:
            - name: pytorch
              image: {{ .Values.image }}
              command: ["torchrun", "train.py"]
              resources:
                limits:
                  {{ .Values.gpuKey }}: {{ .Values.gpus }}
"""


def test_a_helm_template_names_no_placeholder_in_its_report() -> None:
    result = convert_text(HELM)
    assert [d.status for d in result.documents] == ["converted"]
    assert any("{{ .Values.annotationKey }}" in a for a, _ in result.documents[0].mappings)
    leaked = [s for s in _strings(result) if INTERNAL.search(s)]
    assert not leaked, leaked


def test_an_mpijob_in_a_heredoc_converts_as_its_yaml_template_does() -> None:
    options = ConvertOptions(companion_runtimes=True)
    script = _script(MPI)
    result = shell.convert(script, options)
    assert [d.status for d in result.documents] == ["converted"], \
        [(f.code, f.message) for f in result.findings]
    assert "numNodes: ${N}" in result.text
    assert "numProcPerNode: ${GPUS}" in result.text
    assert '"$(( N * GPUS ))"' in result.text  # a shell expansion is kept as written
    assert result.text.startswith("#!/bin/bash\nset -e\ncat <<EOF | kubectl apply -f -\n")
    assert result.text.endswith("EOF\necho done\n")
    assert [d.source.get("name") for d in result.documents] == ["${JOB_NAME}"]
    assert not any(INTERNAL.search(s) for s in _strings(result))
    # the same YAML as a .yaml-template converts to the same job
    alone = convert_text(MPI, options=options)
    assert alone.text.split("\n", 1)[1] in result.text


def test_a_failing_heredoc_job_names_no_mask_token() -> None:
    broken = MPI.replace("replicas: ${N}", "replicas: ${N:-2}")  # masked: not a number
    result = shell.convert(_script(broken), ConvertOptions(companion_runtimes=True))
    assert result.findings
    assert not any(INTERNAL.search(s) for s in _strings(result)), _strings(result)
    assert any("${N:-2}" in f.message for f in result.findings)


def test_an_envsubst_nproc_per_node_is_carried_as_a_count() -> None:
    outcome = convert_template(NPROC, "envsubst")
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    assert "numProcPerNode: ${GPU_PER_NODE}" in outcome.text
    assumed = [n for n in outcome.notes if n.code == "Y130"]
    assert [n.line for n in assumed] == [6]
    assert "positive whole number" in assumed[0].message
    later = [n.message for n in outcome.notes if n.code == "Y113"]
    assert later == [later[0]]
    assert "--helm" not in later[0]  # no chart to render
    assert "after envsubst" in later[0]
    for env in ({"GPU_PER_NODE": "8", "NUM_NODES": "2", "IMAGE": "img:1", "JOB_NAME": "a"},
                {"GPU_PER_NODE": "1", "NUM_NODES": "1", "IMAGE": "r/x:2", "JOB_NAME": "b"},
                {"GPU_PER_NODE": "4", "NUM_NODES": "16", "IMAGE": "img:3", "JOB_NAME": "c"}):
        verdict = compare(envsubst(outcome.text, env), envsubst(NPROC, env), outcome)
        assert verdict.ok, "\n".join(verdict.problems)


_SCALAR = re.compile(r"^(\s*(?:- )?[A-Za-z./]+: )(\S.*)$")
PLACEHOLDERS = st.sampled_from(["${A}", "$B", "\"${C}\"", "${D:-x}", "\"$(date)\"", "`hostname`",
                                "${E}-x", "\"pre-${F}\""])


@given(st.data())
@settings(max_examples=EXAMPLES, deadline=None)
def test_no_internal_token_reaches_a_message_a_name_or_the_output(data: Any) -> None:
    lines = MPI.replace("$(( N * GPUS ))", "4").split("\n")
    positions = [i for i, line in enumerate(lines) if _SCALAR.match(line)]
    chosen = data.draw(st.lists(st.sampled_from(positions), min_size=1, max_size=6,
                                unique=True))
    for index in chosen:
        match = _SCALAR.match(lines[index])
        assert match is not None
        lines[index] = match.group(1) + data.draw(PLACEHOLDERS)
    body = "\n".join(lines)
    options = ConvertOptions(companion_runtimes=True, allow_lossy=data.draw(st.booleans()))
    for result in (convert_text(body, options=options), shell.convert(_script(body), options)):
        leaked = [s for s in _strings(result) if INTERNAL.search(s)]
        assert not leaked, leaked
