"""BATCH: write results in place or into a mirrored output tree that follows no link.

Every write goes through ``migrator/atomic.py`` (temporary file + rename, signals held back:
never a partial or stray file). Output trees (``-o DIR``) are entered one folder at a time
from a descriptor, with ``O_NOFOLLOW``: a link anywhere below DIR (to a file, a folder, or
nothing) is refused, never followed. DIR itself is the user's choice and may be a link.
In-place rewrites (``_rewrite``) replace the file that was read and nothing else: the file
is opened once without following a link, kept open, and the new file takes its name only if
the name still leads to it and it still holds the bytes read (else Y120: an edit saved
meanwhile is never lost, a link swapped in is never written through); they keep the file's
permission bits, owner (as far as allowed) and extended attributes (POSIX ACLs). A link at
the input's name when the run writes is kept: its target is replaced (if it is the file
that was read). A backup never replaces an existing file (Y121).

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
    from migrator.results import FileResult, SourceText

# starts the ``relative`` of an input whose output path an earlier input of the run has
# (``Claims``); the reason follows. No path holds a NUL character.
TAKEN = "\0taken\0"
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_OLD_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
# A refused write whose finding is not Y106 carries its code in ``write_error`` (``coded``):
# CODED + code + CODED + message (no message starts with a NUL character).
CODED = "\0"
CHANGED = "Y120"  # the input changed (edited, replaced, swapped for a link) since it was read
CHANGED_MESSAGE = "the file changed since it was read (edited, replaced or swapped for a " \
    "link); it was left as it is"
BACKUP_TAKEN = "Y121"  # the backup's name is taken by a file the run did not write
HINTS = {CHANGED: "Run the tool again on the file as it is now; nothing was written.",
         BACKUP_TAKEN: "Remove or move that file, or choose another --backup suffix (one "
         "the run does not select as an input), then run the tool again."}


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
        _rewrite(file.name, file.source, sources.encode(file.source, file.result.text),
                 self.backup)
        return True


class Refused(OSError):
    """A write refused with a finding of its own (``code``), not a Y106 write failure."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(errno.EEXIST, f"{CODED}{code}{CODED}{message}")


def coded(error: str) -> tuple[str, str]:
    """The finding code and the message of a ``FileResult.write_error``."""
    if error.startswith(CODED):
        code, _, message = error[len(CODED):].partition(CODED)
        return code, message
    return "Y106", error


def _rewrite(name: str, source: SourceText, data: bytes, backup: str | None) -> None:
    """Replace the input ``name`` by ``data`` if it still holds what was read (``source``).

    The file is opened once, without following a link at its name (a link there when the
    run writes: its target, which must be the file that was read), and stays open; the
    new file is written in its folder (held open) and takes its name only if, just before
    that, the name still leads to that file and it still holds the bytes that were read
    (an edit saved meanwhile, or a link swapped in, refuses the write: ``CHANGED``; a file
    that holds this very conversion by then, written by another run at once, is left as
    it is, without a finding). It keeps the file's permission bits, owner (as far as
    allowed) and extended attributes (POSIX ACLs). The backup is written next to ``name``,
    never over an existing file.
    """
    try:
        linked = stat.S_ISLNK(os.lstat(name).st_mode)
    except FileNotFoundError:  # removed while we worked: do not resurrect it
        raise FileNotFoundError(2, "the file disappeared during the run") from None
    target = os.path.realpath(name) if linked else name  # a link named stays a link
    folder = atomic.open_folder(Path(os.path.dirname(target) or "."))
    try:
        if not sources.within_run(name, folder):  # a folder of the walk swapped for a link
            raise Refused(CHANGED, CHANGED_MESSAGE)
        leaf = os.path.basename(target)
        handle = _open_old(folder, leaf)
        try:
            info = os.fstat(handle)
            if not stat.S_ISREG(info.st_mode) or not _holds(handle, info, source):
                if _same_file(folder, leaf, data):  # another run wrote this conversion
                    return
                raise Refused(CHANGED, CHANGED_MESSAGE)
            mode, owner = stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid)
            xattrs = atomic.xattrs_of(handle)
            kept = name + backup if backup else None
            made = _write_backup(kept, source.raw, mode, owner, xattrs) if kept else None

            def unchanged() -> None:
                now = os.stat(leaf, dir_fd=folder, follow_symlinks=False)
                if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino) or \
                        not _holds(handle, os.fstat(handle), source):
                    if _same_file(folder, leaf, data):
                        raise _Done
                    raise Refused(CHANGED, CHANGED_MESSAGE)

            try:
                atomic.replace_at(folder, leaf, data, mode=mode, owner=owner, durable=True,
                                  xattrs=xattrs, check=unchanged)
            except _Done:
                return
            except OSError:
                if kept is not None and made is not None:  # no rewrite, no backup
                    _remove(kept, made)
                raise
        finally:
            os.close(handle)
    finally:
        os.close(folder)


