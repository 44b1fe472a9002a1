"""BATCH: run a batch on worker processes; results come back in discovery order.

Until the first file that holds a Kubeflow document, this process reads and settles the files
itself, so a run over ordinary manifests never loads the converter nor starts a worker. At
that file it starts the workers, which load the converter side by side; from then on they
read and convert whole batches of files, so reading is parallel too, while this process only
collects plain results (it never loads the converter). A few batches per worker are queued,
results are handed on as soon as they are next in order, and at most ``MAX_PENDING`` tasks
are held back for order, so memory does not grow with the size of the run. A worker that
dies is replaced; the files it held are redone one by one on a worker of their own, and a
file that kills that one too is reported (Y105) instead of ending the run.
"""

from __future__ import annotations

import functools
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from migrator.batch import files, helm
from migrator.load import sources
from migrator.results import (
    DocumentResult,
    FileResult,
    Finding,
    Severity,
    SourceText,
    TextResult,
    Unreadable,
)
from migrator.settings import ConvertOptions

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from migrator.batch.writer import Destination

    # What a run waits for: a settled result, the text of a file converting in a worker, or
    # a batch of files a worker reads and converts (kept, to be redone here if it dies).
    TextTask = tuple[SourceText, Future[TextResult]]
    BatchTask = tuple[list[tuple[str, str]], Future[list[FileResult]]]
    Pending = FileResult | TextTask | BatchTask

BATCH = 24  # files per task: enough to outweigh a task's overhead, small enough to balance
BATCHES_PER_WORKER = 3  # tasks queued per worker, so none waits for work
MAX_PENDING = 256  # tasks whose results are held back for order (bounds memory)


def run(found: Iterable[tuple[str, str]], options: ConvertOptions, jobs: int, render: bool,
        max_bytes: int, audit: bool, keep_text: bool = True,
        destination: Destination | None = None, review: bool = False) -> Iterator[FileResult]:
    """Results in the order of ``found``. Conversions are written to ``destination`` by the
    process that made them; without ``keep_text`` results come back without file texts
    (slim: the caller neither prints nor reviews them); with ``review`` converted jobs carry
    their effective-pod comparison, made by the worker that converted them."""
    task = _Task(options, render, max_bytes, audit, keep_text, destination, review)
    pending: deque[Pending] = deque()
    pool: _Workers | None = None
    batch: list[tuple[str, str]] = []
    try:
        for name, relative in found:
            if pool is None:  # no Kubeflow document yet: settle files here
                done = None if name.startswith(helm.PREFIX) else \
                    files.settled(name, relative, max_bytes)
                if isinstance(done, FileResult):
                    yield done  # nothing is pending before the workers start
                    continue
                pool = _Workers(jobs)
                if done is None:
                    batch.append((name, relative))
                else:
                    pending.append((done, _submit_text(pool, done.text, task)))
            elif name == sources.STDIN:  # only this process can read standard input
                _submit(pool, batch, pending, task)
                read = sources.read(name, relative, max_bytes)
                if isinstance(read, Unreadable):
                    pending.append(FileResult(name, relative, unreadable=read))
                else:
                    pending.append((read, _submit_text(pool, read.text, task)))
            else:
                batch.append((name, relative))
                if len(batch) < BATCH:
                    continue  # nothing new to wait for
                _submit(pool, batch, pending, task)
            yield from _hand_on(pending, jobs * BATCHES_PER_WORKER, task, pool)
        if pool is not None:
            _submit(pool, batch, pending, task)
        while pending:
            assert pool is not None
            yield from _results(pending.popleft(), task, pool)
    finally:
        if pool is not None:
            pool.shutdown()


def _hand_on(pending: deque[Pending], busy_cap: int, task: _Task,
             pool: _Workers) -> Iterator[FileResult]:
    """Hand on the results that are next in order. When enough work is queued, wait for any
    task to finish (not the oldest: a slow batch must not leave the other workers idle); when
    too many results are held back for order, wait for the oldest."""
    while True:
        while pending and _ready(pending[0]):
            yield from _results(pending.popleft(), task, pool)
        if len(pending) > MAX_PENDING:
            yield from _results(pending.popleft(), task, pool)
            continue
        if len(pending) <= busy_cap:
            return
        busy: list[Future[Any]] = [_future(item) for item in pending if not _ready(item)]
        if len(busy) <= busy_cap:
            return
        from concurrent.futures import FIRST_COMPLETED, wait

        wait(busy, return_when=FIRST_COMPLETED)


