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
