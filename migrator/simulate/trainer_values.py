"""SIMULATE: plain-data helpers of the Trainer-side simulation — tolerant readers, the upserts
Trainer's ``pkg/apply`` performs, a strategic merge patch over plain data, and resource
quantities.

Every reader degrades on odd input (a wrong type reads as absent); nothing here raises on the
shape of user data.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

# --- tolerant readers --------------------------------------------------------------------------


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def seq(value: Any) -> list[Any]:
    """``value`` when it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def integer(value: Any) -> int | None:
    """``value`` when it is an integer (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def text(value: Any) -> str | None:
    """``value`` when it is a string, else None."""
    return value if isinstance(value, str) else None


def strings(value: Any) -> list[str] | None:
    """``value`` when it is a list of strings, else None."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    return None


def child(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """``parent[key]`` as a dict, created (or replacing a non-mapping) when needed."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = dict(value) if isinstance(value, Mapping) else {}
        parent[key] = value
    return value


def child_list(parent: dict[str, Any], key: str) -> list[Any]:
    """``parent[key]`` as a list, created (or replacing a non-list) when needed."""
    value = parent.get(key)
    if not isinstance(value, list):
        value = []
        parent[key] = value
    return value


def plain(value: Any) -> Any:
    """A deep copy of JSON-like data as dicts and lists (mappings become dicts)."""
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


# --- pkg/apply upserts -------------------------------------------------------------------------


def upsert(items: list[Any], item: dict[str, Any], key: str) -> None:
    """Trainer's ``apply.upsert``: replace the first element whose ``key`` equals the item's,
    else append."""
    for index, existing in enumerate(items):
        if isinstance(existing, Mapping) and existing.get(key) == item.get(key):
            items[index] = item
            return
    items.append(item)


def upsert_env(container: dict[str, Any], env: list[Any]) -> None:
    """``apply.UpsertEnvVars``: by name, in order."""
    entries = [entry for entry in env
               if isinstance(entry, Mapping) and isinstance(entry.get("name"), str)]
    if not entries:
        return
    items = child_list(container, "env")
    for entry in entries:
        upsert(items, plain(entry), "name")


def upsert_port(container: dict[str, Any], port: int) -> None:
    """``apply.UpsertPort``: by containerPort (or name)."""
    upsert(child_list(container, "ports"), {"containerPort": port}, "containerPort")


def upsert_mount(container: dict[str, Any], name: str, path: str) -> None:
    """``apply.UpsertVolumeMounts``: by mountPath."""
    upsert(child_list(container, "volumeMounts"), {"name": name, "mountPath": path}, "mountPath")


def upsert_volume(pod_spec: dict[str, Any], volume: dict[str, Any]) -> None:
    """``apply.UpsertVolumes``: by name."""
    upsert(child_list(pod_spec, "volumes"), volume, "name")


def container(pod_spec: Mapping[str, Any], name: str, *,
              init: bool = False) -> dict[str, Any] | None:
    """The container (or init container) of that name in a pod spec, None when absent."""
    for item in seq(pod_spec.get("initContainers" if init else "containers")):
        if isinstance(item, dict) and item.get("name") == name:
            return item
    return None


# --- strategic merge patch ---------------------------------------------------------------------

POD_MERGE_KEYS: dict[str, str] = {
    # k8s.io/api core/v1 patchMergeKey tags of the lists a pod template can patch
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "ports": "containerPort",
    "imagePullSecrets": "name",
    "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey",
    "resourceClaims": "name",
    "schedulingGates": "name",
}
"""Lists merged by key under a strategic merge patch of a pod template (others replace)."""

JOBSET_MERGE_KEYS: dict[str, str] = {
    **POD_MERGE_KEYS,
    # sigs.k8s.io/jobset v0.12.0 api/jobset/v1alpha2/jobset_types.go patchMergeKey tags
    "replicatedJobs": "name",
    "dependsOn": "name",
}
"""Lists merged by key under a strategic merge patch of a JobSet v0.12 spec."""


def strategic_merge(original: Any, patch: Any, keys: Mapping[str, str]) -> Any:
    """A strategic merge patch over plain data: maps merge key by key (a null deletes), lists
    named in ``keys`` merge element by element on their merge key (``$patch: delete`` removes
    one), other lists and scalars are replaced; ``$patch: replace`` replaces a map."""
    if not isinstance(patch, Mapping):
        return plain(patch)
    if not isinstance(original, Mapping) or patch.get("$patch") == "replace":
        return {key: plain(value) for key, value in patch.items()
                if not str(key).startswith("$") and value is not None}
    merged: dict[str, Any] = plain(original)
    for key, value in patch.items():
        if str(key).startswith("$"):
            continue
        if value is None:
            merged.pop(key, None)
        elif key in keys and isinstance(value, list) and isinstance(merged.get(key), list):
            merged[key] = _merge_list(merged[key], value, keys[key], keys)
        elif isinstance(value, Mapping):
            merged[key] = strategic_merge(merged.get(key), value, keys)
        else:
            merged[key] = plain(value)
    return merged


def _merge_list(original: list[Any], patch: list[Any], key: str,
                keys: Mapping[str, str]) -> list[Any]:
    merged = [plain(item) for item in original]
    for item in patch:
        if not isinstance(item, Mapping) or key not in item:
            merged.append(plain(item))
            continue
        at = next((index for index, existing in enumerate(merged)
                   if isinstance(existing, Mapping) and existing.get(key) == item[key]), None)
        if item.get("$patch") == "delete":
            if at is not None:
                del merged[at]
        elif at is None:
            merged.append(strategic_merge({}, item, keys))
        else:
            merged[at] = strategic_merge(merged[at], item, keys)
    return merged


# --- resource quantities -----------------------------------------------------------------------

_SUFFIX: dict[str, Fraction] = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
    "Ki": Fraction(2**10), "Mi": Fraction(2**20), "Gi": Fraction(2**30), "Ti": Fraction(2**40),
    "Pi": Fraction(2**50), "Ei": Fraction(2**60),
}


def quantity(value: Any) -> Fraction | None:
    """A Kubernetes resource quantity ("500m", "2", "1.5Gi", "1e3", 4) as an exact number, None
    when it does not parse."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(value) if math.isfinite(value) else None
    if not isinstance(value, str) or not value.strip():
        return None
    raw = value.strip()
    for suffix in sorted(_SUFFIX, key=len, reverse=True):
        if suffix and raw.endswith(suffix):
            number, scale = raw[: -len(suffix)], _SUFFIX[suffix]
            break
    else:
        number, scale = raw, Fraction(1)
    try:
        return Fraction(number) * scale
    except (ValueError, ZeroDivisionError):
        return None


def ceil_value(value: Any) -> int:
    """``resource.Quantity.Value()``: rounded up to an integer (0 when absent or invalid)."""
    parsed = quantity(value)
    return math.ceil(parsed) if parsed is not None else 0