class _Workers:
    """The worker processes of a run. A pool whose worker died is replaced by a fresh one,
    and the work the dead worker held is redone one file at a time on a worker of its own:
    never in this process, so that an input that crashes the converter (a parser's
    segmentation fault, the out-of-memory killer) cannot end the run, only its own file."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.pool = _start(jobs)
        self.alone: ProcessPoolExecutor | None = None

    def submit(self, function: Callable[..., Any], *args: Any) -> Future[Any]:
        try:
            return self.pool.submit(function, *args)
        except BrokenProcessPool:
            _worker_died()
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = _start(self.jobs)
            return self.pool.submit(function, *args)

    def isolated(self, function: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
        """``function(*args)`` on a worker of its own: (True, its result), or (False, None)
        when that worker dies too."""
        if self.alone is None:
            self.alone = _start(1)
        try:
            return True, self.alone.submit(function, *args).result()
        except BrokenProcessPool:
            self.alone.shutdown(wait=False, cancel_futures=True)
            self.alone = None
            return False, None

    def shutdown(self) -> None:
        self.pool.shutdown(cancel_futures=True)
        if self.alone is not None:
            self.alone.shutdown(cancel_futures=True)


def _start(jobs: int) -> ProcessPoolExecutor:
    """Start the workers; each loads the converter itself, side by side (this process reads
    only plain results and never needs it)."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=jobs, initializer=_load_converter)


def _load_converter() -> None:
    """Worker set-up: Ctrl-C is the main process's to handle (it stops the workers), and the
    converter is imported once, before the first task."""
    import importlib
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for module in ("migrator.convert.document", "migrator.check.audit"):
        importlib.import_module(module)


@dataclass(frozen=True)
class _Task:
    """What every batch of a run is asked to do."""

    options: ConvertOptions
    render: bool
    max_bytes: int
    audit: bool
    keep_text: bool
    destination: Destination | None
    review: bool = False


def _submit(pool: _Workers, batch: list[tuple[str, str]], pending: deque[Pending],
            task: _Task) -> None:
    if batch:
        names = list(batch)
        batch.clear()
        pending.append((names, pool.submit(_process_batch, names, task)))


def _submit_text(pool: _Workers, text: str, task: _Task) -> Future[TextResult]:
    return pool.submit(files.convert_or_audit, text, task.options, task.render, task.audit,
                       task.review)


@functools.cache
def _worker_died() -> None:
    """A worker process died (killed, out of memory, crashed): its files are redone one by
    one on a fresh worker. Said once per run (cached)."""
    print("trainjob-migrate: a worker process died; its files are converted again one by "
          "one", file=sys.stderr)


def _process_batch(batch: list[tuple[str, str]], task: _Task) -> list[FileResult]:
    results = [files.process_file(name, relative, task.options, task.render, task.max_bytes,
                                  task.audit, task.destination, task.review)
               for name, relative in batch]
    return results if task.keep_text else [result.slim() for result in results]


def _future(item: Pending) -> Future[Any]:
    assert not isinstance(item, FileResult)
    return item[1]


def _ready(item: Pending) -> bool:
    return isinstance(item, FileResult) or item[1].done()


def _results(item: Pending, task: _Task, pool: _Workers) -> Iterator[FileResult]:
    if isinstance(item, FileResult):
        yield item
    elif isinstance(item[0], list):
        names, batch_future = item
        try:
            yield from batch_future.result()
        except BrokenProcessPool:
            _worker_died()
            for name, relative in names:
                survived, results = pool.isolated(_process_batch, [(name, relative)], task)
                yield results[0] if survived else _crashed(name, relative, task)
    else:
        read, text_future = item
        try:
            result = text_future.result()
        except BrokenProcessPool:
            _worker_died()
            survived, result = pool.isolated(files.convert_or_audit, read.text, task.options,
                                             task.render, task.audit, task.review)
            if not survived:
                yield _crashed(read.name, read.relative, task, read)
                return
        yield files.store(FileResult(read.name, read.relative, source=read, result=result),
                          task.destination)


def _crashed(name: str, relative: str, task: _Task, read: SourceText | None = None
             ) -> FileResult:
    """The result of a file that killed the worker converting it, twice: Y105, unchanged."""
    if read is None:
        got = sources.read(name, relative, task.max_bytes)
        if isinstance(got, Unreadable):
            return FileResult(name, relative, unreadable=got)
        read = got
    finding = Finding("Y105", Severity.ERROR, "", "converting this file killed the worker "
                      "process twice (a crash in a parser or the converter, or too little "
                      "memory); the file was left unchanged")
    document = DocumentResult(0, 1, "failed", read.text, findings=[finding])
    result = FileResult(name, relative, source=read, result=TextResult(read.text, [document]))
    return result if task.keep_text else result.slim()
