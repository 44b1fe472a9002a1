"""KNOWLEDGE: check plain data against a compiled model program, as pydantic would, without it.

``shapebuild`` compiles a pydantic model's core schema (at build time, on a cache miss) into a
small JSON program; ``load`` turns a program into a checker, and ``Checker.errors`` returns
the errors pydantic-core's ``model_validate`` would raise — ``(type, loc, msg, input)`` in
pydantic's order — or None when the value holds something this checker does not model (a
Mapping that is not a dict, an Enum, bytes where a scalar is expected, a string that is not
UTF-8, ...): the caller then asks pydantic itself. The program nodes are::

    ["any"]                                  ["nullable", node]
    ["str", strict, min_len, max_len]        ["int", strict, ge, le]
    ["bool", strict]                         ["literal", [str, ...], message]
    ["list", node, min_len, max_len]         ["dict", key_node, value_node]
    ["union", [[label, node], ...]]          ["before", validator, node]
    ["model", name, extra, [[key, other_key, required, node], ...], after]

``extra`` is "allow" or "forbid"; ``after`` is None or ``[validator, args]``. Validators are
named from fixed registries — ``AFTER`` here, the caller's ``validators`` for the before
ones — never by anything the program could name freely, and the pydantic models call the
same functions. Anything else in a program is refused
(``ProgramError``), so a damaged cache entry is a miss, never a traceback.
"""

from __future__ import annotations

import datetime
import enum
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Error = tuple[str, tuple[Any, ...], str, Any]  # pydantic's type, loc, msg, input
Errors = list[Error] | None  # None: valid
Node = Callable[[Any], Errors]


class ProgramError(ValueError):
    """A program this module does not run (a damaged or foreign cache entry)."""


class Unsupported(Exception):
    """The value holds something only pydantic itself can judge."""


# --- validators the models name --------------------------------------------------------------


def one_ml_policy_source(sources: Sequence[str], given: Callable[[str], bool]) -> None:
    """At most one of the ML policy ``sources`` is set (``given``): the runtime models'
    ``model_validator``."""
    found = [name for name in sources if given(name)]
    if len(found) > 1:
        raise ValueError(f"only one ML policy source may be set, got {', '.join(found)}")


Validators = Mapping[str, Callable[[Any], Any]]  # the before validators a caller names
AFTER: dict[str, Callable[[Sequence[str], Callable[[str], bool]], None]] = {
    "one_ml_policy_source": one_ml_policy_source}


# --- what a value is, the way pydantic-core tells --------------------------------------------

NONE, BOOL, INT, FLOAT, STR, DICT, LIST, SEQ, OTHER = range(9)
_KINDS: dict[type, int] = {type(None): NONE, bool: BOOL, int: INT, float: FLOAT, str: STR,
                           dict: DICT, list: LIST, tuple: SEQ, set: SEQ, frozenset: SEQ,
                           datetime.date: OTHER, datetime.datetime: OTHER}


def _kind(value: Any) -> int:
    tp = type(value)
    found = _KINDS.get(tp)
    if found is None:
        found = _classify(tp)
        _KINDS[tp] = found
    return found


def _classify(tp: type) -> int:
    """The kind of a subclass (ruamel's CommentedMap, ScalarFloat, ...), or an inert type."""
    if issubclass(tp, enum.Enum):
        raise Unsupported
    for base, kind in ((dict, DICT), (list, LIST), (str, STR), (bool, BOOL), (int, INT),
                       (float, FLOAT), (tuple, SEQ), (set, SEQ), (frozenset, SEQ),
                       (datetime.date, OTHER)):
        if issubclass(tp, base):
            return kind
    if any(hasattr(tp, name) for name in ("__iter__", "__float__", "__index__", "__int__",
                                          "__len__", "__getitem__", "__buffer__")):
        raise Unsupported  # a Mapping, bytes, a Decimal, ...: pydantic decides
    from collections.abc import Mapping

    if issubclass(tp, Mapping):
        raise Unsupported
    return OTHER


def _text(value: str) -> str:
    """``value`` as pydantic-core reads it: refuse what is not UTF-8 (lone surrogates)."""
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise Unsupported from None
    return value


