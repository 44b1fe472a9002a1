"""The run-time checker (``knowledge.shapes``) against pydantic itself: the same errors (type,
loc, msg, input, in order) for the legacy shapes and the strict Trainer models, over every
fixture and corpus document, their conversions, and hostile values hypothesis makes; the
compiler refuses what the checker does not implement; a damaged program is refused."""

from __future__ import annotations

import datetime
import functools
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarfloat import ScalarFloat
from ruamel.yaml.scalarint import HexInt
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString

from migrator.convert import legacyshapes
from migrator.convert.shapefuncs import VALIDATORS
from migrator.knowledge import apimodels, shapebuild, shapes
from tests import corpus, goldens

ROOT = goldens.ROOT


@functools.cache
def _models() -> dict[str, tuple[type[BaseModel], shapes.Checker, list[Any]]]:
    """Every model the tool checks with: name → (pydantic model, checker, program)."""
    found: dict[str, tuple[type[BaseModel], shapes.Checker, list[Any]]] = {}
    for name, program in legacyshapes.programs().items():
        found[name] = (legacyshapes.SHAPES[name], shapes.load(program, VALIDATORS), program)
    compiled = apimodels.programs()
    for version, named in compiled["kinds"].items():
        for kind, model_name in named.items():
            model = apimodels.model_for(version, kind)
            assert model is not None
            found[model_name] = (model, shapes.load(compiled["models"][model_name]),
                                 compiled["models"][model_name])
    return found


def _pydantic(model: type[BaseModel], value: Any) -> list[shapes.Error]:
    try:
        model.model_validate(value)
    except ValidationError as exc:
        return [(e["type"], tuple(e["loc"]), e["msg"], e.get("input")) for e in exc.errors()]
    return []


