"""The target-agnostic result of the mapping engine: TrainJob slots filled from the source."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
    pod: PodPatch = field(default_factory=PodPatch)
    patch_job: str = "node"
    patch_container: str = "node"

    def set_trainer(self, slot: str, value: Any) -> None:
        if slot not in TRAINER_ORDER:
            raise KeyError(f"unknown trainer slot {slot!r}")
        self.trainer[slot] = value

    def ordered_trainer(self) -> list[tuple[str, Any]]:
        return [(slot, self.trainer[slot]) for slot in TRAINER_ORDER if slot in self.trainer]
