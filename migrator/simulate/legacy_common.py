"""SIMULATE: what both legacy simulations share — citations, hostile-input readers, the event loop.

The legacy side reads a job as plain data (what ``yaml.safe_load`` gives) and never trusts a
field's type: a reader returns the operator's default for a missing or mistyped field (the API
server would have refused a mistyped one; a caller cannot tell, so the simulation degrades to
the default instead of raising). What the operators would refuse outright raises
``Rejected`` (a ``ValueError``): the caller reports "cannot simulate" with its reason.

Every citation a rule records is made by ``cite``, which also registers it with the text its
line must contain (``CITED``), so ``tests/simulate/test_legacy_citations.py`` can check every
line against the upstream tree when one is at hand.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from migrator.simulate.model import Citation, Event, Outcome, Phase, Scenario, Step, World
from migrator.simulate.trainer_values import quantity

TRAINING_OPERATOR = ("kubeflow/trainer", "v1.9.2")  # the training-operator history, tag v1.9.2
MPI_OPERATOR = ("kubeflow/mpi-operator", "v0.8.0")
K8S_API = ("kubernetes/api", "v0.35.1")  # k8s.io/api, the version mpi-operator v0.8.0 builds with

MAX_PODS = 10_000
"""The most pods a simulated job may have (the API server allows int32 replicas; a simulation
of millions of pods is refused with a ``Rejected`` rather than attempted)."""
MAX_STEPS = 10_000
"""The most event occurrences a scenario may play."""

CITED: dict[Citation, str] = {}
"""Every citation of the legacy side, with a piece of text its line contains."""


def cite(where: tuple[str, str], path: str, line: int, says: str, token: str) -> Citation:
    """A citation of ``where`` (repository, tag) at ``path:line``, registered with ``token``."""
    citation = Citation(where[0], where[1], path, line, says)
    CITED[citation] = token
    return citation


C_REQUESTS_LIMITS = cite(K8S_API, "core/v1/types.go", 2840,
                         "a request above its limit: the API server refuses the pod",
                         "Requests cannot exceed Limits.")


def refused_resources(world: World) -> list[str]:
    """Why the API server refuses pods of ``world``: a container requesting more of a resource
    than its limit (the operator's pod creation fails; the job never runs)."""
    out = []
    for pod in world.pods:
        for kind in ("initContainers", "containers"):
            for item in pod.spec.get(kind) or []:
                resources = item.get("resources") if isinstance(item, Mapping) else None
                if not isinstance(resources, Mapping):
                    continue
                limits = resources.get("limits")
                requests = resources.get("requests")
                if not isinstance(limits, Mapping) or not isinstance(requests, Mapping):
                    continue
                for key, value in requests.items():
                    asked, cap = quantity(value), quantity(limits.get(key))
                    if asked is not None and cap is not None and asked > cap:
                        out.append(f"{pod.identity}: container {item.get('name')} requests "
                                   f"{key} {value} above its limit {limits.get(key)}: the API "
                                   "server refuses the pod")
    return out


class Rejected(ValueError):
    """The operator (or its admission webhook) refuses the job: nothing is created."""

    def __init__(self, reasons: Iterable[str], citations: Iterable[Citation] = ()) -> None:
        self.reasons = tuple(reasons)
        self.citations = tuple(citations)
        super().__init__("; ".join(self.reasons))


# --- hostile-input readers -------------------------------------------------------------------


def as_map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def as_int(value: Any) -> int | None:
    """An integer field, None when missing or not an integer (bool is not an integer)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def count(value: int, what: str) -> int:
    """A replica count the simulation can build (``Rejected`` beyond ``MAX_PODS``)."""
    if value > MAX_PODS:
        raise Rejected([f"{what}: {value} replicas; the simulation builds at most {MAX_PODS} pods"])
    return value


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def as_bool(value: Any) -> bool:
    return value is True


def plain(value: Any) -> Any:
    """A deep copy of ``value`` holding only JSON-like data (dict, list, str, int, float,
    bool, None); anything else (a date yaml decoded, a set) becomes its string."""
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return copy.copy(value)
    return str(value)


def containers(spec: Mapping[str, Any], key: str = "containers") -> list[dict[str, Any]]:
    """The containers of a pod spec, each a dict (non-mapping entries dropped, as the API
    server would have refused them)."""
    return [item for item in as_list(spec.get(key)) if isinstance(item, dict)]


def env_value(env: Iterable[Mapping[str, Any]], name: str) -> str | None:
    """The value a container sees for ``name``: the last entry of that name wins."""
    found: str | None = None
    for item in env:
        if isinstance(item, Mapping) and item.get("name") == name:
            value = item.get("value")
            found = value if isinstance(value, str) else ""
    return found


# --- the event loop --------------------------------------------------------------------------

Reaction = Literal["restarted", "recreated", "kept"]


@dataclass
class PodState:
    """One pod as the simulation runs: ``running`` until its main container finishes;
    ``restarts`` is the restart count of the current pod object (a recreated pod starts at 0)."""

    status: Literal["running", "succeeded", "failed"] = "running"
    restarts: int = 0
    evicted: bool = False


@dataclass(frozen=True)
class Reacted:
    """What a controller did at one occurrence of an event."""

    reaction: Reaction
    phase: Phase
    why: str
    citations: tuple[Citation, ...] = ()
    cleaned: bool = False  # the controller already deleted every pod (no cleanup policy left)


@dataclass
class Run:
    """The state one scenario runs against: the world and each pod's state by identity."""

    world: World
    pods: dict[str, PodState] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for pod in self.world.pods:
            self.pods.setdefault(pod.identity, PodState())

    def restarts_where(self, keep: Callable[[str], bool]) -> int:
        """The sum of restart counts of running pods whose identity ``keep`` accepts."""
        return sum(state.restarts for identity, state in self.pods.items()
                   if state.status == "running" and keep(identity))


React = Callable[[Run, Event], Reacted]
Cleanup = Callable[[Run, Phase], tuple[str, tuple[Citation, ...]]]
"""What the controller does with the pods once the job finished: a clause and its citations."""


def play(world: World, scenario: Scenario, react: React, *, start: Phase = "Running",
         why_start: str = "", citations: tuple[Citation, ...] = (),
         cleanup: Cleanup | None = None) -> Outcome:
    """Apply the scenario's events in order, each ``times`` times, through ``react``; stop
    at the step where the job finishes. An event for a pod the controller never creates, or
    for a pod whose main container already finished, changes nothing (a ``kept`` step)."""
    run = Run(world)
    phase: Phase = start
    steps: list[Step] = []
    used: list[Citation] = list(citations)
    why = why_start or "no event finished the job; it keeps running"
    if start in ("Succeeded", "Failed"):
        return Outcome(scenario.name, start, (), why, tuple(dict.fromkeys(used)))
    total = sum(max(as_int(event.times) or 0, 0) for event in scenario.events)
    if total > MAX_STEPS:
        raise Rejected([f"the scenario plays {total} event occurrences; the simulation plays at "
                        f"most {MAX_STEPS}"])
    for index, event in enumerate(scenario.events):
        times = as_int(event.times)
        for occurrence in range(max(times or 0, 0)):
            state = run.pods.get(event.identity)
            if event.action not in ("exit", "evict") or as_int(event.code) is None:
                reacted = Reacted("kept", phase, f"{event.action!r} with code {event.code!r} is "
                                  "not an event the simulation knows: nothing happens")
            elif start == "Suspended" or state is None:
                reacted = Reacted("kept", phase, _absent(event.identity, start))
            elif state.status != "running":
                reacted = Reacted("kept", phase,
                                  f"{event.identity} already {state.status}: nothing runs in it")
            else:
                reacted = react(run, event)
            phase = reacted.phase
            steps.append(Step(index, occurrence, reacted.reaction, phase, reacted.why,
                              reacted.citations))
            used.extend(reacted.citations)
            if phase in ("Succeeded", "Failed"):
                why = reacted.why
                if cleanup is not None and not reacted.cleaned:
                    clause, cleanup_citations = cleanup(run, phase)
                    why = f"{why}; then {clause}"
                    used.extend(cleanup_citations)
                return Outcome(scenario.name, phase, tuple(steps), why,
                               tuple(dict.fromkeys(used)))
    if phase == "Suspended":
        why = "the job is suspended: the controller creates no pods"
    return Outcome(scenario.name, phase, tuple(steps), why, tuple(dict.fromkeys(used)))


def _absent(identity: str, start: Phase) -> str:
    if start == "Suspended":
        return f"the job is suspended: no pod {identity} exists"
    return f"the controller creates no pod {identity}"
