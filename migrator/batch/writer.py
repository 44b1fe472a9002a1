"""BATCH: write results in place or into a mirrored output tree that follows no link.

Every write goes through ``migrator/atomic.py`` (temporary file + rename, signals held back:
never a partial or stray file). Output trees (``-o DIR``) are entered one folder at a time
from a descriptor, with ``O_NOFOLLOW``: a link anywhere below DIR (to a file, a folder, or
nothing) is refused, never followed. DIR itself is the user's choice and may be a link.
In-place rewrites keep the file's permission bits and owner (as far as allowed) and write
through a link at the input's name; a backup replaces whatever is at its name.

Two inputs of one run never share an output path silently: ``Claims`` (in the main process,
as the run is walked, before any file is written) gives each output path to the first input
that maps to it; a later one carries ``TAKEN`` and the reason in its ``relative``, and its
conversion, if it has one, is refused as a write failure (exit code 2), wherever it is made.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from migrator import atomic
from migrator.load import sources

if TYPE_CHECKING:
    from migrator.results import FileResult

# starts the ``relative`` of an input whose output path an earlier input of the run has
# (``Claims``); the reason follows. No path holds a NUL character.
TAKEN = "\0taken\0"
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def write_below(output_dir: Path, relative: str, data: bytes, *, like: str | None) -> Path:
    """Write ``data`` at ``relative`` below ``output_dir`` without following any link below it.

    Missing folders are created. A link (or anything but a folder) where a folder is needed,
    or a link or non-file where the file goes, is refused with an OSError naming it. The new
    file gets the mode of the file ``like`` (the input) less the umask, as ``cp`` does.
    """
    parts = _parts(relative)
    output_dir.mkdir(parents=True, exist_ok=True)
    folder = atomic.open_folder(output_dir)
    shown = str(output_dir)
    try:
        for part in parts[:-1]:
            shown = os.path.join(shown, part)
            child = _enter(folder, part, shown)
            os.close(folder)
            folder = child
        _existing(folder, parts[-1], os.path.join(shown, parts[-1]))  # a file is replaced
        atomic.replace_at(folder, parts[-1], data, mode=_input_mode(like), owner=None,
                          durable=False, umask=True)
    finally:
        os.close(folder)
    return output_dir.joinpath(*parts)


def _parts(relative: str) -> list[str]:
    parts = [p for p in Path(relative).parts if p not in ("", ".", "..", "/", os.sep)]
    return parts or ["stdin.yaml"]


def _enter(folder: int, name: str, shown: str) -> int:
    """The descriptor of subfolder ``name`` of ``folder``, created if missing; never a link."""
    for _ in range(3):
        try:
            return os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=folder)
        except FileNotFoundError:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o777, dir_fd=folder)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise _refused(folder, name, shown, "a folder") from None
            raise
    raise OSError(errno.ENOENT, f"{shown} keeps disappearing")


def _existing(folder: int, name: str, shown: str) -> os.stat_result | None:
    """What is at ``name`` (not following a link): None if nothing, its stat if a regular
    file; anything else (a link, a folder, a FIFO) is refused."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise _refused(folder, name, shown, "a file", info)
    return info


def _refused(folder: int, name: str, shown: str, wanted: str,
             info: os.stat_result | None = None) -> OSError:
    if info is None:
        with contextlib.suppress(OSError):
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    if info is not None and stat.S_ISLNK(info.st_mode):
        return OSError(errno.ELOOP, f"{shown} is a symbolic link in the output folder "
                       "(links there are never followed)")
    kind = sources.kind_of(info.st_mode) if info is not None else "not there"
    return OSError(errno.EEXIST, f"{shown} is {kind}, where {wanted} must go")


def _input_mode(name: str | None) -> int:
    """The permission bits an output copies from its input (0666 for standard input)."""
    if name is None or name == sources.STDIN:
        return 0o666
    try:
        return stat.S_IMODE(os.stat(name).st_mode) & 0o777
    except OSError:
        return 0o666


class Claims:
    """The files of a run (``(path, relative)``, as ``found``) with each output path below
    ``output_dir`` given to the first input that maps to it: a later input that maps to the
    same path comes with ``TAKEN`` + why as its ``relative`` (``Destination.store`` refuses
    to write it). Iterable again, with the same answer (the walk is walked again)."""

    def __init__(self, found: Iterable[tuple[str, str]], output_dir: Path) -> None:
        self.found, self.output_dir = found, output_dir

    def __iter__(self) -> Iterator[tuple[str, str]]:
        owners: dict[tuple[str, ...], str] = {}
        for name, relative in self.found:
            parts = tuple(_parts(relative))
            first = owners.get(parts)
            if first is None:
                owners[parts] = name
            else:
                shown = os.path.join(self.output_dir, *parts)
                relative = f"{TAKEN}{shown} is also the output path of " \
                    f"{_input_name(first)}, an earlier input of this run"
            yield name, relative


def _input_name(name: str) -> str:
    return "standard input" if name == sources.STDIN else name


@dataclass(frozen=True)
class Destination:
    """Where converted files go: a mirrored ``output_dir``, or back in place (``output_dir``
    None) with an optional backup. Plain data, so worker processes write their own files."""

    output_dir: Path | None = None
    backup: str | None = None

    def store(self, file: FileResult) -> bool:
        """Write ``file``'s conversion if it is to be written; True when it was.

        Raises OSError when writing fails (the input is then unchanged).
        """
        if file.source is None or file.result is None:
            return False
        if self.output_dir is not None:
            if not file.changed:
                return False
            if file.relative.startswith(TAKEN):  # another input's output path (``Claims``)
                raise OSError(errno.EEXIST, file.relative[len(TAKEN):])
            write_below(self.output_dir, file.relative,
                        sources.encode(file.source, file.result.text), like=file.name)
            return True
        if not file.writable:
            return False
        if not os.path.lexists(file.name):  # removed while we worked: do not resurrect it
            raise FileNotFoundError(2, "the file disappeared during the run")
        target = Path(os.path.realpath(file.name))  # through a link: the link stays a link
        folder = atomic.open_folder(target.parent)
        try:
            current = _existing(folder, target.name, str(target))
            if current is None:
                raise FileNotFoundError(2, "the file disappeared during the run")
            mode, owner = stat.S_IMODE(current.st_mode), (current.st_uid, current.st_gid)
            if self.backup:
                _write_backup(Path(file.name + self.backup), file.source.raw, mode, owner)
            atomic.replace_at(folder, target.name,
                              sources.encode(file.source, file.result.text),
                              mode=mode, owner=owner, durable=True)
        finally:
            os.close(folder)
        return True


def _write_backup(path: Path, data: bytes, mode: int, owner: tuple[int, int]) -> None:
    """The original next to the input; whatever is at that name (a link too) is replaced,
    never followed."""
    atomic.replace_file(path, data, mode=mode, owner=owner)
