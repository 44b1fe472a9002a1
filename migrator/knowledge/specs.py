"""KNOWLEDGE: typed, strict models of the data files in mappings/ (the tool's own rule language).

Each class declares the fields of one part of a data file once (``plain.Declared``): a catalog
build validates the files with pydantic models derived from these declarations
(``specmodels``: camelCase keys, unknown keys rejected, ``Key``/``Len`` markers and
``cross_check`` rules enforced), and a run with a cached catalog reads them back without
pydantic.
"""

# ruff: noqa: RUF012 (the class attributes are the fields' defaults; instances get copies)

from __future__ import annotations

from typing import Annotated, Any, Literal

from migrator.knowledge.plain import Declared, Key, Len
from migrator.knowledge.versions import TrainerVersion, release


class Spec(Declared):
    """Base: camelCase keys in YAML (or the field names), unknown keys rejected, immutable."""


class ApiKind(Spec):
    api_version: str
    kind: str


class RoleSpec(Spec):
    """One replica role: its defaults, bounds and which replicated job it becomes."""

    default_replicas: int
    min_replicas: int = 0
    max_replicas: int | None = None
    required: bool = False
    job: str = "node"
    unsupported: str | None = None  # finding code when the role has no TrainJob equivalent
    ran_as_job: bool = False  # the operator ran it as a batch Job (backoffLimit: runPolicy's)


class ReplicaSpecsSpec(Spec):
    path: str
    case_insensitive_roles: bool = False
    roles: dict[str, RoleSpec]
    template_priority: list[str]
    exclusive_roles: list[str] = []  # at most one of these may be present
    default_restart_policy: str
    role_restart_policies: dict[str, str] = {}  # per-role defaults that differ
    restart_policies: list[str]
    # When the legacy job succeeded: the first of ``success_roles`` present decides (its pod is
    # the trainer's index 0); without one, ``success_workers`` (all: every pod, first: worker 0,
    # any: one pod), unless a ``success_when`` entry ("path" or "path=value") holds.
    success_roles: list[str] = []
    success_workers: Literal["all", "first", "any"] = "all"
    success_when: dict[str, Literal["all", "first", "any"]] = {}


class LegacyContract(Spec):
    env: list[str] = []
    host_roles: list[str] = []
    ports: list[int] = []


class LauncherSpec(Spec):
    """How the trainer command is checked (torchrun) or wrapped (tf-config) for Trainer."""

    check: Literal["torchrun", "none"] = "none"
    wrap: Literal["tf-config"] | None = None
    port: int | None = None


class Note(Spec):
    """A finding reported for every job of a kind (a contract change users must know about)."""

    code: str
    message: str


class MainContainerSpec(Spec):
    """How the main container of a role is found: a fixed name, or a name held in a field."""

    name: str | None = None
    name_field: str | None = None


class Rule(Spec):
    """One job-level rule: what happens to the source field ``from``."""

    source: Annotated[str, Key("from")]
    op: Literal["copy", "drop", "unsupported", "transform"]
    to: str | None = None
    fn: str | None = None
    code: str | None = None

    def cross_check(self) -> None:
        needed = {"copy": "to", "unsupported": "code", "transform": "fn"}.get(self.op)
        if needed and getattr(self, needed) is None:
            raise ValueError(f"op {self.op!r} needs {needed!r}")


class MappingSpec(Spec):
    """mappings/legacy/<id>.yaml: how one legacy kind converts."""

    id: str
    source: ApiKind
    framework: str
    replica_specs: ReplicaSpecsSpec
    main_container: MainContainerSpec
    trainer_role: str | None = None  # the role whose main container feeds spec.trainer
    resources_role: str | None = None  # the role whose resources become resourcesPerNode
    num_nodes: Literal["sum", "mpi"] = "sum"
    injected_env: dict[str, str] = {}
    companion_env: dict[str, str] = {}  # env a plain companion runtime must provide
    legacy_contract: LegacyContract = LegacyContract()
    launcher: LauncherSpec = LauncherSpec()
    notes: list[Note] = []
    rules: list[Rule]


class FieldRule(Spec):
    op: Literal["patch", "trainer", "containers", "unsupported", "drop"]
    to: str | None = None
    rename: Annotated[str | None, Key("as")] = None
    code: str | None = None


