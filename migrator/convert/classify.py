"""CONVERT: classify a loaded document by its apiVersion and kind — convert, upgrade, report
or pass through — against the catalog's kind index."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from migrator import paths
from migrator.knowledge.specs import KindIndex, MappingSpec
from migrator.load.detect import embeds_legacy_job, is_candidate, mentions_training_kind
from migrator.results import FrozenValue, _set

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only

Verdict = Literal["convert", "pending", "pre-v22", "prototype", "current", "retired",
                  "old-api", "embedded", "embeds-current", "other"]



@fields_only
class Classification(FrozenValue):
    """What to do with a document, the legacy mapping that converts it, and a detail (the
    pre-v2.2 marker, the embedded kind). A frozen value written by hand: see
    migrator/results.py."""

    FIELDS = ("verdict", "mapping", "detail")
    verdict: Verdict
    mapping: MappingSpec | None = None
    detail: str = ""

    def __init__(self, verdict: Verdict, mapping: MappingSpec | None = None,
                 detail: str = "") -> None:
        _set(self, "verdict", verdict)
        _set(self, "mapping", mapping)
        _set(self, "detail", detail)


def classify(root: Any, text: str, legacy: dict[tuple[str, str], MappingSpec],
             kinds: KindIndex) -> Classification:
    """What to do with a loaded document."""
    api, kind = root.get("apiVersion"), root.get("kind")
    if not isinstance(api, str) or not isinstance(kind, str):
        return Classification("other")
    if (api, kind) in legacy:
        return Classification("convert", legacy[(api, kind)])
    if any(p.api_version == api and p.kind == kind for p in kinds.pending):
        return Classification("pending")
    if any(p.api_version == api and p.kind == kind for p in kinds.prototypes):
        return Classification("prototype")
    for current in kinds.current:
        if current.api_version == api and current.kind == kind:
            marker = _pre_v22_marker(root, current.pre_v22_markers)
            return Classification("pre-v22", detail=marker) if marker else \
                Classification("current")
    if kind in kinds.retired and is_candidate(api):  # under any of its apiVersions
        return Classification("retired")
    if kind in kinds.training_kinds and is_candidate(api):
        return Classification("old-api")
    if kind in kinds.embedding_kinds or kind.endswith("List"):
        embedded = embeds_legacy_job(text)
        if embedded:
            return Classification("embedded", detail=embedded)
        if mentions_training_kind(text):
            return Classification("embeds-current")
    return Classification("other")


def _pre_v22_marker(root: Any, markers: list[str]) -> str | None:
    for marker in markers:
        dotted, _, wanted = marker.partition(":")
        path = paths.parse(dotted)
        if not paths.has(root, path):
            continue
        if wanted == "string" and not isinstance(paths.get(root, path), str):
            continue
        return dotted
    return None
