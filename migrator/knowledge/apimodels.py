"""KNOWLEDGE: strict typed models of the Trainer API the tool writes: TrainJob and
(Cluster)TrainingRuntime.

Written from the API facts of Trainer 2.2 and 2.3 (``extra="forbid"``: an unknown field is an
error, as with a strict API server). Limits of the CRDs (item counts, string lengths, minimums)
are field constraints — the TrainJob's are read from the target file (``limits``,
``patchablePodFields``) — so they are part of the JSON Schema generated from these models
(``scripts/gen_schemas.py`` → ``schemas/``). Kubernetes types that the Trainer API embeds
whole (affinity, volumes, tolerations, the runtime's Job spec) are kept as open mappings;
the upstream CRDs check them in the conformance tests.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator
from pydantic.alias_generators import to_camel

from migrator.knowledge import shapes
from migrator.knowledge.specs import KindIndex, Limits, TargetSpec
from migrator.knowledge.versions import release

INT32 = 2**31 - 1

Obj = dict[str, Any]
Quantity = int | str
NameStr = Annotated[str, Field(min_length=1, max_length=253)]


class Strict(BaseModel):
    """Base: camelCase keys, unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True,
                              defer_build=True)


class ObjectMeta(Strict):
    name: str | None = None
    generate_name: str | None = None
    namespace: str | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    finalizers: list[str] | None = None
    owner_references: list[Obj] | None = None
    uid: str | None = None
    resource_version: str | None = None
    generation: int | None = None
    creation_timestamp: str | None = None
    deletion_timestamp: str | None = None
    deletion_grace_period_seconds: int | None = None
    managed_fields: list[Obj] | None = None
    self_link: str | None = None


class PatchMeta(Strict):
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    finalizers: list[str] | None = None
    name: str | None = None
    namespace: str | None = None


class EnvVarSource(Strict):
    config_map_key_ref: Obj | None = None
    field_ref: Obj | None = None
    file_key_ref: Obj | None = None
    resource_field_ref: Obj | None = None
    secret_key_ref: Obj | None = None


class EnvVar(Strict):
    name: str
    value: str | None = None
    value_from: EnvVarSource | None = None


class ResourceClaim(Strict):
    name: str
    request: str | None = None


class Resources(Strict):
    limits: dict[str, Quantity] | None = None
    requests: dict[str, Quantity] | None = None
    claims: list[ResourceClaim] | None = None


class RuntimeRef(Strict):
    name: NameStr
    api_group: Annotated[str, Field(max_length=253)] | None = None
    kind: Annotated[str, Field(max_length=253)] | None = None


class SecretRef(Strict):
    name: str | None = None


class DatasetOrModel(Strict):
    storage_uri: Annotated[str, Field(max_length=2048)] | None = None
    env: Annotated[list[EnvVar], Field(max_length=128)] | None = None
    secret_ref: SecretRef | None = None


class Initializer(Strict):
    dataset: DatasetOrModel | None = None
    model: DatasetOrModel | None = None


class ContainerPatch(Strict):
    name: str
    env: list[EnvVar] | None = None
    volume_mounts: list[Obj] | None = None
    security_context: Obj | None = None


def _suffix(version: str) -> str:
    return version.replace(".", "")


def _trainer(version: str, limits: Limits) -> type[BaseModel]:
    """``spec.trainer`` of a release, its limits read from the release's target file."""
    item = Annotated[str, Field(max_length=limits.command_item_length)]
    command = Annotated[list[item], Field(max_length=limits.command_items)]
    return create_model(
        f"Trainer{_suffix(version)}", __base__=Strict,
        image=(Annotated[str, Field(max_length=limits.image)] | None, None),
        command=(command | None, None),
        args=(command | None, None),
        env=(Annotated[list[EnvVar], Field(max_length=limits.env_items)] | None, None),
        num_nodes=(Annotated[int, Field(ge=1, le=INT32)] | None, None),
        num_proc_per_node=(Annotated[int, Field(ge=1, le=INT32)] | None, None),
        resources_per_node=(Resources | None, None),
    )


