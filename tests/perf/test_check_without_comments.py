"""``check`` loads documents without their comments (``fastload.without_comments``: libyaml
instead of ruamel's pure loader for a document whose only need of it was a comment); its
results must be exactly those of a load that keeps them (issue 18: a faster cold check with
identical findings).

The fixtures (every kind, both targets, their ``# options:``) run in CI. The corpus
(../shared/corpus, ~1 minute) runs with ``TRAINJOB_SCALE_TESTS=1`` (the local profile).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import pytest

from migrator import convert_text
from migrator.load import fastload, yamlio
from migrator.settings import ConvertOptions
from tests.goldens import FIXTURES, ROOT, options

SHARED = ROOT.parent / "shared"


@contextlib.contextmanager
def _comments_kept() -> Iterator[None]:
    """The old path: ``convert_text`` does not enter ``without_comments`` (it does so only
    while comments are needed), so every load keeps comments."""
    saved = fastload.comments_needed
    fastload.comments_needed = lambda: False
    try:
        yield
    finally:
        fastload.comments_needed = saved


def _outcome(text: str, opts: ConvertOptions) -> list[Any]:
    result = convert_text(text, options=opts, render=False)
    return [(d.index, d.line, d.status, d.text, d.source, d.output, d.mappings, d.values,
             [(f.code, f.severity, f.path, f.message, f.hint, f.line, f.column)
              for f in d.findings], d.reportable) for d in result.documents]


def _same_either_way(texts: list[tuple[str, str, ConvertOptions]]) -> int:
    """Assert identical check results with and without comments; the number of documents
    whose load went to libyaml only because comments were not needed."""
    gained = 0
    for name, text, opts in texts:
        with _comments_kept():
            kept = _outcome(text, opts)
        assert _outcome(text, opts) == kept, name
        gained += text.count("#") > 0
    return gained


def _fixture_texts() -> list[tuple[str, str, ConvertOptions]]:
    texts = []
    for case in sorted(FIXTURES.glob("*/*.in.yaml")):
        text = case.read_text(encoding="utf-8")
        for target in ("2.2", "2.3"):
            values: dict[str, Any] = {"target": target, **options(text)}
            texts.append((f"{case} {target}", text, ConvertOptions(**values)))
    return texts


def test_check_results_of_the_fixtures_are_identical_without_comments() -> None:
    assert _same_either_way(_fixture_texts()) > 10  # commented fixtures exist and were run


@pytest.mark.skipif(os.environ.get("TRAINJOB_SCALE_TESTS") != "1",
                    reason="local profile: set TRAINJOB_SCALE_TESTS=1 (the corpus, ~1 min)")
def test_check_results_of_the_corpus_are_identical_without_comments() -> None:
    if not (SHARED / "corpus").is_dir():
        pytest.skip("../shared is not available")
    texts = []
    for path in sorted((SHARED / "corpus").rglob("*")):
        if path.is_file() and not path.is_symlink() and path.suffix in (".yaml", ".yml"):
            text = path.read_text(encoding="utf-8", errors="replace")
            if "kubeflow.org" in text or "trainer" in text.lower():
                texts.append((str(path), text, ConvertOptions()))
    assert len(texts) > 50
    _same_either_way(texts)


def test_a_commented_document_goes_to_libyaml_only_without_comments() -> None:
    if fastload._loader_class() is None:
        pytest.skip("ruamel.yaml.clib (libyaml) is not installed")
    text = ("# header\napiVersion: kubeflow.org/v1\nkind: PyTorchJob  # the kind\n"
            "metadata:\n  name: a  # a name\n")
    assert fastload.load(text, yamlio._load_pure) is None  # comments kept: the pure loader
    with fastload.without_comments():
        data = fastload.load(text, yamlio._load_pure)
        assert data is not None
        assert yamlio.plain(data) == yamlio.plain(yamlio._load_pure(text))
        assert yamlio.position(data, "metadata") == yamlio.position(yamlio._load_pure(text),
                                                                   "metadata")
        # a comment in place of a value still needs the pure loader (where its null is)
        assert fastload.load("a:  # nothing\nb: 1\n", yamlio._load_pure) is None
        assert fastload.load("a:\n  - # nothing\n  - 1\n", yamlio._load_pure) is None
    assert fastload._comments_needed


def test_check_runs_without_comments_and_convert_with_them(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    seen: list[bool] = []
    real = fastload.load

    def spy(text: str, pure: Any, *bound: Any) -> Any:
        seen.append(fastload._comments_needed)
        return real(text, pure, *bound)

    monkeypatch.setattr(fastload, "load", spy)
    job = (FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text(encoding="utf-8")
    convert_text(job, render=False)
    assert seen
    assert not any(seen)
    seen.clear()
    convert_text(job)
    assert seen
    assert all(seen)

