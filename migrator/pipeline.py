"""Wire the stages for a text, a file and a batch; the library API lives here.

Heavy modules (ruamel, pydantic) are imported only when a document passes the cheap
prefilter, so scanning files without Kubeflow kinds stays fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from migrator import detect, discovery, helm, sources, stream
from migrator.discovery import Selection
from migrator.findings import Finding, Severity
from migrator.settings import ConvertOptions

PARALLEL_THRESHOLD = 16  # files; below this one process is faster

if TYPE_CHECKING:
    from migrator.results import DocumentResult
    from migrator.writer import Destination
else:
    DocumentResult = Any


@dataclass
class TextResult:
    """The converted stream and the outcome of every document in it."""

    text: str
    documents: list[DocumentResult] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(d.changed for d in self.documents)

    @property
    def failed(self) -> bool:
        return any(d.status == "failed" for d in self.documents)

    @property
    def findings(self) -> list[Finding]:
        return [f for d in self.documents for f in d.findings]


def convert_text(text: str, target: str = "2.2", *, options: ConvertOptions | None = None,
                 render: bool = True, **option_values: Any) -> TextResult:
    """Convert every legacy document of a YAML stream; other documents stay byte-identical.

    ``options`` (or keyword arguments such as ``runtime="my-torch"``) select the target and
    runtime. Never raises on bad input: problems are findings on the documents.
    """
    if options is None:
        options = ConvertOptions(target=target, **option_values)
    if not detect.is_candidate(text):
        return TextResult(text)
    chunks = stream.split(text)
    if not any(chunk.has_content and detect.is_candidate(chunk.body) for chunk in chunks):
        return TextResult(text)
    from migrator import catalog, document

    loaded = catalog.load()
    results = [document.process(chunk, index, loaded, options, render)
               for index, chunk in enumerate(chunks)]
    return TextResult("".join(r.text for r in results), results)


@dataclass
class FileResult:
    """One input file: what was read, what it converted to, or why it could not be read."""

    name: str
    relative: str
    source: sources.SourceText | None = None
    unreadable: sources.Unreadable | None = None
    result: TextResult | None = None
    scanned: int | None = None
    was_changed: bool | None = None
    virtual: bool = False  # rendered output (helm), never written back
    written: bool = False  # its conversion was written (to the output tree or in place)
    write_error: str | None = None  # why writing it failed (the input is unchanged)

    @property
    def changed(self) -> bool:
        if self.was_changed is not None:
            return self.was_changed
        return self.result is not None and self.result.changed

    @property
    def writable(self) -> bool:
        """Rewrite in place only when something converted and nothing in the file failed."""
        return (not self.virtual and self.result is not None and self.result.changed
                and not self.result.failed)

    @property
    def findings(self) -> list[Finding]:
        return self.result.findings if self.result is not None else []

    @property
    def documents_scanned(self) -> int:
        if self.scanned is not None:
            return self.scanned
        if self.result is not None and self.result.documents:
            return len(self.result.documents)
        return 1 if self.source is not None and self.source.text.strip() else 0

    def slim(self) -> FileResult:
        """This result without file contents: what reports and exit codes need.

        A batch keeps only slim results, so its memory does not grow with file sizes.
        """
        from dataclasses import replace

        documents = [replace(d, text="") for d in self.result.documents] if self.result else []
        return FileResult(self.name, self.relative, None, self.unreadable,
                          TextResult("", documents) if self.result is not None else None,
                          scanned=self.documents_scanned, was_changed=self.changed,
                          virtual=self.virtual, written=self.written,
                          write_error=self.write_error)


def process_file(name: str, relative: str, options: ConvertOptions,
                 render: bool = True, max_bytes: int = sources.MAX_BYTES,
                 audit: bool = False, destination: Destination | None = None) -> FileResult:
    """Read one input and convert (or, with ``audit``, validate) it; write the conversion to
    ``destination`` when there is one."""
    if name.startswith(helm.PREFIX):
        return store(_rendered_chart(name, relative, options, render), destination)
    read = settled(name, relative, max_bytes)
    if isinstance(read, FileResult):
        return read
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
    if isinstance(rendered, sources.Unreadable):
        return FileResult(rendered.name, relative, unreadable=rendered)
    return FileResult(rendered.name, relative, source=rendered, virtual=True,
                      result=convert_text(rendered.text, options=options, render=render))


def _audit(text: str, options: ConvertOptions) -> TextResult:
    if not detect.is_candidate(text):
        return TextResult(text)
    from migrator import audit, catalog

    return audit.validate_text(text, catalog.load(), options)


def convert_or_audit(text: str, options: ConvertOptions, render: bool,
                     audit: bool) -> TextResult:
    return _audit(text, options) if audit else convert_text(text, options=options,
                                                            render=render)


def settled(name: str, relative: str, max_bytes: int) -> FileResult | sources.SourceText:
    """Read a file; the final result if it is unreadable or holds no Kubeflow document,
    else its text, which still needs converting."""
    read = sources.read(name, relative, max_bytes)
    if isinstance(read, sources.Unreadable):
        return FileResult(name, relative, unreadable=read)
    if not detect.is_candidate(read.text):
        return FileResult(name, relative, source=read, result=TextResult(read.text))
    return read


def process_paths(paths: tuple[str, ...], options: ConvertOptions,
                  selection: Selection | None = None, jobs: int = 1,
                  found: list[tuple[str, str]] | None = None,
                  render: bool = True,
                  max_bytes: int = sources.MAX_BYTES,
                  audit: bool = False, keep_text: bool = True,
                  destination: Destination | None = None) -> Iterator[FileResult]:
    """Process every selected file, in discovery order, on up to ``jobs`` processes.

    With a ``destination`` each conversion is written where it was made
    (``FileResult.written`` / ``write_error``). Without ``keep_text`` results may come back
    slim, without file texts (for a run that neither prints nor reviews them).

    Results and their order are the same whatever ``jobs`` is; small batches stay in this
    process, and a run over ordinary manifests never loads the converter (``parallel``).
    """
    if found is None:
        found = list(discovery.discover(paths, selection or Selection()))
    if jobs <= 1 or len(found) < PARALLEL_THRESHOLD:
        for name, relative in found:
            yield process_file(name, relative, options, render, max_bytes, audit, destination)
        return
    from migrator import parallel

    yield from parallel.run(found, options, jobs, render, max_bytes, audit, keep_text,
                            destination)


def exit_code(files: list[FileResult], fail_on: str) -> int:
    """0 clean, 1 findings at or above ``fail_on``, 2 unreadable input."""
    if any(f.unreadable is not None for f in files):
        return 2
    if fail_on == "never":
        return 0
    threshold = Severity(fail_on)
    findings = (finding for f in files for finding in f.findings)
    return 1 if any(x.severity.rank >= threshold.rank for x in findings) else 0
