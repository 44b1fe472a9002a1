"""The shared round-trip instances behave exactly like fresh ones, whatever came before."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from migrator import stream, yamlio
from tests.goldens import FIXTURES

_TRICKY = [
    "%YAML 1.1\n---\nflag: yes\noctal: 010\n",  # a directive changes resolution
    "flag: yes\noctal: 010\n",
    "a: &anchor {x: 1}\nb: *anchor\n",
    "c: *anchor\n",  # an alias of the previous document must not resolve
    "key: [unclosed\n",  # a failure half-way
    "'quoted': \"double\"  # comment\nblock: |\n  text\n",
    "%TAG !e! tag:example.com,2000:\n---\nv: !e!thing 1\n",
    "!e!thing 1\n",
]


def _documents() -> list[str]:
    texts = list(_TRICKY)
    for path in sorted(FIXTURES.rglob("*.yaml"))[:80]:
        texts += [chunk.body for chunk in stream.split(path.read_text(encoding="utf-8"))
                  if chunk.has_content]
    return texts


_DOCUMENTS = _documents()


def _fresh(text: str) -> str:
    """What a new instance loads: the dump of the tree, or the error."""
    try:
        data = yamlio._rt().load(text)
    except Exception as exc:  # the kind of error is what is compared
        return f"error: {type(exc).__name__}"
    out = io.StringIO()
    dumper = yamlio._rt()
    indent = yamlio.Indent()
    dumper.indent(mapping=indent.mapping, sequence=indent.sequence, offset=indent.offset)
    dumper.dump(data, out)
    return out.getvalue()


def _shared(text: str) -> str:
    try:
        data = yamlio.load(text)
    except yamlio.DocumentError:
        return "error"
    return yamlio.dump(data, yamlio.Indent())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_DOCUMENTS), min_size=2, max_size=12))
def test_shared_instances_match_fresh_ones(order: list[str]) -> None:
    for text in order:
        fresh = _fresh(text)
        shared = _shared(text)
        if fresh.startswith("error"):
            assert shared == "error", text
        else:
            assert shared == fresh, text


def test_a_directive_or_a_failure_does_not_leak_into_the_next_document() -> None:
    for text in _TRICKY * 2:
        fresh, shared = _fresh(text), _shared(text)
        assert shared == ("error" if fresh.startswith("error") else fresh), text
