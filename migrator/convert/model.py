"""CONVERT: a legacy document, type-checked, as a typed intermediate model with provenance.

The shape models check types the way the legacy API server did (``replicas: two`` or
``containers`` written as a mapping are errors); the resulting ``LegacyJob`` keeps the loaded
ruamel nodes (so comments travel) and the source path of every part.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    ValidationError,
)

from migrator.check import quantity
from migrator.convert.ledger import Ledger
from migrator.knowledge.specs import MappingSpec
from migrator.paths import FieldPath

INVALID = "K103"
TEMPLATE = "Y103"
PLACEHOLDER = re.compile(r"^\$\{?[A-Za-z_][A-Za-z0-9_.]*\}?$")


class _Shape(BaseModel):
    model_config = ConfigDict(extra="allow")


def _quantity(value: Any) -> Any:
    if quantity.parse(value) is None:
        raise ValueError("not a Kubernetes quantity such as 2, 500m or 4Gi")
    return value


Quantity = Annotated[Any, BeforeValidator(_quantity)]


class _ResourcesShape(_Shape):
    limits: dict[str, Quantity] | None = None
    requests: dict[str, Quantity] | None = None


class _EnvShape(_Shape):
    name: StrictStr


class _ContainerShape(_Shape):
    name: StrictStr
    image: StrictStr | None = None
    command: list[StrictStr] | None = None
    args: list[StrictStr] | None = None
    env: list[_EnvShape] | None = None
    envFrom: list[dict[str, Any]] | None = None
    resources: _ResourcesShape | None = None
    volumeMounts: list[dict[str, Any]] | None = None


class _PodSpecShape(_Shape):
    containers: list[_ContainerShape] = Field(min_length=1)
    volumes: list[dict[str, Any]] | None = None
    tolerations: list[dict[str, Any]] | None = None
    nodeSelector: dict[str, Any] | None = None


class _TemplateShape(_Shape):
    metadata: dict[str, Any] | None = None
    spec: _PodSpecShape


class _ReplicaShape(_Shape):
    replicas: StrictInt | None = None
    restartPolicy: StrictStr | None = None
    template: _TemplateShape


class _MetadataShape(_Shape):
    name: StrictStr | None = None
    generateName: StrictStr | None = None
    namespace: StrictStr | None = None
    labels: dict[str, StrictStr | None] | None = None
    annotations: dict[str, StrictStr | None] | None = None


class Node(BaseModel):
    """A part of the source document: its loaded node and where it came from."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    path: FieldPath
    node: Any


class Container(Node):
    name: str
    index: int


class PodTemplate(Node):
    metadata: Node | None
    spec: Node
    containers: list[Container]


class Replica(Node):
    role: str
    job: str
    replicas: int
    replicas_given: bool
    restart_policy: str | None
    template: PodTemplate


