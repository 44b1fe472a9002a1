"""An explicit ``imagePullPolicy`` equal to the one Kubernetes defaults from the container's
image is no variant: jobs that differ only there share one runtime, and each still runs the
same pods (as the API server stores them) with the same outcomes on it; a policy that is not
the default (``Always`` with a tag, ``IfNotPresent`` on ``latest``, ``Never``) still splits."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from migrator.shared_runtimes import share
from tests import goldens
from tests.fidelity.test_oracle import EXAMPLES, KINDS, jobs
from tests.shared_runtimes.helpers import MANAGER, api_defaulted, companions, differences
from tests.shared_runtimes.test_ungroup import _check as ungroup_problems

TORCH: dict[str, Any] = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
         "metadata": {"name": "j", "namespace": "ns"},
         "spec": {"pytorchReplicaSpecs": {"Master": {"replicas": 1, "template": {"spec": {
             "containers": [{"name": "pytorch", "image": "IMAGE",
                             "command": ["python", "t.py"]}]}}}}}}


def _torch(image: str, policy: str | None) -> str:
    job = copy.deepcopy(TORCH)
    container = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]
    container["image"] = image
    if policy is not None:
        container["imagePullPolicy"] = policy
    return json.dumps(job)


def _split(text: str, target: str) -> share.Split:
    ((job, runtime, kind),) = companions(text, target)
    split = share.split(job, runtime, share.rules(target), kind, MANAGER)
    assert not isinstance(split, str)
    assert not differences(job, runtime, split, target)
    return split


@pytest.mark.parametrize(("image", "expected"), [
    ("img:1", "IfNotPresent"), ("quay.io/modh/training:py311-cuda121-torch241", "IfNotPresent"),
    ("registry.local:5000/team/img:v2", "IfNotPresent"), ("img:latest", "Always"),
    ("img", "Always"), ("docker.io/kubeflow/mpi-horovod-mnist", "Always"),
    ("registry.local:5000/img", "Always"),
    # not told for sure (the parser refuses them, or a digest): the policy is kept
    ("IMG_PLACEHOLDER", None), ("img@sha256:" + "a" * 64, None), ("a" * 64, None),
    ("img:" + "t" * 129, None), ("-img:1", None), ("", None), (None, None),
])
def test_the_default_is_read_from_the_image(image: Any, expected: str | None) -> None:
    assert share.default_pull_policy(image) == expected


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_the_default_written_out_is_no_variant(target: str) -> None:
    plain = _split(_torch("img:1", None), target)
    assert _split(_torch("img:2", "IfNotPresent"), target).name == plain.name
    assert _split(_torch("img", None), target).name == plain.name  # the image is the job's
    assert _split(_torch("img:latest", "Always"), target).name == plain.name
    for image, policy in (("img:1", "Always"), ("img:latest", "IfNotPresent"),
                          ("img:1", "Never"), ("IMG", "Always")):
        other = _split(_torch(image, policy), target)
        assert other.name != plain.name, (image, policy)
        node = other.runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"][
            "spec"]["template"]["spec"]["containers"][0]
        assert node["imagePullPolicy"] == policy


def test_the_oracle_sees_a_default_dropped_wrongly() -> None:
    """``IfNotPresent`` on ``latest`` is not the default: dropping it is a difference."""
    ((job, runtime, kind),) = companions(_torch("img:latest", "IfNotPresent"), "2.2")
    split = share.split(job, runtime, share.rules("2.2"), kind, MANAGER)
    assert not isinstance(split, str)
    broken = copy.deepcopy(split.runtime)
    for item in broken["spec"]["template"]["spec"]["replicatedJobs"]:
        for container in item["template"]["spec"]["template"]["spec"]["containers"]:
            container.pop("imagePullPolicy", None)
    found = differences(job, runtime, share.Split(split.trainjob, broken, split.name,
                                                  split.digest, split.sets), "2.2")
    assert any("imagePullPolicy" in line for line in found), found


def test_the_oracle_reads_the_default_as_the_api_server() -> None:
    spec = {"containers": [{"name": "a", "image": "img:1"}, {"name": "b", "image": "img"},
                           {"name": "c", "image": "IMG"}, {"name": "d", "image": "x:1",
                                                           "imagePullPolicy": "Never"}],
            "initContainers": [{"name": "i", "image": "r.io:5000/x:latest"}]}
    out = api_defaulted(spec)
    assert [c.get("imagePullPolicy") for c in out["containers"]] == \
        ["IfNotPresent", "Always", None, "Never"]
    assert out["initContainers"][0]["imagePullPolicy"] == "Always"


IMAGES = st.sampled_from(["img:1", "img:2", "img", "img:latest", "r.io:5000/t/img:v1",
                          "r.io:5000/img", "IMG_X", "img@sha256:" + "b" * 64])
POLICIES = st.sampled_from([None, "Always", "IfNotPresent", "Never"])


def _redrawn(text: str, data: st.DataObject) -> str:
    """``text``'s job with every container's image and pull policy drawn again."""
    job = json.loads(text)
    for replica in next(v for k, v in job["spec"].items() if k.endswith("ReplicaSpecs")).values():
        spec = replica["template"]["spec"]
        for item in spec.get("containers", []) + spec.get("initContainers", []):
            item["image"] = data.draw(IMAGES, label="image")
            policy = data.draw(POLICIES, label="imagePullPolicy")
            item.pop("imagePullPolicy", None)
            if policy is not None:
                item["imagePullPolicy"] = policy
    return json.dumps(job)


@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(database=None, max_examples=EXAMPLES, deadline=None)
@given(data=st.data())
def test_generated_pull_policies_run_alike_and_ungroup(kind: str, data: st.DataObject) -> None:
    text = _redrawn(data.draw(jobs(kind), label="job"), data)
    target = data.draw(st.sampled_from(goldens.TARGETS), label="target")
    problems: list[str] = []
    for job, runtime, legacy_kind in companions(text, target):
        split = share.split(job, runtime, share.rules(target), legacy_kind, MANAGER)
        if isinstance(split, str):
            problems.append(f"not split: {split}")
            continue
        problems += differences(job, runtime, split, target)
        written = share.split(job, runtime, share.rules(target), legacy_kind, MANAGER,
                              as_written=True)  # (what a folder of an earlier version holds)
        assert not isinstance(written, str)
        assert written.trainjob["spec"]["trainer"] == split.trainjob["spec"]["trainer"]
        problems += [f"as written: {d}" for d in differences(job, runtime, written, target)]
    problems += ungroup_problems(text, target)
    assert not problems, "\n".join([text, *problems])