def _pod_spec_patch(version: str, target: TargetSpec) -> type[BaseModel]:
    """The pod spec a runtime patch may set in a release: limits and the patchable fields
    that vary between releases come from the release's target file."""
    limits = target.limits
    fields: dict[str, Any] = {
        "service_account_name": (Annotated[str, Field(max_length=253)] | None, None),
        "node_selector": (dict[str, str] | None, None),
        "affinity": (Obj | None, None),
        "tolerations": (Annotated[list[Obj], Field(max_length=limits.tolerations)] | None,
                        None),
        "volumes": (Annotated[list[Obj], Field(max_length=limits.volumes)] | None, None),
        "init_containers": (Annotated[list[ContainerPatch], Field(max_length=64)] | None, None),
        "containers": (Annotated[list[ContainerPatch], Field(max_length=64)] | None, None),
        "scheduling_gates": (Annotated[list[Obj], Field(max_length=limits.scheduling_gates)]
                             | None, None),
        "image_pull_secrets": (Annotated[list[Obj], Field(max_length=limits.image_pull_secrets)]
                               | None, None),
        "security_context": (Obj | None, None),
    }
    if "terminationGracePeriodSeconds" in target.patchable_pod_fields:
        fields["termination_grace_period_seconds"] = (Annotated[int, Field(ge=0)] | None, None)
    return create_model(
        f"PodSpecPatch{_suffix(version)}", __base__=Strict, **fields)


def _target(version: str) -> TargetSpec:
    from migrator.knowledge import catalog

    return catalog.load().target(version)


def _kinds() -> KindIndex:
    from migrator.knowledge import catalog

    return catalog.load().kinds


def _object(name: str, api_version: str, kinds: tuple[str, ...], *,
            metadata_required: bool) -> type[Strict]:
    """The fields every Trainer object has: ``apiVersion`` and ``kind`` fixed to the target's
    (mappings/targets, mappings/kinds.yaml), metadata, status."""
    metadata: Any = (ObjectMeta, ...) if metadata_required else (ObjectMeta | None, None)
    # Any: literals built from data are not type forms to a type checker (pydantic >= 2.14)
    api_version_field: Any = (Literal[api_version], ...)
    kind_field: Any = (Literal[kinds], ...)
    return create_model(name, __base__=Strict,
                        api_version=api_version_field,
                        kind=kind_field,
                        metadata=metadata,  # required by the API server; absent in Katib trials
                        status=(Obj | None, None))


@functools.cache
def _train_job(version: str) -> type[BaseModel]:
    """The TrainJob model of a release, built on first use. The releases differ in trainer
    limits and in the pod spec a runtime patch may set; the chain of patch models is written
    once, here, around that pod spec."""
    target = _target(version)
    trainer_model = _trainer(version, target.limits)
    base: Any = _object("_TrainJob", target.api_version, (target.kind,), metadata_required=False)
    pod_spec_model = _pod_spec_patch(version, target)
    controllers: Any = Literal[tuple(target.managed_by)]  # spec.managedBy values

    class PodTemplatePatch(Strict):
        metadata: PatchMeta | None = None
        spec: pod_spec_model | None = None  # type: ignore[valid-type]

    class JobSpecPatch(Strict):
        template: PodTemplatePatch | None = None

    class JobTemplatePatch(Strict):
        metadata: PatchMeta | None = None
        spec: JobSpecPatch | None = None

    class ReplicatedJobPatch(Strict):
        name: NameStr
        template: JobTemplatePatch | None = None

    class JobSetSpecPatch(Strict):
        replicated_jobs: Annotated[list[ReplicatedJobPatch], Field(max_length=100)] | None = None

    class JobSetTemplatePatch(Strict):
        metadata: PatchMeta | None = None
        spec: JobSetSpecPatch | None = None

    class TrainingRuntimeSpecPatch(Strict):
        template: JobSetTemplatePatch | None = None

    class RuntimePatch(Strict):
        """A runtimePatches entry."""

        manager: NameStr
        time: str | None = None
        training_runtime_spec: TrainingRuntimeSpecPatch | None = None

    class TrainJobSpec(Strict):
        runtime_ref: RuntimeRef
        initializer: Initializer | None = None
        trainer: trainer_model | None = None  # type: ignore[valid-type]
        runtime_patches: Annotated[list[RuntimePatch],
                                   Field(max_length=target.limits.runtime_patches)] | None = None
        suspend: bool | None = None
        managed_by: controllers | None = None
        active_deadline_seconds: Annotated[int, Field(ge=1)] | None = None

    class TrainJob(base):  # type: ignore[misc]
        spec: TrainJobSpec

    TrainJob.__name__ = TrainJob.__qualname__ = f"TrainJob{version.replace('.', '')}"
    TrainJob.__doc__ = f"A TrainJob as Trainer {version} accepts it."
    TrainJob.model_rebuild()
    return TrainJob


