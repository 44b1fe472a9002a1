"""BOTTOM: exit codes and the few exceptions that mean "cannot continue"."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """The CLI's exit codes (documented in the README)."""

    OK = 0
    FINDINGS = 1
    USAGE = 2


class MigratorError(Exception):
    """Base class for errors the CLI reports as one clear line."""


class MappingFileError(MigratorError):
    """A file in mappings/ is missing or invalid (a packaging or editing mistake)."""
