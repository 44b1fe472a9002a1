"""KNOWLEDGE: a private per-user cache of data that is slow to build (JSON, never code).

Entries live in ``$TRAINJOB_MIGRATE_CACHE_DIR``, else ``$XDG_CACHE_HOME/trainjob-migrate``,
else ``~/.cache/trainjob-migrate``; ``TRAINJOB_MIGRATE_NO_CACHE=1`` (or ``--no-cache``) turns
every cache off. The cache is only ever an optimisation: an entry that is missing,
unreadable, stale or not valid is rebuilt, and a folder that cannot be used is ignored.

Entries are JSON data, checked again when they are read (a catalog entry is decoded by the
declarations of the data files' models, field by field and type by type), so no entry can run
code, whoever wrote it. The
folder is created 0700 whatever the umask, and a folder or entry that is not owned by this
user, or that group or others may write, is never read or written (no cache then).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

MAX_ENTRY_BYTES = 256 * 1024 * 1024  # a larger entry is not ours (or not worth reading)


def directory() -> Path | None:
    """Where entries are kept, or None when the cache is turned off."""
    if os.environ.get("TRAINJOB_MIGRATE_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("TRAINJOB_MIGRATE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "trainjob-migrate"


def _trusted(info: os.stat_result, kind: Callable[[int], bool]) -> bool:
    """Owned by this user, of the expected kind, and not writable by group or others."""
    return (kind(info.st_mode) and info.st_uid == os.geteuid()
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def private_folder(create: bool = True) -> Path | None:
    """The cache folder if it is safe to use (created 0700 when ``create``), else None."""
    folder = directory()
    if folder is None:
        return None
    try:
        if create and not os.path.lexists(folder):
            _make_private(folder)
        if not _trusted(os.stat(folder), stat.S_ISDIR):
            return None
    except (OSError, ValueError):
        return None
    return folder


def _make_private(folder: Path) -> None:
    """Create ``folder`` and any missing parents 0700 (mkdir's mode is masked by the umask,
    which can only take bits away: 0700 stays 0700 under ``umask 000``)."""
    missing = []
    current = folder
    while not os.path.lexists(current):
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)


def key(parts: Iterable[bytes]) -> str:
    """A digest of everything an entry depends on: BLAKE2b, 128 bits (32 hex digits).

    BLAKE2b straight from CPython's ``_blake2`` (what ``hashlib.blake2b`` is): importing
    ``hashlib`` loads OpenSSL, a few milliseconds of every run's start-up."""
    try:
        from _blake2 import blake2b
    except ImportError:  # another Python implementation
        from hashlib import blake2b
    digest = blake2b(digest_size=16)
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def read_json(folder: Path, name: str) -> Any:
    """The JSON data of entry ``name``, or None when it is missing, not trusted or not JSON."""
    raw = read_bytes(folder, name)
    if raw is None:
        return None
    import json

    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def read_bytes(folder: Path, name: str) -> bytes | None:
    """The bytes of entry ``name``, or None when it is missing, not trusted (not a regular
    file of this user's, writable by no one else) or larger than ``MAX_ENTRY_BYTES``."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | \
        getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(folder / name, flags)
    except OSError:
        return None
    try:
        info = os.fstat(handle)
        if not _trusted(info, stat.S_ISREG) or info.st_size > MAX_ENTRY_BYTES:
            return None
        with os.fdopen(handle, "rb", closefd=False) as stream:
            raw = stream.read(MAX_ENTRY_BYTES + 1)
        return raw if len(raw) <= MAX_ENTRY_BYTES else None
    except OSError:
        return None
    finally:
        os.close(handle)


def write_json(folder: Path, name: str, data: Any) -> bool:
    """Store ``data`` as entry ``name`` atomically (a private temporary file, then renamed);
    False when it cannot be stored (not JSON data, or the folder is not writable)."""
    import json

    try:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return write_text(folder, name, text)


def write_text(folder: Path, name: str, text: str) -> bool:
    """Store ``text`` (UTF-8, lone surrogates kept as JSON's reader takes them back) as entry
    ``name`` atomically; False when the folder is not writable."""
    from migrator import atomic

    try:
        atomic.replace_file(folder / name, text.encode("utf-8", "surrogatepass"), mode=0o600,
                            durable=False)
    except (OSError, UnicodeError):
        return False
    return True


def remove_others(folder: Path, prefix: str, keep: str) -> None:
    """Remove this user's entries ``prefix*`` other than ``keep`` (older versions of one)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix) and name != keep:
            try:
                if os.lstat(folder / name).st_uid == os.geteuid():
                    os.unlink(folder / name)
            except OSError:
                pass


def cached_json(kind: str, digest: str, build: Callable[[], Any],
                use: Callable[[Any], T]) -> T:
    """``use(data)`` of the JSON entry ``kind``/``digest``; ``build()`` (JSON data: dicts
    with str keys, lists, str, int, float, bool, None) makes and stores the entry when it is
    absent, unreadable or ``use`` rejects it (raises anything). Storing a new entry removes
    older entries of the same kind; with no usable cache folder it is ``use(build())``. Data
    that would not read back as itself (a tuple, a key that is not a string) is used, not
    stored."""
    folder = private_folder()
    if folder is None:
        return use(build())
    name = f"{kind}-{digest}.json"
    data = read_json(folder, name)
    if data is not None:
        try:
            return use(data)
        except Exception:  # any entry the caller cannot use is rebuilt
            pass
    built = build()
    if _plain_json(built) and write_json(folder, name, built):
        remove_others(folder, f"{kind}-", name)
    return use(built)


def _plain_json(data: Any, depth: int = 0) -> bool:
    """Whether ``data`` reads back from JSON as itself: dicts with str keys, lists, str, int,
    finite float, bool, None (not tuples, not other keys, not dates)."""
    kind = type(data)
    if kind is dict:
        return depth < 200 and all(type(key) is str and _plain_json(value, depth + 1)
                                   for key, value in data.items())
    if kind is list:
        return depth < 200 and all(_plain_json(item, depth + 1) for item in data)
    if kind is float:
        import math

        return math.isfinite(data)
    return data is None or kind in (str, int, bool)
