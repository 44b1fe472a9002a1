"""Cluster dumps: a job's status decides what applying its TrainJob would do."""

from __future__ import annotations

from typing import Any

import pytest

from migrator.convert import status


def job(conditions: list[dict[str, Any]] | None = None, suspend: bool = False,
        **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"kind": "PyTorchJob", "spec": {"runPolicy": {"suspend": suspend}}}
    if conditions is not None or extra:
        doc["status"] = {"conditions": conditions or [], **extra}
    return doc


@pytest.mark.parametrize(("conditions", "state", "code"), [
    ([{"type": "Created", "status": "True"}, {"type": "Running", "status": "False"},
      {"type": "Succeeded", "status": "True"}], "finished", "K107"),
    ([{"type": "Failed", "status": "True"}], "finished", "K107"),
    ([{"type": "Created", "status": "True"}, {"type": "Running", "status": "True"}],
     "running", "K108"),
    ([{"type": "Restarting", "status": "True"}], "running", "K108"),
    ([{"type": "Suspended", "status": "True"}], "suspended", "K109"),
])
def test_states(conditions: list[dict[str, Any]], state: str, code: str) -> None:
    live = status.live_state(job(conditions))
    assert live is not None
    assert (live.state, live.code) == (state, code)
    assert live.message("PyTorchJob")


def test_a_manifest_without_status_is_not_live() -> None:
    assert status.live_state(job()) is None
    assert status.live_state(job(suspend=True)) is None
    assert status.live_state("text") is None


def test_suspend_in_a_dump_is_suspended() -> None:
    live = status.live_state(job([], suspend=True))
    assert live is not None
    assert live.state == "suspended"


def test_started_without_conditions_is_running() -> None:
    live = status.live_state(job([], startTime="2025-01-01T00:00:00Z"))
    assert live is not None
    assert live.state == "running"
