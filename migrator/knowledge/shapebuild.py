"""KNOWLEDGE (build time): compile a pydantic model's core schema into a ``shapes`` program.

Imported only when a program is built (a cache miss): it reads ``__pydantic_core_schema__``
and writes the JSON program ``shapes`` runs. It knows the schema nodes the tool's models use
and REFUSES anything else (``Unsupported`` schema, raised at build time, so that a change to
a model that the checker would not follow fails the tests instead of checking differently).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from migrator.knowledge import shapes


class SchemaError(TypeError):
    """A schema node (or an option of one) the run-time checker does not implement."""


AfterRules = dict[Any, tuple[str, tuple[str, ...]]]  # a model validator → (AFTER name, fields)


def compile_model(model: Any, after: AfterRules | None = None,
                  before: shapes.Validators | None = None) -> list[Any]:
    """The program of pydantic model class ``model``; ``after`` names its model validators
    (the function in the schema → a name in ``shapes.AFTER`` and the field names it reads),
    ``before`` its before validators (the names the checker is loaded with)."""
    schema = model.__pydantic_core_schema__
    if not isinstance(schema, dict):  # a deferred build
        model.model_rebuild()
        schema = model.__pydantic_core_schema__
    return _Compiler(after or {}, before or {}).node(dict(schema), ())


_COMMON = {"type", "metadata", "ref", "serialization"}


def _keys(schema: dict[str, Any], allowed: set[str]) -> None:
    extra = set(schema) - _COMMON - allowed
    if extra:
        raise SchemaError(f"{schema['type']} schema with {sorted(extra)}: not implemented")


def _int_or_none(value: Any) -> int | None:
    if value is None or (type(value) is int):
        return value
    raise SchemaError(f"bound {value!r} is not an int")


class _Compiler:
    def __init__(self, after: AfterRules, before: shapes.Validators) -> None:
        self.after = after
        self.definitions: dict[str, dict[str, Any]] = {}
        self.before = {function: name for name, function in before.items()}

    def node(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        kind = schema.get("type")
        method: Callable[[dict[str, Any], tuple[str, ...]], list[Any]] | None = getattr(
            self, "_" + str(kind).replace("-", "_"), None)
        if method is None:
            raise SchemaError(f"schema type {kind!r} is not implemented")
        return method(schema, seen)

    def _definitions(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"schema", "definitions"})
        for definition in schema["definitions"]:
            self.definitions[definition["ref"]] = definition
        return self.node(schema["schema"], seen)

    def _definition_ref(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"schema_ref"})
        ref = schema["schema_ref"]
        if ref in seen or ref not in self.definitions:
            raise SchemaError(f"recursive or unknown reference {ref!r}")
        return self.node(self.definitions[ref], (*seen, ref))

    def _any(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, set())
        return ["any"]

    def _nullable(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"schema"})
        return ["nullable", self.node(schema["schema"], seen)]

    def _str(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"strict", "min_length", "max_length"})
        return ["str", bool(schema.get("strict", False)), _int_or_none(schema.get("min_length")),
                _int_or_none(schema.get("max_length"))]

    def _int(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"strict", "ge", "le"})
        return ["int", bool(schema.get("strict", False)), _int_or_none(schema.get("ge")),
                _int_or_none(schema.get("le"))]

    def _bool(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"strict"})
        return ["bool", bool(schema.get("strict", False))]

    def _literal(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"expected"})
        expected = list(schema["expected"])
        if not expected or not all(type(v) is str for v in expected):
            raise SchemaError("a literal of values other than strings is not implemented")
        shown = [repr(v) for v in expected]
        message = shown[-1] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
        return ["literal", expected, f"Input should be {message}"]

    def _list(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"items_schema", "min_length", "max_length"})
        items = schema.get("items_schema", {"type": "any"})
        return ["list", self.node(items, seen), _int_or_none(schema.get("min_length")),
                _int_or_none(schema.get("max_length"))]

    def _dict(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"keys_schema", "values_schema"})
        return ["dict", self.node(schema.get("keys_schema", {"type": "any"}), seen),
                self.node(schema.get("values_schema", {"type": "any"}), seen)]

    def _union(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"choices"})
        choices = []
        for choice in schema["choices"]:
            if isinstance(choice, tuple):
                raise SchemaError("a union choice with a label is not implemented")
            if choice.get("type") not in ("int", "str", "bool") or set(choice) - {"type"}:
                raise SchemaError("a union of other than plain int, str, bool")
            choices.append([choice["type"], self.node(choice, seen)])
        return ["union", choices]

    def _function_before(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"function", "schema"})
        function = schema["function"]
        name = self.before.get(function.get("function"))
        if function.get("type") != "no-info" or name is None:
            raise SchemaError(f"before validator {function!r} is not a named validator")
        return ["before", name, self.node(schema["schema"], seen)]

    def _function_after(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"function", "schema"})
        function = schema["function"]
        rule = self.after.get(function.get("function"))
        inner = self.node(schema["schema"], seen)
        if function.get("type") != "no-info" or rule is None or inner[0] != "model" or \
                inner[4] is not None or rule[0] not in shapes.AFTER:
            raise SchemaError(f"after validator {function!r} is not a known model validator")
        keys = {field[1] if field[1] is not None else field[0]: field[0] for field in inner[3]}
        inner[4] = [rule[0], [[name, keys[name]] for name in rule[1]]]
        return inner

    def _model(self, schema: dict[str, Any], seen: tuple[str, ...]) -> list[Any]:
        _keys(schema, {"cls", "config", "custom_init", "root_model", "schema"})
        config = dict(schema.get("config") or {})
        extra = config.pop("extra_fields_behavior", "ignore")
        by_alias = config.pop("validate_by_alias", True)
        by_name = config.pop("validate_by_name", False)
        config.pop("title", None)
        if config or extra not in ("allow", "forbid") or not by_alias or \
                schema.get("custom_init") or schema.get("root_model"):
            raise SchemaError(f"model {schema['cls'].__name__}: options not implemented")
        fields_schema = schema["schema"]
        if fields_schema.get("type") != "model-fields":
            raise SchemaError("a model whose schema is not model-fields")
        _keys(fields_schema, {"fields", "model_name", "computed_fields"})
        if fields_schema.get("computed_fields"):
            raise SchemaError("computed fields are not implemented")
        fields = []
        for name, field in fields_schema["fields"].items():
            _keys(field, {"schema", "validation_alias", "serialization_alias"})
            alias = field.get("validation_alias")
            if alias is not None and type(alias) is not str:
                raise SchemaError("an alias path or choice is not implemented")
            inner = field["schema"]
            required = inner.get("type") != "default"
            if not required:
                _keys(inner, {"schema", "default"})
                inner = inner["schema"]
            key = alias if alias is not None else name
            other = name if alias is not None and alias != name and by_name else None
            fields.append([key, other, required, self.node(inner, seen)])
        return ["model", schema["cls"].__name__, extra, fields, None]