def loc_item(key: Any) -> Any:
    """A mapping key as a ``loc`` item: a string, an int that fits 64 bits, else its repr."""
    if isinstance(key, str):
        return str.__str__(_text(key))
    if isinstance(key, int):
        return int(key) if -2**63 <= key < 2**63 else repr(key)
    if isinstance(key, (float, tuple)) or key is None:
        return repr(key)
    if hasattr(type(key), "__index__"):
        raise Unsupported
    _kind(key)
    return repr(key)


def _plural(count: int) -> str:
    return "" if count == 1 else "s"


# --- nodes -----------------------------------------------------------------------------------


def _any(value: Any) -> Errors:
    return None


def _str(strict: bool, min_len: int | None, max_len: int | None) -> Node:
    constrained = min_len is not None or max_len is not None

    def check(value: Any) -> Errors:
        if type(value) is not str:
            kind = _kind(value)
            if kind != STR:
                return [("string_type", (), "Input should be a valid string", value)]
            _text(value)
        elif constrained:
            _text(value)
        if max_len is not None and len(value) > max_len:
            return [("string_too_long", (), f"String should have at most {max_len} "
                     f"character{_plural(max_len)}", value)]
        if min_len is not None and len(value) < min_len:
            return [("string_too_short", (), f"String should have at least {min_len} "
                     f"character{_plural(min_len)}", value)]
        return None
    return check


_I64 = (-2**63, 2**63)


_ASCII_SPACE = " \t\n\x0b\x0c\r"  # what Rust's trim() strips of ASCII text
_PLAIN_INT = re.compile(r"[+-]?[0-9]+")


def _digits(text: str) -> int | Error:
    """The int a lax int field reads from a string (pydantic-core's ``str_as_int``), or its
    error; what that takes big-number parsing to tell (19 characters or more, non-ASCII
    text) is pydantic's to judge."""
    stripped = text.strip(_ASCII_SPACE)
    if not text.isascii() or len(stripped) >= 19 or "_" in stripped:
        raise Unsupported  # big numbers, digit separators
    if _PLAIN_INT.fullmatch(stripped):
        return int(stripped)
    head, _, tail = stripped.partition(".")
    if tail and tail.strip("0") == "" and _PLAIN_INT.fullmatch(head):
        return int(head)  # "2.0", "2.00": decimal zeros only (not "2.")
    return ("int_parsing", (), "Input should be a valid integer, unable to parse string as an "
            "integer", text)


def _float_int(value: float) -> int | Error:
    if value != value or value in (float("inf"), float("-inf")):
        return ("finite_number", (), "Input should be a finite number", value)
    if value % 1.0 != 0.0:
        return ("int_from_float", (), "Input should be a valid integer, got a number with a "
                "fractional part", value)
    if not -9.223372036854775808e18 < value < 9.223372036854775808e18:
        return ("int_parsing_size", (), "Unable to parse input string as an integer, exceeded "
                "maximum size", value)
    return int(value)


def _int(strict: bool, ge: int | None, le: int | None) -> Node:
    def check(value: Any) -> Errors:
        kind = _kind(value)
        number: int
        if kind == INT or (kind == BOOL and not strict):
            number = int(value)
        elif strict or kind not in (FLOAT, STR):
            return [("int_type", (), "Input should be a valid integer", value)]
        else:
            got = _float_int(value) if kind == FLOAT else _digits(value)
            if isinstance(got, tuple):
                return [got]
            number = got
        if le is not None and number > le:
            return [("less_than_equal", (), f"Input should be less than or equal to {le}",
                     value)]
        if ge is not None and number < ge:
            return [("greater_than_equal", (), f"Input should be greater than or equal to {ge}",
                     value)]
        return None
    return check


_FALSE = frozenset(("0", "off", "f", "false", "n", "no"))
_TRUE = frozenset(("1", "on", "t", "true", "y", "yes"))


def _bool(strict: bool) -> Node:
    def check(value: Any) -> Errors:
        kind = _kind(value)
        if kind == BOOL:
            return None
        if not strict:
            parsing = ("bool_parsing", (), "Input should be a valid boolean, unable to interpret "
                       "input", value)
            if kind == STR:
                text = _text(value)
                if not text.isascii():
                    return [parsing]
                return None if text.lower() in _FALSE or text.lower() in _TRUE else [parsing]
            if kind == INT and _I64[0] <= value < _I64[1]:
                return None if value in (0, 1) else [parsing]
            if kind in (FLOAT, INT):
                try:
                    got = _float_int(float(value))
                except OverflowError:
                    got = ("", (), "", None)
                if not isinstance(got, tuple):
                    return None if got in (0, 1) else [parsing]
        return [("bool_type", (), "Input should be a valid boolean", value)]
    return check


