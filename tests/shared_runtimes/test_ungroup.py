"""Ungrouping gives back each job's companion: the shared runtime with the job's runtime patch
merged back, and the trainer values put back into the trainer's node container, is the
companion runtime (up to its name, kind and namespace); the TrainJob's other fields are
untouched. So nothing that differs between jobs is lost by grouping."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from migrator.shared_runtimes import share
from tests import corpus, goldens
from tests.fidelity.test_oracle import EXAMPLES, KINDS, jobs
from tests.shared_runtimes.helpers import MANAGER, api_defaulted, companions

ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"


def _merge_named(base: list[Any], patch: list[Any]) -> list[Any]:
    out = [dict(item) for item in base]
    for item in patch:
        target = next((o for o in out if o.get("name") == item["name"]), None)
        if target is None:
            out.append(dict(item))
        else:
            target.update({k: v for k, v in item.items() if k != "name"})
    return out


def _merge_meta(node: dict[str, Any], meta: dict[str, Any]) -> None:
    into = node.setdefault("metadata", {})
    for key, values in meta.items():
        into.setdefault(key, {}).update(values)


def ungroup(job: dict[str, Any], runtime: dict[str, Any]) -> dict[str, Any]:
    """The runtime ``job`` would have on its own: ``runtime`` + its patch + trainer values."""
    spec: dict[str, Any] = copy.deepcopy(runtime["spec"])
    template = spec["template"]
    for patch in job["spec"].get("runtimePatches", []):
        patched = patch["trainingRuntimeSpec"]["template"]
        if "metadata" in patched:
            _merge_meta(template, patched["metadata"])
        for item in patched.get("spec", {}).get("replicatedJobs", []):
            target = next(j for j in template["spec"]["replicatedJobs"]
                          if j["name"] == item["name"])
            if "metadata" in item["template"]:
                _merge_meta(target["template"], item["template"]["metadata"])
            pod_patch = item["template"].get("spec", {}).get("template", {})
            pod = target["template"]["spec"]["template"]
            if "metadata" in pod_patch:
                _merge_meta(pod, pod_patch["metadata"])
            for key, value in pod_patch.get("spec", {}).items():
                if key in ("containers", "initContainers"):
                    pod["spec"][key] = _merge_named(pod["spec"].get(key, []), value)
                else:
                    pod["spec"][key] = value
    trainer = job["spec"].get("trainer", {})
    for item in template["spec"]["replicatedJobs"]:
        if item["template"].get("metadata", {}).get("labels", {}).get(ANCESTOR) != "trainer":
            continue
        for container in item["template"]["spec"]["template"]["spec"]["containers"]:
            if container["name"] == "node":
                for key in ("image", "command", "args", "env"):
                    if key in trainer:
                        container[key] = trainer[key]
                if "resourcesPerNode" in trainer:
                    container["resources"] = trainer["resourcesPerNode"]
    return spec


def _effective(spec: dict[str, Any], trainer: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with the trainer's node container running the image it runs (``trainer.image``
    wins: builder.go:129-130) and every pod template as the API server stores it (image pull
    policies defaulted: the split drops an explicit one equal to the default)."""
    spec = copy.deepcopy(spec)
    for item in spec["template"]["spec"]["replicatedJobs"]:
        pod = item["template"]["spec"]["template"]
        if item["template"].get("metadata", {}).get("labels", {}).get(ANCESTOR) == "trainer" \
                and "image" in trainer:
            for container in pod["spec"]["containers"]:
                if container["name"] == "node":
                    container["image"] = trainer["image"]
        pod["spec"] = api_defaulted(pod["spec"])
    return spec


def _normal(spec: dict[str, Any], trainer: dict[str, Any]) -> dict[str, Any]:
    """What the comparison leaves out: values Trainer takes from the TrainJob's trainer (the
    node count and MPI slots the split moved there, and the trainer container's values, which
    the TrainJob sets on both sides)."""
    spec = copy.deepcopy(spec)
    policy = spec.get("mlPolicy", {})
    if "mpi" not in policy and "numNodes" in trainer:
        policy.pop("numNodes", None)
    if "mpi" in policy and "numProcPerNode" in trainer:
        policy["mpi"].pop("numProcPerNode", None)
    for item in spec["template"]["spec"]["replicatedJobs"]:
        pod = item["template"]["spec"]["template"]
        for key in ("metadata",):
            if pod.get(key) == {}:
                del pod[key]
        if item["template"].get("metadata", {}).get("labels", {}).get(ANCESTOR) != "trainer":
            continue
        for container in pod["spec"]["containers"]:
            if container["name"] == "node":
                for key in ("image", "command", "args", "env", "resources"):
                    container.pop(key, None)
    return spec


def _check(text: str, target: str) -> list[str]:
    problems = []
    for job, runtime, kind in companions(text, target):
        split = share.split(job, runtime, share.rules(target), kind, MANAGER)
        assert not isinstance(split, str)
        trainer = split.trainjob["spec"].get("trainer", {})
        back = _normal(_effective(ungroup(split.trainjob, split.runtime), trainer), trainer)
        companion = _normal(_effective(runtime["spec"], job["spec"].get("trainer", {})), trainer)
        if back != companion:
            problems.append(f"{kind}: {back}\n!=\n{companion}")
        rest = {k: v for k, v in split.trainjob["spec"].items()
                if k not in ("runtimeRef", "runtimePatches", "trainer")}
        if rest != {k: v for k, v in job["spec"].items() if k not in ("runtimeRef", "trainer")}:
            problems.append(f"{kind}: TrainJob fields changed")
        original = job["spec"].get("trainer", {})
        if any(trainer.get(k) != v for k, v in original.items() if k != "env"):
            problems.append(f"{kind}: a trainer value the TrainJob had was changed")
    return problems


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_ungrouping_corpus_jobs_gives_their_companions(shared: Path, target: str) -> None:
    problems = []
    for path in corpus.sample(corpus.legacy_files(shared)):
        if path.is_file():
            problems += _check(path.read_text(encoding="utf-8", errors="replace"), target)
    assert not problems, "\n".join(problems[:5])


@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(database=None, max_examples=EXAMPLES, deadline=None)
@given(data=st.data())
def test_ungrouping_generated_jobs_gives_their_companions(kind: str,
                                                          data: st.DataObject) -> None:
    text = data.draw(jobs(kind), label="job")
    target = data.draw(st.sampled_from(goldens.TARGETS), label="target")
    problems = _check(text, target)
    assert not problems, "\n".join([text, *problems])


def test_ungrouping_notices_a_lost_patch() -> None:
    text = (goldens.FIXTURES / "mpijob-v2beta1" / "pi.in.yaml").read_text()
    ((job, runtime, kind),) = companions(text, "2.2")
    split = share.split(job, runtime, share.rules("2.2"), kind, MANAGER)
    assert not isinstance(split, str)
    assert split.trainjob["spec"]["runtimePatches"]
    split.trainjob["spec"]["runtimePatches"] = []
    trainer = split.trainjob["spec"]["trainer"]
    assert _normal(ungroup(split.trainjob, split.runtime), trainer) != \
        _normal(runtime["spec"], trainer)
