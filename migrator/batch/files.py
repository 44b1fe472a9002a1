"""BATCH stage, one file: read it, convert (or validate) it, store the result.

Heavy modules (ruamel, pydantic) are imported only when a document passes the cheap
prefilter, so scanning files without Kubeflow kinds stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from migrator.batch import helm
from migrator.convert import routing
from migrator.convert.text import convert_text
from migrator.load import detect, sources
from migrator.results import FileResult, SourceText, TextResult, Unreadable
from migrator.settings import ConvertOptions

if TYPE_CHECKING:
    from migrator.batch.writer import Destination


def process_file(name: str, relative: str, options: ConvertOptions,
                 render: bool = True, max_bytes: int = sources.MAX_BYTES,
                 audit: bool = False, destination: Destination | None = None) -> FileResult:
    """Read one input and convert (or, with ``audit``, validate) it; write the conversion to
    ``destination`` when there is one."""
    if name.startswith(helm.PREFIX):
        return store(_rendered_chart(name, relative, options, render), destination)
    if routing.handles(name):  # Markdown, shell, snapshots, kustomizations
        return store(_routed(name, relative, options, render, max_bytes, audit), destination)
    read = settled(name, relative, max_bytes)
    if isinstance(read, FileResult):
        return read
    assert read is not None  # routed files were handled above
    return store(FileResult(read.name, read.relative, source=read,
                            result=convert_or_audit(read.text, options, render, audit)),
                 destination)


def store(file: FileResult, destination: Destination | None) -> FileResult:
    """Write ``file`` to ``destination``; a failure is recorded on the result, not raised."""
    if destination is not None:
        try:
            file.written = destination.store(file)
        except OSError as exc:
            file.write_error = str(exc.strerror or exc)
    return file


def _rendered_chart(name: str, relative: str, options: ConvertOptions,
                    render: bool) -> FileResult:
    chart = name[len(helm.PREFIX):]
    rendered = helm.render(chart, relative)
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
    if audit or (not detect.is_candidate(read.text) and not routing.needs_no_group(name)):
        return FileResult(name, relative, source=read, result=TextResult(read.text))
    read = routing.exact(name, read)  # pages and scripts: line endings kept line by line
    result = routing.convert(name, read.text, options, render)
    if result is None:
        result = convert_text(read.text, options=options, render=render)
    return FileResult(read.name, read.relative, source=read, result=result)


def _audit(text: str, options: ConvertOptions) -> TextResult:
    if not detect.is_candidate(text):
        return TextResult(text)
    from migrator.check import audit
    from migrator.knowledge import catalog

    return audit.validate_text(text, catalog.load(), options)


def convert_or_audit(text: str, options: ConvertOptions, render: bool,
                     audit: bool) -> TextResult:
    return _audit(text, options) if audit else convert_text(text, options=options,
                                                            render=render)


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
        return FileResult(name, relative, source=read, result=TextResult(read.text))
    return read
