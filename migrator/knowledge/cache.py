"""KNOWLEDGE: A per-user cache of values that are slow to build and cheap to store (pickles).

Entries live in ``$TRAINJOB_MIGRATE_CACHE_DIR``, else ``$XDG_CACHE_HOME/trainjob-migrate``,
else ``~/.cache/trainjob-migrate``; ``TRAINJOB_MIGRATE_NO_CACHE=1`` turns the cache off. The
cache is only ever an optimisation: an entry that is missing, unreadable or stale is rebuilt,
and a cache folder that cannot be written is ignored.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def directory() -> Path | None:
    """Where entries are kept, or None when the cache is turned off."""
    if os.environ.get("TRAINJOB_MIGRATE_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("TRAINJOB_MIGRATE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "trainjob-migrate"


def key(parts: Iterable[bytes]) -> str:
    """A digest of everything an entry depends on."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()[:32]


def cached(kind: str, digest: str, build: Callable[[], T], expected: type[T]) -> T:
    """The entry ``kind``/``digest``, built (and stored) when it is absent or unusable.

    Storing a new entry removes older entries of the same kind.
    """
    folder = directory()
    if folder is None:
        return build()
    path = folder / f"{kind}-{digest}.pickle"
    try:
        value = pickle.loads(path.read_bytes())
        if isinstance(value, expected):
            return value
    except Exception:  # any unusable entry (missing, truncated, stale) is simply rebuilt
        pass
    value = build()
    _store(folder, kind, path, value)
    return value


def _store(folder: Path, kind: str, path: Path, value: object) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{kind}-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                pickle.dump(value, out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
        for old in folder.glob(f"{kind}-*.pickle"):
            if old != path:
                old.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError):
        return