class LegacyJob(BaseModel):
    """A legacy training job of any kind, as the mapping engine sees it."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    api_version: str
    kind: str
    metadata: Node
    replicas: list[Replica]
    root: Any

    @property
    def name(self) -> str | None:
        value = self.metadata.node.get("name")
        return value if isinstance(value, str) else None


def parse(root: Any, spec: MappingSpec, ledger: Ledger) -> LegacyJob | None:
    """Build the model, or report K103 findings and return None."""
    metadata = root.get("metadata")
    if not _valid(_MetadataShape, metadata if metadata is not None else {}, ("metadata",), ledger):
        return None
    specs_path = tuple(spec.replica_specs.path.split("."))
    holder = root
    for seg in specs_path:
        holder = holder.get(seg) if isinstance(holder, dict) else None
    if not isinstance(holder, dict) or not holder:
        ledger.report(INVALID, specs_path[:1], f"{'.'.join(specs_path)} is missing or empty; "
                      f"a {spec.source.kind} needs at least one replica spec")
        return None
    replicas = [_replica(key, value, (*specs_path, str(key)), spec, ledger)
                for key, value in holder.items()]
    if any(r is None for r in replicas) or ledger.has_errors():
        return None
    kept = [r for r in replicas if r is not None]
    if not _roles_complete(kept, specs_path, spec, ledger):
        return None
    for replica in list(kept):
        code = spec.replica_specs.roles[replica.role].unsupported
        if code is not None:
            ledger.report(code, replica.path, f"{replica.role} replicas have no TrainJob "
                          f"equivalent ({replica.replicas} pod(s) would not run)")
            kept.remove(replica)
    if not kept:  # only roles without an equivalent: the findings above say why
        return None
    return LegacyJob(api_version=spec.source.api_version, kind=spec.source.kind,
                     metadata=Node(path=("metadata",), node=metadata or {}),
                     replicas=kept, root=root)


def _roles_complete(replicas: list[Replica], specs_path: FieldPath, spec: MappingSpec,
                    ledger: Ledger) -> bool:
    present = {r.role for r in replicas}
    where = ".".join(str(p) for p in specs_path)
    for role, rules in spec.replica_specs.roles.items():
        if rules.required and role not in present:
            ledger.report(INVALID, specs_path, f"{where} needs a {role} replica spec")
            return False
    exclusive = [role for role in spec.replica_specs.exclusive_roles if role in present]
    if len(exclusive) > 1:
        ledger.report(INVALID, specs_path, f"{where} may hold only one of "
                      f"{' and '.join(exclusive)}")
        return False
    return True


def _replica(key: Any, value: Any, path: FieldPath, spec: MappingSpec,
             ledger: Ledger) -> Replica | None:
    role = _role(str(key), spec)
    if role is None:
        allowed = ", ".join(spec.replica_specs.roles)
        ledger.report(INVALID, path, f"unknown replica type {key!r} (allowed: {allowed})")
        return None
    if not _valid(_ReplicaShape, value, path, ledger):
        return None
    rules = spec.replica_specs.roles[role]
    given = value.get("replicas")
    count = rules.default_replicas if given is None else int(given)
    too_many = rules.max_replicas is not None and count > rules.max_replicas
    if count < rules.min_replicas or too_many:
        upper = f" and at most {rules.max_replicas}" if rules.max_replicas is not None else ""
        ledger.report(INVALID, (*path, "replicas"),
                      f"{role} replicas must be at least {rules.min_replicas}{upper}, got {count}")
        return None
    template = value["template"]
    spec_node = template["spec"]
    containers = [Container(path=(*path, "template", "spec", "containers", i), node=c,
                            name=str(c["name"]), index=i)
                  for i, c in enumerate(spec_node["containers"])]
    meta = template.get("metadata")
    return Replica(
        path=path, node=value, role=role, job=rules.job, replicas=count,
        replicas_given=given is not None,
        restart_policy=value.get("restartPolicy"),
        template=PodTemplate(
            path=(*path, "template"), node=template,
            metadata=Node(path=(*path, "template", "metadata"), node=meta)
            if isinstance(meta, dict) else None,
            spec=Node(path=(*path, "template", "spec"), node=spec_node),
            containers=containers))


def _role(key: str, spec: MappingSpec) -> str | None:
    for role in spec.replica_specs.roles:
        folded = spec.replica_specs.case_insensitive_roles and key.lower() == role.lower()
        if key == role or folded:
            return role
    return None


def _valid(shape: type[_Shape], value: Any, base: FieldPath, ledger: Ledger) -> bool:
    try:
        shape.model_validate(value)
    except ValidationError as exc:
        for error in exc.errors()[:5]:
            loc = tuple(str(p) if isinstance(p, str) else p for p in error["loc"])
            got = error.get("input")
            if isinstance(got, str) and PLACEHOLDER.match(got.strip()):
                ledger.report(TEMPLATE, (*base, *loc), f"placeholder {got!r} stands where the "
                              "API needs a typed value; render the template (envsubst) first")
            else:
                ledger.report(INVALID, (*base, *loc), _describe(error))
        return False
    return True


def _describe(error: Any) -> str:
    where = ".".join(str(p) for p in error["loc"]) or "value"
    got = error.get("input")
    shown = "a mapping" if isinstance(got, dict) else "a list" if isinstance(got, list) \
        else repr(got)
    return f"{where}: {error['msg'].lower()} (got {shown})"