def _same_input(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def _agree(name: str, value: Any) -> bool:
    """Both give the same errors; False when the checker left the value to pydantic."""
    model, checker, _ = _models()[name]
    mine = checker.errors(value)
    if mine is None:
        return False
    theirs = _pydantic(model, value)
    assert [(t, [(type(i), i) for i in loc], m) for t, loc, m, _ in mine] == \
        [(t, [(type(i), i) for i in loc], m) for t, loc, m, _ in theirs], (name, value)
    assert all(_same_input(a[3], b[3]) for a, b in zip(mine, theirs, strict=True)), (name, value)
    return True


def _dicts(node: Any) -> Iterator[Any]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _dicts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _dicts(value)


def _documents(paths: list[Path]) -> Iterator[Any]:
    for path in paths:
        yield from _documents_of_text(path.read_text(encoding="utf-8", errors="replace"))


def _compare_everywhere(documents: list[Any]) -> int:
    """Every mapping in ``documents`` against every model; how many the checker judged."""
    judged = 0
    for document in documents:
        for part in _dicts(document):
            for name in _models():
                judged += _agree(name, part)
    return judged


def test_fixture_documents_and_their_conversions_agree() -> None:
    inputs = list(_documents(goldens.cases()))
    outputs = []
    for case in goldens.cases():
        for target in goldens.TARGETS:
            for document in goldens.convert(case, target).documents:
                if document.status == "converted":
                    outputs += list(_documents_of_text(document.text))
    assert outputs
    assert _compare_everywhere(inputs + outputs) > 10_000


def _documents_of_text(text: str) -> Iterator[Any]:
    """The documents of a YAML stream as the tool loads them (ruamel's round-trip types)."""
    try:
        yield from list(YAML().load_all(text))
    except Exception:  # not YAML: nothing to compare
        return


def test_corpus_documents_agree(shared: Path) -> None:
    files = corpus.sample(corpus.legacy_files(shared))
    assert _compare_everywhere(list(_documents(files))) > 1_000


# --- hostile values --------------------------------------------------------------------------

_ODD: list[Any] = [None, True, False, 0, 1, -1, 2, 7, 2**31, 2**63, -2**63 - 1, 2**64, 10**30,
                   1.0, 0.0, 1.5, -2.0, 1e20, math.inf, -math.inf, math.nan, "", "x", "5", " 7 ",
                   "1_000", "1.0", "1e3", "0.5", "5.", " 5.00 ", "+5.0", "-.0", ".0",
                   "1_0", "+", "-7.0", "\x0c8\x0b", "\x1c9", "0" * 19, "-3", "+4",
                   "٣", "true", "yes", "Off", "${X}", "\ud800", "x\udcff",
                   "OpenMPI", "TrainJob", "500m", "4Gi", "a" * 70, "\u00e9t\u00e9", [], {},
                   [1], ["a"], {"a": 1}, {1: 2}, {None: "x"}, (1, 2), {3}, frozenset(),
                   datetime.date(2024, 1, 1), ScalarFloat(2.0, width=3, prec=1),
                   HexInt(16), DoubleQuotedScalarString("q"), LiteralScalarString("l\n"),
                   CommentedMap([("name", "n")]), CommentedSeq(["s"]), b"bytes"]


def _from_node(node: list[Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values shaped like ``node`` (a program node), with hostile values at every level."""
    odd = st.sampled_from(_ODD)
    if depth > 12:
        return odd
    op = node[0]
    shaped: st.SearchStrategy[Any]
    if op in ("any", "bool"):
        shaped = st.one_of(odd, st.booleans(), st.text(max_size=5))
    elif op == "nullable":
        shaped = st.one_of(st.none(), _from_node(node[1], depth + 1))
    elif op == "str":
        top = (node[3] or 8) + 1
        shaped = st.one_of(st.text(max_size=min(top, 80)),
                           st.sampled_from(["a" * (top - 1), "b" * top]))
    elif op == "int":
        bounds = [b for b in (node[2], node[3]) if b is not None]
        shaped = st.one_of(st.integers(), *(st.sampled_from([b - 1, b, b + 1]) for b in bounds),
                           st.floats(), st.integers().map(str))
    elif op == "literal":
        shaped = st.sampled_from(node[1])
    elif op == "list":
        items = _from_node(node[1], depth + 1)
        most = (node[3] if node[3] is not None else 3) + 1
        shaped = st.one_of(st.lists(items, max_size=min(most, 4)),
                           st.lists(items, min_size=most, max_size=most) if most < 20
                           else st.nothing(),
                           st.lists(items, max_size=2).map(tuple))
    elif op == "dict":
        keys = st.one_of(st.text(max_size=4), odd.filter(_hashable))
        shaped = st.dictionaries(keys, _from_node(node[2], depth + 1), max_size=3)
    elif op == "union":
        shaped = st.one_of(*(_from_node(choice, depth + 1) for _, choice in node[1]))
    elif op == "before":
        shaped = st.one_of(st.sampled_from(["2", "500m", "4Gi", "x", "1e3", 3, 2.5]),
                           _from_node(node[2], depth + 1))
    else:
        shaped = _model_values(node, depth)
    return st.one_of(shaped, shaped, shaped, odd)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _model_values(node: list[Any], depth: int) -> st.SearchStrategy[Any]:
    fields = node[3]
    keyed = [st.tuples(st.sampled_from([key, other] if other else [key]),
                       _from_node(child, depth + 1)) for key, other, _, child in fields]
    names = [name for key, other, _, _ in fields for name in (key, other) if name]
    extra = st.tuples(st.one_of(st.text(max_size=4), odd_keys(),
                                st.sampled_from(names) if names else st.nothing()),
                      st.sampled_from(_ODD))

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        chosen = [i for i, field in enumerate(fields)
                  if draw(st.integers(0, 9)) < (9 if field[2] else 4)]
        pairs = [draw(keyed[i]) for i in draw(st.permutations(chosen))]
        pairs += draw(st.lists(extra, max_size=2))
        kind = draw(st.sampled_from([dict, CommentedMap]))
        return kind(pairs)
    return build()


def odd_keys() -> st.SearchStrategy[Any]:
    return st.sampled_from([1, True, None, 1.5, 2**70, (1, 2), "", "x", HexInt(3),
                            DoubleQuotedScalarString("k"), "\ud800", datetime.date(2020, 2, 2)])


_NAMES = ["metadata", "replica", "TrainJob22", "TrainJob23", "TrainingRuntime22",
          "TrainingRuntime23"]


@pytest.mark.parametrize("name", _NAMES)
def test_hostile_values_agree(name: str) -> None:
    assert set(_NAMES) <= set(_models())
    judged: list[bool] = []

    @given(_from_node(_models()[name][2]))
    def check(value: Any) -> None:
        judged.append(_agree(name, value))

    check()
    assert sum(judged) > len(judged) // 2  # most values are the checker's own to judge


_PARTS = [legacyshapes._ContainerShape, legacyshapes._ResourcesShape, apimodels.MLPolicy22,
          apimodels.MLPolicy23, apimodels.EnvInjectionTarget, apimodels.ReplicatedJob,
          apimodels.Resources, apimodels.ObjectMeta, apimodels.MPIPolicy, apimodels.NetworkTopology]


@pytest.mark.parametrize("model", _PARTS, ids=lambda model: model.__name__)
def test_hostile_values_agree_on_parts(model: type[BaseModel]) -> None:
    """The parts of the models on their own, so that deep nodes see many values too."""
    program = shapebuild.compile_model(model, apimodels.after_rules(), VALIDATORS)
    checker = shapes.load(program, VALIDATORS)
    name = f"part {model.__name__}"
    _models()[name] = (model, checker, program)
    judged: list[bool] = []

    @given(_from_node(program))
    def check(value: Any) -> None:
        judged.append(_agree(name, value))

    check()
    assert sum(judged) > len(judged) // 2


# --- refusals --------------------------------------------------------------------------------


class _Pattern(BaseModel):
    code: Annotated[str, Field(pattern="^a")]


class _Float(BaseModel):
    ratio: float


class _Ignore(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str


@pytest.mark.parametrize("model", [_Pattern, _Float, _Ignore])
def test_the_compiler_refuses_what_the_checker_does_not_implement(
        model: type[BaseModel]) -> None:
    with pytest.raises(shapebuild.SchemaError):
        shapebuild.compile_model(model)


@pytest.mark.parametrize("program", [
    None, [], ["nope"], ["str", "yes", None, None], ["int", False, 1.5, None],
    ["model", "M", "ignore", [], None], ["model", "M", "allow", [["a", None, True]], None],
    ["before", "__import__", ["any"]], ["model", "M", "allow", [], ["os.system", []]],
    ["literal", [1], "x"], ["union", [["int"]]], ["list"] + [["any"]] * 64,
])
def test_a_damaged_program_is_refused(program: Any) -> None:
    with pytest.raises(shapes.ProgramError):
        shapes.load(program, VALIDATORS)


def test_a_damaged_cache_entry_is_rebuilt(tmp_path: Path) -> None:
    code = ("import sys; from migrator import convert_text; "
            "r = convert_text(sys.stdin.read()); "
            "print(sorted(f.code for d in r.documents for f in d.findings))")
    env = {**os.environ, "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    job = (ROOT / "fixtures" / "pytorchjob" / "full.in.yaml").read_text()
    first = subprocess.run([sys.executable, "-c", code], input=job, env=env, check=True,
                           capture_output=True, text=True).stdout
    entries = sorted((tmp_path / "cache").glob("shapes-*.json"))
    assert [e.name.split("-")[1] for e in entries] == ["api", "legacy"]
    for entry in entries:
        entry.write_text('{"metadata": ["model", "M", "allow", [], ["exec", []]]}')
    again = subprocess.run([sys.executable, "-c", code], input=job, env=env, check=True,
                           capture_output=True, text=True)
    assert again.stdout == first
    assert "Traceback" not in again.stderr


_IMPORTER = """
import builtins, sys
first = []
real = builtins.__import__
def spy(name, globals=None, *args, **kwargs):
    if name.split(".")[0] == "pydantic" and not first and "pydantic" not in sys.modules:
        first.append((globals or {}).get("__name__"))
    return real(name, globals, *args, **kwargs)
builtins.__import__ = spy
from migrator import convert_text
result = convert_text(sys.stdin.read())
assert result.documents[0].status == "converted", result
print(first[0] if first else "-")
"""


def test_a_warm_conversion_imports_no_pydantic(tmp_path: Path) -> None:
    """pydantic declares the shapes but runs only to build the cached programs."""
    env = {**os.environ, "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    job = (ROOT / "fixtures" / "pytorchjob" / "full.in.yaml").read_text()
    cold, warm = [subprocess.run([sys.executable, "-c", _IMPORTER], input=job, env=env,
                                 check=True, capture_output=True, text=True).stdout.strip()
                  for _ in range(2)]
    assert cold != "-"  # the first run built the programs with pydantic
    assert warm == "-", f"{warm} imported pydantic in a run with a warm cache"


def test_the_ml_policy_sources_come_from_the_programs() -> None:
    """Read from the compiled runtime models (no pydantic), they are the models' own."""
    from migrator.knowledge import apichecks

    assert apichecks.ml_policy_sources() == apimodels.ml_policy_sources()
