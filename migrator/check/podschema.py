"""CHECK: strict structural check of the Kubernetes objects a runtime embeds.

The Trainer CRDs publish the full core/v1 pod template inside a runtime's JobSet; a strict
API server rejects unknown fields, wrongly typed scalars and ``null`` list items there. The
field tables live in mappings/common/kubernetes.yaml; this module walks a value against them
and returns (path, message) problems. Only the fields the tables type are checked deeply;
``object`` fields are checked to be mappings.
"""

from __future__ import annotations

from typing import Any

from migrator import paths
from migrator.knowledge import catalog
from migrator.knowledge.specs import KUBE_SCALARS as SCALARS
from migrator.knowledge.specs import KubeType as KubeType
from migrator.knowledge.specs import KubeTypes as KubeTypes


def types() -> dict[str, KubeType]:
    """The type tables of mappings/common/kubernetes.yaml (validated with the catalog, whose
    build checks that every field names a known type)."""
    return catalog.load().kube.types


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