class FieldGroup(Spec):
    fields: dict[str, FieldRule]
    other_code: str


class PodRules(Spec):
    """mappings/common/podtemplate.yaml: pod template and main-container rules."""

    id: str
    pod_metadata: FieldGroup
    pod_spec: FieldGroup
    container: FieldGroup


class Limits(Spec):
    name: int
    image: int
    command_items: int
    command_item_length: int
    env_items: int
    runtime_patches: int
    volumes: int
    volume_mounts: int
    tolerations: int
    image_pull_secrets: int
    scheduling_gates: int


class JobSpec(Spec):
    """A replicated job of a runtime."""

    name: str
    ancestor: str | None = None
    containers: list[str]


class PolicySpec(Spec):
    """An ML policy source as the target's Trainer implements it."""

    injected_env: dict[str, str] = {}  # what Trainer sets in the trainer's node container
    reserved_env: list[str] = []
    jobs: list[JobSpec]
    trainer_job: str = "node"
    port: int | None = None  # the container port Trainer adds to the trainer's node container


class FrameworkSpec(Spec):
    """Which runtime a legacy framework converts to on this target."""

    policy: str
    runtime: str | None = None  # None: Trainer ships no runtime for it (companion only)
    why: str = ""


class DefaultRuntime(Spec):
    """A runtime shipped by this Trainer release."""

    name: str
    policy: str
    jobs: list[JobSpec] | None = None  # when they differ from the policy's jobs
    pods: dict[str, dict[str, Any]] | None = None  # job -> pod spec (effective-pod comparison)


class RuntimeSpec(Spec):
    """The runtime one conversion references (resolved from target, config and options)."""

    name: str
    kind: str
    policy: str
    trainer_job: str
    container: str
    jobs: list[JobSpec]
    reserved_env: list[str] = []
    companion: bool = False


class TargetSpec(Spec):
    """mappings/targets/v<X.Y>.yaml: what one Trainer release accepts."""

    id: str
    version: str
    api_version: str
    kind: str
    patchable_pod_fields: list[str]
    patchable_container_fields: list[str]
    honours_managed_by: bool
    resources_merged_per_key: bool  # resourcesPerNode merges into the runtime's, key by key
    runtime_patch_adds_jobs: bool  # a runtimePatches job the runtime lacks is added
    mpi_launcher_waits_for_workers: bool  # the shipped MPI runtimes start workers first
    managed_by: Annotated[list[str], Len(min=1)]  # the values spec.managedBy accepts
    limits: Limits
    policies: dict[str, PolicySpec]
    frameworks: dict[str, FrameworkSpec]
    default_runtimes: list[DefaultRuntime]
    retired_runtimes: list[str] = []

    @property
    def release(self) -> TrainerVersion:
        """This target's Trainer version as an ordered value."""
        return release(self.version)


class CurrentKind(ApiKind):
    pre_v22_markers: list[str] = []


class OldApi(ApiKind):
    """An old API version of a training kind that is not converted, and why (K101)."""

    reason: str
    fields: list[str] = []  # the spec fields that API had (others are a fork's)


class EmbeddingSpec(Spec):
    """An object kind whose embedded legacy jobs are converted in place."""

    kind: str
    api_group: str
    paths: list[str]
    katib: bool = False
    pod_sets_code: str | None = None
    strings: bool = False  # the jobs are YAML text in string values (ConfigMap data)


class KindIndex(Spec):
    """mappings/kinds.yaml: every training kind the tool recognises."""

    training_kinds: list[str]
    pending: list[ApiKind]
    retired: list[str] = []  # kinds of retired operators: reported (K110) under any apiVersion
    runtime_kinds: Annotated[list[str], Len(min=2, max=2)]  # cluster-scoped, namespaced
    candidate_markers: Annotated[list[str], Len(min=1)]
    legacy_groups: Annotated[list[str], Len(min=1)]
    legacy_managers: Annotated[list[str], Len(min=1)]  # managedBy values of legacy operators
    legacy_label_prefix: Annotated[str, Len(min=1)]  # labels the legacy operators set on pods
    prototypes: list[ApiKind] = []
    old_apis: list[OldApi] = []
    current: list[CurrentKind]
    embedding_kinds: list[str]
    embeddings: list[EmbeddingSpec] = []

    @property
    def cluster_runtime_kind(self) -> str:
        """The cluster-scoped runtime kind: what a runtimeRef without ``kind`` names."""
        return self.runtime_kinds[0]

    @property
    def namespaced_runtime_kind(self) -> str:
        """The namespaced runtime kind (companion runtimes)."""
        return self.runtime_kinds[1]


