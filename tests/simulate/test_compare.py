"""Simulate: pairing two worlds and listing their differences (worlds written by hand)."""

from __future__ import annotations

from typing import Any

from migrator.simulate import compare
from migrator.simulate.model import Event, Outcome, Pod, Step, World


def _pod(identity: str, host: str, spec: dict[str, Any], labels: dict[str, str] | None = None,
         group: str = "node") -> Pod:
    return Pod(identity, group, int(identity.rsplit("-", 1)[1]), host, labels or {}, spec)


def _spec(container: str, env: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"containers": [{"name": container, "image": "img:1",
                            "env": [{"name": k, "value": v} for k, v in env.items()]}], **extra}


def test_addresses_of_the_same_process_read_the_same() -> None:
    legacy = World("legacy", "op", (
        _pod("node-0", "j-master-0", _spec("pytorch", {"MASTER_ADDR": "j-master-0"})),
        _pod("node-1", "j-worker-0", _spec("pytorch", {"MASTER_ADDR": "j-master-0"})),
    ))
    trainer = World("trainer", "t", (
        _pod("node-0", "j-node-0-0.j", _spec("node", {"MASTER_ADDR": "j-node-0-0.j"})),
        _pod("node-1", "j-node-0-1.j", _spec("node", {"MASTER_ADDR": "j-node-0-0.j"})),
    ))
    assert compare.pods(legacy, trainer) == []


def test_a_hard_coded_legacy_host_name_is_a_difference() -> None:
    legacy = World("legacy", "op", (
        _pod("node-0", "j-master-0", _spec("pytorch", {"PEER": "j-worker-0.default.svc"})),
        _pod("node-1", "j-worker-0", _spec("pytorch", {})),
    ))
    trainer = World("trainer", "t", (
        _pod("node-0", "j-node-0-0.j", _spec("node", {"PEER": "j-worker-0.default.svc"})),
        _pod("node-1", "j-node-0-1.j", _spec("node", {})),
    ))
    [difference] = compare.pods(legacy, trainer)
    assert difference.identity == "node-0"
    assert difference.aspect == "env"
    assert difference.path == "containers[node].env[PEER].value"
    assert difference.legacy == "<host:node-1>"
    assert difference.trainer == "j-worker-0.default.svc"


def test_a_missing_or_extra_pod_is_a_difference() -> None:
    legacy = World("legacy", "op", (_pod("launcher-0", "l", _spec("mpi", {}), group="launcher"),))
    trainer = World("trainer", "t", (
        _pod("launcher-0", "a", _spec("node", {}), group="launcher"),
        _pod("launcher-1", "b", _spec("node", {}), group="launcher"),
    ))
    [difference] = compare.pods(legacy, trainer)
    assert (difference.identity, difference.aspect, difference.legacy, difference.trainer) == (
        "launcher-1", "pods", False, True)


def test_selectors_are_compared_by_the_pods_they_reach() -> None:
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname",
         "labelSelector": {"matchLabels": {"training.kubeflow.org/job-name": "j"}}}]}}}
    legacy = World("legacy", "op", (
        _pod("node-0", "a", _spec("pytorch", {}, **anti), {"training.kubeflow.org/job-name": "j"}),
        _pod("node-1", "b", _spec("pytorch", {}, **anti), {"training.kubeflow.org/job-name": "j"}),
    ))
    trainer = World("trainer", "t", (
        _pod("node-0", "c", _spec("node", {}, **anti), {"jobset.sigs.k8s.io/jobset-name": "j"}),
        _pod("node-1", "d", _spec("node", {}, **anti), {"jobset.sigs.k8s.io/jobset-name": "j"}),
    ))
    reach = [d for d in compare.pods(legacy, trainer) if d.aspect == "selectors"]
    assert [(d.identity, d.legacy, d.trainer) for d in reach] == [
        ("node-0", ["node-0", "node-1"], []), ("node-1", ["node-0", "node-1"], [])]


def test_named_lists_compare_by_name_and_empty_equals_absent() -> None:
    before = {"containers": [{"name": "pytorch", "ports": [{"name": "a", "containerPort": 1},
                                                           {"name": "b", "containerPort": 2}],
                              "resources": {}}]}
    after = {"containers": [{"name": "node", "ports": [{"name": "b", "containerPort": 2},
                                                       {"name": "a", "containerPort": 3}]}]}
    legacy = World("legacy", "op", (_pod("node-0", "", before),))
    trainer = World("trainer", "t", (_pod("node-0", "", after),))
    [difference] = compare.pods(legacy, trainer)
    assert (difference.aspect, difference.path, difference.legacy, difference.trainer) == (
        "ports", "containers[node].ports[a].containerPort", 1, 3)


def test_outcomes_differ_in_phase_time_and_reaction() -> None:
    legacy = Outcome("s", "Failed", (Step(0, 0, "kept", "Failed", "Never"),), "first failure")
    trainer = Outcome("s", "Running", (Step(0, 0, "recreated", "Running", "backoff 6"),), "retry")
    found = {d.path: (d.legacy, d.trainer) for d in compare.outcomes(legacy, trainer)}
    assert found == {"s: phase": ("Failed", "Running"),
                     "s: finished at (event, occurrence)": ((0, 0), None),
                     "s: event 0 occurrence 0": ("kept", "recreated")}


def test_scenarios_address_the_legacy_identities() -> None:
    world = World("legacy", "op", (
        _pod("launcher-0", "", {}, group="launcher"), _pod("node-0", "", {}),
        _pod("node-1", "", {}), _pod("node-10", "", {}), _pod("node-2", "", {})))
    named = {s.name: s.events for s in compare.scenarios(world)}
    assert named["a node fails once"] == (Event("node-10", "exit", 1),)
    assert named["the launcher fails"] == (Event("launcher-0", "exit", 1),)
    assert named["the launcher is evicted"] == (Event("launcher-0", "evict"),)
    assert [e.identity for e in named["every pod succeeds"]] == [
        "node-1", "node-2", "node-10", "node-0", "launcher-0"]


def test_matches_follows_the_label_selector_operators() -> None:
    labels = {"a": "1", "b": "2"}
    assert compare.matches({}, labels)
    assert compare.matches({"matchExpressions": [{"key": "a", "operator": "In", "values": ["1"]},
                                                 {"key": "c", "operator": "DoesNotExist"}]}, labels)
    assert not compare.matches({"matchExpressions": [{"key": "b", "operator": "NotIn",
                                                      "values": ["2"]}]}, labels)
    assert not compare.matches({"matchExpressions": [{"key": "a", "operator": "Gt"}]}, labels)


def test_quantities_compare_by_value() -> None:
    def world(side: str, cpu: Any) -> World:
        spec = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}
        return World(side, "x", (_pod("node-0", "", spec),))

    assert compare.pods(world("legacy", 0.5), world("trainer", "500m")) == []
    [difference] = compare.pods(world("legacy", 1), world("trainer", "500m"))
    assert difference.path == "containers[c].resources.requests.cpu"
