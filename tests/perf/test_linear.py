"""Conversion work grows linearly with list lengths (issue 12.8): operations counted, never
timed (times are the benchmark's: ``benchmarks/bench.py --only linear``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from migrator.load import yamlio


def _job(items: int) -> str:
    lines = ["apiVersion: kubeflow.org/v1", "kind: PyTorchJob", "metadata:", "  name: big",
             "spec:", "  pytorchReplicaSpecs:", "    Master:", "      replicas: 1",
             "      template:", "        spec:", "          containers:",
             "            - name: pytorch  # the trainer", "              image: x",
             "              command:", "                - torchrun"]
    lines += [f"                - arg{i}  # note {i}" if i % 3 == 0 else
              f"                - arg{i}" for i in range(items)]
    return "\n".join(lines) + "\n"


def _deepcopies(monkeypatch: pytest.MonkeyPatch, work: Any) -> int:
    """How many times ``copy.deepcopy`` runs (recursion included) during ``work()``."""
    calls = [0]
    real = copy.deepcopy

    def counted(value: Any, memo: Any = None, _nil: Any = None) -> Any:
        calls[0] += 1
        return real(value, memo)

    with monkeypatch.context() as patch:
        patch.setattr(copy, "deepcopy", counted)
        work()
    return calls[0]


def test_clone_copies_each_node_once(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = []
    for items in (500, 1000, 2000):
        tree = yamlio.load(_job(items))
        counts.append(_deepcopies(monkeypatch, lambda tree=tree: yamlio.clone(tree)))
    assert counts[1] / counts[0] < 2.5, counts
    assert counts[2] / counts[1] < 2.5, counts


def test_clone_keeps_comments_positions_and_styles_but_not_anchors() -> None:
    text = ("a: &x [1, 2]  # flow\nb:\n  - 1  # one\n  - *x\nc: {d: 'q'}\n")
    tree = yamlio.load(text)
    duplicate = yamlio.clone(tree)
    assert duplicate == tree
    assert duplicate is not tree
    assert duplicate["b"] is not tree["b"]
    assert duplicate["b"].lc.item(0) == tree["b"].lc.item(0)
    assert duplicate["b"].ca.items.keys() == tree["b"].ca.items.keys()
    assert duplicate["a"].fa.flow_style()
    assert duplicate["c"].fa.flow_style()
    assert duplicate["a"].anchor.value is None
    assert tree["a"].anchor.value == "x"
    assert duplicate["b"][1] is duplicate["a"]  # a shared node stays shared
    indent = yamlio.detect_indent(text)
    assert yamlio.dump(duplicate, indent).replace("&x ", "").replace("*x", "[1, 2]") == \
        yamlio.dump(yamlio.clone(yamlio.load(text)), indent).replace("&x ", "").replace(
            "*x", "[1, 2]")


def test_a_long_command_list_converts_with_linear_copying(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from migrator import convert_text

    convert_text(_job(10))  # imports and the catalog, outside the count
    small = _deepcopies(monkeypatch, lambda: convert_text(_job(1000)))
    large = _deepcopies(monkeypatch, lambda: convert_text(_job(4000)))
    assert large / small < 4 * 1.3, (small, large)  # 4x the items: ~4x the copying


_RECORD_NAMES = ("_yaml_line_col", "_yaml_format", "_yaml_comment", "_yaml_tag")


def _records(node: Any) -> list[Any]:
    found: list[Any] = []
    stack = [node]
    while stack:
        item = stack.pop()
        found.extend(getattr(item, name) for name in _RECORD_NAMES if hasattr(item, name))
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _state(record: Any) -> Any:
    slots = getattr(type(record), "__slots__", ())
    fields = {name: getattr(record, name) for name in slots if hasattr(record, name)}
    fields.update(getattr(record, "__dict__", {}))
    return type(record), repr(fields)


def test_clone_copies_records_as_deepcopy_does() -> None:
    """The records ``clone`` copies directly (positions, flow styles) come out as
    ``copy.deepcopy`` makes them, for every node of every fixture, and share nothing."""
    from migrator.load import stream
    from tests.goldens import FIXTURES

    checked = 0
    for path in sorted(FIXTURES.glob("*/*.yaml")):
        for chunk in stream.split(path.read_text(encoding="utf-8")):
            try:
                tree = yamlio.load(chunk.text)
            except yamlio.DocumentError:  # fixtures of broken YAML
                continue
            for record in _records(tree):
                mine = yamlio._copy_record(record)
                assert _state(mine) == _state(copy.deepcopy(record)), path
                assert mine is not record
                data = getattr(record, "data", None)
                if isinstance(data, dict):
                    assert mine.data is not data
                    assert all(mine.data[key] is not value for key, value in data.items()
                               if isinstance(value, list))
                checked += 1
    assert checked > 1000
