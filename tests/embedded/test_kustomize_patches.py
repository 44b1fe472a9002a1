"""Kustomize patches: applied to the legacy base, translated by converting both sides."""

from __future__ import annotations

from typing import Any

import pytest

from migrator.convert import kustomize

BASE: dict[str, Any] = {
    "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "job"},
    "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 2, "template": {"spec": {
        "containers": [{"name": "pytorch", "image": "old", "env": [{"name": "A", "value": "1"}]}],
    }}}}},
}


def fake_convert(job: Any) -> Any:
    """A stand-in for the converter: image and replicas are mapped, nothing else."""
    worker = job["spec"]["pytorchReplicaSpecs"]["Worker"]
    container = worker["template"]["spec"]["containers"][0]
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": job["metadata"]["name"]},
            "spec": {"trainer": {"numNodes": worker["replicas"], "image": container["image"]}}}


def test_json6902_replica_count_becomes_num_nodes() -> None:
    ops = [{"op": "replace", "path": "/spec/pytorchReplicaSpecs/Worker/replicas", "value": 4}]
    result = kustomize.translate_json6902(BASE, ops, fake_convert)
    assert result.ops == [{"op": "replace", "path": "/spec/trainer/numNodes", "value": 4}]
    assert result.problems == []


def test_json6902_container_index_path() -> None:
    ops = [{"op": "replace", "value": "new",
            "path": "/spec/pytorchReplicaSpecs/Worker/template/spec/containers/0/image"}]
    result = kustomize.translate_json6902(BASE, ops, fake_convert)
    assert result.ops == [{"op": "replace", "path": "/spec/trainer/image", "value": "new"}]


def test_a_change_that_does_not_survive_conversion_names_its_path() -> None:
    path = "/spec/pytorchReplicaSpecs/Worker/template/spec/containers/0/env/-"
    ops = [{"op": "add", "path": path, "value": {"name": "B", "value": "2"}}]
    result = kustomize.translate_json6902(BASE, ops, fake_convert)
    assert result.ops is None
    assert result.problems == [path]


def test_a_patch_that_does_not_apply_is_a_problem() -> None:
    ops = [{"op": "replace", "path": "/spec/nothing/here", "value": 1}]
    result = kustomize.translate_json6902(BASE, ops, fake_convert)
    assert result.problems
    assert "/spec/nothing/here" in result.problems[0]


def test_strategic_merge_patch_becomes_a_partial_trainjob() -> None:
    patch = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "job"},
             "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 8, "template": {"spec": {
                 "containers": [{"name": "pytorch", "image": "v2"}]}}}}}}
    result = kustomize.translate_strategic(BASE, patch, fake_convert)
    assert result.partial == {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                              "metadata": {"name": "job"},
                              "spec": {"trainer": {"numNodes": 8, "image": "v2"}}}


def test_strategic_merge_on_a_custom_resource_replaces_lists() -> None:
    # kustomize has no schema for a legacy job: maps merge, lists are replaced (checked with
    # kubectl kustomize 5.5)
    doc: dict[str, Any] = {"c": [{"name": "a", "x": 1}, {"name": "b", "x": 2}], "m": {"k": 1}}
    patched = kustomize.apply_strategic(doc, {"c": [{"name": "b", "x": 3}], "m": {"j": 2},
                                              "gone": None})
    assert patched == {"c": [{"name": "b", "x": 3}], "m": {"k": 1, "j": 2}}
    assert doc["c"][1]["x"] == 2  # the input is not modified


@pytest.mark.parametrize(("before", "after"), [
    ({"a": 1, "b": {"c": [1, 2]}}, {"a": 2, "b": {"c": [1, 3]}, "d": "x/y~z"}),
    ({"a": [1, 2, 3]}, {"a": [1]}),
    ({"a": {"b": 1}, "c": 2}, {"c": 2}),
])
def test_diff_round_trips(before: Any, after: Any) -> None:
    assert kustomize.apply_json6902(before, kustomize.diff(before, after)) == after
    assert kustomize.apply_strategic(before, kustomize.merge_patch(before, after)) == after


def test_json_pointer_escapes() -> None:
    assert kustomize.pointer("/metadata/labels/a~1b~0c") == ["metadata", "labels", "a/b~c"]
    assert kustomize.render(["a/b~c", 0]) == "/a~1b~0c/0"
    with pytest.raises(kustomize.PatchError):
        kustomize.pointer("no/slash")


def test_move_copy_test_remove() -> None:
    doc = {"a": {"b": 1}, "l": [1, 2]}
    ops = [{"op": "test", "path": "/a/b", "value": 1}, {"op": "copy", "from": "/a/b", "path": "/c"},
           {"op": "move", "from": "/l/0", "path": "/l/-"}, {"op": "remove", "path": "/a"}]
    assert kustomize.apply_json6902(doc, ops) == {"c": 1, "l": [2, 1]}
    with pytest.raises(kustomize.PatchError):
        kustomize.apply_json6902(doc, [{"op": "test", "path": "/a/b", "value": 2}])