class _Done(Exception):
    """The file changed since it was read, into this very conversion (another run at once
    wrote it): nothing to write, nothing lost."""


def _open_old(folder: int, leaf: str) -> int:
    """The input at ``leaf`` in ``folder``, open for reading; never through a link, never
    blocking (a FIFO swapped in is opened and then refused as not a regular file)."""
    try:
        return os.open(leaf, _OLD_FLAGS, dir_fd=folder)
    except FileNotFoundError:
        raise FileNotFoundError(2, "the file disappeared during the run") from None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EMLINK):
            raise Refused(CHANGED, CHANGED_MESSAGE) from None
        raise


def _holds(handle: int, info: os.stat_result, source: SourceText) -> bool:
    """Whether the open file is the one that was read, unchanged: its identity (device,
    inode, size, modification time) and, for a change within one clock tick, its bytes."""
    read = source.identity
    if read is not None and (info.st_size, info.st_mtime_ns, info.st_ino, info.st_dev) != \
            (read[1], read[2], read[4], read[5]):
        return False
    if info.st_size != len(source.raw):
        return False
    return os.pread(handle, len(source.raw) + 1, 0) == source.raw


def _write_backup(path: str, data: bytes, mode: int, owner: tuple[int, int],
                  xattrs: list[tuple[str, bytes]]) -> tuple[int, int] | None:
    """The original next to the input, with its mode, owner and extended attributes; the
    (device, inode) of the backup written, None when one was there. It never replaces an
    existing file (another input of the run, a file of someone else's, an earlier backup):
    a regular file holding the same bytes (a backup an interrupted run wrote) is kept,
    anything else refuses the rewrite (``BACKUP_TAKEN``)."""
    folder = atomic.open_folder(Path(os.path.dirname(path) or "."))
    try:
        leaf = os.path.basename(path)
        try:
            atomic.replace_at(folder, leaf, data, mode=mode, owner=owner, durable=True,
                              xattrs=xattrs, exclusive=True)
        except FileExistsError:
            if not _same_file(folder, leaf, data):
                raise Refused(BACKUP_TAKEN, f"{path} exists and is not this file's "
                              "original (another input, or an earlier backup): it is not "
                              "replaced") from None
            return None
        made = os.stat(leaf, dir_fd=folder, follow_symlinks=False)
        return made.st_dev, made.st_ino
    finally:
        os.close(folder)


def _remove(path: str, made: tuple[int, int]) -> None:
    """Remove the backup this run wrote at ``path`` (if it is still that file)."""
    with contextlib.suppress(OSError):
        folder = atomic.open_folder(Path(os.path.dirname(path) or "."))
        try:
            leaf = os.path.basename(path)
            now = os.stat(leaf, dir_fd=folder, follow_symlinks=False)
            if (now.st_dev, now.st_ino) == made:
                os.unlink(leaf, dir_fd=folder)
        finally:
            os.close(folder)


def _same_file(folder: int, leaf: str, data: bytes) -> bool:
    """Whether ``leaf`` is a regular file (not a link) holding exactly ``data``."""
    try:
        handle = os.open(leaf, _OLD_FLAGS, dir_fd=folder)
    except OSError:
        return False
    try:
        info = os.fstat(handle)
        return stat.S_ISREG(info.st_mode) and info.st_size == len(data) and \
            os.pread(handle, len(data) + 1, 0) == data
    finally:
        os.close(handle)
