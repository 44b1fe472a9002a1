"""SIMULATE: the values both controller simulations produce — pods, scenarios, outcomes.

The simulator answers, from the Kubernetes objects alone (never from the converter's ledger),
what a controller creates for a job and how the job then behaves. Two sides speak this one
vocabulary: ``legacy`` (training-operator v1.9.2, mpi-operator v0.8.0) and ``trainer``
(Trainer v2.2.0/v2.3.0 with JobSet and ``batch/v1`` Job semantics); ``compare`` pairs their
worlds and lists every difference.

Pods are paired across the two sides by ``Pod.identity``, a side-neutral name of the process a
pod runs, never by the objects' names (which differ by construction):

- ``node-K``: the K-th node of the training process group (torch, XGBoost, JAX, Paddle
  collective, MPI workers, plain jobs), K from 0, the rank-0 node first. Legacy PyTorchJob:
  Master is ``node-0``, Worker i is ``node-(i+1)`` (Worker-only jobs: Worker i is ``node-i``);
  MPI: Worker i is ``node-i``. Trainer: the ``node`` replicated job's pods in order (job index,
  then completion index), whatever the replicated job is called in the runtime (the one the
  ``trainer.kubeflow.org/trainjob-ancestor-step: trainer`` label marks).
- ``launcher-K``: an MPI launcher (a correct conversion has exactly ``launcher-0``).
- TFJob: the Chief (or Master) leads the worker group as PyTorch's Master does: it is
  ``node-0`` and Worker i is ``node-(i+1)`` (without a Chief or Master, Worker i is ``node-i``).
- ``ROLE-K`` for roles with a meaning of their own (TFJob ``ps-1``, ``evaluator-0``; Paddle
  parameter-server ``ps-K``): the legacy replica type lower-cased; on the Trainer side, a
  replicated job whose name is that role.
- ``init:NAME-K``: an initializer or other replicated job of the runtime with no legacy
  counterpart (Trainer's ``dataset-initializer`` ...).

A ``Scenario`` is a sequence of events addressed by identity ("the rank-0 node exits 0 first",
"node-2 exits 137 three times", "launcher-0 is evicted"); each side says what its controller
does at each event and where the job ends (``Outcome``).

Every rule a side applies records the upstream source it models as a ``Citation``
(``repo@tag path:line``); a world and an outcome carry the citations of the rules that shaped
them, so a reviewer can check any claim against the upstream code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

Phase = Literal["Running", "Succeeded", "Failed", "Suspended"]
Action = Literal["exit", "evict"]


@dataclass(frozen=True, order=True)
class Citation:
    """One upstream rule: repository, tag, file and line (``kubeflow/trainer@v2.2.0
    pkg/runtime/core/trainingruntime.go:123``) and what it says, in a few words."""

    repo: str
    tag: str
    path: str
    line: int
    says: str = ""

    def __str__(self) -> str:
        where = f"{self.repo}@{self.tag} {self.path}:{self.line}"
        return f"{where} ({self.says})" if self.says else where


@dataclass(frozen=True)
class Pod:
    """One pod a controller creates, as plain data.

    ``group`` and ``index`` name it in its own controller's terms (legacy: the replica type
    lower-cased and the replica index; Trainer: the replicated job's name and the pod's index
    within it); ``identity`` pairs it with the other side (see the module docstring).
    ``hostname`` is the DNS name other pods reach it by (``""`` when it has none), ``services``
    the extra names that resolve to it. ``spec`` is the effective ``PodSpec`` as plain JSON data
    (containers with the env, ports, command and resources the controller put there, init
    containers, volumes, ``restartPolicy``, ``schedulerName``, ``priorityClassName``,
    ``hostNetwork``, ``subdomain``, affinity, ...), keys in the API's spelling.
    """

    identity: str
    group: str
    index: int
    hostname: str
    labels: Mapping[str, str]
    spec: Mapping[str, Any]
    services: tuple[str, ...] = ()


@dataclass(frozen=True)
class World:
    """What one controller creates for one job: its pods (sorted by identity), the job-level
    objects that matter to behaviour (``extras``: a PodGroup, a Job's ``backoffLimit``, a
    JobSet's success and failure policy, ...: plain data keyed by a short name), and the
    citations of the rules that built it."""

    side: str  # "legacy" or "trainer"
    controller: str  # "training-operator v1.9.2", "mpi-operator v0.8.0", "trainer v2.2.0"
    pods: tuple[Pod, ...]
    extras: Mapping[str, Any] = field(default_factory=dict)
    citations: tuple[Citation, ...] = ()

    def pod(self, identity: str) -> Pod | None:
        """The pod of that identity, if the controller creates one."""
        return self._by_identity.get(identity)

    @cached_property
    def _by_identity(self) -> dict[str, Pod]:
        return {pod.identity: pod for pod in reversed(self.pods)}  # (the first one wins)


@dataclass(frozen=True)
class Event:
    """Something that happens to one pod's main container: it ``exit``s with ``code`` (0 is a
    success), or the pod is ``evict``ed (deleted by the node or an eviction, not by the
    container), ``times`` times in a row (each time after the controller reacted)."""

    identity: str
    action: Action
    code: int = 0
    times: int = 1


@dataclass(frozen=True)
class Scenario:
    """A named sequence of events; pods not named keep running."""

    name: str
    events: tuple[Event, ...]


@dataclass(frozen=True)
class Step:
    """How a controller reacted to one occurrence of an event: ``restarted`` (the kubelet
    restarted the container in place), ``recreated`` (a new pod replaced it), ``kept``
    (nothing replaced it: the pod stays finished), and the job's phase after it."""

    event: int  # index of the event in the scenario
    occurrence: int  # 0 .. times-1
    reaction: Literal["restarted", "recreated", "kept"]
    phase: Phase
    why: str
    citations: tuple[Citation, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """Where a scenario leaves the job: its phase, the steps that led there (cut at the step
    that made the job finish: later events cannot happen), and why."""

    scenario: str
    phase: Phase
    steps: tuple[Step, ...]
    why: str
    citations: tuple[Citation, ...] = ()

    @property
    def finished_at(self) -> tuple[int, int] | None:
        """(event, occurrence) at which the job finished, None while it runs."""
        if self.phase in ("Succeeded", "Failed") and self.steps:
            last = self.steps[-1]
            return (last.event, last.occurrence)
        return None
