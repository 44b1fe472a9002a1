"""LOAD: read and decode input files; the only module that reads user files.

Only regular files are read: what a path names is checked before it is opened (a FIFO or
a device is never opened for reading, so it cannot block the run or feed it without end),
and again on the opened descriptor, which is opened non-blocking in case the path changed
in between. A link is followed only where the run's walk would follow it (``run_of``): one
swapped in for a file during the run is never read through. Every input, standard input
included, is read up to a byte cap.
"""

from __future__ import annotations

import bisect
import codecs
import contextlib
import errno
import os
import stat
import sys
from collections.abc import Callable, Iterator
from operator import attrgetter
from pathlib import PurePath
from typing import BinaryIO, Literal, cast

from migrator.load import stream
from migrator.results import BOMS, SourceText, Unreadable

__all__ = ["MAX_BYTES", "STDIN", "SourceText", "Unreadable", "decode", "encode", "head",
           "kind_of", "read", "read_bytes", "run_of", "within_run"]

STDIN = "-"
MAX_BYTES = 10 * 1024 * 1024
# documents of a stream with mixed line endings above which a rewrite pairs old and new
# documents in one pass (``_in_order``) instead of difflib's matcher (cubic in alike ones)
MAX_MATCHED_DOCUMENTS = 200
Opcode = Literal["replace", "delete", "insert", "equal"]  # as difflib's
_CHUNK = 1 << 20
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0))
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_SEPARATORS = (os.sep, os.altsep) if os.altsep else os.sep
SWAPPED = "the file was swapped for a symbolic link during the run; it is not followed"
FOLDER_LEADS_OUT = "its folder was swapped for a symbolic link that leads outside the " \
    "walked folder during the run; it is not followed"
LEADS_OUT = "a symbolic link that leads outside the walked folder (swapped in during the " \
    "run?); it is not followed"
# the run going on (``run_of``): the files it names, and (as names start, real path) each
# folder it walks, innermost first; None: no run (a link is followed)
_RUN: tuple[frozenset[str], tuple[tuple[str, str], ...]] | None = None
# the walked folder whose files are being read, as the run names it, and its descriptor
_PINNED: list[str | int | None] = [None, -1]

# Byte-order marks, longest first: a UTF-32-LE mark begins with the UTF-16-LE one.
_MARKS = {
    "utf-32-le": codecs.BOM_UTF32_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
    **BOMS,
}


