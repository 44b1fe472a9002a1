"""REPORT: text that is safe to print, embed and write — control characters and
unencodable text escaped, GitHub workflow commands neutralised, reports written atomically."""

from __future__ import annotations

import errno
import io
import os
import re
import stat
from pathlib import Path
from typing import TextIO

# Characters escaped in every line the tool prints and in every report: C0/C1 controls
# (except tab), line and paragraph separators, bidirectional overrides (they reorder what a
# reviewer sees), surrogates (undecodable file-name bytes) and the two non-characters.
# (Patterns are compiled when first needed: most runs print only plain ASCII lines.)
UNSAFE = "[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069" \
    "\ud800-\udfff\ufffe\uffff]"
# The same, but keeping line breaks (multi-line report text such as YAML).
UNSAFE_KEEP_LINES = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029" \
    "\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
NAMED = {"\n": "\\n", "\r": "\\r", "\x1b": "\\e"}

# The Actions runner splits output at \r, \n and \r\n, trims white space and runs a line
# that then starts with "::" as a workflow command; it also still runs the older form
# "##[command]" found anywhere in a line.
COMMAND_LINE = r"(^|\r\n|\r|\n)([^\S\r\n]*)::"
LEGACY_COMMAND = "##["

_compiled: dict[str, re.Pattern[str]] = {}


def _regex(source: str) -> re.Pattern[str]:
    """One of the patterns above, compiled once (when first needed)."""
    found = _compiled.get(source)
    if found is None:
        found = _compiled[source] = re.compile(source)
    return found


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in NAMED:
        return NAMED[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def printable(text: str) -> str:
    """One line of text a terminal, a log or a report cell shows as it is."""
    if text.isascii() and text.isprintable():  # nothing UNSAFE matches (the usual line)
        return text
    return _regex(UNSAFE).sub(_escape, text)


def printable_lines(text: str) -> str:
    """Multi-line text (YAML, messages) with everything but line breaks escaped."""
    if text.isascii() and text.isprintable():
        return text
    return _regex(UNSAFE_KEEP_LINES).sub(_escape, text)


def said(text: str) -> str:
    """A line said on standard error before the run's output starts (a config's name, its
    problems, a usage error): input text (a config's keys and values, folder names) made
    ``printable`` (one line), and on a GitHub Actions runner (``GITHUB_ACTIONS=true``) also
    ``neutralise``d, as every later line is by the run's GuardedStream."""
    shown = printable(text)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        shown = neutralise(shown)
    return shown


def file_label(name: str) -> str:
    """A file name as shown to people and CI: printable, without a leading ``./``."""
    while name.startswith("./"):
        name = name[2:]
    return printable(name)


def has_command_line(text: str) -> bool:
    """Whether the runner would read a line of ``text`` as a workflow command."""
    return LEGACY_COMMAND in text or _regex(COMMAND_LINE).search(text) is not None


def neutralise(text: str, replacement: str = "%3A:", bracket: str = "%5B") -> str:
    """Lines that would start with ``::`` get their first colon replaced (``%3A`` in
    terminal lines, a character reference such as ``&#58;`` in HTML and XML), and every
    ``##[`` its bracket (``%5B``, ``&#91;``)."""
    if LEGACY_COMMAND in text:
        text = text.replace(LEGACY_COMMAND, "##" + bracket)
    return _regex(COMMAND_LINE).sub(lambda m: m.group(1) + m.group(2) + replacement,
                                      text)


class GuardedStream(io.TextIOBase):
    """A text stream for stdout/stderr on a GitHub Actions runner: every complete line is
    neutralised; ``raw`` writes the tool's own workflow commands unchanged."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream
        self._pending = ""

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.stream.encoding

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._pending += text
        cut = max(self._pending.rfind("\n"), self._pending.rfind("\r"))
        if cut >= 0:
            done, self._pending = self._pending[:cut + 1], self._pending[cut + 1:]
            self.stream.write(neutralise(printable_lines(done)))
        return len(text)

    def raw(self, text: str) -> None:
        """Write the tool's own workflow commands (already escaped by their writer)."""
        self.flush()
        self.stream.write(text)
        self.stream.flush()

    def flush(self) -> None:
        if self._pending:
            self.stream.write(neutralise(printable_lines(self._pending)))
            self._pending = ""
        self.stream.flush()


def write_raw(stream: TextIO, text: str) -> None:
    """Write unchanged through a guard (or to a plain stream)."""
    if isinstance(stream, GuardedStream):
        stream.raw(text)
    else:
        stream.write(text)


def write_data(stream: TextIO, text: str, *, github: bool, escaped: bool = False) -> bool:
    """Write machine output (YAML, a diff, a report) unchanged.

    On an Actions runner, output that the runner would parse and that holds a line it
    would run as a workflow command is wrapped in ``::stop-commands::TOKEN`` … ``::TOKEN::``
    with a fresh random token. Returns whether it was wrapped. Output redirected to a
    regular file is never wrapped (the runner does not read it).
    """
    if not escaped and _is_terminal(stream):
        # a person reads it: escape sequences from the input (clipboard writes, links,
        # screen clears) are shown, not run; line breaks and tabs stay as they are
        text = printable_lines(text)
    if github and has_command_line(text) and not _is_regular_file(stream):
        token = os.urandom(16).hex()  # what secrets.token_hex does, without importing
        # secrets (hmac -> OpenSSL: 20 ms of a hook's start-up)
        write_raw(stream, f"::stop-commands::{token}\n")
        write_raw(stream, text if text.endswith(("\n", "\r")) else text + "\n")
        write_raw(stream, f"::{token}::\n")
        return True
    write_raw(stream, text)
    return False


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError, AttributeError):
        return False


