"""KNOWLEDGE: the value classes the specs are declared with, and their JSON decoder (no pydantic).

A ``Declared`` subclass lists its fields once, as annotations (strings: the modules use
``from __future__ import annotations``) with optional defaults; ``Annotated`` markers say what
only validation needs (``Key``: the data file's key when it is not the camelCase of the name;
``Len``: bounds of a list's or string's length) and an overridden ``cross_check`` is a cross-field
rule. Reading the declarations costs next to nothing at import: the annotations are only
evaluated when data is first decoded, and the pydantic models that validate the data files
are derived from the same declarations by ``specmodels``, which only a catalog build imports.

Instances are frozen (assigning raises ``FrozenInstanceError``), compare and hash field by
field, and show as ``Name(field=value, ...)``. The constructor takes the fields by name and
copies a list or dict argument (and a mutable default), as pydantic's validation did.

``decode(cls, data)`` builds an instance from JSON data keyed by field name (what ``dump``
gives): exactly the fields, each of its declared type, lengths within their bounds and
``cross_check`` passing; anything else raises ``Undecodable``.
"""

from __future__ import annotations

import builtins
import sys
import types
from collections.abc import Callable
from typing import (
    Annotated,
    Any,
    ClassVar,
    Literal,
    TypeVar,
    Union,
    dataclass_transform,
    get_args,
    get_origin,
)

D = TypeVar("D", bound="Declared")


