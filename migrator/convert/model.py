"""CONVERT: a legacy document, type-checked, as a typed intermediate model with provenance.

The shape models (``legacyshapes``) check types the way the legacy API server did (``replicas:
two`` or ``containers`` written as a mapping are errors), through their compiled programs
(``knowledge.shapes``, cached: no pydantic at run time); the resulting ``LegacyJob`` keeps the
loaded ruamel nodes (so comments travel) and the source path of every part.
"""

from __future__ import annotations

import functools
import re
from typing import Any, ClassVar

from migrator.convert.ledger import Ledger
from migrator.convert.shapefuncs import VALIDATORS
from migrator.knowledge import shapes
from migrator.knowledge.specs import MappingSpec
from migrator.paths import FieldPath
from migrator.results import FrozenValue, _set

INVALID = "K103"
TEMPLATE = "Y103"
PLACEHOLDER = re.compile(r"^\$\{?[A-Za-z_][A-Za-z0-9_.]*\}?$")
MAX_ERRORS = 5  # findings per invalid part


class Node(FrozenValue):
    """A part of the source document: its loaded node and where it came from."""

    __slots__ = ("node", "path")
    FIELDS: ClassVar[tuple[str, ...]] = ("path", "node")
    path: FieldPath
    node: Any

    def __init__(self, path: FieldPath, node: Any) -> None:
        _set(self, "path", path)
        _set(self, "node", node)


class Container(Node):
    """A container of a replica's pod template."""

    __slots__ = ("index", "name")
    FIELDS = ("path", "node", "name", "index")
    name: str
    index: int

    def __init__(self, path: FieldPath, node: Any, name: str, index: int) -> None:
        super().__init__(path, node)
        _set(self, "name", name)
        _set(self, "index", index)


class PodTemplate(Node):
    """A replica's pod template: its metadata, spec and containers."""

    __slots__ = ("containers", "metadata", "spec")
    FIELDS = ("path", "node", "metadata", "spec", "containers")
    metadata: Node | None
    spec: Node
    containers: list[Container]

    def __init__(self, path: FieldPath, node: Any, metadata: Node | None, spec: Node,
                 containers: list[Container]) -> None:
        super().__init__(path, node)
        _set(self, "metadata", metadata)
        _set(self, "spec", spec)
        _set(self, "containers", containers)


class Replica(Node):
    """A replica spec: its role, the TrainJob job it becomes, its count and template."""

    __slots__ = ("job", "replicas", "replicas_given", "restart_policy", "role", "template")
    FIELDS = ("path", "node", "role", "job", "replicas", "replicas_given", "restart_policy",
              "template")
    role: str
    job: str
    replicas: int
    replicas_given: bool
    restart_policy: str | None
    template: PodTemplate

    def __init__(self, path: FieldPath, node: Any, role: str, job: str, replicas: int,
                 replicas_given: bool, restart_policy: str | None,
                 template: PodTemplate) -> None:
        super().__init__(path, node)
        _set(self, "role", role)
        _set(self, "job", job)
        _set(self, "replicas", replicas)
        _set(self, "replicas_given", replicas_given)
        _set(self, "restart_policy", restart_policy)
        _set(self, "template", template)


class LegacyJob(FrozenValue):
    """A legacy training job of any kind, as the mapping engine sees it."""

    __slots__ = ("api_version", "kind", "metadata", "replicas", "root")
    FIELDS = ("api_version", "kind", "metadata", "replicas", "root")
    api_version: str
    kind: str
    metadata: Node
    replicas: list[Replica]
    root: Any

    def __init__(self, api_version: str, kind: str, metadata: Node, replicas: list[Replica],
                 root: Any) -> None:
        _set(self, "api_version", api_version)
        _set(self, "kind", kind)
        _set(self, "metadata", metadata)
        _set(self, "replicas", replicas)
        _set(self, "root", root)

    @property
    def name(self) -> str | None:
        value = self.metadata.node.get("name")
        return value if isinstance(value, str) else None


def parse(root: Any, spec: MappingSpec, ledger: Ledger) -> LegacyJob | None:
    """Build the model, or report K103 findings and return None."""
    metadata = root.get("metadata")
    if not _valid("metadata", metadata if metadata is not None else {}, ("metadata",), ledger):
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
    if not _valid("replica", value, path, ledger):
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


def _valid(shape: str, value: Any, base: FieldPath, ledger: Ledger) -> bool:
    errors = _shape_errors(shape, value)
    for _type, loc, msg, got in errors[:MAX_ERRORS]:
        loc = tuple(str(p) if isinstance(p, str) else p for p in loc)
        if isinstance(got, str) and PLACEHOLDER.match(got.strip()):
            ledger.report(TEMPLATE, (*base, *loc), f"placeholder {got!r} stands where the "
                          "API needs a typed value; render the template (envsubst) first")
        else:
            ledger.report(INVALID, (*base, *loc), _describe(loc, msg, got))
    return not errors


def _shape_errors(shape: str, value: Any) -> list[shapes.Error]:
    """pydantic's errors of the legacy shape ``shape``: from its compiled program (cached), or
    from pydantic itself for a value only pydantic can judge."""
    found = _checkers()[shape].errors(value)
    if found is None:
        from migrator.convert import legacyshapes

        return legacyshapes.errors(shape, value)
    return found


@functools.cache
def _checkers() -> dict[str, shapes.Checker]:
    from pathlib import Path

    from migrator.knowledge import cache, catalog

    here = Path(__file__).parent
    digest = catalog.digest(*(path.read_bytes() for path in (
        here / "legacyshapes.py", here / "shapefuncs.py", Path(shapes.__file__),
        Path(shapes.__file__).with_name("shapebuild.py"))))
    return cache.cached_json("shapes-legacy", digest, _build, _use)


def _build() -> Any:
    from migrator.convert import legacyshapes

    return legacyshapes.programs()


def _use(data: Any) -> dict[str, shapes.Checker]:
    if not isinstance(data, dict) or set(data) != {"metadata", "replica"}:
        raise shapes.ProgramError("not the legacy shapes' programs")
    return {name: shapes.load(program, VALIDATORS) for name, program in data.items()}


def _describe(loc: tuple[Any, ...], msg: str, got: Any) -> str:
    where = ".".join(str(p) for p in loc) or "value"
    shown = "a mapping" if isinstance(got, dict) else "a list" if isinstance(got, list) \
        else repr(got)
    return f"{where}: {msg.lower()} (got {shown})"
