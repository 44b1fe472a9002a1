"""The simulator's verdict grows linearly with the input: counted in executed lines, never timed.

Attribution indexes the findings by path (a trie of path steps, ``effective.PathIndex``)
instead of testing every finding against every difference (attack note 12: 5,000 unknown
fields took 90 s in every review report); the comparison pairs pods, containers and named
lists by name (a job with 800 sidecars took 11 s).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from migrator import convert_text
from migrator.check import effective
from migrator.load import yamlio
from migrator.results import Finding, Severity
from migrator.simulate import attribute, compare, run

ROOT = Path(__file__).resolve().parents[2]


def _executed(call: Callable[[], Any], *modules: Any) -> int:
    """How many lines ``call`` executes in ``modules`` (in every module when none)."""
    count = 0
    files = {module.__file__ for module in modules}

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if not files or frame.f_code.co_filename in files:
            return local
        return None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(previous)
    return count


def _unknown_fields(n: int) -> str:
    """The minimal PyTorchJob with ``n`` unknown container fields (attack note 12's input)."""
    base = (ROOT / "fixtures" / "pytorchjob" / "minimal.in.yaml").read_text(encoding="utf-8")
    fields = "".join(f"              u{i}: 1\n" for i in range(n))
    return base.replace("              command", fields + "              command", 1)


def _attribution_work(n: int) -> int:
    text = _unknown_fields(n)
    (document,) = convert_text(text, allow_lossy=True).documents
    job = yamlio.plain(yamlio.load(text))
    simulation = run.simulate(job, list(yamlio.safe_documents(document.text)), "2.2")
    assert len(document.findings) >= n  # the quadratic shape: n findings x n differences
    assert len(simulation.differences) >= n
    return _executed(lambda: attribute.attribute(simulation.differences, document.findings, job,
                                                 simulation.legacy), attribute, effective)


def test_attribution_is_linear_in_findings_and_differences() -> None:
    small, large = _attribution_work(60), _attribution_work(240)
    # linear: x4 (+ a constant); findings x differences would be x16
    assert large <= 5 * small, (small, large)


def _sidecars(n: int) -> str:
    containers = [{"name": "pytorch", "image": "img"}]
    containers += [{"name": f"s{i}", "image": "envoy"} for i in range(n)]
    return json.dumps({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
                       "metadata": {"name": "a"}, "spec": {"pytorchReplicaSpecs": {"Worker": {
                           "replicas": 2, "template": {"spec": {"containers": containers}}}}}})


def _comparison_work(n: int) -> int:
    text = _sidecars(n)
    (document,) = convert_text(text, allow_lossy=True).documents
    job = json.loads(text)
    outputs = list(yamlio.safe_documents(document.text))
    simulation = run.simulate(job, outputs, "2.2")
    assert len(simulation.differences) >= n  # every sidecar is gone from the built-in runtime
    return _executed(lambda: compare.pods(simulation.legacy, simulation.trainer))


def test_the_comparison_is_linear_in_containers() -> None:
    small, large = _comparison_work(50), _comparison_work(200)
    assert large <= 5 * small, (small, large)


def _pods_work(n: int) -> int:
    text = json.dumps({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
                       "metadata": {"name": "a"}, "spec": {"pytorchReplicaSpecs": {"Worker": {
                           "replicas": n, "template": {"spec": {"containers": [
                               {"name": "pytorch", "image": "img"}]}}}}}})
    result = convert_text(text, allow_lossy=True)
    return _executed(lambda: run.judge(text, result, "2.2"))


def test_a_simulation_is_linear_in_pods() -> None:
    """A review report simulates jobs of up to ``explain.REVIEW_PODS`` pods."""
    small, large = _pods_work(16), _pods_work(64)
    assert large <= 5 * small, (small, large)


def _described_work(n: int) -> int:
    """Lines ``explain-diff`` runs to write out a job of a Master and ``n`` workers, each pod
    with differences of its own (PET_NODE_RANK, the host name...)."""
    from migrator.batch import explain
    from migrator.knowledge import catalog
    from migrator.settings import ConvertOptions

    def role(replicas: int) -> dict[str, Any]:
        return {"replicas": replicas, "template": {"spec": {"containers": [
            {"name": "pytorch", "image": "img", "command": ["torchrun", "t.py"],
             "resources": {"limits": {"nvidia.com/gpu": 8}}}]}}}

    text = json.dumps({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
                       "metadata": {"name": "a"}, "spec": {"nprocPerNode": "8",
                                                           "pytorchReplicaSpecs": {
                                                               "Master": role(1),
                                                               "Worker": role(n)}}})
    (item,) = explain.explain(text, catalog.load(), ConvertOptions())
    assert len(item.differences) >= n
    return _executed(lambda: explain.describe("a.yaml", item), explain)


def test_the_explanation_is_linear_in_pods() -> None:
    """Each role's pods are written once, not once per difference (2,000 workers took 10 s)."""
    small, large = _described_work(16), _described_work(64)
    assert large <= 5 * small, (small, large)


# --- the index answers exactly what the pairwise rule answers ------------------------------

STEPS = st.sampled_from(["spec", "template", "containers[name=a]", "env[name=X]", "a.b",
                         "restartPolicy", "replicas", "x[", "", "pytorchReplicaSpecs"])
PATHS = st.lists(STEPS, min_size=1, max_size=6).map(".".join)


def _names(finding: str, source: str) -> bool:
    """The pairwise rule the index answers for all findings at once: a finding at the source
    path, below it, or at an ancestor that is a field of the pod template."""
    if finding == source or finding.startswith((source + ".", source + "[")):
        return True
    return source.startswith((finding + ".", finding + "[")) and \
        effective._names_as_ancestor(finding)


@given(st.lists(st.tuples(st.sampled_from(["A", "B", "C"]), PATHS), max_size=8),
       st.lists(PATHS, min_size=1, max_size=4))
def test_the_index_names_what_the_pairwise_rule_names(findings: list[tuple[str, str]],
                                                       sources: list[str]) -> None:
    index = effective.PathIndex([Finding(code, Severity.INFO, path, "m")
                                 for code, path in findings])
    for source in sources:
        expected = {code for code, path in findings if _names(path, source)}
        assert index.naming(source) == expected, source
