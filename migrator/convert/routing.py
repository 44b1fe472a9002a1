"""CONVERT stage router: files that are not plain YAML manifests but hold them (Markdown pages,
shell scripts, test snapshots, kustomizations and their patch files) go to their own
reader; everything else is an ordinary YAML stream.

The readers are imported only when a file needs one: deciding that a file is an ordinary
YAML stream costs a suffix test and, once per folder, a look for a kustomization beside it
(a run over ordinary manifests never loads the readers).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from migrator.convert.filekinds import (
    KUSTOMIZATIONS,
    MARKDOWN_SUFFIXES,
    SHELL_SUFFIXES,
    SNAPSHOT_SUFFIXES,
)
from migrator.settings import ConvertOptions

if TYPE_CHECKING:
    from migrator.results import SourceText, TextResult

SUFFIXES = MARKDOWN_SUFFIXES + SHELL_SUFFIXES + SNAPSHOT_SUFFIXES
_PATCH_SUFFIXES = (".yaml", ".yml", ".json")
_beside: dict[str, bool] | None = None  # folder -> holds a kustomization (within a run)
# the run (``run_of``): named paths and files, handed to the kustomization reader when the
# first kustomization or patch file is met (``_begin``); most runs never meet one
_pending: tuple[tuple[str, ...], Iterable[tuple[str, str]]] | None = None
_begun = False


def handles(name: str) -> bool:
    """``name`` is read by a reader of this package, not as a YAML stream. (A kustomization
    or a patch file may hold no Kubeflow group name, so the caller must not prefilter it.)"""
    lowered = name.lower()
    if lowered.endswith(SUFFIXES):
        return True
    return _kustomization_or_patch(name, lowered)


def _kustomization_or_patch(name: str, lowered: str) -> bool:
    """``name`` is a kustomization, or a patch file the kustomization beside it names (the
    reader is asked only when there is a kustomization in the folder at all)."""
    if "ustomization" in name or (lowered.endswith(_PATCH_SUFFIXES)
                                  and beside_kustomization(split(name)[0])):
        _begin()
        from migrator.convert import kustomization

        return kustomization.is_kustomization(name) or (
            lowered.endswith(_PATCH_SUFFIXES) and kustomization.owner(name) is not None)
    return False


def split(name: str) -> tuple[str, str]:
    """``name``'s folder and base name (``os.path.split``, fast: called for every file)."""
    if os.altsep is not None:
        return os.path.split(name)
    head, _, base = name.rpartition(os.sep)
    return head or (os.sep if name.startswith(os.sep) else ""), base


def beside_kustomization(folder: str) -> bool:
    """Whether ``folder`` holds an entry named like a kustomization (remembered per folder
    within a run). False means that no file of the folder is a kustomization's patch file;
    True that its files depend on the kustomization (never cached, read by its reader)."""
    cache = _beside
    if cache is not None:
        known = cache.get(folder)
        if known is not None:
            return known
    base = folder or "."
    try:
        found = any(os.path.lexists(os.path.join(base, entry)) for entry in KUSTOMIZATIONS)
    except ValueError:  # a NUL in the name: no such folder
        found = False
    if cache is not None:
        cache[folder] = found
    return found


def _near_kustomization(name: str) -> bool:
    """Whether an overlay may patch the file ``name``: a kustomization sits in its folder or a
    folder above it. Kustomize reads a base through the base folder's own kustomization, and
    a file resource only below the overlay's folder (its default load restrictions), so the
    files of any other folder need no look at the run's overlays (a walk of the whole run)."""
    folder = os.path.dirname(os.path.abspath(name))
    while not beside_kustomization(folder):
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent
    return True


