"""LOAD: read and decode input files; the only module that reads user files."""

from __future__ import annotations

import os
import sys

from migrator.results import BOMS, SourceText, Unreadable

__all__ = ["MAX_BYTES", "STDIN", "SourceText", "Unreadable", "decode", "read"]

STDIN = "-"
MAX_BYTES = 10 * 1024 * 1024


def read(name: str, relative: str = "", max_bytes: int = MAX_BYTES) -> SourceText | Unreadable:
    """Read and decode one input (``-`` is standard input); larger files are refused."""
    try:
        if name == STDIN:
            data = sys.stdin.buffer.read()
        else:
            data = _read_capped(name, max_bytes)
            if data is None:
                return Unreadable(name, f"file is larger than the {max_bytes}-byte cap "
                                  "(--max-file-size)", relative)
    except OSError as exc:
        return Unreadable(name, exc.strerror or str(exc), relative)
    return decode(name, data, relative)


def _read_capped(name: str, max_bytes: int) -> bytes | None:
    """A file's bytes, or None when it holds more than ``max_bytes`` (checked before reading
    and while reading, so a file that grows is caught too). Unbuffered: a batch reads
    thousands of small files, and the plain system calls are several times cheaper."""
    handle = os.open(name, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        size = os.fstat(handle).st_size
        if size > max_bytes:
            return None
        parts: list[bytes] = []
        total = 0
        while chunk := os.read(handle, size + 1 if not parts else 1 << 20):
            parts.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                return None
        return b"".join(parts)
    finally:
        os.close(handle)


def decode(name: str, data: bytes, relative: str = "") -> SourceText | Unreadable:
    """Decode bytes as UTF-8 or UTF-16 (BOM kept), normalising newlines to ``\\n``."""
    raw = data
    encoding, bom = "utf-8", False
    for candidate, mark in BOMS.items():
        if data.startswith(mark):
            encoding, bom, data = candidate, True, data[len(mark):]
            break
    if b"\x00" in data and encoding == "utf-8":
        return Unreadable(name, "binary file (contains NUL bytes)", relative)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        return Unreadable(name, f"not valid {encoding.upper()} (byte {exc.start})", relative)
    newline = "\r\n" if "\r\n" in text else "\n"
    if newline != "\n":
        text = text.replace("\r\n", "\n")
    return SourceText(name, text, newline, encoding, bom, relative, raw)
