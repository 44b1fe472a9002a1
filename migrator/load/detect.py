"""LOAD: cheap text checks before parsing a document: Kubeflow group, template syntax, kinds."""

from __future__ import annotations

import re

TEMPLATE_MARKERS = (("{{", "Helm/Go template"), ("{%", "Jinja template"),
                    ("{#", "Jinja template"))
_EMBEDDED = re.compile(r"kind:\s*[\"']?(PyTorchJob|TFJob|MPIJob|XGBoostJob|PaddleJob|JAXJob)\b")
_TRAINING = re.compile(r"kind:\s*[\"']?(PyTorchJob|TFJob|MPIJob|XGBoostJob|PaddleJob|JAXJob|"
                       r"TrainJob|TrainingRuntime|ClusterTrainingRuntime)\b")

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
