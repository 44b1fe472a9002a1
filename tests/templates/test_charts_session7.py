"""Issue 29, session 7: charts the way they are written (arena, mlbatch), each item held by the
contract with Helm rendering (helm_python)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from migrator import ConvertOptions
from migrator.template import convert_template
from tests.templates.contract import check_inline_chart

HOST_NETWORK = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}-job
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          hostNetwork: {{ .Values.useHostNetwork }}
          hostIPC: {{ .Values.useHostIPC }}
          containers:
            - name: pytorch
              image: {{ .Values.image }}
              command: ["torchrun", "train.py"]
    Worker:
      replicas: {{ .Values.workers }}
      restartPolicy: OnFailure
      template:
        spec:
          hostNetwork: {{ .Values.useHostNetwork }}
          hostIPC: {{ .Values.useHostIPC }}
          containers:
            - name: pytorch
              image: {{ .Values.image }}
              command: ["torchrun", "train.py"]
"""


def test_a_templated_boolean_in_a_companion_runtime_is_unknown_not_a_string() -> None:
    outcome = convert_template(HOST_NETWORK, options=ConvertOptions(companion_runtimes=True))
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    assert not [n for n in outcome.notes if n.code == "V602"]
    assert "hostNetwork: {{ .Values.useHostNetwork }}" in outcome.text


def test_templated_booleans_keep_the_contract_with_companion_runtimes(
        tmp_path: Path, shared: Path, crdcheck: ModuleType) -> None:
    pytest.importorskip("helm_python")
    sets = {"host-network": {"image": "pytorch:2", "workers": 3, "useHostNetwork": True,
                             "useHostIPC": False},
            "pod-network": {"image": "pytorch:2", "workers": 1, "useHostNetwork": False,
                            "useHostIPC": True},
            "large": {"image": "pytorch:2.4", "workers": 15, "useHostNetwork": True,
                      "useHostIPC": True}}
    check_inline_chart(tmp_path, HOST_NETWORK, sets, crdcheck, shared,
                       options={"companion_runtimes": True})


def test_a_quoted_templated_boolean_is_still_judged_as_a_string() -> None:
    """``"{{ .Values.x }}"`` renders a string whatever the value: the rendered job's runtime
    fails validation (V602), so the template is not converted either."""
    quoted = HOST_NETWORK.replace("hostNetwork: {{ .Values.useHostNetwork }}",
                                  'hostNetwork: "{{ .Values.useHostNetwork }}"')
    outcome = convert_template(quoted, options=ConvertOptions(companion_runtimes=True))
    assert outcome is not None
    assert outcome.status != "converted"
    assert outcome.text == quoted


def test_a_job_written_by_an_include_inside_a_kubedl_cron_is_named_with_its_reason(
        shared: Path) -> None:
    chart = shared / "corpus" / "charts" / "kubeflow-arena" / "charts" / "cron-tfjob"
    source = (chart / "templates" / "cron.yaml").read_text(encoding="utf-8")
    outcome = convert_template(source)
    assert outcome is not None
    assert outcome.status != "converted"
    assert outcome.text == source
    [note] = [n for n in outcome.notes if n.code == "Y110"]
    assert note.line == 22
    assert '{{- include "arena.tfjob" . | nindent 6 }}' in note.message
    assert "kubedl Cron" in note.message
    assert "cannot hold a TrainJob" in note.message
    assert "Trainer has no cron" in note.message


def test_an_appwrapper_around_the_job_says_why_declared_pod_sets_do_not_help(
        shared: Path) -> None:
    chart = shared / "corpus" / "charts" / "project-codeflare-mlbatch" / "tools" / \
        "pytorchjob-generator" / "chart"
    source = (chart / "templates" / "appwrapper.yaml").read_text(encoding="utf-8")
    outcome = convert_template(source)
    assert outcome is not None
    assert outcome.status != "converted"
    assert outcome.text == source
    [note] = [n for n in outcome.notes if n.code == "E802"]
    assert "v1.PodSpecTemplate" in note.message  # the webhook's rule for declared podSets
    assert "kueue.x-k8s.io/queue-name" in note.message
    assert "declare podSets" not in note.message


def test_a_v1alpha1_mpijob_says_why_it_is_not_converted() -> None:
    """mpi-operator's v1alpha1 MPIJob (arena's mpijob chart) has one pod template for the
    launcher and the workers (workers run `sleep` and are reached by kubectl exec); arena's
    chart adds fields upstream v1alpha1 never had. K101 says so instead of only 'not
    supported'."""
    from migrator import convert_text

    job = """apiVersion: kubeflow.org/v1alpha1
kind: MPIJob
metadata:
  name: horovod
spec:
  replicas: 2
  launcherResources:
    limits: {cpu: 1}
  template:
    spec:
      containers:
        - name: mpi
          image: horovod/horovod:0.28.1
          command: ["mpirun", "python", "train.py"]
"""
    [doc] = convert_text(job).documents
    assert doc.status == "skipped"
    [finding] = [f for f in doc.findings if f.code == "K101"]
    assert "one pod template" in finding.message
    assert "kubectl exec" in finding.message
    assert "v0.2.3" in finding.message  # the release whose types were read
    assert "launcherResources" in finding.message  # a field of this job upstream never had


