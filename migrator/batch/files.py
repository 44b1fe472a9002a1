"""BATCH stage, one file: read it, convert (or validate) it, store the result.

Heavy modules (ruamel, pydantic) are imported only when a document passes the cheap
prefilter, so scanning files without Kubeflow kinds stays fast; the conversion stage itself
only when a file needs it (a warm run that takes every result from the results cache never
imports it).
"""

from __future__ import annotations

from time import perf_counter
from typing import TYPE_CHECKING

from migrator.batch import helm
from migrator.convert import routing
from migrator.load import detect, sources
from migrator.results import FileResult, SourceText, TextResult, Unreadable
from migrator.settings import ConvertOptions

if TYPE_CHECKING:
    from migrator.batch.writer import Destination


def process_file(name: str, relative: str, options: ConvertOptions,
                 render: bool = True, max_bytes: int = sources.MAX_BYTES,
                 audit: bool = False, destination: Destination | None = None,
                 review: bool = False) -> FileResult:
    """Read one input and convert (or, with ``audit``, validate) it; write the conversion to
    ``destination`` when there is one. With ``review`` (a review report is asked for) each
    converted job carries its effective-pod comparison (``DocumentResult.effective``).

    The result carries the time all this took (``FileResult.seconds``: the JUnit report's)."""
    started = perf_counter()
    file = _processed(name, relative, options, render, max_bytes, audit, destination, review)
    file.seconds = perf_counter() - started
    return file


def _processed(name: str, relative: str, options: ConvertOptions, render: bool,
               max_bytes: int, audit: bool, destination: Destination | None,
               review: bool) -> FileResult:
    if name.startswith(helm.PREFIX):
        chart = _rendered_chart(name, relative, options, render, max_bytes)
        return store(_compared(chart, options) if review else chart, destination)
    if routing.handles(name):  # Markdown, shell, snapshots, kustomizations
        routed = _routed(name, relative, options, render, max_bytes, audit)
        return store(_compared(routed, options) if review else routed, destination)
    read = settled(name, relative, max_bytes)
    if isinstance(read, FileResult):
        return read
    assert read is not None  # routed files were handled above
    result = convert_or_audit(read.text, options, render, audit, review)
    if options.shared_runtimes is not None and render and not audit:
        from migrator.shared_runtimes.rewrite import rewrite

        result = rewrite(result, options, options.shared_runtimes)
    identity = read.identity
    if not audit:  # the legacy bases of an overlay that cannot be converted stay as they are
        result, cacheable = routing.hold_bases(name, read.text, result, options)
        identity = identity if cacheable else None  # (its result depends on the overlays)
    return store(FileResult(read.name, read.relative, source=read, result=result,
                            identity=identity), destination)


def store(file: FileResult, destination: Destination | None) -> FileResult:
    """Write ``file`` to ``destination``; a failure is recorded on the result, not raised."""
    if destination is not None:
        try:
            file.written = destination.store(file)
        except OSError as exc:
            file.write_error = str(exc.strerror or exc)
    return file


def _rendered_chart(name: str, relative: str, options: ConvertOptions,
                    render: bool, max_bytes: int) -> FileResult:
    from migrator.convert.text import convert_text

    chart = name[len(helm.PREFIX):]
    rendered = helm.render(chart, relative, max_bytes)
    if isinstance(rendered, Unreadable):
        return FileResult(rendered.name, relative, unreadable=rendered)
    return FileResult(rendered.name, relative, source=rendered, virtual=True,
                      result=convert_text(rendered.text, options=options, render=render))


def _routed(name: str, relative: str, options: ConvertOptions, render: bool,
            max_bytes: int, audit: bool) -> FileResult:
    """A file that holds manifests without being a YAML stream of them (``validate`` checks
    Trainer manifests only, so it leaves these files alone)."""
    read = sources.read(name, relative, max_bytes)
    if isinstance(read, Unreadable):
        return FileResult(name, relative, unreadable=read)
    identity = read.identity  # (``exact`` keeps it too)
    if audit or (not detect.is_candidate(read.text) and not routing.needs_no_group(name)):
        return FileResult(name, relative, source=read, result=TextResult(read.text),
                          identity=identity)
    from migrator.convert.text import convert_text

    read = routing.exact(name, read)  # pages and scripts: line endings kept line by line
    result = routing.convert(name, read.text, options, render)
    if result is None:
        result = convert_text(read.text, options=options, render=render)
    return FileResult(read.name, read.relative, source=read, result=result, identity=identity)


def _audit(text: str, options: ConvertOptions) -> TextResult:
    if not detect.is_candidate(text):
        return TextResult(text)
    from migrator.check import audit
    from migrator.knowledge import catalog

    return audit.validate_text(text, catalog.load(), options)


def convert_or_audit(text: str, options: ConvertOptions, render: bool,
                     audit: bool, review: bool = False) -> TextResult:
    """Convert (or validate) a YAML stream; with ``review``, with the effective-pod
    comparisons of its converted jobs, taken from this one conversion when it is a plain
    stream (rendered for them; ``check``'s result is then given back unrendered)."""
    from migrator.convert.text import convert_text, may_be_template

    if audit:
        result = _audit(text, options)
        return _annotate(text, result, options, plain=False) if review else result
    if not review:
        return convert_text(text, options=options, render=render)
    plain = not may_be_template(text)
    result = convert_text(text, options=options, render=render or plain)
    result = _annotate(text, result, options, plain=plain)
    return result if render or not plain else _unrendered(text, result)


def _unrendered(text: str, result: TextResult) -> TextResult:
    """A plain stream's rendered conversion as ``render=False`` gives it: converted documents
    keep their source text (``document.process``), and ``convert_plain`` joins the texts."""
    if not result.changed:
        return result
    from dataclasses import replace

    from migrator.load import stream

    chunks = stream.split(text)
    documents = [replace(d, text=chunks[d.index].text) if d.status == "converted" else d
                 for d in result.documents]
    return TextResult("".join(d.text for d in documents), documents)


def _compared(file: FileResult, options: ConvertOptions) -> FileResult:
    """A routed file or rendered chart with the effective-pod comparisons of its jobs."""
    if file.source is None or file.result is None:
        return file
    from dataclasses import replace  # here: only routed files and rendered charts need it

    return replace(file, result=_annotate(file.source.text, file.result, options,
                                               plain=False))


def _annotate(text: str, result: TextResult, options: ConvertOptions, *,
              plain: bool) -> TextResult:
    from migrator.batch import explain  # the oracle: loaded only for review reports

    return explain.annotate(text, result, options, plain=plain)


def settled(name: str, relative: str, max_bytes: int) -> FileResult | SourceText | None:
    """Read a file; the final result if it is unreadable or holds no Kubeflow document,
    else its text, which still needs converting; None for a file that is not a YAML stream
    (``routing``: it must go through ``process_file``)."""
    if routing.handles(name):
        return None
    read = sources.read(name, relative, max_bytes)
    if isinstance(read, Unreadable):
        return FileResult(name, relative, unreadable=read)
    if not detect.is_candidate(read.text):
        return FileResult(name, relative, source=read, result=TextResult(read.text),
                          identity=read.identity)
    return read