def _is_regular_file(stream: TextIO) -> bool:
    target = stream.stream if isinstance(stream, GuardedStream) else stream
    try:
        return stat.S_ISREG(os.fstat(target.fileno()).st_mode)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False


class ReportWriteError(Exception):
    """A report (or the step summary) could not be written; the message is one line."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{printable(path)}: {reason}")
        self.path = path
        self.reason = reason


def encode(text: str) -> bytes:
    """UTF-8 for a report; text that cannot be encoded (lone surrogates) is escaped."""
    return printable_lines(text).encode("utf-8", "backslashreplace")


def write_report(path: Path, text: str) -> None:
    """Write a report (or a baseline) atomically: a temporary file in the target's folder
    renamed over it.

    The folder must exist (it is never created; links in its path are followed: it is the
    user's). The report's own name is never followed as a link (a link there may have been
    planted, e.g. in an ``-o`` folder of the repository under review): a link, a FIFO, a
    socket or a device there is refused, and one that appears meanwhile is replaced, not
    written through. An existing report keeps its mode, a new one gets the umask's. A path
    under ``/dev`` or ``/proc`` that is a link, device or pipe (``/dev/stdout``,
    ``/dev/fd/N``, ``/dev/null``) is a stream the system gives: it is written directly,
    opened without blocking (a pipe nobody reads is refused). On any failure the earlier
    report is untouched, no temporary file is left, and ``ReportWriteError`` says why in
    one line.
    """
    data = encode(text)
    name = os.fspath(path)
    try:
        if _system_stream(name):
            _write_stream(name, data)
            return
        try:
            existing: os.stat_result | None = os.lstat(name)
        except FileNotFoundError:
            existing = None
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            raise ReportWriteError(name, _refusal(existing.st_mode))
        folder = os.path.dirname(name) or "."
        if not os.path.isdir(folder):
            raise ReportWriteError(name, f"the folder {printable(str(path.parent))} does not "
                                   "exist (create it first)")
        mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
        _replace(Path(name), data, mode)
    except ReportWriteError:
        raise
    except OSError as exc:
        raise ReportWriteError(name, exc.strerror or str(exc)) from None


def _refusal(mode: int) -> str:
    """Why a report is not written over what is at its name (not a regular file)."""
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISLNK(mode):
        return "is a symbolic link; a report is never written through one (remove it, " \
            "or name the file it leads to)"
    what = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "not a regular file"
    return f"is {what}; a report goes to a regular file, or to /dev/stdout"


def _system_stream(name: str) -> bool:
    """Whether ``name`` is a stream the system gives (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``, ``/dev/null``: a link, device or pipe under ``/dev`` or
    ``/proc``), written directly rather than replaced."""
    if not os.path.abspath(name).startswith(("/dev/", "/proc/")):
        return False
    try:
        mode = os.lstat(name).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _write_stream(name: str, data: bytes) -> None:
    """Write ``data`` to a system stream: opened without blocking (a FIFO nobody reads is
    refused at once, ENXIO), never created or truncated, then written as standard output
    is."""
    flags = os.O_WRONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | \
        getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(name, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise ReportWriteError(name, "is a pipe that nobody reads") from None
        raise
    try:
        os.set_blocking(handle, True)
        from migrator import atomic

        atomic.write_all(handle, data)
    finally:
        os.close(handle)


def _replace(target: Path, data: bytes, mode: int) -> None:
    """The one atomic write (unnamed temporary file, signals held back, link + rename): a
    link that appears at the name meanwhile is replaced, never followed."""
    from migrator import atomic

    atomic.replace_file(target, data, mode=mode)


def append_text(path: Path, text: str) -> None:
    """Append to a file that must exist or be creatable (``$GITHUB_STEP_SUMMARY``): the old
    content plus the new is written atomically, so a full disk leaves the file as it was
    instead of a table cut off half-way."""
    from migrator.load import sources

    name = os.fspath(path)
    try:
        try:
            existing = os.stat(name)
        except FileNotFoundError:
            existing = None
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            with open(name, "ab") as handle:  # a pipe or device the runner gave us
                handle.write(encode(text))
            return
        old = b"" if existing is None else sources.read_bytes(name, 2**31)
        if old is None:
            raise ReportWriteError(name, "is too large to append to")
        mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
        _replace(Path(os.path.realpath(name)), old + encode(text), mode)
    except ReportWriteError:
        raise
    except OSError as exc:
        raise ReportWriteError(name, exc.strerror or str(exc)) from None


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current