class Key:
    """``Annotated`` marker: the data file's key for a field (``from``, ``as``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class Len:
    """``Annotated`` marker: the least and most items (or characters) a value may have."""

    __slots__ = ("max", "min")

    def __init__(self, min: int | None = None, max: int | None = None) -> None:
        self.min = min
        self.max = max


class Undecodable(ValueError):
    """JSON data that is not a value of the declared type."""


@dataclass_transform(frozen_default=True, kw_only_default=True)
class Declared:
    """Base of the declared value classes (see the module's docstring)."""

    FIELDS: ClassVar[tuple[str, ...]] = ()  # every field, inherited ones first
    DEFAULTS: ClassVar[dict[str, Any]] = {}
    ANNOTATIONS: ClassVar[dict[str, tuple[str, str]]] = {}  # field -> (annotation, module)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls).get("__annotations__", {})  # its own, not inherited
        fields = list(cls.FIELDS)
        defaults = dict(cls.DEFAULTS)
        annotations = dict(cls.ANNOTATIONS)
        for name, annotation in own.items():
            if str(annotation).startswith("ClassVar"):
                continue
            if name not in annotations:
                fields.append(name)
            annotations[name] = (str(annotation), cls.__module__)
            if name in cls.__dict__:
                defaults[name] = cls.__dict__[name]
        cls.FIELDS = tuple(fields)
        cls.DEFAULTS = defaults
        cls.ANNOTATIONS = annotations

    def __init__(self, **values: Any) -> None:
        state = self.__dict__
        for name in self.FIELDS:
            if name in values:
                value = values.pop(name)
            elif name in self.DEFAULTS:
                value = self.DEFAULTS[name]
            else:
                raise TypeError(f"{type(self).__name__}() lacks the field {name!r}")
            state[name] = _copied(value)
        if values:
            raise TypeError(f"{type(self).__name__}() has no field {sorted(values)[0]!r}")

    def cross_check(self) -> None:
        """A rule between fields (raise ValueError when broken); none by default."""

    def _values(self) -> tuple[Any, ...]:
        state = self.__dict__
        return tuple(state[name] for name in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.__class__, self._values()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={self.__dict__[name]!r}" for name in self.FIELDS)
        return f"{self.__class__.__qualname__}({shown})"

    def __setattr__(self, name: str, value: Any) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")


def _copied(value: Any) -> Any:
    if type(value) is list:
        return list(value)
    if type(value) is dict:
        return dict(value)
    return value


def field_types(cls: type[Declared]) -> dict[str, Any]:
    """The evaluated annotation of every field of ``cls`` (``Annotated`` markers kept)."""
    return {name: _evaluated(text, module) for name, (text, module) in cls.ANNOTATIONS.items()}


def _evaluated(text: str, module: str) -> Any:
    """An annotation's type form: a name is looked up, anything else evaluated (our own
    annotations, in the declaring module's namespace)."""
    namespace = vars(sys.modules[module])
    if text.isidentifier():
        if text in namespace:
            return namespace[text]
        if text in vars(builtins):
            return vars(builtins)[text]
    return eval(text, namespace)


def dump(value: Any) -> Any:
    """``value`` as data: a declared value as a dict of its fields by name, recursively."""
    if isinstance(value, Declared):
        return {name: dump(item) for name, item in value.__dict__.items()}
    if type(value) is list:
        return [dump(item) for item in value]
    if type(value) is dict:
        return {key: dump(item) for key, item in value.items()}
    return value


def decode(cls: type[D], data: Any) -> D:
    """The ``cls`` value of JSON ``data`` (``dump``'s form); ``Undecodable`` when it is not."""
    return _class_decoder(cls)(data)  # type: ignore[no-any-return]


_DECODERS: dict[type, Callable[[Any], Any]] = {}


def _class_decoder(cls: type[Declared]) -> Callable[[Any], Any]:
    found = _DECODERS.get(cls)
    if found is not None:
        return found
    names = frozenset(cls.FIELDS)
    plan: list[tuple[str, Callable[[Any], Any]]] = []
    checked = cls.cross_check is not Declared.cross_check
    new = object.__new__

    def decoder(data: Any) -> Any:
        if type(data) is not dict or data.keys() != names:
            raise Undecodable(f"not the fields of {cls.__name__}")
        value = new(cls)
        value.__dict__.update({name: convert(data[name]) for name, convert in plan})
        if checked:
            value.cross_check()
        return value

    _DECODERS[cls] = decoder  # before the fields: a class may contain itself
    plan += [(name, _annotation_decoder(text, module))
             for name, (text, module) in cls.ANNOTATIONS.items()]
    return decoder


_BY_ANNOTATION: dict[tuple[str, str], Callable[[Any], Any]] = {}


def _annotation_decoder(text: str, module: str) -> Callable[[Any], Any]:
    """The decoder of an annotation (the same text in one module is evaluated once)."""
    found = _BY_ANNOTATION.get((text, module))
    if found is None:
        found = _BY_ANNOTATION[text, module] = _decoder(_evaluated(text, module))
    return found


def _decoder(form: Any) -> Callable[[Any], Any]:
    if form is Any:
        return _same
    if form in (str, int, bool, float, type(None), None):
        wanted: Any = type(None) if form is None else form
        ints = (int, float) if form is float else (wanted,)

        def scalar(data: Any) -> Any:
            if type(data) not in ints:
                raise Undecodable(f"not a {wanted.__name__}")
            return data

        return scalar
    if isinstance(form, type) and issubclass(form, Declared):
        return lambda data: _class_decoder(form)(data)
    origin, args = get_origin(form), get_args(form)
    if origin is Annotated:
        inner = _decoder(args[0])
        bounds = [marker for marker in form.__metadata__ if isinstance(marker, Len)]

        def bounded(data: Any) -> Any:
            value = inner(data)
            for bound in bounds:
                if (bound.min is not None and len(value) < bound.min) or \
                        (bound.max is not None and len(value) > bound.max):
                    raise Undecodable("a length out of bounds")
            return value

        return bounded if bounds else inner
    if origin is Literal:
        choices = frozenset(args)

        def literal(data: Any) -> Any:
            if type(data) is not str or data not in choices:
                raise Undecodable(f"not one of {sorted(choices)}")
            return data

        return literal
    if origin is list:
        item = _decoder(args[0])

        def items(data: Any) -> Any:
            if type(data) is not list:
                raise Undecodable("not a list")
            return [item(value) for value in data]

        return items
    if origin is dict:
        if args[0] is not str:
            raise TypeError(f"JSON keys are strings, not {args[0]}")
        value_decoder = _decoder(args[1])

        def mapping(data: Any) -> Any:
            if type(data) is not dict:
                raise Undecodable("not a mapping")
            return {key: value_decoder(value) for key, value in data.items()}

        return mapping
    if origin in (Union, types.UnionType):
        options = [arg for arg in args if arg is not type(None)]
        if len(options) != 1:
            raise TypeError(f"only X | None unions are decoded, not {form}")
        present = _decoder(options[0])
        return lambda data: None if data is None else present(data)
    raise TypeError(f"no decoder for {form!r}")


def _same(data: Any) -> Any:
    return data
