"""The Trainer side never raises on odd objects: any mix of the fields it reads, of any type,
builds a world and plays a scenario (or fails with a ValueError, for the Flux policy only)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from migrator.simulate.model import Event, Scenario, World
from migrator.simulate.trainer import outcome, world

KEYS = ["metadata", "name", "spec", "trainer", "numNodes", "numProcPerNode", "env", "image",
        "command", "args", "resourcesPerNode", "limits", "requests", "cpu", "nvidia.com/gpu",
        "runtimePatches", "trainingRuntimeSpec", "template", "replicatedJobs", "replicas",
        "parallelism", "labels", "trainer.kubeflow.org/trainjob-ancestor-step", "containers",
        "initContainers", "mlPolicy", "torch", "mpi", "jax", "xgboost", "runLauncherAsNode",
        "mpiImplementation", "podGroupPolicy", "coscheduling", "volcano", "successPolicy",
        "operator", "targetReplicatedJobs", "failurePolicy", "maxRestarts", "rules", "action",
        "podFailurePolicy", "onExitCodes", "values", "restartPolicy", "backoffLimit",
        "backoffLimitPerIndex", "network", "subdomain", "suspend", "managedBy", "dependsOn",
        "status", "initializer", "dataset", "storageUri", "envInjection", "targets", "jobName",
        "containerNames", "value"]
VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 5),
                   st.sampled_from(["node", "launcher", "trainer", "2", "500m", "Never", "All",
                                    "Any", "OnFailure", "x", "Intel", "OpenMPI", ""]))
DATA = st.recursive(VALUES, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
    max_leaves=30)
EVENTS = st.lists(st.builds(Event, st.sampled_from(["node-0", "node-1", "launcher-0", "x"]),
                            st.sampled_from(["exit", "evict"]), st.integers(0, 3),
                            st.integers(0, 3)), max_size=4)


def _build(trainjob: dict[str, Any], runtime: dict[str, Any], version: str) -> World | None:
    """The world, or None for the one ValueError odd input may raise (the Flux policy)."""
    try:
        return world(trainjob, runtime, version)
    except ValueError as error:
        if "Flux" not in str(error):
            raise
        return None


@given(st.dictionaries(st.sampled_from(KEYS), DATA, max_size=4),
       st.dictionaries(st.sampled_from(KEYS), DATA, max_size=4),
       st.sampled_from(["2.2", "2.3"]), EVENTS)
def test_odd_objects_never_raise(trainjob: dict[str, Any], runtime: dict[str, Any], version: str,
                                 events: list[Event]) -> None:
    built = _build(trainjob, runtime, version)
    if built is None:
        return
    assert all(pod.identity for pod in built.pods)
    result = outcome(trainjob, runtime, version, Scenario("s", tuple(events)))
    assert len(result.steps) <= sum(max(event.times, 0) for event in events)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replace(copy[path[0]], path[1:], new)
    return copy


BASE_TRAINJOB: dict[str, Any] = {"metadata": {"name": "f"}, "spec": {
    "trainer": {"numNodes": 3, "numProcPerNode": 2, "image": "i", "command": ["c"],
                "env": [{"name": "A", "value": "1"}],
                "resourcesPerNode": {"limits": {"nvidia.com/gpu": 2}, "requests": {"cpu": "1"}}},
    "initializer": {"dataset": {"storageUri": "s3://x", "env": [{"name": "B", "value": "2"}]}},
    "runtimePatches": [{"trainingRuntimeSpec": {"template": {"metadata": {"labels": {"a": "b"}},
        "spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
            "containers": [{"name": "node", "volumeMounts": [{"name": "v", "mountPath": "/v"}]}]
        }}}}}]}}}}]}}


@given(st.sampled_from(["torch-distributed", "deepspeed-distributed", "jax-distributed",
                        "xgboost-distributed", "torch-distributed-with-cache"]),
       st.sampled_from(["2.2", "2.3"]), st.booleans(), st.data())
def test_real_objects_with_one_odd_field_never_raise(name: str, version: str, in_runtime: bool,
                                                     data: st.DataObject) -> None:
    from migrator.simulate.trainer import default_runtime

    runtime: Any = default_runtime(name, version)
    trainjob: Any = BASE_TRAINJOB
    target = runtime if in_runtime else trainjob
    path = data.draw(st.sampled_from(_paths(target)))
    changed = _replace(target, path, data.draw(DATA))
    if in_runtime:
        runtime = changed
    else:
        trainjob = changed
    if not isinstance(runtime, dict) or not isinstance(trainjob, dict):
        return
    if _build(trainjob, runtime, version) is None:
        return
    events = data.draw(EVENTS)
    outcome(trainjob, runtime, version, Scenario("s", tuple(events)))
