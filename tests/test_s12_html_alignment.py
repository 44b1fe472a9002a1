"""REPORT html: the side-by-side alignment of a huge document takes linear time (lines that
recur often are difflib's junk above MAX_ALIGNED_LINES: a job of 10,000 alike replica roles
took minutes; hostile-input attack 12), and stays exact below it."""

from __future__ import annotations

import difflib

import pytest

from migrator.report import html


def _opcodes_with(monkeypatch: pytest.MonkeyPatch, before: list[str],
                  after: list[str]) -> tuple[list[list[int]], list[bool]]:
    flags: list[bool] = []
    real = difflib.SequenceMatcher

    def recorded(a: list[str], b: list[str], autojunk: bool) -> difflib.SequenceMatcher[str]:
        flags.append(autojunk)
        return real(a=a, b=b, autojunk=autojunk)

    monkeypatch.setattr(difflib, "SequenceMatcher", recorded)
    return html._line_opcodes(before, after), flags


def test_a_small_document_is_aligned_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    before = ["kind: PyTorchJob", "spec:", "  replicas: 2", "  image: a"]
    after = ["kind: TrainJob", "spec:", "  numNodes: 2", "  image: a"]
    opcodes, flags = _opcodes_with(monkeypatch, before, after)
    assert flags == [False]
    assert opcodes == [[1, 0, 1, 0, 1], [0, 1, 2, 1, 2], [1, 2, 3, 2, 3], [0, 3, 4, 3, 4]]


def test_a_huge_document_of_alike_lines_takes_the_fast_matcher(
        monkeypatch: pytest.MonkeyPatch) -> None:
    role = ["  - name: worker", "    replicas: 1", "    image: example/train:1.0"]
    before = ["kind: PyTorchJob", *role * 2000]
    after = ["kind: TrainJob", *role * 2000, "  numNodes: 2000"]
    opcodes, flags = _opcodes_with(monkeypatch, before, after)
    assert flags == [True]
    # a valid alignment: it covers both sides, in order
    assert opcodes[0][1] == 0
    assert opcodes[0][3] == 0
    assert opcodes[-1][2] == len(before)
    assert opcodes[-1][4] == len(after)
