"""API: trainjob-migrator: migrate legacy Kubeflow training manifests to Trainer v2 TrainJobs.

The public API is loaded lazily so that ``import migrator`` stays cheap::

    from migrator import convert_text
    result = convert_text(text, target="2.2")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from migrator.version import __version__

__all__ = ["ConvertOptions", "DocumentResult", "Finding", "TextResult", "__version__",
           "convert_text"]

if TYPE_CHECKING:
    from migrator.convert.text import convert_text
    from migrator.results import DocumentResult, Finding, TextResult
    from migrator.settings import ConvertOptions

_LAZY = {
    "convert_text": "migrator.convert.text",
    "TextResult": "migrator.results",
    "DocumentResult": "migrator.results",
    "Finding": "migrator.results",
    "ConvertOptions": "migrator.settings",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'migrator' has no attribute {name!r}")