# --- (Cluster)TrainingRuntime -------------------------------------------------------------


class MPIPolicy(Strict):
    num_proc_per_node: Annotated[int, Field(ge=0, le=INT32)] | None = None
    mpi_implementation: Literal["OpenMPI", ""] | None = None
    ssh_auth_mount_path: Annotated[str, Field(max_length=4096)] | None = None
    run_launcher_as_node: bool | None = None


class FluxPolicy(Strict):
    num_proc_per_node: Annotated[int, Field(ge=1, le=INT32)] | None = None


class EmptyPolicy(Strict):
    pass


class EnvInjectionTarget(Strict):
    job_name: Annotated[str, Field(min_length=1, max_length=63)]
    container_names: Annotated[list[Annotated[str, Field(max_length=63)]],
                               Field(min_length=1, max_length=8)]


class EnvInjection(Strict):
    targets: Annotated[list[EnvInjectionTarget], Field(max_length=16)] | None = None


class TorchPolicy23(Strict):
    env_injection: EnvInjection | None = None


class MLPolicy22(Strict):
    num_nodes: Annotated[int, Field(ge=1, le=INT32)] | None = None
    torch: EmptyPolicy | None = None
    mpi: MPIPolicy | None = None
    jax: EmptyPolicy | None = None
    xgboost: EmptyPolicy | None = None
    flux: FluxPolicy | None = None

    @model_validator(mode="after")
    def _one_source(self) -> MLPolicy22:
        shapes.one_ml_policy_source(ml_policy_sources(),
                                    lambda name: getattr(self, name) is not None)
        return self


def ml_policy_sources() -> tuple[str, ...]:
    """The ML policy sources of a runtime's ``spec.mlPolicy`` (its fields but ``numNodes``),
    in the API's order."""
    return tuple(name for name in MLPolicy22.model_fields if name != "num_nodes")


class MLPolicy23(MLPolicy22):
    torch: TorchPolicy23 | None = None  # type: ignore[assignment]


class Coscheduling(Strict):
    schedule_timeout_seconds: Annotated[int, Field(ge=0, le=INT32)] | None = None


class NetworkTopology(Strict):
    mode: Literal["hard", "soft"] | None = None
    highest_tier_allowed: int | None = None


class Volcano(Strict):
    network_topology: NetworkTopology | None = None


class PodGroupPolicy(Strict):
    coscheduling: Coscheduling | None = None
    volcano: Volcano | None = None


class DependsOn(Strict):
    name: str
    status: Literal["Ready", "Complete"]


class JobTemplate(Strict):
    metadata: PatchMeta | None = None
    spec: Obj  # a batch/v1 JobSpec: its pod template is checked by the upstream CRD


class ReplicatedJob(Strict):
    name: NameStr
    group_name: str | None = None
    replicas: Annotated[int, Field(ge=0, le=INT32)] | None = None
    depends_on: Annotated[list[DependsOn], Field(max_length=5)] | None = None
    template: JobTemplate


