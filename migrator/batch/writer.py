"""BATCH: write results: atomic in-place replacement and mirrored output trees."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from migrator.results import FileResult


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
            target = mirrored_path(self.output_dir, file.relative)
            atomic_write(target, file.source.encode(file.result.text), durable=False)
            return True
        if not file.writable:
            return False
        if not os.path.lexists(file.name):  # removed while we worked: do not resurrect it
            raise FileNotFoundError(2, "the file disappeared during the run")
        if self.backup:
            atomic_write(Path(file.name + self.backup), file.source.raw)
        atomic_write(Path(file.name), file.source.encode(file.result.text))
        return True
