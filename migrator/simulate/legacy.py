"""SIMULATE: the legacy side — what training-operator v1.9.2 or mpi-operator v0.8.0 creates for
a job, and how the job behaves under a scenario, from the job object alone.

``world(job)`` is what the operator creates (pods by side-neutral identity, job-level objects
in ``extras``); ``outcome(job, scenario)`` applies the scenario's events in order and says what
the controller and the kubelet do each time and where the job ends. ``gang_scheduler`` is the
operator's gang-scheduler setting (``--gang-scheduler-name`` of training-operator,
``--gang-scheduling`` of mpi-operator): ``"volcano"``, or any other name for scheduler-plugins
with that scheduler; None for none.

Routing: ``kubeflow.org/v2beta1`` MPIJob to mpi-operator (``legacy_mpi``), ``kubeflow.org/v1``
MPIJob to training-operator's MPI controller (``legacy_mpi``), the other kinds to
training-operator (``legacy_training``). This module never imports the converter: the
simulation must not share its beliefs. A job no operator would run raises ``ValueError``
(``legacy_common.Rejected``, with the reasons and their citations).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from migrator.simulate import legacy_mpi, legacy_training
from migrator.simulate.legacy_common import (
    C_REQUESTS_LIMITS,
    Cleanup,
    React,
    Rejected,
    as_str,
    play,
    refused_resources,
)
from migrator.simulate.model import Outcome, Phase, Scenario, World

__all__ = ["Rejected", "outcome", "world"]


def world(job: Mapping[str, Any], *, gang_scheduler: str | None = None) -> World:
    """What the legacy operator creates for ``job`` (plain data, as ``yaml.safe_load`` gives)."""
    return _simulation(job, gang_scheduler)[0]


def outcome(job: Mapping[str, Any], scenario: Scenario, *,
            gang_scheduler: str | None = None) -> Outcome:
    """Where ``scenario`` leaves ``job`` under its legacy operator, step by step."""
    built, react, note, cleanup = _simulation(job, gang_scheduler)
    if "managedBy" in built.extras:
        raise Rejected([f"runPolicy.managedBy is {built.extras['managedBy']!r}: the operator "
                        "leaves the job to that controller"], built.citations)
    start: Phase = "Suspended" if built.extras.get("suspended") else "Running"
    return play(built, scenario, react, start=start, why_start=note, cleanup=cleanup)


def _simulation(job: Mapping[str, Any], gang_scheduler: str | None) -> tuple[
        World, React, str, Cleanup]:
    try:
        built = _route(job, gang_scheduler)
    except RecursionError:
        raise Rejected(["the job nests too deeply to simulate"]) from None
    refused = refused_resources(built[0])
    if refused:
        raise Rejected(refused, [C_REQUESTS_LIMITS])
    return built


def _route(job: Mapping[str, Any], gang_scheduler: str | None) -> tuple[
        World, React, str, Cleanup]:
    if not isinstance(job, Mapping):
        raise Rejected(["the job is not a mapping"])
    kind = as_str(job.get("kind"))
    api = as_str(job.get("apiVersion"))
    if kind == "MPIJob" and api == "kubeflow.org/v2beta1":
        return legacy_mpi.simulate_v2(job, gang_scheduler)
    if kind == "MPIJob" and api == "kubeflow.org/v1":
        return legacy_mpi.simulate_v1(job, gang_scheduler)
    if kind in legacy_training.KINDS and api == "kubeflow.org/v1":
        spec = legacy_training.parse(job, legacy_training.KINDS[kind])
        return (legacy_training.build(spec, gang_scheduler), legacy_training.reactor(spec), "",
                legacy_training.cleanup(spec.run_policy))
    raise Rejected([f"{api or '?'} {kind or '?'} is not a kind training-operator v1.9.2 or "
                    "mpi-operator v0.8.0 serves"])
