"""Two roles whose container env holds the same variables in another order.

Written from the kubelet, not from the converter: ``makeEnvironmentVariables``
(kubernetes/kubernetes pkg/kubelet/kubelet_pods.go) sets ``tmpEnv[name]`` for each entry in
list order, expanding a non-empty ``value`` with ``expansion.MappingFuncFor(tmpEnv,
serviceEnv)`` first, so a ``$(NAME)`` sees only the entries before it (and envFrom and service
variables), and of two entries of one name the last wins; a ``valueFrom`` is never expanded.
``third_party/forked/golang/expansion/expand.go``: ``$$`` is a literal ``$``, ``$(NAME)`` a
reference, an unclosed ``$(`` and ``${NAME}`` are text. The order is therefore no change exactly
when the entries are the same, no name repeats and no value refers to a name of the list.
"""

from __future__ import annotations

import textwrap

import pytest

from migrator.check import envorder
from migrator.simulate import run
from tests.fidelity.helpers import codes, convert, finding, objects

JOB = textwrap.dedent("""\
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
    metadata: {name: env-order}
    spec:
      nprocPerNode: "1"
      pytorchReplicaSpecs:
        Master:
          replicas: 1
          template:
            spec:
              containers:
              - name: pytorch
                image: repo/train:1
                command: [torchrun, train.py]
                env: MASTER_ENV
        Worker:
          replicas: 2
          template:
            spec:
              containers:
              - name: pytorch
                image: repo/train:1
                command: [torchrun, train.py]
                env: WORKER_ENV
    """)

A = "{name: A, value: '1'}"
B = "{name: B, value: two}"
JOB_NAME = "{name: JOB_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}"


def _job(master: list[str], worker: list[str]) -> str:
    return JOB.replace("MASTER_ENV", f"[{', '.join(master)}]") \
        .replace("WORKER_ENV", f"[{', '.join(worker)}]")


def _env(document: object) -> list[str]:
    return [item["name"] for item in objects(document)["TrainJob"]["spec"]["trainer"]["env"]]


@pytest.mark.parametrize(("expression", "names"), [
    ("$(A)", ["A"]),
    ("x$(A)y$(B)", ["A", "B"]),
    ("$$(A)", []),            # escaped: the literal $(A)
    ("$$$(A)", ["A"]),        # an escaped $, then a reference
    ("$(A", []),              # incomplete: text
    ("${A} $A $", []),        # shell syntax is text to the kubelet
    ("$(A)$(A", ["A"]),
])
def test_references_are_read_as_the_kubelet_expands_them(expression: str,
                                                         names: list[str]) -> None:
    assert envorder.references(expression) == names


@pytest.mark.parametrize("companion", [False, True], ids=["builtin", "companion"])
def test_the_same_entries_in_another_order_convert_with_the_primary_order(
        companion: bool) -> None:
    doc = convert(_job([A, B, JOB_NAME], [JOB_NAME, B, A]), companion_runtimes=companion)
    assert doc.status == "converted", [(f.code, f.path, f.message) for f in doc.findings]
    assert "P306" not in codes(doc)
    hit = finding(doc, "P316")
    assert hit.severity.value == "info"
    assert hit.path == "spec.pytorchReplicaSpecs.Master.template.spec.containers[name=pytorch].env"
    assert "(JOB_NAME, A moved)" in hit.message  # in the Worker's order
    if not companion:  # the Worker has the most pods: its template, so its order
        assert _env(doc)[:3] == ["JOB_NAME", "B", "A"]


def test_a_reference_to_a_name_outside_the_list_changes_nothing() -> None:
    """``$(POD_IP)`` resolves against envFrom and service variables, set before every entry."""
    ref = "{name: C, value: 'http://$(POD_IP):80'}"
    doc = convert(_job([A, ref, B], [B, A, ref]))
    assert "P316" in codes(doc)
    assert "P306" not in codes(doc)


def test_an_escaped_reference_changes_nothing() -> None:
    escaped = "{name: C, value: '$$(A)'}"
    doc = convert(_job([A, escaped], [escaped, A]))
    assert "P316" in codes(doc)
    assert "P306" not in codes(doc)


@pytest.mark.parametrize(("master", "worker"), [
    # B=$(A) expands to 1 after A, stays the text $(A) before it
    ([A, "{name: B, value: '$(A)-x'}"], ["{name: B, value: '$(A)-x'}", A]),
    # a repeated name: the last one wins, A=1 on the Master, A=3 on the Workers
    ([A, B, "{name: A, value: '3'}"], ["{name: A, value: '3'}", B, A]),
    # the same names, another value
    ([A, B], ["{name: B, value: three}", A]),
], ids=["reference", "repeated-name", "other-value"])
def test_an_order_that_changes_the_environment_stays_an_error(master: list[str],
                                                              worker: list[str]) -> None:
    doc = convert(_job(master, worker))
    assert "P306" in codes(doc)
    assert "P316" not in codes(doc)
    assert doc.status == "failed"


def test_a_sidecar_env_in_another_order_is_the_same_sidecar() -> None:
    sidecar = "          - {name: proxy, image: envoy:1, env: [SIDE]}\n"
    master, worker = _job([A], [A]).split("    Worker:\n")
    master += sidecar.replace("SIDE", f"{A}, {B}")
    worker += sidecar.replace("SIDE", f"{B}, {A}")
    doc = convert(master + "    Worker:\n" + worker, companion_runtimes=True)
    assert "P306" not in codes(doc), [(f.code, f.path, f.message) for f in doc.findings]
    assert finding(doc, "P316").path.endswith("containers[name=proxy].env")


def test_the_reordering_names_no_simulated_difference() -> None:
    """P316 says the pods are the same: it names none of the differences the simulator finds
    (env is compared by name, so the order itself is none)."""
    from migrator import convert_text

    text = _job([A, B, JOB_NAME], [JOB_NAME, B, A])
    result = convert_text(text)
    [judged] = run.judge(text, result, "2.2")
    assert judged.simulation is not None
    assert not any("P316" in codes_ for _difference, codes_ in judged.named)
    assert not any(d.path.endswith((".env[A].value", ".env[B].value"))
                   for d, _codes in judged.named)
