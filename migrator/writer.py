"""Write results: atomic in-place replacement and mirrored output trees."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` via a temporary file in the same directory + rename.

    The file's permission bits are kept; on any failure the original file is untouched and
    the temporary file is removed. ``durable`` flushes the data to disk before the rename, so
    a crash cannot leave an empty file where the user's file was (needed when replacing
    inputs; a fresh output tree can be written again).
    """
    if path.is_symlink():  # write through the link: the link itself stays a link
        path = Path(os.path.realpath(path))
    mode = None
    with contextlib.suppress(FileNotFoundError):
        mode = stat.S_IMODE(os.stat(path).st_mode)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            if durable:
                out.flush()
                os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def mirrored_path(output_dir: Path, relative: str) -> Path:
    """Where a file goes below ``output_dir``; never outside it."""
    parts = [p for p in Path(relative).parts if p not in ("", ".", "..", "/")]
    target = output_dir.joinpath(*parts) if parts else output_dir / "stdin.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    return target
