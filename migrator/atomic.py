"""BOTTOM (file I/O used by every stage): atomic file replacement no signal leaves half done.

``replace_at`` writes new content to a temporary file in the target's folder (unnamed,
``O_TMPFILE``, where the system offers it), flushes it, gives it its permission bits (and
owner, where allowed), then names it and renames it over the target, while SIGINT, SIGTERM
and SIGHUP are held back (``signals_held``). Whatever stops the run, the target is the old
file or the complete new one and no temporary file is left; only a SIGKILL landing between
naming and renaming can leave the complete new content under a ``.NAME.*.tmp`` name. The
rename replaces whatever is at the name (a link too), never writing through it.
Every file the tool writes goes through here: conversions, backups, output trees, reports,
cache entries (it sits at the bottom so that every stage may use it; it imports nothing).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

_HELD = tuple(getattr(signal, name) for name in ("SIGHUP", "SIGTERM", "SIGINT")
              if hasattr(signal, name))  # SIGINT last: restored last
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_TMPFILE = getattr(os, "O_TMPFILE", 0) if os.path.isdir("/proc/self/fd") else 0
_TEMP_NAME_BYTES = 200  # room for the ".NAME.XXXXXXXX.tmp" decoration within NAME_MAX


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
               owner: tuple[int, int] | None, durable: bool, umask: bool = False) -> None:
    """Atomically replace ``name`` in the open folder ``folder`` with ``data``.

    ``mode`` None: 0666 less the umask; with ``umask`` the umask applies to ``mode`` too,
    else ``mode`` is set exactly. ``owner`` is kept where the system allows.
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
            if durable:
                os.fsync(handle)
            if temp is None:  # name the unnamed file, then rename it at once
                temp = _temp_name(name)
                try:
                    os.link(f"/proc/self/fd/{handle}", temp, dst_dir_fd=folder,
                            follow_symlinks=True)
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
    base = name.encode("utf-8", "surrogateescape")[:_TEMP_NAME_BYTES]
    return f".{base.decode('utf-8', 'surrogateescape')}.{os.urandom(4).hex()}.tmp"


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


