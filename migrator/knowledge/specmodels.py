"""KNOWLEDGE: the pydantic models that validate the data files in mappings/, derived from the
declarations in specs.py (imported only when the catalog is built: a cache miss).

A declared class becomes a frozen model of the same name with camelCase keys (or the field
names), unknown keys rejected, its ``Key`` markers as aliases, its ``Len`` markers as length
bounds and its ``cross_check`` as an after-validator; a file's data is validated by the model and
then read back as the declared class (``plain.decode`` of the model's dump).
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator
from pydantic.alias_generators import to_camel

from migrator.errors import MappingFileError
from migrator.knowledge import plain

D = TypeVar("D", bound=plain.Declared)

CONFIG = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True)

_MODELS: dict[type[plain.Declared], type[BaseModel]] = {}


def model(cls: type[plain.Declared]) -> type[BaseModel]:
    """The pydantic model of the declared class ``cls`` (built once)."""
    built = _MODELS.get(cls)
    if built is not None:
        return built
    fields: dict[str, Any] = {}
    for name, form in plain.field_types(cls).items():
        default = cls.DEFAULTS.get(name, ...)
        if isinstance(default, plain.Declared):
            default = model(type(default)).model_validate(plain.dump(default))
        fields[name] = (_form(form), default)
    validators: dict[str, Any] = {}
    if cls.cross_check is not plain.Declared.cross_check:
        def after(value: Any) -> Any:
            cls.cross_check(value)  # the rule reads the fields by name, as on the declared value
            return value

        validators["cross_check"] = model_validator(mode="after")(after)
    built = create_model(cls.__name__, __config__=CONFIG, __doc__=cls.__doc__,
                         __validators__=validators, **fields)
    _MODELS[cls] = built
    return built


def _form(form: Any) -> Any:
    """A declared field's type with the declared classes as their models and the markers as
    pydantic ``Field``s."""
    if isinstance(form, type) and issubclass(form, plain.Declared):
        return model(form)
    origin, args = get_origin(form), get_args(form)
    if origin is Annotated:
        settings: dict[str, Any] = {}
        for marker in form.__metadata__:
            if isinstance(marker, plain.Key):
                settings["alias"] = marker.name
            elif isinstance(marker, plain.Len):
                settings.update(min_length=marker.min, max_length=marker.max)
        return Annotated[_form(args[0]), Field(**settings)]
    if origin is list:
        return list[_form(args[0])]  # type: ignore[misc]
    if origin is dict:
        return dict[_form(args[0]), _form(args[1])]  # type: ignore[misc]
    if origin in (Union, types.UnionType):
        return Union[tuple(_form(arg) for arg in args)]  # noqa: UP007 (built from a tuple)
    return form


def validate(cls: type[D], path: Path, data: Any) -> D:
    """``data`` (of the file ``path``) as a ``cls`` value; ``MappingFileError`` naming the
    first problem pydantic finds (``path: where: message``) when it is not one."""
    try:
        validated = model(cls).model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise MappingFileError(f"{path}: {where}: {first['msg']}") from None
    return plain.decode(cls, validated.model_dump())


def dump_by_alias(value: plain.Declared) -> dict[str, Any]:
    """``value`` keyed as in its data file (camelCase, or the ``Key`` marker's name)."""
    dumped: dict[str, Any] = model(type(value)).model_validate(plain.dump(value)).model_dump(
        by_alias=True)
    return dumped