def exact(name: str, read: SourceText) -> SourceText:
    """A Markdown page or shell script read with CRLF line endings, as its exact text (each
    line's ending as read, ``newline`` "\\n" so that writing it back changes nothing): only
    the lines of a converted snippet change, everything else stays byte-identical even when
    the file mixes line endings. Any other file is returned as it is."""
    from migrator.results import BOMS

    if read.newline == "\n" or not name.lower().endswith(MARKDOWN_SUFFIXES + SHELL_SUFFIXES):
        return read
    data = read.raw[len(BOMS[read.encoding]):] if read.bom else read.raw
    try:
        text = data.decode(read.encoding)
    except UnicodeDecodeError:
        return read
    if text.replace("\r\n", "\n") != read.text:
        return read
    import dataclasses  # here: every run imports this module, few files need it

    return dataclasses.replace(read, text=text, newline="\n")


def needs_no_group(name: str) -> bool:
    """A kustomization or patch file may convert without naming a Kubeflow group."""
    return not name.lower().endswith(SUFFIXES)


def convert(name: str, text: str, options: ConvertOptions | None = None,
            render: bool = True) -> TextResult | None:
    """The conversion of ``text`` read from ``name``; None for an ordinary YAML file."""
    from migrator.results import TextResult

    lowered = name.lower()
    if lowered.endswith(MARKDOWN_SUFFIXES):
        from migrator.convert import markdown

        return markdown.convert(text, options, render)
    from migrator.convert import shell

    if lowered.endswith(SHELL_SUFFIXES):
        return shell.convert(text, options, render)
    if lowered.endswith(SNAPSHOT_SUFFIXES):
        documents = shell.unconverted(text, 0, "a test snapshot")
        for index, document in enumerate(documents):
            document.index = index
        return TextResult(text, documents)
    from migrator.convert import kustomization

    if kustomization.is_kustomization(name):
        return kustomization.convert_kustomization(name, text, options, render)
    return kustomization.convert_patch_file(name, text, options, render)


@contextlib.contextmanager
def run_of(paths: tuple[str, ...], found: Iterable[tuple[str, str]]) -> Iterator[None]:
    """Within: ``found`` is the run (kustomizations read only inside the folders named in
    ``paths`` or their git checkout, and convert an overlay only with all its files).

    ``found`` is not iterated here (a walk streams through the run): the kustomization
    reader learns about the run when the first kustomization or patch file is met, in this
    process or in a (forked) worker; a run that meets none never reads it. Folder lookups
    are remembered until the run ends."""
    global _beside, _pending, _begun
    _beside, _pending, _begun = {}, (paths, found), False
    try:
        yield
    finally:
        if _begun:
            from migrator.convert import kustomization

            kustomization.end_run()
        _beside, _pending, _begun = None, None, False


def _begin() -> None:
    """Hand the run to the kustomization reader (once per run and process)."""
    global _begun
    if _pending is not None and not _begun:
        from migrator.convert import kustomization

        kustomization.begin_run(*_pending)
        _begun = True


def hold_bases(name: str, text: str, result: TextResult,
               options: ConvertOptions) -> tuple[TextResult, bool]:
    """``result`` (the conversion of the YAML stream ``text`` read from ``name``) without the
    legacy jobs that an overlay of the run which cannot be converted patches (its bases follow
    it: ``kustomization.hold_bases``), and whether it may be cached: not when a kustomization
    is near (its result depends on the overlays, which the file's stamp does not cover).
    Asked only of a result that converts something, so a run that converts nothing never
    looks for overlays."""
    if _pending is None or not result.changed or not _near_kustomization(name):
        return result, True
    _begin()
    from migrator.convert import kustomization

    # an overlay may patch it (now or once edited): never cached
    return kustomization.hold_bases(name, text, result, options), False


def kustomize_first(found: list[tuple[str, str]]
                    ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``found`` split into kustomizations with their patch files, and the rest (in order).
    A run that writes converts the former first, while the bases they read are still the
    legacy jobs."""
    first = [f for f in found if "ustomization" in f[0]
             or beside_kustomization(split(f[0])[0])]
    if first:
        _begin()
        from migrator.convert import kustomization

        first = [f for f in first if kustomization.is_kustomization(f[0])
                 or kustomization.owner(f[0]) is not None]
    if not first:
        return [], found
    chosen = set(first)
    return first, [f for f in found if f not in chosen]
