"""CHECK: validate Trainer objects against a CRD exported from a user's cluster (``--crd FILE``).

The CRD's ``openAPIV3Schema`` of the served version matching the document's apiVersion is
applied strictly: an object schema that lists ``properties`` rejects keys it does not list,
unless it is marked ``x-kubernetes-preserve-unknown-fields`` (what a strict API server and
``kubectl apply --validate=strict`` do). CEL rules are not evaluated (the tool's own
admission checks cover the Trainer ones).
"""

from __future__ import annotations

import copy
import functools
from typing import TYPE_CHECKING, Any

from migrator import paths
from migrator.errors import MigratorError
from migrator.knowledge.specs import CodeDoc
from migrator.results import Finding, FrozenValue, Severity, _set

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only

CRD_CODE = "V605"


class CRDError(MigratorError):
    """A --crd file cannot be used."""


@fields_only
class CRD(FrozenValue):
    """A loaded ``--crd`` file (a frozen value written by hand: see migrator/results.py)."""

    FIELDS = ("path", "kind", "group", "validators")
    path: str
    kind: str
    group: str
    validators: dict[str, Any]  # version name -> jsonschema validator

    def __init__(self, path: str, kind: str, group: str, validators: dict[str, Any]) -> None:
        _set(self, "path", path)
        _set(self, "kind", kind)
        _set(self, "group", group)
        _set(self, "validators", validators)


@functools.lru_cache(maxsize=16)
def load(path: str) -> CRD:
    from migrator.load import sources, yamlio

    try:  # a regular file within the size cap, bounded before parsing
        documents = [d for d in yamlio.safe_documents(
            yamlio.read_text(path, sources.MAX_BYTES))
                     if isinstance(d, dict)]
    except UnicodeDecodeError:
        raise CRDError(f"--crd {path}: cannot read it (not UTF-8 text)") from None
    except (OSError, yamlio.DocumentError) as exc:
        raise CRDError(f"--crd {path}: cannot read it ({exc.strerror or exc})"
                       if isinstance(exc, OSError) else
                       f"--crd {path}: cannot read it ({exc})") from None
    if len(documents) == 1 and documents[0].get("kind") == "List":
        documents = documents[0].get("items") or []
    crd = next((d for d in documents if d.get("kind") == "CustomResourceDefinition"), None)
    if crd is None:
        raise CRDError(f"--crd {path}: no CustomResourceDefinition in the file")
    try:
        spec = crd["spec"]
        versions = {v["name"]: _validator(v["schema"]["openAPIV3Schema"])
                    for v in spec["versions"] if v.get("served", True)}
        return CRD(path, spec["names"]["kind"], spec["group"], versions)
    except (KeyError, TypeError) as exc:
        raise CRDError(f"--crd {path}: not a CustomResourceDefinition with schemas "
                       f"(missing {exc})") from None


def _validator(schema: Any) -> Any:
    import jsonschema

    return jsonschema.Draft7Validator(_strict(copy.deepcopy(schema)))


def _strict(node: Any) -> Any:
    if isinstance(node, dict):
        if node.get("type") == "object" and "properties" in node and \
                not node.get("x-kubernetes-preserve-unknown-fields") and \
                "additionalProperties" not in node:
            node["additionalProperties"] = False
        for value in node.values():
            _strict(value)
    elif isinstance(node, list):
        for value in node:
            _strict(value)
    return node


def check(doc: Any, crd_paths: tuple[str, ...], codes: dict[str, CodeDoc]) -> list[Finding]:
    """Findings for ``doc`` against every --crd of its kind (none when no CRD matches)."""
    if not isinstance(doc, dict) or not crd_paths:
        return []
    group, _, version = str(doc.get("apiVersion", "")).partition("/")
    findings = []
    hint = codes[CRD_CODE].fix
    for path in crd_paths:
        crd = load(path)
        if crd.kind != doc.get("kind") or crd.group != group:
            continue
        validator = crd.validators.get(version)
        if validator is None:
            findings.append(Finding(CRD_CODE, Severity(codes[CRD_CODE].severity), "apiVersion",
                                    f"the CRD in {path} does not serve {group}/{version}", hint))
            continue
        for error in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = paths.render(tuple(error.absolute_path))
            findings.append(Finding(CRD_CODE, Severity(codes[CRD_CODE].severity), where,
                                    f"rejected by the CRD in {path}: {error.message[:300]}",
                                    hint))
    return findings

