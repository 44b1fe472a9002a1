"""stream.split/join: exact slices at document markers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from migrator.load import stream

STREAMS = [
    "",
    "a: 1\n",
    "---\na: 1\n",
    "# head\n---\na: 1\n---\nb: 2\n...\n",
    "a: |\n  --- not a marker\n  text\n---\nb: 2",
    "a: 1\r\n---\r\nb: 2\r\n",
    "--- # comment on the marker\nkind: X\n# trailing\n\n",
    "%YAML 1.2\n---\na: 1\n",
]


@pytest.mark.parametrize("text", STREAMS)
def test_join_of_split_is_identity(text: str) -> None:
    assert stream.join(stream.split(text)) == text


def test_chunks_separate_head_body_tail() -> None:
    chunks = stream.split("# file header\n---\n# doc comment\nkind: A\n# after\n---\nkind: B\n")
    assert [c.body for c in chunks] == ["", "kind: A\n", "kind: B\n"]
    assert chunks[1].head == "---\n# doc comment\n"
    assert chunks[1].tail == "# after\n"
    assert chunks[1].line == 4


@given(st.lists(st.sampled_from(["---\n", "a: 1\n", "# c\n", "\n", "...\n", "--- x\n", "  - y\n",
                                 "b: |\n", "  ---x\n"]), max_size=30))
def test_split_join_property(lines: list[str]) -> None:
    text = "".join(lines)
    assert stream.join(stream.split(text)) == text
