"""BATCH stage, many files: process every selected file in discovery order, here or on
worker processes (``parallel``)."""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, cast

from migrator.batch import discovery
from migrator.batch.discovery import Selection
from migrator.convert import routing
from migrator.load import sources
from migrator.results import FileResult
from migrator.settings import ConvertOptions

PARALLEL_THRESHOLD = 16  # files; below this one process is faster

if TYPE_CHECKING:
    from migrator.batch.writer import Destination

# what unchanged files without documents add to a run's counts (``process_counted``): files,
# files changed, documents scanned
Counts = tuple[int, int, int]


def process_paths(paths: tuple[str, ...], options: ConvertOptions,
                  selection: Selection | None = None, jobs: int = 1,
                  found: Iterable[tuple[str, str]] | None = None,
                  render: bool = True,
                  max_bytes: int = sources.MAX_BYTES,
                  audit: bool = False, keep_text: bool = True,
                  destination: Destination | None = None,
                  review: bool = False) -> Iterator[FileResult]:
    """Process every selected file, in discovery order, on up to ``jobs`` processes.

    With a ``destination`` each conversion is written where it was made
    (``FileResult.written`` / ``write_error``). Without ``keep_text`` results may come back
    slim, without file texts (for a run that neither prints nor reviews them).

    Results and their order are the same whatever ``jobs`` is; small batches stay in this
    process (and every batch where processes cannot fork: the workers are forked warm), and a
    run over ordinary manifests never loads the converter (``parallel``).
    A run that only needs results (no destination, no texts) takes those of unchanged files
    from the per-user results cache (``resultcache``); with ``jobs`` > 1 the changed files of a
    cached tree, however few, go to a worker forked at the first of them (``parallel``,
    ``direct``), which converts them while this process matches the rest of the tree against
    the cache. With ``review`` (a review report is
    asked for) converted jobs carry their effective-pod comparison (``explain.annotate``).

    ``found`` (default: the walk of ``paths``) is iterated as the run goes, so files are
    processed while the tree is walked; it must be iterable again (a list, or a
    ``discovery.Walk``): a kustomization asks which files are in the run.
    """
    # without ``counting``, results only
    yield from cast("Iterator[FileResult]", _process(
        paths, options, selection, jobs, found, render, max_bytes, audit, keep_text,
        destination, review, False))


def process_counted(paths: tuple[str, ...], options: ConvertOptions,
                    selection: Selection | None = None, jobs: int = 1,
                    found: Iterable[tuple[str, str]] | None = None,
                    render: bool = True,
                    max_bytes: int = sources.MAX_BYTES,
                    audit: bool = False, keep_text: bool = True,
                    destination: Destination | None = None,
                    review: bool = False) -> Iterator[FileResult | Counts]:
    """``process_paths`` for a run that only counts files without documents: unchanged ones
    taken from the results cache may come as ``Counts`` (files, files changed, documents
    scanned; a folder's at a time, in no particular place among its results) instead of a
    result per file."""
    return _process(paths, options, selection, jobs, found, render, max_bytes, audit,
                    keep_text, destination, review, True)


def _process(paths: tuple[str, ...], options: ConvertOptions, selection: Selection | None,
             jobs: int, found: Iterable[tuple[str, str]] | None, render: bool,
             max_bytes: int, audit: bool, keep_text: bool, destination: Destination | None,
             review: bool, counting: bool) -> Iterator[FileResult | Counts]:
    if found is None:
        found = discovery.Walk(paths, selection or Selection()).changes()
    if review:
        from migrator.batch import explain

        explain.forget()
    # an overlay converts whole or not at all; links are followed only as the walk does
    with routing.run_of(paths, found), sources.run_of(paths):
        yield from _process_found(found, options, jobs, render, max_bytes, audit, keep_text,
                                  destination, review, counting)


def _process_found(found: Iterable[tuple[str, str]], options: ConvertOptions, jobs: int,
                   render: bool, max_bytes: int, audit: bool, keep_text: bool,
                   destination: Destination | None, review: bool,
                   counting: bool) -> Iterator[FileResult | Counts]:
    if destination is not None:  # overlays read their legacy bases: convert them first
        from migrator.batch.files import process_file

        first, found = routing.kustomize_first(list(found))
        for name, relative in first:
            yield process_file(name, relative, options, render, max_bytes, audit, destination,
                               review)

    def process(files: Iterable[tuple[str, str]], warm: bool = False) -> Iterator[FileResult]:
        from migrator.batch.files import process_file  # here: a warm run processes no file

        walked = iter(files)
        if warm and jobs > 1 and hasattr(os, "fork"):  # the changed files of a cached tree:
            from migrator.batch import parallel  # converted while the rest is matched

            yield from parallel.run(walked, options, jobs, render, max_bytes, audit,
                                    keep_text, destination, review, direct=True)
            return
        head = list(itertools.islice(walked, PARALLEL_THRESHOLD))
        if jobs <= 1 or len(head) < PARALLEL_THRESHOLD or not hasattr(os, "fork"):
            for name, relative in itertools.chain(head, walked):
                yield process_file(name, relative, options, render, max_bytes, audit,
                                   destination, review)
            return
        from migrator.batch import parallel

        yield from parallel.run(itertools.chain(head, walked), options, jobs, render,
                                max_bytes, audit, keep_text, destination, review)

    if destination is None and not keep_text:  # results only: check, validate
        from migrator.batch import resultcache

        cached = resultcache.open_for(options, render, audit, max_bytes)
        if cached is not None:
            changed = functools.partial(process, warm=bool(cached.folders))
            yield from cached.counted(found, changed) if counting else \
                cached.through(found, changed)
            return
    yield from process(found)
