"""LOAD: rewriting a stream with mixed line endings keeps each document's own endings in time
linear in its documents (difflib's matcher, cubic in many alike documents, took 37 s for a
383 KB file: hostile-input attack 12); small streams are paired by the matcher as before."""

from __future__ import annotations

import difflib

import pytest

from migrator import convert_text
from migrator.load import sources
from tests.goldens import FIXTURES

JOB = (FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text()
MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\ndata:\n  a: b\n"


def _stream(pairs: int) -> bytes:
    """Alike ConfigMaps with CRLF endings between legacy jobs with LF endings."""
    parts = []
    for index in range(pairs):
        parts.append(MAP.replace("\n", "\r\n"))
        parts.append(JOB.replace("name: minimal", f"name: job-{index}", 1))
    return "---\n".join(parts).encode()


@pytest.mark.parametrize("pairs", [3, 150])  # the matcher, then one pass
def test_each_document_keeps_its_endings(pairs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = difflib.SequenceMatcher

    def counted(isjunk: None, a: list[str], b: list[str],
                autojunk: bool) -> difflib.SequenceMatcher[str]:
        calls.append(1)
        return real(isjunk, a, b, autojunk=autojunk)

    monkeypatch.setattr(difflib, "SequenceMatcher", counted)
    raw = _stream(pairs)
    source = sources.decode("s.yaml", raw, "s.yaml")
    assert isinstance(source, sources.SourceText)
    result = convert_text(source.text)
    assert result.changed
    data = sources.encode(source, result.text).decode()
    documents = data.split("---\n")
    assert len(documents) == 2 * pairs
    for index, document in enumerate(documents):
        if index % 2 == 0:  # a ConfigMap: untouched, CRLF as read
            assert document == MAP.replace("\n", "\r\n")
        else:  # a converted job: LF as its input
            assert "kind: TrainJob" in document
            assert "\r\n" not in document
    assert bool(calls) is (2 * pairs * 2 <= sources.MAX_MATCHED_DOCUMENTS)


def test_one_pass_pairs_as_a_conversion_changes_a_stream() -> None:
    old = ["a", "job", "b", "job2", "c"]
    new = ["a", "JOB", "runtime", "b", "JOB2", "c", "tail"]
    assert sources._in_order(old, new) == [
        ("equal", 0, 1, 0, 1), ("replace", 1, 2, 1, 2), ("insert", 2, 2, 2, 3),
        ("equal", 2, 3, 3, 4), ("replace", 3, 4, 4, 5), ("equal", 4, 5, 5, 6),
        ("insert", 5, 5, 6, 7)]
    assert sources._in_order(["a", "b"], ["a"]) == [("equal", 0, 1, 0, 1),
                                                    ("delete", 1, 2, 1, 1)]
