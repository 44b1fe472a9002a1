"""Found by the generator once it drew a PaddleJob's Master (parameter-server mode): the
converter refused two servers, or servers without workers, as invalid for the legacy API
(K103), which v1.9.2 admits. Its webhook checks only the replica types, the containers and
their images (paddlepaddle_webhook.go:87-125 at kubeflow/trainer@v1.9.2): no bound on the
Master's replicas, no Worker required; each Master pod is one server (envvar.go:127-132).
Parameter-server mode has no TrainJob equivalent, which F514 says."""

from __future__ import annotations

import json
from typing import Any

import pytest

from migrator import convert_text
from migrator.simulate import legacy, run
from tests import goldens
from tests.fidelity.helpers import MODES


def _job(**roles: int) -> str:
    return json.dumps({
        "apiVersion": "kubeflow.org/v1", "kind": "PaddleJob",
        "metadata": {"name": "gen", "namespace": "ns"},
        "spec": {"paddleReplicaSpecs": {role: {"replicas": count, "template": {"spec": {
            "containers": [{"name": "paddle", "image": "img:1"}]}}}
            for role, count in roles.items()}}})


def _codes(text: str, **options: Any) -> tuple[str, list[tuple[str, str]]]:
    (doc,) = convert_text(text, allow_lossy=True, **options).documents
    return doc.status, [(f.code, f.path) for f in doc.findings if f.severity.value == "error"]


@pytest.mark.parametrize("roles", [{"Master": 2, "Worker": 2}, {"Master": 1}, {"Master": 2}],
                         ids=["two-servers", "server-alone", "two-servers-alone"])
def test_the_legacy_operator_admits_parameter_server_mode(roles: dict[str, int]) -> None:
    world = legacy.world(json.loads(_job(**roles)))
    assert sorted((pod.group, pod.identity) for pod in world.pods) == sorted(
        (role.lower(), f"{'ps' if role == 'Master' else 'node'}-{i}")
        for role, count in roles.items() for i in range(count))


def test_two_servers_are_f514_not_an_invalid_job() -> None:
    text = _job(Master=2, Worker=2)
    assert _codes(text, companion_runtimes=True) == (
        "converted", [("F514", "spec.paddleReplicaSpecs.Master")])
    for target in goldens.TARGETS:
        result = convert_text(text, target=target, allow_lossy=True, companion_runtimes=True)
        [judged] = run.judge(text, result, target)
        assert judged.simulation is not None
        assert [d.identity for d in judged.simulation.differences
                if d.aspect == "pods"] == ["ps-0", "ps-1"]
        assert not judged.unnamed


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("count", [1, 2])
def test_servers_alone_are_refused_with_f514(mode: str, count: int) -> None:
    status, errors = _codes(_job(Master=count), **MODES[mode])
    assert status == "failed"
    assert ("F514", "spec.paddleReplicaSpecs.Master") in errors
    assert "K103" not in {code for code, _ in errors}
