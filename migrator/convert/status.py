"""CONVERT stage helper for cluster dumps (``kubectl get pytorchjobs -o yaml``): what the
legacy job's status says about applying its TrainJob.

The status itself is never converted (a TrainJob's status is the controller's); it only
decides a finding: a finished job runs again when its TrainJob is applied, a running one
must be drained or suspended first, a suspended one converts as suspended.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from migrator.convert import snippets as notes
from migrator.results import Finding, FrozenValue, _set

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only

FINISHED = "K107"
RUNNING = "K108"
SUSPENDED = "K109"
State = Literal["finished", "running", "suspended"]
_TERMINAL = ("Succeeded", "Failed")
_ACTIVE = ("Running", "Restarting", "Created")


@fields_only
class Live(FrozenValue):
    """The state a dumped job was in, and the condition that says so (a frozen value written
    by hand: see migrator/results.py)."""

    FIELDS = ("state", "condition", "code")
    state: State
    condition: str  # the condition type (or field) that decided it
    code: str

    def __init__(self, state: State, condition: str, code: str) -> None:
        _set(self, "state", state)
        _set(self, "condition", condition)
        _set(self, "code", code)

    def message(self, kind: str) -> str:
        if self.state == "finished":
            return (f"this {kind} had {self.condition}; applying the TrainJob trains again "
                    "from the start")
        if self.state == "running":
            return (f"this {kind} is {self.condition.lower()}; drain it or suspend it "
                    "(runPolicy.suspend) before applying the TrainJob, or both will train")
        return f"this {kind} is suspended; the TrainJob is created suspended too"


def live_state(job: Any) -> Live | None:
    """The state of a job from a cluster dump; None for a manifest without status."""
    if not isinstance(job, dict):
        return None
    status = job.get("status")
    conditions = status.get("conditions") if isinstance(status, dict) else None
    true = [c.get("type") for c in conditions if isinstance(c, dict)
            and str(c.get("status")) == "True"] if isinstance(conditions, list) else []
    for wanted in _TERMINAL:
        if wanted in true:
            return Live("finished", wanted, FINISHED)
    spec = job.get("spec")
    run_policy = spec.get("runPolicy") if isinstance(spec, dict) else None
    suspended = isinstance(run_policy, dict) and run_policy.get("suspend") is True
    if "Suspended" in true or (suspended and isinstance(status, dict)):
        return Live("suspended", "Suspended", SUSPENDED)
    for wanted in _ACTIVE:
        if wanted in true:
            return Live("running", wanted, RUNNING)
    if isinstance(status, dict) and status.get("startTime") and not status.get(
            "completionTime"):
        return Live("running", "Running", RUNNING)
    return None


def finding(job: Any, line_offset: int, path: str = "") -> Finding | None:
    """The finding a dumped job's status calls for (None for a manifest without status);
    ``line_offset`` is the line before the job's first line in its file."""
    from migrator.load import yamlio

    live = live_state(job)
    if live is None:
        return None
    line, column = yamlio.position(job, "status")
    return notes.finding(live.code, f"{path}.status" if path else "status",
                         live.message(str(job.get("kind"))),
                         line_offset + line if line is not None else None, column)
