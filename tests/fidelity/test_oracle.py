"""The effective-pod oracle: every difference between the legacy pods and the Trainer pods of a
converted document is named by a finding of that document (by path or code).

Runs over every fixture, every corpus document (skipped without ../shared) and generated jobs
(hypothesis: a few examples in the ci profile, thousands in the ``fuzz`` profile), in the
builtin-runtime and companion-runtime modes and on both targets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from migrator.batch import explain
from migrator.check import effective
from migrator.knowledge import catalog
from migrator.settings import ConvertOptions
from tests import corpus, goldens
from tests.fidelity.helpers import MODES, check_everywhere

YAML_DUMP = YAML(typ="safe", pure=True)


def _unnamed(text: str, target: str, **options: Any) -> list[str]:
    """Differences of every converted document of ``text`` that no finding names."""
    loaded = catalog.load()
    out = []
    for item in explain.explain(text, loaded, ConvertOptions(target=target, **options)):
        out += [f"{item.title}: {d.describe()}" for d in item.unnamed]
    return out


def _check(text: str, where: str) -> None:
    check_everywhere(text, where, _unnamed)


@pytest.mark.parametrize("case", goldens.cases(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_difference_is_named(case: Path) -> None:
    text = case.read_text(encoding="utf-8")
    first = text.split("\n", 1)[0]
    if first.startswith("# options:"):
        text = text.split("\n", 1)[1]  # both modes are run below
    _check(text, case.name)


def test_the_oracle_can_fail() -> None:
    """A difference nobody reports is caught: the oracle is not vacuous."""
    text = (goldens.FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text(encoding="utf-8")
    loaded = catalog.load()
    (item,) = explain.explain(text, loaded, ConvertOptions())
    assert item.differences, "the minimal PyTorchJob has a documented env contract change"
    assert all(d.named_by for d in item.differences)
    stripped = effective.attribute(item.differences, [], item.legacy)
    assert any(not d.named_by for d in stripped)


@pytest.mark.parametrize("target", goldens.TARGETS)
@pytest.mark.parametrize("mode", sorted(MODES))
def test_every_corpus_difference_is_named(shared: Path, target: str, mode: str) -> None:
    """Every corpus legacy file with ``TRAINJOB_FULL_CORPUS=1``; CI runs the fixed sample."""
    problems = []
    for path in corpus.sample(corpus.legacy_files(shared)):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        problems += [f"{path.relative_to(shared)}: {line}"
                     for line in _unnamed(text, target, **MODES[mode])]
    assert not problems, "\n".join(problems[:40])


# --- generated jobs ------------------------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "data", "cache"])
IMAGES = st.sampled_from(["img:1", "img:2"])
ENV = st.lists(st.fixed_dictionaries({"name": st.sampled_from(
    ["A", "B", "MASTER_ADDR", "PET_NNODES", "RANK", "K_MPI_JOB_ROLE", "PYTHONUNBUFFERED"]),
    "value": st.sampled_from(["1", "x", "$(RANK)", 4, True])}), max_size=3,
    unique_by=lambda e: e["name"])
RESOURCES = st.one_of(st.none(), st.fixed_dictionaries({}, optional={
    "limits": st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]),
                              st.sampled_from([1, 2, "500m", "1Gi"]), max_size=2),
    "requests": st.dictionaries(st.sampled_from(["cpu", "memory"]),
                                st.sampled_from([1, "250m", "1Gi"]), max_size=2)}))
COMMANDS = st.one_of(st.none(), st.sampled_from([["torchrun", "t.py"], ["python", "t.py"],
                                                 ["mpirun", "-n", "2", "/pi"], ["sh", "-c", "x"]]))


@st.composite
def containers(draw: st.DrawFn, main: str) -> dict[str, Any]:
    out: dict[str, Any] = {"name": main, "image": draw(IMAGES)}
    command = draw(COMMANDS)
    if command is not None:
        out["command"] = command
    if draw(st.booleans()):
        out["args"] = draw(st.sampled_from([["--epochs=1"], ["-v"]]))
    env = draw(ENV)
    if env:
        out["env"] = env
    resources = draw(RESOURCES)
    if resources:
        out["resources"] = resources
    for key, values in (("imagePullPolicy", ["Always", "IfNotPresent"]),
                        ("workingDir", ["/app"])):
        if draw(st.integers(0, 4)) == 0:
            out[key] = draw(st.sampled_from(values))
    if draw(st.integers(0, 3)) == 0:
        out["ports"] = [{"containerPort": draw(st.sampled_from([23456, 8080]))}]
    if draw(st.integers(0, 3)) == 0:
        out["volumeMounts"] = [{"name": draw(NAMES), "mountPath": "/mnt"}]
    return out


@st.composite
def templates(draw: st.DrawFn, main: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [draw(containers(main))]}
    if draw(st.integers(0, 4)) == 0:
        spec["containers"].append({"name": "sidecar", "image": "envoy:1"})
    if draw(st.integers(0, 4)) == 0:
        spec["initContainers"] = [{"name": "init", "image": "busybox:1"}]
    for key, values in (("nodeSelector", [{"pool": "gpu"}]), ("priorityClassName", ["high"]),
                        ("hostNetwork", [True]), ("restartPolicy", ["Never"]),
                        ("tolerations", [[{"key": "gpu", "operator": "Exists"}]]),
                        ("volumes", [[{"name": "data", "emptyDir": {}}]]),
                        ("serviceAccountName", ["sa"])):
        if draw(st.integers(0, 4)) == 0:
            spec[key] = draw(st.sampled_from(values))
    template: dict[str, Any] = {"spec": spec}
    if draw(st.integers(0, 6)) == 0:
        template.update({"apiVersion": "v1", "kind": "PodTemplate"})
    if draw(st.integers(0, 3)) == 0:
        template["metadata"] = {"labels": {"team": draw(st.sampled_from(["a", "b"]))}}
    return template


POLICIES = st.sampled_from([None, "OnFailure", "Never", "ExitCode", "Always"])

KINDS = {
    # kind: (apiVersion, replica field, main container, roles)
    "PyTorchJob": ("kubeflow.org/v1", "pytorchReplicaSpecs", "pytorch", ("Master", "Worker")),
    "XGBoostJob": ("kubeflow.org/v1", "xgbReplicaSpecs", "xgboost", ("Master", "Worker")),
    "JAXJob": ("kubeflow.org/v1", "jaxReplicaSpecs", "jax", ("Worker",)),
    "TFJob": ("kubeflow.org/v1", "tfReplicaSpecs", "tensorflow", ("Chief", "Worker")),
    "PaddleJob": ("kubeflow.org/v1", "paddleReplicaSpecs", "paddle", ("Worker",)),
    "MPIJob-v1": ("kubeflow.org/v1", "mpiReplicaSpecs", "mpi", ("Launcher", "Worker")),
    "MPIJob": ("kubeflow.org/v2beta1", "mpiReplicaSpecs", "mpi", ("Launcher", "Worker")),
}


@st.composite
def jobs(draw: st.DrawFn, kind: str) -> str:
    api, field, main, roles = KINDS[kind]
    specs: dict[str, Any] = {}
    shared = draw(templates(main))
    for role in roles:
        if role in ("Master", "Chief", "Launcher"):
            replicas = 1
            if kind in ("XGBoostJob",) or role == "Launcher" or draw(st.booleans()):
                pass
            else:
                continue
        else:
            replicas = draw(st.integers(1, 3))
        same = draw(st.integers(0, 2)) > 0
        replica: dict[str, Any] = {"replicas": replicas,
                                   "template": shared if same else draw(templates(main))}
        policy = draw(POLICIES)
        if policy is not None and (not kind.startswith("MPIJob") or kind == "MPIJob-v1"
                                   or policy in ("Never", "OnFailure")):
            replica["restartPolicy"] = policy
        specs[role] = replica
    job: dict[str, Any] = {"apiVersion": api, "kind": kind.split("-")[0],
                           "metadata": {"name": "gen", "namespace": "ns"},
                           "spec": {field: specs}}
    if kind.startswith("MPIJob"):
        job["spec"]["slotsPerWorker"] = draw(st.integers(1, 4))
        if kind == "MPIJob" and draw(st.booleans()):
            job["spec"]["runLauncherAsWorker"] = True
    if draw(st.integers(0, 3)) == 0:
        job["spec"]["runPolicy"] = draw(st.sampled_from([
            {"backoffLimit": 3}, {"ttlSecondsAfterFinished": 60},
            {"cleanPodPolicy": "All"}, {"suspend": True}]))
    return json.dumps(job)  # JSON is YAML


# A tenth of the profile's examples per kind and mode: 6 (dev), 15 (ci), 2,000 (fuzz). Each
# (kind, mode) is its own hypothesis test, so ``--hypothesis-show-statistics`` prints the count
# that ran for each; the target is drawn.
EXAMPLES = max(6, settings().max_examples // 10)  # settings(): the loaded profile's


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(database=None, max_examples=EXAMPLES)
@given(data=st.data())
def test_every_generated_difference_is_named(kind: str, mode: str, data: st.DataObject) -> None:
    text = data.draw(jobs(kind), label="job")
    target = data.draw(st.sampled_from(goldens.TARGETS), label="target")
    unnamed = _unnamed(text, target, **MODES[mode])
    assert not unnamed, "\n".join([text, *unnamed])


def test_the_oracle_catches_a_lost_mpi_worker_command() -> None:
    """Had the companion runtime's workers no command (defect 1), the oracle would fail."""
    from migrator import convert_text
    from migrator.load import yamlio
    from tests.fidelity.test_defects import MPI_V2

    loaded = catalog.load()
    target = loaded.target("2.2")
    spec = loaded.legacy[("kubeflow.org/v2beta1", "MPIJob")]
    (doc,) = convert_text(MPI_V2, companion_runtimes=True).documents
    objects = {o["kind"]: o for o in YAML_DUMP.load_all(doc.text)}
    pods = effective.runtime_pods(objects["TrainingRuntime"])
    del pods["node"]["spec"]["containers"][0]["command"]  # the defect, re-introduced
    rendered = effective.render(objects["TrainJob"], pods, "mpi", target)
    legacy = effective.legacy_pods(yamlio.load(MPI_V2), spec)
    findings = [f for f in doc.findings if f.code != "F524"]
    unnamed = [d for d in effective.attribute(effective.compare(legacy, rendered), findings,
                                              legacy) if not d.named_by]
    assert [(d.job, d.path) for d in unnamed] == [("node (Worker)", "spec.containers.node.command")]


def test_empty_resources_are_no_difference() -> None:
    """Found by the fuzz profile: ``resources: {limits: {}}`` on one role requests nothing."""
    job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
           "metadata": {"name": "gen", "namespace": "ns"}, "spec": {"pytorchReplicaSpecs": {
               "Master": {"replicas": 1, "template": {"spec": {"containers": [
                   {"name": "pytorch", "image": "img:1", "resources": {"limits": {}}}]}}},
               "Worker": {"replicas": 2, "template": {"spec": {"containers": [
                   {"name": "pytorch", "image": "img:1"}]}}}}}}
    _check(json.dumps(job), "empty-resources")
