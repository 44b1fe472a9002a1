"""The hand-written value classes (results, settings, config) behave as the dataclasses they
replaced: constructor defaults, field-by-field equality, the dataclass repr, frozen ones
hashable and refusing assignment, mutable ones unhashable, ``dataclasses.replace`` and
pickling; and the command group builds a command only when it is looked up."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from pathlib import Path
from typing import Any

import pytest

from migrator import config, report
from migrator.report.baseline import IgnoreRule
from migrator.results import (
    DocumentResult,
    FileResult,
    Finding,
    PodComparison,
    PodDifference,
    Severity,
    SourceText,
    TextResult,
    Unreadable,
    Verdict,
)
from migrator.settings import ConvertOptions, RunSettings

FINDING = Finding("F501", Severity.WARNING, "spec.x", "message", "hint", 3, 5)
DOCUMENT = DocumentResult(0, 1, "converted", "text", {"kind": "PyTorchJob"}, {"kind": "TrainJob"},
                          [("a", "b")], {"a": 1}, [FINDING], True,
                          PodComparison((PodDifference("env", "d", ("F501",)),), ("note",)))
FILE = FileResult("a.yaml", "a.yaml", SourceText("a.yaml", "text", "\r\n", "utf-16-le", True,
                                                 "a.yaml", b"raw"),
                  Unreadable("a.yaml", "why"), TextResult("text", [DOCUMENT]), 1, True, True,
                  True, "full disk")
FROZEN: list[Any] = [
    FINDING, SourceText("a", "b"), Unreadable("a", "b"), PodDifference("env", "d"),
    PodComparison(), ConvertOptions(target="2.3"), RunSettings(paths=("a",)),
    config.ProjectConfig(target="2.3"), config.Search(Path("x")), report.Context("2.2"),
    IgnoreRule(("*.yaml",)),
]
MUTABLE: list[Any] = [DOCUMENT, TextResult("t"), FILE, Verdict()]


def test_defaults_are_the_dataclass_defaults() -> None:
    assert Finding("C", Severity.INFO, "p", "m") == Finding("C", Severity.INFO, "p", "m", "",
                                                            None, None)
    doc = DocumentResult(0, 1, "unchanged", "x")
    assert (doc.source, doc.output, doc.mappings, doc.values, doc.findings, doc.reportable,
            doc.effective) == ({}, None, [], {}, [], True, None)
    other = DocumentResult(0, 1, "unchanged", "x")
    assert doc.findings is not other.findings  # a new list each time, as default_factory
    assert TextResult("t").documents == []
    assert (Verdict().unusable, Verdict().attention, Verdict().worst) == (False, False, -1)
    assert RunSettings(paths=()).options == ConvertOptions()
    assert RunSettings(paths=()).max_bytes == 10 * 1024 * 1024


@pytest.mark.parametrize("value", FROZEN + MUTABLE, ids=lambda v: type(v).__name__)
def test_equality_repr_and_copies(value: Any) -> None:
    assert value == copy.deepcopy(value)
    assert value == pickle.loads(pickle.dumps(value))
    assert value != object()
    names = type(value).FIELDS
    shown = ", ".join(f"{name}={getattr(value, name)!r}" for name in names)
    assert repr(value) == f"{type(value).__qualname__}({shown})"


@pytest.mark.parametrize("value", FROZEN, ids=lambda v: type(v).__name__)
def test_frozen_values_are_hashable_and_refuse_changes(value: Any) -> None:
    assert hash(value) == hash(copy.deepcopy(value))
    name = type(value).FIELDS[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, name, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(value, name)


@pytest.mark.parametrize("value", MUTABLE, ids=lambda v: type(v).__name__)
def test_mutable_values_are_unhashable(value: Any) -> None:
    with pytest.raises(TypeError):
        hash(value)


def test_one_field_changes_equality() -> None:
    assert dataclasses.replace(FINDING, column=6) != FINDING
    assert dataclasses.replace(FINDING, column=6).column == 6
    assert DocumentResult(0, 1, "unchanged", "x") != DocumentResult(0, 1, "unchanged", "y")
    assert Finding("C", Severity.INFO, "p", "m") != DocumentResult(0, 1, "unchanged", "x")


@pytest.mark.parametrize("value", [FINDING, SourceText("a", "b"), PodDifference("env", "d"),
                                   DOCUMENT, TextResult("t", [DOCUMENT]), FILE,
                                   ConvertOptions()], ids=lambda v: type(v).__name__)
def test_replace_copies_every_field(value: Any) -> None:
    names = [f.name for f in dataclasses.fields(value)]
    compared = list(type(value).FIELDS)
    assert [name for name in names if name in compared] == compared
    # carried by replace, never compared: a document's identity, and the time it took (the
    # JUnit report's alone; results are equal from run to run)
    assert set(names) - set(compared) <= {"identity", "seconds"}
    copied = dataclasses.replace(value)
    assert copied is not value
    assert copied == value
    assert all(getattr(copied, name) is getattr(value, name) for name in names)


def test_convert_options_still_validate() -> None:
    with pytest.raises(ValueError, match="unknown target"):
        ConvertOptions(target="0.1")
    with pytest.raises(ValueError, match="unknown runtime kind"):
        dataclasses.replace(ConvertOptions(), runtime_kind="Pod")


def test_a_command_is_built_when_looked_up() -> None:
    import click

    from migrator import cli

    group = cli._Commands(name="probe")
    built: list[str] = []

    def builder(name: str) -> Any:
        def build() -> click.Command:
            built.append(name)
            return click.Command(name, help=f"{name} help")
        return build

    for name in ("b", "a", "c"):
        group.lazy(name)(builder(name))
    context = click.Context(group)
    assert group.list_commands(context) == ["a", "b", "c"]
    assert built == []
    command = group.get_command(context, "b")
    assert command is not None
    assert command.name == "b"
    assert built == ["b"]
    assert group.get_command(context, "b") is command
    assert built == ["b"]
    assert group.get_command(context, "x") is None  # unknown: all built, for the suggestions
    assert sorted(built) == ["a", "b", "c"]
    assert sorted(group.commands) == ["a", "b", "c"]


def test_a_copy_keeps_what_was_measured() -> None:
    """``replaced`` keeps the measured attributes that equality leaves out (a Markdown page's
    documents are copied with their page lines: their JUnit time went to 0)."""
    from migrator.results import replaced

    document = DocumentResult(0, 1, "converted", "x", seconds=0.25)
    moved = replaced(document, line=7)
    assert (moved.line, moved.seconds) == (7, 0.25)
    assert replaced(document, seconds=0.5).seconds == 0.5
    file = FileResult("a.yaml", "a.yaml", identity=(1, 2, 3, 4, 5, 6), seconds=1.5)
    kept = replaced(file, written=True)
    assert (kept.written, kept.identity, kept.seconds) == (True, (1, 2, 3, 4, 5, 6), 1.5)
    assert moved == replaced(document, line=7, seconds=9.0)  # still not compared
