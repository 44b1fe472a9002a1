"""CONVERT stage router: files that are not plain YAML manifests but hold them (Markdown pages,
shell scripts, test snapshots, kustomizations and their patch files) go to their own
reader; everything else is an ordinary YAML stream."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING

from migrator.convert import kustomization, markdown, shell
from migrator.load import textscan as scan
from migrator.settings import ConvertOptions

if TYPE_CHECKING:
    from migrator.results import SourceText, TextResult

SUFFIXES = markdown.SUFFIXES + scan.SHELL_SUFFIXES + scan.SNAPSHOT_SUFFIXES


def handles(name: str) -> bool:
    """``name`` is read by a reader of this package, not as a YAML stream. (A kustomization
    or a patch file may hold no Kubeflow group name, so the caller must not prefilter it.)"""
    return name.lower().endswith(SUFFIXES) or kustomization.is_kustomization(name) or (
        name.lower().endswith((".yaml", ".yml", ".json")) and kustomization.owner(name)
        is not None)


def exact(name: str, read: SourceText) -> SourceText:
    """A Markdown page or shell script read with CRLF line endings, as its exact text (each
    line's ending as read, ``newline`` "\\n" so that writing it back changes nothing): only
    the lines of a converted snippet change, everything else stays byte-identical even when
    the file mixes line endings. Any other file is returned as it is."""
    from migrator.results import BOMS

    if read.newline == "\n" or not name.lower().endswith(markdown.SUFFIXES
                                                          + scan.SHELL_SUFFIXES):
        return read
    data = read.raw[len(BOMS[read.encoding]):] if read.bom else read.raw
    try:
        text = data.decode(read.encoding)
    except UnicodeDecodeError:
        return read
    if text.replace("\r\n", "\n") != read.text:
        return read
    return dataclasses.replace(read, text=text, newline="\n")


def needs_no_group(name: str) -> bool:
    """A kustomization or patch file may convert without naming a Kubeflow group."""
    return not name.lower().endswith(SUFFIXES)


def convert(name: str, text: str, options: ConvertOptions | None = None,
            render: bool = True) -> TextResult | None:
    """The conversion of ``text`` read from ``name``; None for an ordinary YAML file."""
    from migrator.results import TextResult

    lowered = name.lower()
    if lowered.endswith(markdown.SUFFIXES):
        return markdown.convert(text, options, render)
    if lowered.endswith(scan.SHELL_SUFFIXES):
        return shell.convert(text, options, render)
    if lowered.endswith(scan.SNAPSHOT_SUFFIXES):
        documents = shell.unconverted(text, 0, "a test snapshot")
        for index, document in enumerate(documents):
            document.index = index
        return TextResult(text, documents)
    if kustomization.is_kustomization(name):
        return kustomization.convert_kustomization(name, text, options, render)
    return kustomization.convert_patch_file(name, text, options, render)


@contextlib.contextmanager
def run_of(paths: tuple[str, ...], found: list[tuple[str, str]]) -> Iterator[None]:
    """Within: ``found`` is the run (kustomizations read only inside the folders named in
    ``paths`` or their git checkout, and convert an overlay only with all its files)."""
    kustomization.begin_run(paths, found)
    try:
        yield
    finally:
        kustomization.end_run()


def kustomize_first(found: list[tuple[str, str]]
                    ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``found`` split into kustomizations with their patch files, and the rest (in order).
    A run that writes converts the former first, while the bases they read are still the
    legacy jobs."""
    first = [f for f in found if kustomization.is_kustomization(f[0])
             or kustomization.owner(f[0]) is not None]
    if not first:
        return [], found
    chosen = set(first)
    return first, [f for f in found if f not in chosen]
