"""Simulated equivalence: the pods Trainer creates for a conversion against the legacy pods
(``migrator.simulate``, as ``explain-diff`` and the review reports show them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from migrator.batch import explain as explain_diff
from migrator.knowledge import catalog
from migrator.settings import ConvertOptions
from migrator.simulate import trainer
from tests import corpus, goldens
from tests.test_cli import run

TORCH_CONTRACT = {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "PET_NNODES",
                  "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"}
POD_ASPECTS = ("env", "ports", "init containers")  # the Master-waiting init container too


def _explain(text: str, **options: Any) -> list[explain_diff.Explanation]:
    return explain_diff.explain(text, catalog.load(), ConvertOptions(**options))


def _env_name(path: str) -> str:
    """``containers[node].env[RANK].value`` -> ``RANK``."""
    return path.split(".env[", 1)[1].split("]", 1)[0]


def test_minimal_job_differs_only_by_the_env_contract() -> None:
    (item,) = _explain((goldens.FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text())
    assert item.runtime == "ClusterTrainingRuntime torch-distributed (Trainer 2.2 default)"
    pods = [(d, codes) for d, codes in item.differences if d.identity]
    assert {d.aspect for d, _ in pods} == {"env", "ports"}
    assert {_env_name(d.path) for d, _ in pods if d.aspect == "env"} <= TORCH_CONTRACT
    assert all("F527" in codes for _, codes in pods)
    assert not item.unnamed


def test_reported_fields_show_up_as_differences() -> None:
    text = (goldens.FIXTURES / "pytorchjob" / "full.in.yaml").read_text()
    (item,) = _explain(text)
    paths = {d.path for d, _ in item.differences}
    assert "priorityClassName" in paths
    assert "containers[node].ports[pytorchjob-port]" in paths
    (with_companion,) = _explain(text, companion_runtimes=True)
    assert "priorityClassName" not in {d.path for d, _ in with_companion.differences}


def _runtime(pod: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
            "metadata": {"name": "r"}, "spec": {"mlPolicy": {"numNodes": 1, "torch": {}},
                                               "template": {"spec": {"replicatedJobs": [{
                                                   "name": "node", "template": {
                                                       "metadata": {"labels": {
                                                           "trainer.kubeflow.org/trainjob-"
                                                           "ancestor-step": "trainer"}},
                                                       "spec": {"template": {"spec": pod}}}}]}}}}


def _node(job: dict[str, Any], pod: dict[str, Any], version: str) -> Any:
    job = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
           "metadata": {"name": "j", "namespace": "ns"},
           "spec": {"runtimeRef": {"name": "r"}, **job}}
    world = trainer.world(job, _runtime(pod), version)
    return next(p.spec for p in world.pods if p.identity == "node-0")


def test_resources_replace_on_22_and_merge_on_23() -> None:
    pod = {"containers": [{"name": "node", "image": "i", "resources": {
        "limits": {"nvidia.com/gpu": 2, "memory": "8Gi"}}}]}
    job = {"trainer": {"numNodes": 1, "resourcesPerNode": {"limits": {"cpu": 4}}}}
    on22, on23 = (_node(job, pod, v)["containers"][0]["resources"] for v in ("2.2", "2.3"))
    assert on22 == {"limits": {"cpu": 4}}
    assert on23 == {"limits": {"nvidia.com/gpu": 2, "memory": "8Gi", "cpu": 4}}


def test_patches_merge_named_lists_and_replace_tolerations() -> None:
    pod = {"tolerations": [{"key": "a"}], "volumes": [{"name": "x", "emptyDir": {}}],
           "containers": [{"name": "node", "image": "i"}]}
    job = {"trainer": {}, "runtimePatches": [{"manager": "m", "trainingRuntimeSpec": {
        "template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {
            "template": {"spec": {"tolerations": [{"key": "b"}],
                                  "volumes": [{"name": "y", "emptyDir": {}}]}}}}}]}}}}]}
    spec = _node(job, pod, "2.2")
    assert [t["key"] for t in spec["tolerations"]] == ["b"]
    assert [v["name"] for v in spec["volumes"]] == ["x", "y"]


def test_explain_diff_command() -> None:
    proc = run("explain-diff", str(goldens.FIXTURES / "pytorchjob" / "full.in.yaml"))
    assert proc.returncode == 0, proc.stderr
    assert "PyTorchJob/bert-ft → TrainJob/bert-ft" in proc.stdout
    lines = proc.stdout.splitlines()  # per role, one short line per difference (issue 31)
    role = lines.index("  worker (node-1, node-2):")
    below = lines[role + 1:]
    assert "    - containers[node].env WORLD_SIZE=24 (removed)  [C407, F527]" in below
    assert "    - containers[node].env RANK=2 (removed) (only node-2)  [C407, F527]" in below
    master = lines.index("  master (node-0):")
    assert any(line.startswith("    - priorityClassName: high-priority (removed)  [")
               for line in lines[master + 1:role]), lines[master:role]


def test_equivalence_runs_on_the_corpus(shared: Path) -> None:
    files = corpus.sample(corpus.legacy_files(shared))
    explained = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for companions in (False, True):
            explained += len(_explain(text, companion_runtimes=companions))
    assert explained >= (40 if corpus.FULL else 8)


_name = st.from_regex(r"[a-z][a-z0-9-]{0,10}[a-z0-9]", fullmatch=True)
_container = st.fixed_dictionaries(
    {"name": st.just("pytorch"), "image": _name},
    optional={"command": st.lists(st.sampled_from(["torchrun", "train.py", "--x=1"]),
                                  min_size=1, max_size=3),
              "args": st.lists(_name, max_size=2),
              "env": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["A", "B", "C"]),
                                                     "value": _name}),
                              max_size=3, unique_by=lambda e: e["name"]),
              "resources": st.fixed_dictionaries({"limits": st.dictionaries(
                  st.sampled_from(["cpu", "memory"]), st.sampled_from(["1", "2Gi"]),
                  min_size=1)}),
              "volumeMounts": st.just([{"name": "data", "mountPath": "/data"}])})
_pod = st.fixed_dictionaries({"containers": st.tuples(_container).map(list)},
                             optional={"nodeSelector": st.dictionaries(_name, _name, max_size=2),
                                       "tolerations": st.just([{"key": "gpu",
                                                                "operator": "Exists"}]),
                                       "volumes": st.just([{"name": "data", "emptyDir": {}}])})


@given(_pod, st.integers(1, 4), st.booleans(), st.sampled_from(["2.2", "2.3"]))
def test_identical_roles_render_to_the_legacy_pod(pod: dict[str, Any], workers: int,
                                                  master: bool, target: str) -> None:
    """Apart from the documented env contract, Trainer's pod is the legacy pod."""
    replica = {"replicas": workers, "restartPolicy": "OnFailure", "template": {"spec": pod}}
    specs = {"Worker": replica}
    if master:
        specs["Master"] = {**replica, "replicas": 1}
    job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "p"},
           "spec": {"pytorchReplicaSpecs": specs}}
    import io

    out = io.StringIO()
    YAML().dump(job, out)
    items = _explain(out.getvalue(), target=target)
    assume(items)  # volumes mounted twice or similar made it fail: nothing to compare
    (item,) = items
    assert not item.unnamed, item.unnamed
    for difference, codes in item.differences:
        if not difference.identity:
            continue  # the job's outcomes (retries), named by their findings
        assert difference.aspect in POD_ASPECTS, difference  # the documented contract only
        assert "F527" in codes, (difference, codes)
        if difference.aspect == "env":
            assert _env_name(difference.path) in TORCH_CONTRACT | {"PYTHONUNBUFFERED"}, \
                difference
