"""CONVERT (build time): the pydantic shape models of a legacy document's parts.

They check types the way the legacy API server did (``replicas: two`` or ``containers``
written as a mapping are errors). They are the one declaration of those shapes, but only run
when ``model`` compiles them into ``knowledge.shapes`` programs (a cache miss) or meets a
value only pydantic can judge: a run with a warm cache never imports pydantic.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictInt, StrictStr

from migrator.convert.shapefuncs import quantity_value


class _Shape(BaseModel):
    model_config = ConfigDict(extra="allow")


Quantity = Annotated[Any, BeforeValidator(quantity_value)]


class _ResourcesShape(_Shape):
    limits: dict[str, Quantity] | None = None
    requests: dict[str, Quantity] | None = None


class _EnvShape(_Shape):
    name: StrictStr


class _ContainerShape(_Shape):
    name: StrictStr
    image: StrictStr | None = None
    command: list[StrictStr] | None = None
    args: list[StrictStr] | None = None
    env: list[_EnvShape] | None = None
    envFrom: list[dict[str, Any]] | None = None
    resources: _ResourcesShape | None = None
    volumeMounts: list[dict[str, Any]] | None = None


class _PodSpecShape(_Shape):
    containers: list[_ContainerShape] = Field(min_length=1)
    volumes: list[dict[str, Any]] | None = None
    tolerations: list[dict[str, Any]] | None = None
    nodeSelector: dict[str, Any] | None = None


class _TemplateShape(_Shape):
    metadata: dict[str, Any] | None = None
    spec: _PodSpecShape


class _ReplicaShape(_Shape):
    replicas: StrictInt | None = None
    restartPolicy: StrictStr | None = None
    template: _TemplateShape


class _MetadataShape(_Shape):
    name: StrictStr | None = None
    generateName: StrictStr | None = None
    namespace: StrictStr | None = None
    labels: dict[str, StrictStr | None] | None = None
    annotations: dict[str, StrictStr | None] | None = None


SHAPES: dict[str, type[BaseModel]] = {"metadata": _MetadataShape, "replica": _ReplicaShape}


def errors(name: str, value: Any) -> list[tuple[str, tuple[Any, ...], str, Any]]:
    """pydantic's errors of shape ``name`` for ``value`` (type, loc, msg, input)."""
    from pydantic import ValidationError

    try:
        SHAPES[name].model_validate(value)
    except ValidationError as exc:
        return [(e["type"], tuple(e["loc"]), e["msg"], e.get("input")) for e in exc.errors()]
    return []


def programs() -> dict[str, Any]:
    """The compiled program of every shape (``knowledge.shapes``)."""
    from migrator.convert.shapefuncs import VALIDATORS
    from migrator.knowledge import shapebuild

    return {name: shapebuild.compile_model(model, before=VALIDATORS)
            for name, model in SHAPES.items()}