def test_k101_counts_no_template_action_as_a_forks_field() -> None:
    """Keys a template writes by an action (a toYaml splice, a templated key) are not fields
    the job sets: K101 names only the literal fields upstream v1alpha1 never had."""
    from migrator.template import convert_template

    template = """apiVersion: kubeflow.org/v1alpha1
kind: MPIJob
metadata:
  name: {{ .Release.Name }}
spec:
  gpus: {{ .Values.gpus }}
  launcherResources: {}
  {{- with .Values.extra }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
  {{ .Values.key }}: 3
  template:
    spec:
      containers:
      - name: x
        image: {{ .Values.image }}
"""
    outcome = convert_template(template)
    assert outcome is not None
    [finding] = [n for n in outcome.notes if n.code == "K101"]
    assert "this job also sets launcherResources, which" in finding.message
    assert "{{" not in finding.message.split("this job also sets", 1)[1]


WORKERS = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}-job
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: {{ .Values.image }}
              command: ["torchrun", "train.py"]
              resources:
                limits:
                  nvidia.com/gpu: {{ .Values.gpus }}
    Worker:
      replicas: {{ .Values.workers }}
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: {{ .Values.image }}
              command: ["torchrun", "train.py"]
              resources:
                limits:
                  nvidia.com/gpu: {{ .Values.gpus }}
"""


def test_a_worker_count_that_is_not_a_positive_number_keeps_the_legacy_job() -> None:
    """`numNodes: {{ add 1 (X) }}` holds for X = 1, 2, ...; for 0 or a non-number the
    rendered job does not convert (K103): the template keeps the legacy job for them (Y112)."""
    outcome = convert_template(WORKERS)
    assert outcome is not None
    assert outcome.status == "converted", outcome.notes
    assert '{{- if or (not (regexMatch "^[1-9][0-9]*$" (toString (.Values.workers)))) ' \
        in outcome.text
    assert "numNodes: {{ add 1 (.Values.workers) }}" in outcome.text
    # (and an unset GPU count: a null quantity, refused when rendered)
    [kept] = [n for n in outcome.notes if n.code == "Y112" and "renders null" not in n.message]
    assert kept.line == 21
    assert "{{ .Values.workers }}" in kept.message


def test_worker_counts_keep_the_contract_with_helm(tmp_path: Path, shared: Path,
                                                   crdcheck: ModuleType) -> None:
    pytest.importorskip("helm_python")
    base = {"image": "pytorch:2.4", "gpus": 8}
    sets = {"zero": {**base, "workers": 0},
            "one": {**base, "workers": 1},
            "many": {**base, "workers": 15, "gpus": 4},
            "word": {**base, "workers": "two"},
            "string-number": {**base, "workers": "3"},
            "negative": {**base, "workers": -1}}
    check_inline_chart(tmp_path, WORKERS, sets, crdcheck, shared)


SUCCESS_POLICY = """apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: {{ .Release.Name }}
spec:
  {{- with .Values.successPolicy }}
  successPolicy: {{ . }}
  {{- end }}
  tfReplicaSpecs:
    Chief:
      replicas: 1
      template:
        spec:
          containers:
            - name: tensorflow
              image: {{ .Values.image }}
              command: ["python", "train.py"]
              ports:
                - containerPort: 2222
                  name: tfjob-port
    Worker:
      replicas: 3
      template:
        spec:
          containers:
            - name: tensorflow
              image: {{ .Values.image }}
              command: ["python", "train.py"]
              ports:
                - containerPort: 2222
                  name: tfjob-port
