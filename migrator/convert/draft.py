"""CONVERT: the target-agnostic result of the mapping engine: TrainJob slots filled from the
source.

Each field names the rule (convert/rules/) that writes it; ``emit`` spells the draft for a
target version and ``companion.build`` turns ``Draft.companion`` into a TrainingRuntime.
Values copied from the source keep their ruamel nodes (comments travel with them): a
``YamlMap`` is such a map, nested values are YAML of any shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from migrator.settings import RUNTIME_KINDS

if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedMap

    from migrator.knowledge.specs import RuntimeSpec

YamlMap = dict[str, Any]  # a loaded (or built) YAML mapping: ruamel CommentedMap or plain dict
TrainerSlot = Literal["numNodes", "numProcPerNode", "image", "command", "args", "env",
                      "resourcesPerNode"]
TRAINER_ORDER: tuple[TrainerSlot, ...] = ("numNodes", "numProcPerNode", "image", "command",
                                          "args", "env", "resourcesPerNode")


class TrainerSlots(TypedDict, total=False):
    """``spec.trainer`` of the TrainJob, by slot (written through ``Draft.set_trainer``)."""

    numNodes: int  # replicas, mpi-nodes
    numProcPerNode: int  # transforms (torch), frameworks (mpi slots), mpi-nodes
    image: Any  # pod-templates: the main container's value, as given
    command: list[Any]  # pod-templates; launch wraps it (TF_CONFIG)
    args: list[Any]  # pod-templates
    env: list[Any]  # pod-templates; contract, launch and transforms edit it
    resourcesPerNode: YamlMap  # pod-templates (per-key maximum over roles)


class JobFields(TypedDict, total=False):
    """Fields of one replicated Job's spec in a companion runtime."""

    backoffLimit: int  # transforms (runPolicy.backoffLimit)
    podFailurePolicy: YamlMap  # replicas (restartPolicy ExitCode)


class JobSetFields(TypedDict, total=False):
    """Fields of the companion runtime's JobSet spec."""

    ttlSecondsAfterFinished: int  # transforms (runPolicy.ttlSecondsAfterFinished)


@dataclass
class PodPatch:
    """What goes into ``replicatedJobs[name=<job>].template.spec.template`` of the patch.

    Written by the pod-templates rule (and role merges for labels/annotations)."""

    labels: dict[str, object] = field(default_factory=dict)
    annotations: dict[str, object] = field(default_factory=dict)
    spec: YamlMap = field(default_factory=dict)  # patchable pod fields
    container: YamlMap = field(default_factory=dict)  # patchable fields of the node container

    def is_empty(self) -> bool:
        return not (self.labels or self.annotations or self.spec or self.container)


@dataclass
class Companion:
    """A namespaced TrainingRuntime generated to carry what the TrainJob alone cannot."""

    name: str
    policy: str
    kind: str  # the namespaced runtime kind (mappings/kinds.yaml runtimeKinds)
    # mlPolicy.<policy> fields: mpi-nodes (runLauncherAsNode, numProcPerNode), frameworks
    # (sshAuthMountPath, mpiImplementation)
    policy_fields: dict[str, object] = field(default_factory=dict)
    jobset: JobSetFields = field(default_factory=lambda: JobSetFields())
    job_fields: dict[str, JobFields] = field(default_factory=dict)
    templates: dict[str, CommentedMap] = field(default_factory=dict)  # pod-templates, by job
    # frameworks (waitForWorkersReady): job -> [(job it waits for, status)]
    depends_on: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    pod_fields: dict[str, object] = field(default_factory=dict)  # transforms; every pod
    pod_group: YamlMap | None = None  # transforms (schedulingPolicy → podGroupPolicy)

    @property
    def ref(self) -> str:
        """``<kind>/<name>``: how ledger entries name the companion runtime."""
        return f"{self.kind}/{self.name}"

    def job(self, name: str) -> JobFields:
        return self.job_fields.setdefault(name, JobFields())


@dataclass
class Draft:
    """TrainJob content in canonical slots; ``emit`` spells it for a target version.

    Source values are kept as given (``object``): the rules that read them check their
    type, the output validator checks the result.
    """

    # metadata rule (from the legacy metadata)
    name: object = None
    generate_name: object = None
    namespace: object = None
    labels: YamlMap | None = None  # also metadata: Kueue annotations become labels
    annotations: YamlMap | None = None
    source_metadata: YamlMap | None = None  # the legacy metadata map (comments are carried)
    # the engine, from the resolved runtime
    runtime_name: str = ""
    runtime_kind: str = field(default_factory=lambda: RUNTIME_KINDS[0])  # cluster-scoped
    # mapping-rules: copies (suspend) and transforms (activeDeadlineSeconds, managedBy)
    suspend: object = None
    active_deadline_seconds: int | None = None
    managed_by: str | None = None
    trainer: TrainerSlots = field(default_factory=lambda: TrainerSlots())
    # transforms (scheduling policy): JobSet metadata of the runtime patch
    jobset_labels: dict[str, object] = field(default_factory=dict)
    jobset_annotations: dict[str, object] = field(default_factory=dict)
    jobs: dict[str, PodPatch] = field(default_factory=dict)  # pod-templates, by job
    # the engine, from the resolved runtime
    job_order: tuple[str, ...] = ("node",)
    patch_job: str = "node"
    patch_container: str = "node"
    companion: Companion | None = None  # the engine creates it; most rules fill it
    num_nodes: int = 0  # replicas, mpi-nodes
    runtime: RuntimeSpec | None = None  # the engine
    runtime_pods: dict[str, YamlMap] = field(default_factory=dict)  # --runtimes, by job
    runtime_doc: YamlMap | None = None  # the referenced runtime's document, from --runtimes

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