class JobSetSpec(Strict):
    replicated_jobs: list[ReplicatedJob] | None = None
    network: Obj | None = None
    success_policy: Obj | None = None
    failure_policy: Obj | None = None
    startup_policy: Obj | None = None
    coordinator: Obj | None = None
    managed_by: str | None = None
    suspend: bool | None = None
    ttl_seconds_after_finished: Annotated[int, Field(ge=0, le=INT32)] | None = None
    volume_claim_policies: Annotated[list[Obj], Field(max_length=50)] | None = None


class JobSetTemplate(Strict):
    metadata: PatchMeta | None = None
    spec: JobSetSpec | None = None


class RuntimeSpec22(Strict):
    ml_policy: MLPolicy22 | None = None
    pod_group_policy: PodGroupPolicy | None = None
    template: JobSetTemplate


class RuntimeSpec23(RuntimeSpec22):
    ml_policy: MLPolicy23 | None = None


RUNTIME_SPECS: dict[str, type[BaseModel]] = {"2.2": RuntimeSpec22, "2.3": RuntimeSpec23}
RELEASES = tuple(RUNTIME_SPECS)  # the releases these models were written for


def kinds() -> tuple[str, ...]:
    """The Trainer kinds there are models of: the TrainJob (mappings/targets), then the
    runtime kinds (mappings/kinds.yaml), namespaced first."""
    cluster, namespaced = _kinds().runtime_kinds
    return (_target(RELEASES[0]).kind, namespaced, cluster)


@functools.cache
def _runtime(version: str) -> type[BaseModel]:
    """The (Cluster)TrainingRuntime model of a release: the spec of the newest release in
    ``RELEASES`` up to ``version``, apiVersion and kinds from mappings/."""
    written = [r for r in RELEASES if release(r) <= release(version)][-1]
    cluster, namespaced = _kinds().runtime_kinds
    base: Any = _object("_Runtime", _target(version).api_version, (namespaced, cluster),
                        metadata_required=True)
    model = create_model(f"TrainingRuntime{_suffix(written)}", __base__=base,
                         spec=(RUNTIME_SPECS[written], ...))
    model.__doc__ = f"A {namespaced} or {cluster} as Trainer {written} accepts it."
    return model


def model_for(version: str, kind: str) -> type[BaseModel] | None:
    """The strict model of ``kind`` in Trainer ``version``, or None when there is none.

    A TrainJob model is built from the version's target file (limits, patchable pod fields);
    a runtime model's spec is that of the newest release in ``RELEASES`` up to ``version``;
    the kinds and apiVersion are read from mappings/ (kinds.yaml, the target file)."""
    known = [r for r in RELEASES if release(r) <= release(version)]
    if not known:
        return None
    if kind == _target(version).kind:
        return _train_job(version)
    if kind in _kinds().runtime_kinds:
        return _runtime(version)
    return None


def after_rules() -> dict[Any, tuple[str, tuple[str, ...]]]:
    """The models' ``model_validator`` functions, as ``shapebuild`` names them: the checker's
    function (``shapes.AFTER``) and the fields it reads."""
    return {MLPolicy22._one_source: ("one_ml_policy_source", ml_policy_sources())}


def programs() -> dict[str, Any]:
    """Every model of every target in the catalog, compiled for ``knowledge.shapes`` (at build
    time): ``{"models": {name: program}, "kinds": {version: {kind: name}}}``."""
    from migrator.knowledge import catalog, shapebuild

    after = after_rules()
    models: dict[str, Any] = {}
    kinds_of: dict[str, dict[str, str]] = {}
    for target in catalog.load().targets.values():
        named = kinds_of.setdefault(target.version, {})
        for kind in kinds():
            model = model_for(target.version, kind)
            if model is not None:
                if model.__name__ not in models:
                    models[model.__name__] = shapebuild.compile_model(model, after)
                named[kind] = model.__name__
    return {"models": models, "kinds": kinds_of}
