"""Hostile input is normal input: a legacy job with any field replaced by any JSON-like value
gives a world and outcomes, or a ValueError — never another exception."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from migrator.simulate import legacy
from migrator.simulate.model import Event, Scenario

from .test_legacy import mpi_v1, mpi_v2, pytorch, tfjob, xgboost

BASES = [pytorch(), pytorch(master=False, elasticPolicy={}), tfjob(2, 1), xgboost(),
         mpi_v2(), mpi_v1()]

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 300) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                  max_size=3),
    max_leaves=6)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _paths(value, (*prefix, index))
    return out


def _replace(node: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node[path[0]] = _replace(node[path[0]], path[1:], value)
    return node


@given(st.sampled_from(range(len(BASES))), st.data(), JSON,
       st.sampled_from([("exit", 0), ("exit", 1), ("exit", 137), ("evict", 0)]))
def test_any_field_replaced_gives_a_world_or_a_value_error(
        base: int, data: st.DataObject, value: Any, event: tuple[str, int]) -> None:
    job = copy.deepcopy(BASES[base])
    path = data.draw(st.sampled_from(_paths(job)))
    job = _replace(job, path, value)
    try:
        world = legacy.world(job)
    except ValueError:
        return
    action, code = event
    events = tuple(Event(pod.identity, action, code, times=3) for pod in world.pods)  # type: ignore[arg-type]
    outcome = legacy.outcome(job, Scenario("fuzz", events))
    assert outcome.phase in ("Running", "Succeeded", "Failed", "Suspended")
    assert len(outcome.steps) <= 3 * len(world.pods)