class SpecFieldRule(Spec):
    """What the upgrade does with one field of a TrainJob's spec."""

    op: Literal["keep", "runtime-ref", "managed-by", "trainer", "jobset-metadata", "overrides",
                "flat-overrides", "initializer", "model-config"]
    to: str | None = None

    def cross_check(self) -> None:
        if (self.op == "initializer") != (self.to is not None):
            raise ValueError("`to` goes with op 'initializer' (and only with it)")


class RemovedField(Spec):
    """A runtime field the upgraded-to release removed."""

    path: str
    code: str
    why: str | None = None


class UpgradeLabels(Spec):
    ancestor: str
    phase: str
    framework: str


class KueueLabels(Spec):
    queue_label: Annotated[str, Len(min=1)]
    priority_label: Annotated[str, Len(min=1)]

    @property
    def all(self) -> tuple[str, str]:
        return self.queue_label, self.priority_label


class CreatedBy(Spec):
    label: Annotated[str, Len(min=1)]
    value: Annotated[str, Len(min=1)]


class IntegrationsSpec(Spec):
    """mappings/common/integrations.yaml: other tools' labels, annotations and controllers."""

    id: str
    kueue: KueueLabels
    external_managers: list[str]
    volcano_queue_annotation: Annotated[str, Len(min=1)]
    last_applied_annotation: Annotated[str, Len(min=1)]
    created_by: CreatedBy


class UpgradeSpec(Spec):
    """mappings/upgrade.yaml: how prototype and pre-2.2 Trainer manifests reach the 2.2 shape."""

    id: str
    version: str
    train_job_spec: dict[str, SpecFieldRule]
    prototype_group: str
    default_controllers: list[str]
    removed_runtime_fields: list[RemovedField]
    patch_container_fields: list[str]
    named_lists: list[str]
    prototype_jobs: dict[str, str]
    prototype_containers: dict[str, str]
    trainer_container: str
    trainer_jobs: list[str]
    initializer_containers: dict[str, str]
    prototype_initializer_job: str
    labels: UpgradeLabels


class CodeDoc(Spec):
    """One entry of mappings/codes.yaml."""

    name: str
    severity: Literal["error", "warning", "info"]
    summary: str
    why: str
    example: str
    fix: str


# mappings/common/kubernetes.yaml: the Kubernetes types a runtime embeds (check/podschema.py)

KUBE_SCALARS = ("string", "integer", "boolean", "intstr", "object", "map", "quantities")


class KubeType(Spec):
    """One Kubernetes type: its fields, which are required, which exist only in some releases."""

    fields: dict[str, Any]
    required: list[str] = []
    only: dict[str, list[str]] = {}


class KubeTypes(Spec):
    id: str
    types: dict[str, KubeType]


# mappings/common/legacy-operators.yaml: what the legacy operators added to their pods
# (check/operators.py)

Condition = Literal["master", "nproc", "notElastic", "distributed", "openmpi", "intel", "mpich",
                    "launcherIsWorker", "launcherNotWorker", "noCommand", "noCommandOrArgs"]


class EnvItem(Spec):
    name: str
    value: str
    when: Condition | None = None
    carry: bool = False  # a companion runtime sets it too (a literal Trainer does not set)


class Port(Spec):
    name: str
    container_port: int


class Command(Spec):
    value: list[str]
    when: Condition


class Volume(Spec):
    name: str
    mount_path: str
    trainer: str | None = None
    files: list[str] = []
    trainer_files: list[str] = []


class RoleAdditions(Spec):
    containers: Literal["main", "all"] = "main"
    env: list[EnvItem] = []
    command: Command | None = None
    volumes: list[Volume] = []


class Operator(Spec):
    port: Port | None = None
    roles: dict[str, RoleAdditions]

    def role(self, name: str) -> RoleAdditions | None:
        return self.roles.get(name) or self.roles.get("*")


class Operators(Spec):
    id: str
    sshd_command: list[str]
    operators: dict[str, Operator]