class NotRegular(OSError):
    """The path names something other than a regular file (a FIFO, a device, a folder)."""


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words (for messages)."""
    kinds = ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a folder"),
             (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket"))
    return next((words for test, words in kinds if test(mode)), "a special file")


def read(name: str, relative: str = "", max_bytes: int = MAX_BYTES) -> SourceText | Unreadable:
    """Read and decode one input (``-`` is standard input); larger inputs are refused. A
    file's text carries the identity of the file whose bytes were read
    (``SourceText.identity``): the name may lead elsewhere a moment later."""
    if name == STDIN and sys.stdin is None:
        return Unreadable(name, "standard input is closed", relative)
    read_as: list[Identity] = []
    try:
        data = _read_stream(sys.stdin.buffer, max_bytes) if name == STDIN \
            else read_bytes(name, max_bytes, read_as)
    except NotRegular as exc:
        return Unreadable(name, str(exc), relative)
    except OSError as exc:
        return Unreadable(name, exc.strerror or str(exc), relative)
    if data is None:
        what = "standard input" if name == STDIN else "file"
        return Unreadable(name, f"{what} is larger than the {max_bytes}-byte cap "
                          "(--max-file-size)", relative)
    source = decode(name, data, relative)
    if read_as and isinstance(source, SourceText):
        object.__setattr__(source, "identity", read_as[0])  # (set as its constructor does)
    return source


# a file as an open handle's fstat gives it: (mode, size, mtime_ns, ctime_ns, inode, device)
Identity = tuple[int, int, int, int, int, int]


# A file as its stat shows it: kind, size, times, inode, device (what the results cache
# stamps a file by, and checks the file that was read against).
identity_of = cast("Callable[[os.stat_result], Identity]", attrgetter(
    "st_mode", "st_size", "st_mtime_ns", "st_ctime_ns", "st_ino", "st_dev"))


def read_bytes(name: str, max_bytes: int = MAX_BYTES,
               read_as: list[Identity] | None = None) -> bytes | None:
    """A regular file's bytes, or None when it holds more than ``max_bytes`` (checked before
    and while reading, so a file that grows is caught too). Raises NotRegular for anything
    but a regular file (a link only as ``_open`` follows it), OSError when it cannot be
    read. Unbuffered: a batch reads thousands of small files, and the plain system calls
    are cheaper. ``read_as`` receives the identity of the file read (its handle's fstat)."""
    handle, info = _open(name)
    try:
        if read_as is not None:
            read_as.append(identity_of(info))
        if info.st_size > max_bytes:
            return None
        parts: list[bytes] = []
        total = 0
        while chunk := os.read(handle, info.st_size + 1 if not parts else _CHUNK):
            parts.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                return None
        return b"".join(parts)
    finally:
        os.close(handle)


def head(name: str, limit: int) -> bytes | None:
    """The first ``limit`` bytes of a regular file, or None when it cannot be read (never
    blocks, never reads a FIFO or a device). A link is followed (a ``.gitignore`` may lead
    out of a walked folder: its rules are not an input of the run)."""
    try:
        handle, _ = _open(name, walked=False)
    except OSError:
        return None
    try:
        return os.read(handle, limit)
    except OSError:
        return None
    finally:
        os.close(handle)


@contextlib.contextmanager
def run_of(paths: tuple[str, ...]) -> Iterator[None]:
    """Within: the files read are those of a run over ``paths`` (``_open``: a folder of
    them is walked, and a link met in it is followed only inside that folder, as the walk
    does). Set before any worker is forked (they inherit it)."""
    global _RUN
    named, walked = set(), []
    for given in paths:
        path = given if given == STDIN else os.fspath(PurePath(given))  # as the walk names it
        if path != STDIN and os.path.isdir(path):
            prefix = path if path.endswith(_SEPARATORS) else path + os.sep
            walked.append((prefix, os.path.join(os.path.realpath(path), "")))
        else:
            named.add(path)
    walked.sort(key=lambda pair: -len(pair[0]))  # the innermost walked folder first
    previous, _RUN = _RUN, (frozenset(named), tuple(walked))
    _unpin()
    try:
        yield
    finally:
        _RUN = previous
        _unpin()


def _pinned(name: str) -> tuple[int, str] | None:
    """(a descriptor of its folder, its name there) for a file of a folder the run walks,
    else None. The folder is opened once while its files are read (the last one is kept)
    and only if it lies inside the walked folder: a folder of the walk swapped for a link
    is never read through, and one swapped later no longer matters (the descriptor holds
    the folder that was checked)."""
    if _RUN is None or name in _RUN[0]:
        return None
    inside = next((real for prefix, real in _RUN[1] if name.startswith(prefix)), None)
    if inside is None:
        return None
    folder, leaf = os.path.split(name)
    if _PINNED[0] != folder:
        handle = os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        if not _opened_inside(handle, folder, inside):
            os.close(handle)
            raise NotRegular(FOLDER_LEADS_OUT)
        _unpin()
        _PINNED[:] = [folder, handle]
    return cast("int", _PINNED[1]), leaf


def _unpin() -> None:
    if _PINNED[0] is not None:
        with contextlib.suppress(OSError):
            os.close(cast("int", _PINNED[1]))
    _PINNED[:] = [None, -1]


def _open(name: str, *, walked: bool = True) -> tuple[int, os.stat_result]:
    """An open regular file at ``name``, with its fstat: never a FIFO or a device (checked
    before opening, and again on the handle, opened non-blocking in case the name changed
    in between).

    A link at ``name`` is followed unless (``walked``) the name is a file of a folder the
    run walks (``run_of``) and the file opened through the link is not in that folder: the walk
    takes only links that lead inside it, and a link swapped in for the file since then
    is refused, never read. A name that was no link when looked at is opened without
    following one (``O_NOFOLLOW``): a link swapped in at that instant is refused too.
    """
    pinned = _pinned(name) if walked else None
    if pinned is None:
        info = os.lstat(name)
    else:
        info = os.stat(pinned[1], dir_fd=pinned[0], follow_symlinks=False)
    linked = stat.S_ISLNK(info.st_mode)
    if linked:
        info = os.stat(name)
    _require_regular(info.st_mode)
    try:
        if linked:
            handle = os.open(name, _OPEN_FLAGS)
        elif pinned is None:
            handle = os.open(name, _OPEN_FLAGS | _NOFOLLOW)
        else:
            handle = os.open(pinned[1], _OPEN_FLAGS | _NOFOLLOW, dir_fd=pinned[0])
    except OSError as exc:
        if exc.errno == errno.ELOOP and not linked:
            raise NotRegular(SWAPPED) from None
        raise
    try:
        info = os.fstat(handle)
        _require_regular(info.st_mode)  # the path may have changed since the stat
        if linked and walked and not within_run(name, handle):
            raise NotRegular(LEADS_OUT)
    except BaseException:
        os.close(handle)
        raise
    return handle, info


def within_run(name: str, handle: int) -> bool:
    """Whether the file (or folder) open at ``handle``, reached by the name ``name``, is
    one the run may read or write: ``name`` is named by the run (or no run is going on), or
    what was opened lies in the walked folder that holds ``name`` (a link, or a folder
    swapped for one, would lead elsewhere)."""
    if _RUN is None or name in _RUN[0]:
        return True
    inside = next((real for prefix, real in _RUN[1] if name.startswith(prefix)), None)
    if inside is None:
        return True  # not a file of the walk (a file a kustomization names: checked there)
    return _opened_inside(handle, name, inside)


def _opened_inside(handle: int, name: str, inside: str) -> bool:
    """Whether what is open at ``handle`` (reached by ``name``) lies in the folder
    ``inside`` (a real path ending in a separator)."""
    try:
        opened = os.readlink(f"/proc/self/fd/{handle}")
    except OSError:
        opened = os.path.realpath(name)  # (no /proc: where the name leads now)
    return os.path.join(opened, "").startswith(inside)


def _require_regular(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise NotRegular(f"not a regular file ({kind_of(mode)}); only regular files are read"
                         + ("; use - to read standard input" if stat.S_ISFIFO(mode) else ""))


def _read_stream(stream_in: BinaryIO, max_bytes: int) -> bytes | None:
    """Up to ``max_bytes`` of a stream (None when there is more)."""
    parts: list[bytes] = []
    total = 0
    while chunk := stream_in.read(min(_CHUNK, max_bytes + 1 - total)):
        parts.append(chunk)
        total += len(chunk)
        if total > max_bytes:
            return None
    return b"".join(parts)


def decode(name: str, data: bytes, relative: str = "") -> SourceText | Unreadable:
    """Decode bytes as UTF-8, or UTF-16 / UTF-32 with a byte-order mark (kept), normalising
    newlines to ``\\n``. Text holding NUL characters is refused (binary data, or an
    encoding that was guessed wrong)."""
    raw = data
    encoding, bom = "utf-8", False
    for candidate, mark in _MARKS.items():
        if data.startswith(mark):
            encoding, bom, data = candidate, True, data[len(mark):]
            break
    if b"\x00" in data and encoding == "utf-8":
        return Unreadable(name, "binary file (contains NUL bytes)", relative)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        return Unreadable(name, f"not valid {encoding.upper()} (byte {exc.start})", relative)
    if "\x00" in text:
        return Unreadable(name, f"binary file (NUL characters in its {encoding.upper()} text)",
                          relative)
    newline = "\r\n" if "\r\n" in text else "\n"
    if newline != "\n":
        text = text.replace("\r\n", "\n")
    return SourceText(name, text, newline, encoding, bom, relative, raw)


def encode(source: SourceText, text: str) -> bytes:
    """Encode ``text`` (``\\n`` newlines) the way ``source`` was encoded: same encoding and
    byte-order mark, same line endings. In a file that mixes LF and CRLF, the documents
    that did not change are emitted exactly as read, and new or changed ones take the line
    ending of the documents they replace."""
    if source.newline != "\n":
        original = _original_text(source)
        if original is not None and original.count("\n") != original.count("\r\n"):
            text = _mixed(source.text, original, text)
        else:
            text = text.replace("\n", source.newline)
    data = text.encode(source.encoding)
    return _MARKS[source.encoding] + data if source.bom else data


def _original_text(source: SourceText) -> str | None:
    """The source's text as read, line endings untouched (None if it cannot be had)."""
    data = source.raw[len(_MARKS[source.encoding]):] if source.bom else source.raw
    try:
        text = data.decode(source.encoding)
    except UnicodeDecodeError:
        return None
    return text if text.replace("\r\n", "\n") == source.text else None


def _mixed(normalised: str, original: str, text: str) -> str:
    """``text`` with line endings taken from ``original`` document by document."""
    import difflib  # only when writing a file with mixed line endings

    before = stream.split(normalised)
    pieces = _original_pieces(original, [chunk.text for chunk in before])
    after = stream.split(text)
    old_texts, new_texts = [c.text for c in before], [c.text for c in after]
    if len(old_texts) + len(new_texts) <= MAX_MATCHED_DOCUMENTS:
        opcodes = difflib.SequenceMatcher(None, old_texts, new_texts,
                                          autojunk=False).get_opcodes()
    else:  # (the matcher is cubic in many alike documents: a 383 KB file took 37 s)
        opcodes = _in_order(old_texts, new_texts)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            out += pieces[i1:i2]
            continue
        if i1 == i2:  # inserted: like the document before (or after) it
            near = pieces[max(i1 - 1, 0):i1] or pieces[i1:i1 + 1]
            out += [chunk.text.replace("\n", _dominant(near)) for chunk in after[j1:j2]]
            continue
        for k, chunk in enumerate(after[j1:j2]):  # replaced: each by its share of the old
            old = pieces[i1 + k * (i2 - i1) // (j2 - j1)]
            out.append(chunk.text.replace("\n", _dominant([old])))
    return "".join(out)


def _in_order(old: list[str], new: list[str]) -> list[tuple[Opcode, int, int, int, int]]:
    """Opcodes (as ``SequenceMatcher.get_opcodes``) pairing ``old`` and ``new`` documents in
    one pass, as a conversion changes a stream: each document kept or replaced in its place,
    documents inserted beside them (companion runtimes). Linear in the documents."""
    opcodes: list[tuple[Opcode, int, int, int, int]] = []
    i = j = 0
    while j < len(new):
        if i < len(old) and new[j] == old[i]:
            opcodes.append(("equal", i, i + 1, j, j + 1))
            i, j = i + 1, j + 1
        elif i < len(old) and (j + 1 >= len(new) or new[j + 1] != old[i]):
            opcodes.append(("replace", i, i + 1, j, j + 1))
            i, j = i + 1, j + 1
        else:  # the next new document is this old one (or the old ones have ended)
            opcodes.append(("insert", i, i, j, j + 1))
            j += 1
    if i < len(old):
        opcodes.append(("delete", i, len(old), len(new), len(new)))
    return opcodes


def _original_pieces(original: str, chunks: list[str]) -> list[str]:
    """The slices of ``original`` that the normalised ``chunks`` came from."""
    # Normalised offset of each CRLF's "\n": the i-th CRLF at original offset r sits at r - i.
    crlf: list[int] = []
    start = original.find("\r\n")
    while start >= 0:
        crlf.append(start - len(crlf))
        start = original.find("\r\n", start + 2)
    pieces: list[str] = []
    offset = begin = 0
    for chunk in chunks:
        offset += len(chunk)
        end = offset + bisect.bisect_left(crlf, offset)
        pieces.append(original[begin:end])
        begin = end
    return pieces


def _dominant(pieces: list[str]) -> str:
    crlf = sum(piece.count("\r\n") for piece in pieces)
    lf = sum(piece.count("\n") for piece in pieces) - crlf
    return "\r\n" if crlf >= lf else "\n"
