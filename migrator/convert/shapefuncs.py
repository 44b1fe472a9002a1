"""CONVERT: the validators the legacy shape models name, shared by the pydantic models (at
build time) and the run-time checker (``knowledge.shapes``); no pydantic here."""

from __future__ import annotations

from typing import Any

from migrator.check import quantity


def quantity_value(value: Any) -> Any:
    """A Kubernetes quantity such as ``2``, ``500m`` or ``4Gi`` (a ``BeforeValidator``)."""
    if quantity.parse(value) is None:
        raise ValueError("not a Kubernetes quantity such as 2, 500m or 4Gi")
    return value


VALIDATORS = {"quantity": quantity_value}  # the names the compiled programs use
