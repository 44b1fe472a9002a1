"""CONVERT stage helpers for Kustomize: translate a patch that targets a legacy job into a
patch on the converted TrainJob.

The translation is made by construction, not by a table of paths: the patch is applied to
the legacy base, both the base and the patched base are converted, and the difference
between the two TrainJobs becomes the new patch (JSON 6902 operations on the converted
base, or a partial TrainJob for a strategic-merge patch). Whatever the converter maps - a
replica count that feeds ``numNodes``, a container field that lands in a runtime patch - the
patch follows. A patch whose change does not survive conversion (the converted outputs are
equal although the legacy objects differ) cannot be translated and is reported.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Convert = Callable[[Any], Any | None]  # legacy object -> converted plain TrainJob, or None


class PatchError(ValueError):
    """A patch that cannot be applied to its base (the message names the path)."""


@dataclass
class Translation:
    """A translated patch, or why it could not be translated."""

    ops: list[dict[str, Any]] | None = None  # JSON 6902
    partial: dict[str, Any] | None = None  # strategic merge
    problems: list[str] = field(default_factory=list)  # paths that could not be translated


def pointer(path: str) -> list[str]:
    """The tokens of a JSON pointer (RFC 6901)."""
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"{path}: a JSON pointer starts with /")
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


def render(tokens: list[str | int]) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def apply_json6902(doc: Any, ops: list[Any]) -> Any:
    """``doc`` with the operations applied (a copy); PatchError names a failing path."""
    result = copy.deepcopy(doc)
    for op in ops:
        if not isinstance(op, dict) or not isinstance(op.get("path"), str):
            raise PatchError(f"{op!r}: not a JSON patch operation")
        try:
            result = _apply(result, op)
        except PatchError as exc:
            raise PatchError(f"{op['path']}: cannot {op.get('op')} ({exc})") from None
    return result


def _apply(result: Any, op: dict[str, Any]) -> Any:
    kind, path = op.get("op"), op["path"]
    if kind == "test":
        if _get(result, pointer(path)) != op.get("value"):
            raise PatchError("the test failed")
    elif kind in ("add", "replace"):
        result = _set(result, pointer(path), copy.deepcopy(op.get("value")),
                      insert=kind == "add")
    elif kind == "remove":
        result = _remove(result, pointer(path))
    elif kind in ("copy", "move"):
        source = pointer(str(op.get("from", "")))
        value = copy.deepcopy(_get(result, source))
        if kind == "move":
            result = _remove(result, source)
        result = _set(result, pointer(path), value, insert=True)
    else:
        raise PatchError(f"unknown operation {kind!r}")
    return result


def _get(doc: Any, tokens: list[str]) -> Any:
    node = doc
    for token in tokens:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise PatchError(f"{render(list(tokens))}: no such path")
    return node


def _set(doc: Any, tokens: list[str], value: Any, *, insert: bool) -> Any:
    if not tokens:
        return value
    parent = _get(doc, tokens[:-1])
    last = tokens[-1]
    if isinstance(parent, dict):
        if not insert and last not in parent:
            raise PatchError(f"{render(list(tokens))}: no such path")
        parent[last] = value
    elif isinstance(parent, list):
        if last == "-" and insert:
            parent.append(value)
        elif last.isdigit() and int(last) <= len(parent) - (0 if insert else 1):
            if insert:
                parent.insert(int(last), value)
            else:
                parent[int(last)] = value
        else:
            raise PatchError(f"{render(list(tokens))}: no such index")
    else:
        raise PatchError(f"{render(list(tokens))}: parent is not a container")
    return doc


def _remove(doc: Any, tokens: list[str]) -> Any:
    if not tokens:
        raise PatchError("cannot remove the whole document")
    parent = _get(doc, tokens[:-1])
    _get(doc, tokens)
    if isinstance(parent, dict):
        del parent[tokens[-1]]
    else:
        del parent[int(tokens[-1])]
    return doc


def apply_strategic(doc: Any, patch: Any) -> Any:
    """``doc`` with a strategic-merge patch applied (a copy), as kustomize applies it to a
    custom resource it has no schema for: mappings merge, ``null`` deletes, lists are
    replaced whole (JSON merge patch, RFC 7386)."""
    if not isinstance(doc, dict) or not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(doc)
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = apply_strategic(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def diff(before: Any, after: Any, at: list[str | int] | None = None) -> list[dict[str, Any]]:
    """JSON 6902 operations that turn ``before`` into ``after``."""
    at = at or []
    if before == after:
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        ops: list[dict[str, Any]] = [{"op": "remove", "path": render([*at, key])}
                                     for key in before if key not in after]
        for key, value in after.items():
            if key not in before:
                ops.append({"op": "add", "path": render([*at, key]), "value": value})
            else:
                ops += diff(before[key], value, [*at, key])
        return ops
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [op for i, (b, a) in enumerate(zip(before, after, strict=True))
                for op in diff(b, a, [*at, i])]
    return [{"op": "replace", "path": render(at), "value": after}]


def merge_patch(before: Any, after: Any) -> dict[str, Any]:
    """A partial object that turns ``before`` into ``after`` under merge-patch semantics
    (lists are replaced whole, ``null`` deletes)."""
    patch: dict[str, Any] = {}
    for key in before:
        if key not in after:
            patch[key] = None
    for key, value in after.items():
        old = before.get(key)
        if old == value:
            continue
        if isinstance(old, dict) and isinstance(value, dict):
            patch[key] = merge_patch(old, value)
        else:
            patch[key] = value
    return patch


def translate_json6902(base: Any, ops: list[Any], convert: Convert) -> Translation:
    """JSON 6902 ``ops`` written for the legacy ``base``, rewritten for its TrainJob."""
    try:
        patched = apply_json6902(base, ops)
    except PatchError as exc:
        return Translation(problems=[str(exc)])
    before, after = convert(base), convert(patched)
    if before is None or after is None:
        return Translation(problems=_unconverted(before, _paths(ops)))
    new = diff(before, after)
    if not new and base != patched:
        return Translation(problems=_paths(ops))
    return Translation(ops=new)


def translate_strategic(base: Any, patch: Any, convert: Convert) -> Translation:
    """A strategic-merge ``patch`` (a partial legacy job) rewritten as a partial TrainJob."""
    patched = apply_strategic(base, patch)
    before, after = convert(base), convert(patched)
    if before is None or after is None:
        return Translation(problems=_unconverted(before, _leaves(patch)))
    changes = merge_patch(before, after)
    if not changes and base != patched:
        return Translation(problems=_leaves(patch))
    partial = {"apiVersion": after.get("apiVersion"), "kind": after.get("kind"),
               "metadata": {"name": (after.get("metadata") or {}).get("name")}}
    partial = apply_strategic(partial, changes)
    return Translation(partial=partial)


def _unconverted(before: Any, paths: list[str]) -> list[str]:
    what = "the base job does not convert" if before is None else \
        "the patched job does not convert (convert the built overlay to see why)"
    return [f"{path}: {what}" for path in paths]


def _paths(ops: list[Any]) -> list[str]:
    return [str(op.get("path")) for op in ops if isinstance(op, dict)]


def _leaves(patch: Any, at: str = "") -> list[str]:
    if not isinstance(patch, dict):
        return [at]
    found: list[str] = []
    for key, value in patch.items():
        if at == "" and key in ("apiVersion", "kind", "metadata"):
            continue
        found += _leaves(value, f"{at}.{key}" if at else str(key))
    return found