def _nullable(inner: Node) -> Node:
    def check(value: Any) -> Errors:
        return None if value is None else inner(value)
    return check


def _literal(expected: list[str], message: str) -> Node:
    allowed = frozenset(expected)

    def check(value: Any) -> Errors:
        if type(value) is str:
            if value in allowed:
                return None
            _text(value)
        elif _kind(value) == STR:
            raise Unsupported  # a str subclass: pydantic-core's lookup is its own
        return [("literal_error", (), message, value)]
    return check


def _outer(errors: list[Error], *items: Any) -> list[Error]:
    return [(kind, (*items, *loc), msg, got) for kind, loc, msg, got in errors]


def _list(item: Node, min_len: int | None, max_len: int | None) -> Node:
    def check(value: Any) -> Errors:
        kind = _kind(value)
        if kind != LIST and kind != SEQ:
            return [("list_type", (), "Input should be a valid list", value)]
        size = len(value)
        if max_len is not None and size > max_len:
            return [("too_long", (), f"List should have at most {max_len} item{_plural(max_len)}"
                     f" after validation, not {size}", value)]
        errors: list[Error] = []
        for index, element in enumerate(value):
            found = item(element)
            if found:
                errors += _outer(found, index)
        if errors:
            return errors
        if min_len is not None and size < min_len:
            return [("too_short", (), f"List should have at least {min_len} "
                     f"item{_plural(min_len)} after validation, not {size}", value)]
        return None
    return check


def _dict(keys: Node, values: Node) -> Node:
    def check(value: Any) -> Errors:
        if _kind(value) != DICT:
            return [("dict_type", (), "Input should be a valid dictionary", value)]
        errors: list[Error] = []
        for key, element in dict.items(value):
            found = keys(key)
            if found:
                errors += _outer(found, loc_item(key), "[key]")
            found = values(element)
            if found:
                errors += _outer(found, loc_item(key))
        return errors or None
    return check


def _union(choices: list[tuple[str, Node]]) -> Node:
    """Valid when a choice is (pydantic's smart mode), else every choice's errors, each under
    its label."""
    def check(value: Any) -> Errors:
        errors: list[Error] = []
        unsure = False
        for label, choice in choices:
            try:
                found = choice(value)
            except Unsupported:
                unsure = True
                continue
            if not found:
                return None
            errors += _outer(found, label)
        if unsure:
            raise Unsupported
        return errors
    return check


def _before(function: Callable[[Any], Any], inner: Node) -> Node:
    def check(value: Any) -> Errors:
        try:
            value = function(value)
        except ValueError as exc:
            return [("value_error", (), f"Value error, {exc}", value)]
        return inner(value)
    return check


_MISSING = object()
Field = tuple[str, str | None, bool, Node]


def _model(name: str, forbid: bool, fields: list[Field],
           after: tuple[str, list[tuple[str, str]]] | None) -> Node:
    wrong = f"Input should be a valid dictionary or instance of {name}"
    rule = (AFTER[after[0]], dict(after[1])) if after is not None else None

    def check(value: Any) -> Errors:
        if _kind(value) != DICT:
            return [("model_type", (), wrong, value)]
        errors: list[Error] = []
        used: set[str] = set()
        given: set[str] = set()
        get = dict.get
        for key, other, required, node in fields:
            got = get(value, key, _MISSING)
            found = key
            if got is _MISSING and other is not None:
                got = get(value, other, _MISSING)
                found = other
            if got is _MISSING:
                if required:
                    errors.append(("missing", (key,), "Field required", value))
                continue
            used.add(found)
            if rule is not None and got is not None:
                given.add(key)
            problems = node(got)
            if problems:
                errors += _outer(problems, found)
        if len(used) != len(value):
            for raw, element in dict.items(value):
                if not isinstance(raw, str):
                    errors.append(("invalid_key", (loc_item(raw),), "Keys should be strings",
                                   raw))
                elif raw not in used and _text(raw) is not None and forbid:  # read as UTF-8
                    errors.append(("extra_forbidden", (loc_item(raw),),
                                   "Extra inputs are not permitted", element))
        if not errors and rule is not None:
            try:
                rule[0](list(rule[1]), lambda name: rule[1][name] in given)
            except ValueError as exc:
                return [("value_error", (), f"Value error, {exc}", value)]
        return errors or None
    return check


