"""CHECK: strict structural check of the Kubernetes objects a runtime embeds.

The Trainer CRDs publish the full core/v1 pod template inside a runtime's JobSet; a strict
API server rejects unknown fields, wrongly typed scalars and ``null`` list items there. The
field tables live in mappings/common/kubernetes.yaml; this module walks a value against them
and returns (path, message) problems. Only the fields the tables type are checked deeply;
``object`` fields are checked to be mappings.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, ConfigDict

from migrator import paths
from migrator.knowledge import catalog

SCALARS = ("string", "integer", "boolean", "intstr", "object", "map", "quantities")


class KubeType(BaseModel):
    """One Kubernetes type: its fields, which are required, which exist only in some releases."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fields: dict[str, Any]
    required: list[str] = []
    only: dict[str, list[str]] = {}


class KubeTypes(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    types: dict[str, KubeType]


@functools.cache
def types() -> dict[str, KubeType]:
    """The type tables of mappings/common/kubernetes.yaml (validated once per process)."""
    from ruamel.yaml import YAML

    path = catalog.mappings_dir() / "common" / "kubernetes.yaml"
    data = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    table = KubeTypes.model_validate(data).types
    for name, kube in table.items():
        for field, spec in kube.fields.items():
            _check_spec(spec, table, f"{name}.{field}")
    return table


def _check_spec(spec: Any, table: dict[str, KubeType], where: str) -> None:
    inner = spec[0] if isinstance(spec, list) and len(spec) == 1 else spec
    if not isinstance(inner, str) or (inner not in SCALARS and inner not in table):
        raise ValueError(f"kubernetes.yaml: {where}: unknown type {spec!r}")


def check(value: Any, type_name: str | list[str], where: paths.FieldPath,
          version: str) -> list[tuple[str, str]]:
    """Problems of ``value`` read as ``type_name`` (path rendered, message)."""
    problems: list[tuple[str, str]] = []
    _walk(value, type_name, where, version, problems)
    return problems


def _walk(value: Any, spec: Any, where: paths.FieldPath, version: str,
          problems: list[tuple[str, str]]) -> None:
    if value is None:
        problems.append((paths.render(where), "null is not allowed here"))
        return
    if isinstance(spec, list):
        if not isinstance(value, list):
            problems.append((paths.render(where), f"must be a list, got {_kind(value)}"))
            return
        for index, item in enumerate(value):
            _walk(item, spec[0], (*where, index), version, problems)
        return
    if spec in SCALARS:
        message = _scalar(value, spec)
        if message:
            problems.append((paths.render(where), message))
        return
    kube = types()[spec]
    if not isinstance(value, dict):
        problems.append((paths.render(where), f"must be a mapping ({spec}), got {_kind(value)}"))
        return
    for key, item in value.items():
        field = str(key)
        allowed = kube.only.get(field)
        if field not in kube.fields or (allowed is not None and version not in allowed):
            problems.append((paths.render((*where, field)), f"unknown field {field!r}: "
                             f"a Kubernetes {spec} has no such field"))
            continue
        _walk(item, kube.fields[field], (*where, field), version, problems)
    problems.extend((paths.render((*where, field)), f"{field} is required")
                    for field in kube.required if field not in value)


def _scalar(value: Any, spec: str) -> str | None:
    ok = {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "intstr": isinstance(value, str | int) and not isinstance(value, bool),
        "object": isinstance(value, dict),
        "map": isinstance(value, dict) and all(isinstance(v, str) for v in value.values()),
        "quantities": isinstance(value, dict) and all(
            isinstance(v, str | int | float) and not isinstance(v, bool) and v is not None
            for v in value.values()),
    }[spec]
    if ok:
        return None
    if spec == "map":
        return "must map names to strings (quote numbers and booleans)"
    if spec == "quantities":
        return "must map resource names to quantities"
    return f"must be {'an' if spec[0] in 'aeiou' else 'a'} {spec}, got {_kind(value)}"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
