"""BOTTOM (file I/O used by every stage): atomic file replacement no signal leaves half done.

``replace_at`` writes new content to a temporary file in the target's folder (unnamed,
``O_TMPFILE``, where the system offers it), flushes it, gives it its permission bits (and
owner, where allowed), then names it, while SIGINT, SIGTERM and SIGHUP are held back
(``signals_held``). A new file is named at once by its final name (one ``link``: it
appears complete or not at all); an existing one is replaced by naming the temporary file
``.NAME.XXXXXXXX.tmp`` and renaming it over the target. Whatever stops the run, the target
is the old file or the complete new one and no temporary file is left; only a SIGKILL
landing between those two system calls can leave the complete new content under the
``.NAME.XXXXXXXX.tmp`` name, and the next run that writes NAME removes it
(``_remove_leftovers``). The rename replaces whatever is at the name (a link too), never
writing through it. The new file can carry the old one's extended attributes (POSIX ACLs:
``xattrs_of``), be named only where nothing is (``exclusive``: backups), and take the name
only if a last ``check`` passes (in-place rewrites: the input is still the file read).
Every file the tool writes goes through here: conversions, backups, output trees, reports,
cache entries (it sits at the bottom so that every stage may use it; it imports nothing).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

_HELD = tuple(getattr(signal, name) for name in ("SIGHUP", "SIGTERM", "SIGINT")
              if hasattr(signal, name))  # SIGINT last: restored last
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_TMPFILE = getattr(os, "O_TMPFILE", 0) if os.path.isdir("/proc/self/fd") else 0
_TEMP_NAME_BYTES = 200  # room for the ".NAME.XXXXXXXX.tmp" decoration within NAME_MAX
_TEMP_SUFFIX = len(".XXXXXXXX.tmp")
_HEX = frozenset("0123456789abcdef")
_NO_XATTRS = frozenset(getattr(errno, name) for name in ("ENOTSUP", "EOPNOTSUPP", "ENOSYS")
                       if hasattr(errno, name))
_STARTED_NS = time.time_ns()  # leftovers are older than this process
# per folder (device, inode) this process wrote into: NAME -> leftover names of NAME there
_LEFTOVERS: dict[tuple[int, int], dict[str, list[str]]] = {}


def replace_file(path: Path, data: bytes, *, mode: int | None = None,
                 owner: tuple[int, int] | None = None, durable: bool = True) -> None:
    """Atomically replace the file at ``path`` (its folder is opened following links; a link
    at ``path`` itself is replaced, not followed). See ``replace_at`` for the arguments."""
    folder = open_folder(path.parent)
    try:
        replace_at(folder, path.name, data, mode=mode, owner=owner, durable=durable)
    finally:
        os.close(folder)


def open_folder(path: Path) -> int:
    """A descriptor of a folder the user named (links in its path are followed)."""
    return os.open(path, os.O_RDONLY | _DIRECTORY | _CLOEXEC)


def replace_at(folder: int, name: str, data: bytes, *, mode: int | None,
               owner: tuple[int, int] | None, durable: bool, umask: bool = False,
               xattrs: Sequence[tuple[str, bytes]] = (), exclusive: bool = False,
               check: Callable[[], None] | None = None) -> None:
    """Atomically replace ``name`` in the open folder ``folder`` with ``data``.

    ``mode`` None: 0666 less the umask; with ``umask`` the umask applies to ``mode`` too,
    else ``mode`` is set exactly. ``owner`` is kept where the system allows. ``xattrs``
    (``xattrs_of`` an old file: its POSIX ACL too) are given to the new file; one that
    cannot be set fails the write (a file system without extended attributes has none to
    carry). With ``exclusive`` an existing file at ``name`` is never replaced
    (FileExistsError). ``check`` runs just before the new file takes the name (it raises
    to refuse the write: the target is then untouched).
    """
    with signals_held():
        handle, temp = _temporary(folder, name, 0o666 if mode is None or not umask else mode)
        try:
            write_all(handle, data)
            if owner is not None:
                with contextlib.suppress(OSError):
                    os.fchown(handle, *owner)
            if mode is not None and not umask:
                os.fchmod(handle, mode & 0o777)
            for key, value in xattrs:  # after the mode: an ACL's mask stays the old file's
                if _xattr(handle, key) != value:  # (a label the folder gives already: kept)
                    os.setxattr(handle, key, value)
            if durable:
                os.fsync(handle)
            if check is not None:
                check()
            if exclusive:  # never over an existing file
                if not _name_new(handle, temp, name, folder):
                    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), name)
            elif not (temp is None and _link(handle, name, folder)):  # new: complete at once
                if temp is None:  # name the unnamed file, then rename it at once
                    temp = _temp_name(name)
                    try:
                        _link(handle, temp, folder, exclusive=False)
                    except BaseException:
                        temp = None  # not ours to remove
                        raise
                os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
                temp = None
        finally:
            os.close(handle)
            if temp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=folder)
    _remove_leftovers(folder, name)


def _name_new(handle: int, temp: str | None, name: str, folder: int) -> bool:
    """Give the new file ``name`` unless something is there (False: left as it is)."""
    if temp is None:
        return _link(handle, name, folder)
    try:
        os.link(temp, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
    except FileExistsError:
        return False
    return True


def xattrs_of(handle: int) -> list[tuple[str, bytes]]:
    """The extended attributes of an open file (its POSIX ACLs among them), to carry to
    the file that replaces it; none where the file system or the system has none."""
    listed = getattr(os, "listxattr", None)
    if listed is None:
        return []
    try:
        names = listed(handle)
    except OSError as exc:
        if exc.errno in _NO_XATTRS:
            return []
        raise
    return [(key, os.getxattr(handle, key)) for key in sorted(names)]


def _xattr(handle: int, key: str) -> bytes | None:
    """An extended attribute of an open file (None: it has none of that name)."""
    try:
        return os.getxattr(handle, key)
    except OSError:
        return None


def _link(handle: int, name: str, folder: int, *, exclusive: bool = True) -> bool:
    """Name the unnamed file ``handle`` ``name`` in ``folder``. With ``exclusive``, False
    when something is at that name already (left as it is); otherwise that raises."""
    try:
        os.link(f"/proc/self/fd/{handle}", name, dst_dir_fd=folder, follow_symlinks=True)
    except FileExistsError:
        if exclusive:
            return False
        raise
    return True


def _remove_leftovers(folder: int, name: str) -> None:
    """Remove what a killed earlier run left of its write of ``name``: a regular file of
    this user's named ``.NAME.XXXXXXXX.tmp`` (8 lowercase hex digits), older than this
    process. Each folder is listed once per process, the first time it is written into."""
    try:
        info = os.fstat(folder)
        key = (info.st_dev, info.st_ino)
        found = _LEFTOVERS.get(key)
        if found is None:
            found = _LEFTOVERS[key] = _leftovers_in(os.listdir(folder))
        base = _temp_base(name)
        if base not in found:
            return
    except OSError:
        return  # a folder that cannot be listed keeps its leftovers; the write stands
    for leftover in found.pop(base):
        try:
            info = os.stat(leftover, dir_fd=folder, follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and \
                    info.st_nlink == 1 and info.st_mtime_ns < _STARTED_NS:
                os.unlink(leftover, dir_fd=folder)
        except OSError:
            continue  # one that cannot be looked at or removed stays; the others go


def _leftovers_in(names: list[str]) -> dict[str, list[str]]:
    """NAME -> the ``.NAME.XXXXXXXX.tmp`` names among ``names``."""
    found: dict[str, list[str]] = {}
    for entry in names:
        if entry.endswith(".tmp") and entry.startswith(".") and \
                len(entry) > _TEMP_SUFFIX + 1 and entry[-_TEMP_SUFFIX] == "." and \
                _HEX.issuperset(entry[-_TEMP_SUFFIX + 1:-4]):
            found.setdefault(entry[1:-_TEMP_SUFFIX], []).append(entry)
    return found


def write_all(handle: int, data: bytes) -> None:
    """Write all of ``data`` to the descriptor (``os.write`` may write less)."""
    view = memoryview(data)
    while view:
        view = view[os.write(handle, view):]


def _temporary(folder: int, name: str, mode: int) -> tuple[int, str | None]:
    """A new file for ``name``'s content: unnamed (``O_TMPFILE``) when the system offers
    it, else an exclusive ``.NAME.RANDOM.tmp`` (None: unnamed)."""
    if _TMPFILE:
        try:
            return os.open(".", _TMPFILE | os.O_WRONLY | _CLOEXEC, mode, dir_fd=folder), None
        except OSError:
            pass  # not offered by this file system: a named temporary file
    while True:
        temp = _temp_name(name)
        try:
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                           mode, dir_fd=folder), temp
        except FileExistsError:
            continue


def _temp_name(name: str) -> str:
    return f".{_temp_base(name)}.{os.urandom(4).hex()}.tmp"


def _temp_base(name: str) -> str:
    """``name`` as its temporary names carry it (cut to ``_TEMP_NAME_BYTES`` bytes)."""
    if len(name) * 4 <= _TEMP_NAME_BYTES:
        return name
    base = name.encode("utf-8", "surrogateescape")[:_TEMP_NAME_BYTES]
    return base.decode("utf-8", "surrogateescape")


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP back while the block runs, then deliver them.

    Handlers can only be changed in the main thread; elsewhere the block runs unprotected
    (the tool writes from main threads only: its own and its worker processes').
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous: dict[int, Any] = {}

    def hold(signum: int, frame: object) -> None:
        received.append(signum)

    try:
        for signum in _HELD:
            if signal.getsignal(signum) is not None:  # None: set outside Python, leave it
                previous[signum] = signal.signal(signum, hold)
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(received):
            _deliver(signum, previous[signum])


def _deliver(signum: int, handler: Callable[[int, Any], Any] | int | None) -> None:
    if callable(handler):
        handler(signum, None)  # KeyboardInterrupt for SIGINT, as if it came now
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signum)  # the default action: end the process


