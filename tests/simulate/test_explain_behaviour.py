"""explain-diff says what the simulator of both controllers finds beyond the pod specs: how
each lifecycle scenario ends on each side, in plain words, with the findings that name it."""

from __future__ import annotations

from migrator.batch import explain
from migrator.knowledge import catalog
from migrator.settings import ConvertOptions
from tests import goldens


def _lines(path: str, **options: object) -> list[str]:
    text = (goldens.FIXTURES / path).read_text(encoding="utf-8")
    settings = ConvertOptions(**options)  # type: ignore[arg-type]
    [item] = explain.explain(text, catalog.load(), settings)
    return explain.describe(path, item)


def test_a_failed_mpi_worker_is_named_as_a_changed_outcome() -> None:
    """mpi-operator left a failed worker and waited for the launcher; Trainer's node Job fails
    the JobSet (F534)."""
    lines = _lines("mpijob-v2beta1/pi.in.yaml", companion_runtimes=True)
    assert "  outcomes:" in lines
    [failed_once] = [line for line in lines if "a node fails once:" in line]
    assert "legacy still Running" in failed_once
    assert "Trainer Failed at event 1" in failed_once
    assert failed_once.endswith("[F534]")


def test_the_success_rule_is_carried_by_the_companion_and_named_without_it() -> None:
    """A PyTorchJob succeeded with its Master (pytorchjob_controller.go:382-417 at v1.9.2): the
    companion's node Job carries it (successPolicy succeededIndexes "0"), the built-in
    runtime cannot (F531)."""
    companion = _lines("pytorchjob/master-worker.in.yaml", companion_runtimes=True)
    assert not any("rank 0 finishes first" in line for line in companion)
    builtin = _lines("pytorchjob/master-worker.in.yaml")
    [first] = [line for line in builtin if "rank 0 finishes first" in line]
    assert "legacy Succeeded" in first
    assert "Trainer still Running" in first
    assert "F531" in first
