"""Decide what a document is before converting it: cheap text checks first, then the kind."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from migrator import paths

if TYPE_CHECKING:  # pydantic stays unimported until a document needs it
    from migrator.specs import KindIndex, MappingSpec

TEMPLATE_MARKERS = (("{{", "Helm/Go template"), ("{%", "Jinja template"),
                    ("{#", "Jinja template"))
_EMBEDDED = re.compile(r"kind:\s*[\"']?(PyTorchJob|TFJob|MPIJob|XGBoostJob|PaddleJob|JAXJob)\b")
_TRAINING = re.compile(r"kind:\s*[\"']?(PyTorchJob|TFJob|MPIJob|XGBoostJob|PaddleJob|JAXJob|"
                       r"TrainJob|TrainingRuntime|ClusterTrainingRuntime)\b")

Verdict = Literal["convert", "pending", "pre-v22", "prototype", "current", "old-api",
                  "embedded", "embeds-current", "other"]


def is_candidate(text: str) -> bool:
    """Cheap prefilter: only documents that mention a Kubeflow group are parsed at all."""
    return "kubeflow.org" in text


def template_syntax(text: str) -> str | None:
    """The template language a document is written in, if any."""
    for marker, language in TEMPLATE_MARKERS:
        if marker in text:
            return language
    return None


def mentions_training_kind(text: str) -> bool:
    return _TRAINING.search(text) is not None


def training_kind(text: str) -> str | None:
    """The first training kind a (possibly unparseable) document names."""
    match = _TRAINING.search(text)
    return match.group(1) if match else None


def embeds_legacy_job(text: str) -> str | None:
    match = _EMBEDDED.search(text)
    return match.group(1) if match else None


@dataclass(frozen=True)
class Classification:
    verdict: Verdict
    mapping: MappingSpec | None = None
    detail: str = ""


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
    if kind in kinds.training_kinds and "kubeflow.org" in api:
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
