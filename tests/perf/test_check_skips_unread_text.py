"""``check`` does not dump a converted job kept as YAML text (a ConfigMap's data) when nothing
reads that text (``embedded.SKIP_UNREAD_TEXT``): its results must be exactly those of a run
that dumps it (issue 18: a faster cold check with identical findings).

The fixtures run in CI; the corpus (../shared/corpus) with ``TRAINJOB_SCALE_TESTS=1``.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from migrator.convert import embedded
from migrator.settings import ConvertOptions
from tests.perf.test_check_without_comments import SHARED, _fixture_texts, _outcome


def _same_either_way(texts: list[tuple[str, str, ConvertOptions]],
                     monkeypatch: pytest.MonkeyPatch) -> int:
    """Assert identical check results with and without the dumps; the number of dumps
    skipped."""
    dumps: list[int] = []
    real = embedded._as_string

    def counted(trainjob: Any) -> Any:
        dumps.append(1)
        return real(trainjob)

    monkeypatch.setattr(embedded, "_as_string", counted)
    skipped = 0
    for name, text, opts in texts:
        monkeypatch.setattr(embedded, "SKIP_UNREAD_TEXT", False)
        dumps.clear()
        dumped = _outcome(text, opts)
        every = len(dumps)
        monkeypatch.setattr(embedded, "SKIP_UNREAD_TEXT", True)
        dumps.clear()
        assert _outcome(text, opts) == dumped, name
        skipped += every - len(dumps)
    return skipped


def test_check_results_of_the_fixtures_are_identical_without_unread_dumps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert _same_either_way(_fixture_texts(), monkeypatch) > 0  # some dumps were skipped


def test_a_conversion_still_dumps_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    from migrator import convert_text
    from tests.goldens import FIXTURES

    texts = [path.read_text(encoding="utf-8") for path in sorted(FIXTURES.glob("*/*.in.yaml"))]
    with_text = [text for text in texts if "kind: ConfigMap" in text and "data:" in text]
    assert with_text
    for text in with_text:
        rendered = convert_text(text)
        monkeypatch.setattr(embedded, "SKIP_UNREAD_TEXT", False)
        assert convert_text(text).text == rendered.text
        monkeypatch.setattr(embedded, "SKIP_UNREAD_TEXT", True)


@pytest.mark.skipif(os.environ.get("TRAINJOB_SCALE_TESTS") != "1",
                    reason="local profile: set TRAINJOB_SCALE_TESTS=1 (the corpus)")
def test_check_results_of_the_corpus_are_identical_without_unread_dumps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    if not (SHARED / "corpus").is_dir():
        pytest.skip("../shared is not available")
    texts = []
    for path in sorted((SHARED / "corpus").rglob("*")):
        if path.is_file() and not path.is_symlink() and path.suffix in (".yaml", ".yml"):
            text = path.read_text(encoding="utf-8", errors="replace")
            if "kubeflow.org" in text:
                texts.append((str(path), text, ConvertOptions()))
    assert len(texts) > 50
    _same_either_way(texts, monkeypatch)
