"""BOTTOM: exit codes and the few exceptions that mean "cannot continue"."""

from __future__ import annotations

from enum import IntEnum
from typing import NoReturn

INTERRUPTED = 130  # the shell's code for SIGINT


class ExitCode(IntEnum):
    """The CLI's exit codes (documented in the README)."""

    OK = 0
    FINDINGS = 1
    USAGE = 2


class MigratorError(Exception):
    """Base class for errors the CLI reports as one clear line."""


class MappingFileError(MigratorError):
    """A file in mappings/ is missing or invalid (a packaging or editing mistake)."""


def exit_interrupted(signum: int, frame: object) -> NoReturn:
    """SIGINT handler while nothing has been written: end the run quietly with 130."""
    raise SystemExit(INTERRUPTED)