# --- loading a program -----------------------------------------------------------------------


def _bound(value: Any) -> int | None:
    if value is None or (type(value) is int):
        return value
    raise ProgramError("a bound is an int or null")


def _flag(value: Any) -> bool:
    if type(value) is not bool:
        raise ProgramError("a flag is true or false")
    return value


def _name(value: Any) -> str:
    if type(value) is not str:
        raise ProgramError("a name is a string")
    return value


def _node(program: Any, validators: Validators, depth: int = 0) -> Node:
    if depth > 64 or type(program) is not list or not program:
        raise ProgramError("a node is a non-empty list")
    op, args = program[0], program[1:]
    shape = {"any": 0, "nullable": 1, "str": 3, "int": 3, "bool": 1, "literal": 2, "list": 3,
             "dict": 2, "union": 1, "before": 2, "model": 4}.get(op) if type(op) is str else None
    if shape is None or len(args) != shape:
        raise ProgramError(f"unknown node {op!r}")
    if op == "any":
        return _any
    if op == "nullable":
        return _nullable(_node(args[0], validators, depth + 1))
    if op == "str":
        return _str(_flag(args[0]), _bound(args[1]), _bound(args[2]))
    if op == "int":
        return _int(_flag(args[0]), _bound(args[1]), _bound(args[2]))
    if op == "bool":
        return _bool(_flag(args[0]))
    if op == "literal":
        if type(args[0]) is not list or not args[0]:
            raise ProgramError("a literal lists its values")
        return _literal([_name(v) for v in args[0]], _name(args[1]))
    if op == "list":
        return _list(_node(args[0], validators, depth + 1), _bound(args[1]), _bound(args[2]))
    if op == "dict":
        return _dict(_node(args[0], validators, depth + 1), _node(args[1], validators, depth + 1))
    if op == "union":
        if type(args[0]) is not list or not args[0]:
            raise ProgramError("a union lists its choices")
        choices = []
        for choice in args[0]:
            if type(choice) is not list or len(choice) != 2:
                raise ProgramError("a choice is [label, node]")
            choices.append((_name(choice[0]), _node(choice[1], validators, depth + 1)))
        return _union(choices)
    if op == "before":
        if type(args[0]) is not str or args[0] not in validators:
            raise ProgramError("unknown validator")
        return _before(validators[args[0]], _node(args[1], validators, depth + 1))
    return _model_node(args, validators, depth)


def _model_node(args: list[Any], validators: Validators, depth: int) -> Node:
    name, extra, fields, after = args
    if extra not in ("allow", "forbid") or type(fields) is not list:
        raise ProgramError("a model has an extra behaviour and fields")
    compiled: list[Field] = []
    for entry in fields:
        if type(entry) is not list or len(entry) != 4:
            raise ProgramError("a field is [key, other key, required, node]")
        other = None if entry[1] is None else _name(entry[1])
        compiled.append((_name(entry[0]), other, _flag(entry[2]),
                         _node(entry[3], validators, depth + 1)))
    rule: tuple[str, list[tuple[str, str]]] | None = None
    if after is not None:
        if type(after) is not list or len(after) != 2 or after[0] not in AFTER or \
                type(after[1]) is not list:
            raise ProgramError("unknown model validator")
        pairs = []
        for pair in after[1]:  # [field name, its key]: the validator's arguments
            if type(pair) is not list or len(pair) != 2:
                raise ProgramError("a validator argument is [name, key]")
            pairs.append((_name(pair[0]), _name(pair[1])))
        rule = (after[0], pairs)
    return _model(_name(name), extra == "forbid", compiled, rule)


class Checker:
    """A loaded program: ``errors(value)`` as pydantic's ``model_validate`` would raise them."""

    __slots__ = ("_node",)

    def __init__(self, program: Any, validators: Validators) -> None:
        self._node = _node(program, validators)

    def errors(self, value: Any) -> list[Error] | None:
        """pydantic's errors (empty when valid), or None when only pydantic can tell."""
        try:
            return self._node(value) or []
        except (Unsupported, RecursionError):
            return None


def load(program: Any, validators: Validators | None = None) -> Checker:
    """The checker of ``program``, whose before validators are named in ``validators``;
    ``ProgramError`` when it is not a program of this module."""
    return Checker(program, validators or {})