"""


def test_a_templated_success_policy_is_tested_per_value() -> None:
    """arena tfjob's `{{- with .Values.successPolicy }} successPolicy: {{ . }}`: "" and
    AllWorkers convert; any other value keeps the legacy job (K103 when rendered), Y112."""
    outcome = convert_template(SUCCESS_POLICY, options=ConvertOptions(companion_runtimes=True))
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    [kept] = [n for n in outcome.notes if n.code == "Y112"]
    assert '(not (eq (.Values.successPolicy) "AllWorkers"))' in kept.message
    assert 'successPolicy must be one of "", AllWorkers' in kept.message
    assert kept.line == 7


def test_a_templated_success_policy_keeps_the_contract(tmp_path: Path, shared: Path,
                                                       crdcheck: ModuleType) -> None:
    pytest.importorskip("helm_python")
    sets = {"default": {"image": "tensorflow/tensorflow:2.15.0"},
            "all-workers": {"image": "tensorflow/tensorflow:2.15.0-gpu",
                            "successPolicy": "AllWorkers"},
            "unknown": {"image": "tensorflow/tensorflow:2.15.0", "successPolicy": "ChiefWorker"}}
    check_inline_chart(tmp_path, SUCCESS_POLICY, sets, crdcheck, shared,
                       options={"companion_runtimes": True})


def test_nova_sft_with_companion_runtimes_keeps_the_contract(shared: Path,
                                                            crdcheck: ModuleType) -> None:
    """Issue 29 item 4: HyperPod Nova SFT's initContainer under `{{- if $config.initContainer }}`
    lands in the companion runtime under the same if, and the node-affinity terms built by a
    `range` inside `{{- if $config.labelSelector.preferred }}` (over the same map) combine with
    the other blocks (before: Y110 "blocks do not combine independently", line 7)."""
    pytest.importorskip("helm_python")
    from tests.templates.contract import compare, value_sets
    from tests.templates.test_corpus_templates import _crd_problems, _render

    rel = "aws-sagemaker-hyperpod-recipes/launcher/nova/k8s_templates/SFT/training.yaml"
    text = (shared / "corpus" / rel).read_text(encoding="utf-8")
    options = ConvertOptions(companion_runtimes=True)
    outcome = convert_template(text, options=options)
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.line, n.message) for n in outcome.notes]
    assert "initContainers:" in outcome.text.split("kind: TrainJob")[0]  # in the runtime
    sets = value_sets("hyperpod-nova-sft")
    assert len(sets) >= 3
    converted = 0
    for label, values in sets:
        rendered = _render(text, values)
        after = _render(outcome.text, values)
        verdict = compare(after, rendered, outcome, options)
        assert verdict.ok, f"{label}:\n" + "\n".join(verdict.problems)
        problems, _checked = _crd_problems(crdcheck, shared, after)
        assert problems == [], label
        converted += "kind: TrainJob" in verdict.direct
    assert converted >= 3


ITEM4 = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}
  {{- if .Values.labels }}
  labels:
    {{- range $k, $v := .Values.labels }}
    {{ $k }}: {{ $v | quote }}
    {{- end }}
  {{- end }}
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Worker:
      replicas: {{ .Values.nodes }}
      restartPolicy: OnFailure
      template:
        spec:
          {{- if .Values.init }}
          initContainers:
            - name: fetch
              image: {{ .Values.init.image }}
              command: ["sh", "-c", "fetch-data"]
              env:
                {{- range $k, $v := .Values.env }}
                - name: {{ $k }}
                  value: {{ $v | quote }}
                {{- end }}
          {{- end }}
          {{- if .Values.preferred }}
          affinity:
            nodeAffinity:
              preferredDuringSchedulingIgnoredDuringExecution:
                {{- range $key, $values := .Values.preferred }}
                - weight: 50
                  preference:
                    matchExpressions:
                      - key: {{ $key | quote }}
                        operator: In
                        values:
                          {{- range $values }}
                          - {{ . | quote }}
                          {{- end }}
                {{- end }}
          {{- end }}
          containers:
            - name: pytorch
              image: {{ .Values.image }}
              command: ["torchrun", "train.py"]
              env:
                {{- range $k, $v := .Values.env }}
                - name: {{ $k }}
                  value: {{ $v | quote }}
                {{- end }}
"""


def _item4_sets() -> dict[str, dict[str, object]]:
    base = {"image": "pytorch:2.4", "nodes": 2, "env": {}}
    return {
        "plain": base,
        "labels-and-init": {**base, "nodes": 4, "labels": {"team": "nlp", "tier": "gold"},
                            "init": {"image": "busybox:1.36"},
                            "env": {"NCCL_DEBUG": "INFO", "DATA": "/data"}},
        "preferred-nodes": {**base, "labels": {"team": "cv"},
                            "preferred": {"node.kubernetes.io/instance-type":
                                          ["p4d.24xlarge", "p5.48xlarge"],
                                          "topology.kubernetes.io/zone": ["us-east-1a"]}},
        "everything": {**base, "nodes": 8, "labels": {"team": "nlp"},
                       "init": {"image": "busybox:1.36"}, "env": {"NCCL_DEBUG": "WARN"},
                       "preferred": {"gpu": ["h100"]}},
    }


@pytest.mark.parametrize("companion", [True, False], ids=["companion", "built-in"])
def test_blocks_that_did_not_combine_keep_the_contract(tmp_path: Path, shared: Path,
                                                        crdcheck: ModuleType,
                                                        companion: bool) -> None:
    """Issue 29 item 4: labels built by a range inside an if on the same map, an init
    container under an if (in the companion runtime, under the same if; built-in: the legacy
    job is kept for those values, as the rendered job does not convert), node-affinity terms
    built by a range inside an if (before: Y110 "blocks do not combine independently")."""
    pytest.importorskip("helm_python")
    outcomes = check_inline_chart(tmp_path, ITEM4, _item4_sets(), crdcheck, shared,
                                  options={"companion_runtimes": companion})
    text = outcomes["2.2"].text
    if companion:
        runtime = text.split("kind: TrainJob")[0]
        assert "{{- if .Values.init }}\n                  initContainers:" in runtime
    else:
        assert any(n.code == "Y112" and ".Values.init" in n.message
                   for n in outcomes["2.2"].notes)
