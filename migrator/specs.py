"""Typed, strict models of the data files in mappings/ (the tool's own rule language)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel


class Spec(BaseModel):
    """Base: camelCase keys in YAML, unknown keys rejected, immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel,
                              populate_by_name=True)


class ApiKind(Spec):
    api_version: str
    kind: str


class RoleSpec(Spec):
    default_replicas: int
    min_replicas: int = 0
    max_replicas: int | None = None


class ReplicaSpecsSpec(Spec):
    path: str
    case_insensitive_roles: bool = False
    roles: dict[str, RoleSpec]
    template_priority: list[str]
    default_restart_policy: str
    restart_policies: list[str]


class LegacyContract(Spec):
    env: list[str] = []
    host_roles: list[str] = []
    ports: list[int] = []


class LauncherSpec(Spec):
    check: Literal["torchrun", "none"] = "none"


class Rule(Spec):
    """One job-level rule: what happens to the source field ``from``."""

    source: str = Field(alias="from")
    op: Literal["copy", "drop", "unsupported", "transform"]
    to: str | None = None
    fn: str | None = None
    code: str | None = None

    @model_validator(mode="after")
    def _arguments(self) -> Rule:
        needed = {"copy": "to", "unsupported": "code", "transform": "fn"}.get(self.op)
        if needed and getattr(self, needed) is None:
            raise ValueError(f"op {self.op!r} needs {needed!r}")
        return self


class MappingSpec(Spec):
    """mappings/legacy/<id>.yaml: how one legacy kind converts."""

    id: str
    source: ApiKind
    framework: str
    replica_specs: ReplicaSpecsSpec
    main_container: str
    injected_env: dict[str, str] = {}
    legacy_contract: LegacyContract = LegacyContract()
    launcher: LauncherSpec = LauncherSpec()
    rules: list[Rule]


class FieldRule(Spec):
    op: Literal["patch", "trainer", "containers", "unsupported", "drop"]
    to: str | None = None
    rename: str | None = Field(default=None, alias="as")
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


class RuntimeSpec(Spec):
    name: str
    kind: str
    trainer_job: str
    container: str
    reserved_env: list[str] = []


class TargetSpec(Spec):
    """mappings/targets/v<X.Y>.yaml: what one Trainer release accepts."""

    id: str
    version: str
    api_version: str
    kind: str
    patchable_pod_fields: list[str]
    patchable_container_fields: list[str]
    honours_managed_by: bool
    limits: Limits
    runtimes: dict[str, RuntimeSpec]


class CurrentKind(ApiKind):
    pre_v22_markers: list[str] = []


class KindIndex(Spec):
    """mappings/kinds.yaml: every training kind the tool recognises."""

    training_kinds: list[str]
    pending: list[ApiKind]
    current: list[CurrentKind]
    embedding_kinds: list[str]


class CodeDoc(Spec):
    """One entry of mappings/codes.yaml."""

    name: str
    severity: Literal["error", "warning", "info"]
    summary: str
    why: str
    example: str
    fix: str
