"""CONVERT: the target-agnostic result of the mapping engine: TrainJob slots filled from the
source.

Each field names the rule (convert/rules/) that writes it; ``emit`` spells the draft for a
target version and ``companion.build`` turns ``Draft.companion`` into a TrainingRuntime.
Values copied from the source keep their ruamel nodes (comments travel with them): a
``YamlMap`` is such a map, nested values are YAML of any shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypedDict

from migrator.results import Value
from migrator.settings import RUNTIME_KINDS

if TYPE_CHECKING:
    # the type checker sees dataclasses, as in migrator.results
    from dataclasses import dataclass as fields_only
    from dataclasses import field

    from ruamel.yaml.comments import CommentedMap

    from migrator.knowledge.specs import RuntimeSpec
else:
    from migrator.results import field, fields_only

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
    successPolicy: YamlMap  # success (the legacy success rule)


class JobSetFields(TypedDict, total=False):
    """Fields of the companion runtime's JobSet spec."""

    ttlSecondsAfterFinished: int  # transforms (runPolicy.ttlSecondsAfterFinished)


@fields_only
class PodPatch(Value):
    """What goes into ``replicatedJobs[name=<job>].template.spec.template`` of the patch.

    Written by the pod-templates rule (and role merges for labels/annotations)."""

    FIELDS = ("labels", "annotations", "spec", "container")
    labels: dict[str, object] = field(default_factory=dict)
    annotations: dict[str, object] = field(default_factory=dict)
    spec: YamlMap = field(default_factory=dict)  # patchable pod fields
    container: YamlMap = field(default_factory=dict)  # patchable fields of the node container

    def __init__(self, labels: dict[str, object] | None = None,
                 annotations: dict[str, object] | None = None, spec: YamlMap | None = None,
                 container: YamlMap | None = None) -> None:
        # each: a new empty dict when not given
        self.labels = {} if labels is None else labels
        self.annotations = {} if annotations is None else annotations
        self.spec = {} if spec is None else spec
        self.container = {} if container is None else container

    def is_empty(self) -> bool:
        return not (self.labels or self.annotations or self.spec or self.container)


@fields_only
class Companion(Value):
    """A namespaced TrainingRuntime generated to carry what the TrainJob alone cannot."""

    FIELDS = ("name", "policy", "kind", "policy_fields", "jobset", "job_fields", "templates",
              "depends_on", "pod_group")
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
    pod_group: YamlMap | None = None  # transforms (schedulingPolicy → podGroupPolicy)

    def __init__(self, name: str, policy: str, kind: str,
                 policy_fields: dict[str, object] | None = None,
                 jobset: JobSetFields | None = None,
                 job_fields: dict[str, JobFields] | None = None,
                 templates: dict[str, CommentedMap] | None = None,
                 depends_on: dict[str, list[tuple[str, str]]] | None = None,
                 pod_group: YamlMap | None = None) -> None:
        # policy_fields ... depends_on: a new empty dict when not given
        self.name = name
        self.policy = policy
        self.kind = kind
        self.policy_fields = {} if policy_fields is None else policy_fields
        self.jobset = JobSetFields() if jobset is None else jobset
        self.job_fields = {} if job_fields is None else job_fields
        self.templates = {} if templates is None else templates
        self.depends_on = {} if depends_on is None else depends_on
        self.pod_group = pod_group

    @property
    def ref(self) -> str:
        """``<kind>/<name>``: how ledger entries name the companion runtime."""
        return f"{self.kind}/{self.name}"

    def job(self, name: str) -> JobFields:
        return self.job_fields.setdefault(name, JobFields())


@fields_only
class Draft(Value):
    """TrainJob content in canonical slots; ``emit`` spells it for a target version.

    Source values are kept as given (``object``): the rules that read them check their
    type, the output validator checks the result. (A mutable value written by hand: see
    migrator/results.py.)
    """

    FIELDS = ("name", "generate_name", "namespace", "labels", "annotations", "source_metadata",
              "runtime_name", "runtime_kind", "suspend", "active_deadline_seconds",
              "managed_by", "trainer", "jobset_labels", "jobset_annotations", "jobs",
              "job_order", "patch_job", "patch_container", "companion", "num_nodes", "runtime",
              "runtime_pods", "runtime_doc")

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

    def __init__(self, name: object = None, generate_name: object = None,
                 namespace: object = None, labels: YamlMap | None = None,
                 annotations: YamlMap | None = None, source_metadata: YamlMap | None = None,
                 runtime_name: str = "", runtime_kind: str | None = None,
                 suspend: object = None, active_deadline_seconds: int | None = None,
                 managed_by: str | None = None, trainer: TrainerSlots | None = None,
                 jobset_labels: dict[str, object] | None = None,
                 jobset_annotations: dict[str, object] | None = None,
                 jobs: dict[str, PodPatch] | None = None,
                 job_order: tuple[str, ...] = ("node",), patch_job: str = "node",
                 patch_container: str = "node", companion: Companion | None = None,
                 num_nodes: int = 0, runtime: RuntimeSpec | None = None,
                 runtime_pods: dict[str, YamlMap] | None = None,
                 runtime_doc: YamlMap | None = None) -> None:
        # runtime_kind: the cluster-scoped kind when not given; trainer, jobset_labels,
        # jobset_annotations, jobs, runtime_pods: a new empty dict when not given
        self.name = name
        self.generate_name = generate_name
        self.namespace = namespace
        self.labels = labels
        self.annotations = annotations
        self.source_metadata = source_metadata
        self.runtime_name = runtime_name
        self.runtime_kind = RUNTIME_KINDS[0] if runtime_kind is None else runtime_kind
        self.suspend = suspend
        self.active_deadline_seconds = active_deadline_seconds
        self.managed_by = managed_by
        self.trainer = TrainerSlots() if trainer is None else trainer
        self.jobset_labels = {} if jobset_labels is None else jobset_labels
        self.jobset_annotations = {} if jobset_annotations is None else jobset_annotations
        self.jobs = {} if jobs is None else jobs
        self.job_order = job_order
        self.patch_job = patch_job
        self.patch_container = patch_container
        self.companion = companion
        self.num_nodes = num_nodes
        self.runtime = runtime
        self.runtime_pods = {} if runtime_pods is None else runtime_pods
        self.runtime_doc = runtime_doc

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
