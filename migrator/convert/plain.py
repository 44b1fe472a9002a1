"""CONVERT: a plain YAML stream (no template routing): every document through the converter.

``convert_text`` (convert/text.py) routes templated streams to ``template/`` first; the
template stage converts each rendered variant with ``convert_plain``, so the two never import
each other in a circle.
"""

from __future__ import annotations

from time import perf_counter

from migrator.load import detect, stream
from migrator.results import TextResult
from migrator.settings import ConvertOptions


def convert_plain(text: str, options: ConvertOptions, render: bool = True) -> TextResult:
    """Convert every legacy document of ``text``; other documents stay byte-identical."""
    if not detect.is_candidate(text):
        return TextResult(text)
    chunks = stream.split(text)
    if not any(chunk.has_content and detect.is_candidate(chunk.body) for chunk in chunks):
        return TextResult(text)
    from migrator.convert import document
    from migrator.knowledge import catalog

    loaded = catalog.load()
    results = []
    for index, chunk in enumerate(chunks):
        started = perf_counter()
        result = document.process(chunk, index, loaded, options, render)
        result.seconds = perf_counter() - started  # (the JUnit report's time for it)
        results.append(result)
    return TextResult("".join(r.text for r in results), results)
