"""CONVERT: the target-agnostic result of the mapping engine: TrainJob slots filled from the
source."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from migrator.knowledge.specs import RuntimeSpec

TRAINER_ORDER = ("numNodes", "numProcPerNode", "image", "command", "args", "env",
                 "resourcesPerNode")


@dataclass
class PodPatch:
    """What goes into ``replicatedJobs[name=<job>].template.spec.template`` of the patch."""

    labels: dict[str, Any] = field(default_factory=dict)
    annotations: dict[str, Any] = field(default_factory=dict)
    spec: dict[str, Any] = field(default_factory=dict)
    container: dict[str, Any] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return not (self.labels or self.annotations or self.spec or self.container)


@dataclass
class Companion:
    """A namespaced TrainingRuntime generated to carry what the TrainJob alone cannot."""

    name: str
    policy: str
    policy_fields: dict[str, Any] = field(default_factory=dict)
    jobset: dict[str, Any] = field(default_factory=dict)
    job_fields: dict[str, dict[str, Any]] = field(default_factory=dict)
    templates: dict[str, Any] = field(default_factory=dict)
    depends_on: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    pod_fields: dict[str, Any] = field(default_factory=dict)  # defaults for every pod
    pod_group: dict[str, Any] | None = None

    def job(self, name: str) -> dict[str, Any]:
        return self.job_fields.setdefault(name, {})


@dataclass
class Draft:
    """TrainJob content in canonical slots; ``emit`` spells it for a target version."""

    name: Any = None
    generate_name: Any = None
    namespace: Any = None
    labels: Any = None
    annotations: Any = None
    source_metadata: Any = None
    runtime_name: str = ""
    runtime_kind: str = "ClusterTrainingRuntime"
    suspend: Any = None
    active_deadline_seconds: Any = None
    managed_by: Any = None
    trainer: dict[str, Any] = field(default_factory=dict)
    jobset_labels: dict[str, Any] = field(default_factory=dict)
    jobset_annotations: dict[str, Any] = field(default_factory=dict)
    jobs: dict[str, PodPatch] = field(default_factory=dict)
    job_order: tuple[str, ...] = ("node",)
    patch_job: str = "node"
    patch_container: str = "node"
    companion: Companion | None = None
    num_nodes: int = 0
    runtime: RuntimeSpec | None = None
    runtime_pods: dict[str, Any] = field(default_factory=dict)  # from --runtimes, by job
    runtime_doc: Any = None  # the referenced runtime's document, from --runtimes

    @property
    def pod(self) -> PodPatch:
        """The patch of the trainer's replicated job."""
        return self.job(self.patch_job)

    def job(self, name: str) -> PodPatch:
        return self.jobs.setdefault(name, PodPatch())

    def patched_jobs(self) -> list[tuple[str, PodPatch]]:
        """Non-empty job patches in the runtime's job order."""
        return [(name, self.jobs[name]) for name in self.job_order
                if name in self.jobs and not self.jobs[name].is_empty()]

    def set_trainer(self, slot: str, value: Any) -> None:
        if slot not in TRAINER_ORDER:
            raise KeyError(f"unknown trainer slot {slot!r}")
        self.trainer[slot] = value

    def ordered_trainer(self) -> list[tuple[str, Any]]:
        return [(slot, self.trainer[slot]) for slot in TRAINER_ORDER if slot in self.trainer]
