"""KNOWLEDGE: Trainer release numbers as one ordered value type (``TrainerVersion``).

Releases sort as numbers, never strings (``--target`` choices, the newest release). What
behaves differently between releases is a flag of the target file (mappings/targets), never
a version comparison in code, so a new target file (say ``targets/v2.4.yaml``) needs no
code change.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from migrator.results import FrozenValue

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only

_FORM = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


@functools.total_ordering
@fields_only
class TrainerVersion(FrozenValue):
    """A Kubeflow Trainer release ``major.minor[.patch]``, ordered numerically (a frozen
    value written by hand: see migrator/results.py)."""

    FIELDS = ("major", "minor", "patch")
    major: int
    minor: int
    patch: int = 0

    def __init__(self, major: int, minor: int, patch: int = 0) -> None:
        object.__setattr__(self, "major", major)
        object.__setattr__(self, "minor", minor)
        object.__setattr__(self, "patch", patch)

    @classmethod
    def parse(cls, text: str) -> TrainerVersion:
        """``"2.3"`` → ``TrainerVersion(2, 3)``; a ``v`` prefix is accepted."""
        match = _FORM.fullmatch(text.strip().removeprefix("v"))
        if match is None:
            raise ValueError(f"not a Trainer version: {text!r} (expected e.g. 2.3)")
        major, minor, patch = match.groups()
        return cls(int(major), int(minor), int(patch or 0))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, TrainerVersion):
            return NotImplemented
        return (self.major, self.minor, self.patch) < (other.major, other.minor, other.patch)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}" + (f".{self.patch}" if self.patch else "")


def release(text: str) -> TrainerVersion:
    """The version ``text`` names (cached parse, for hot paths)."""
    return _parse(text)


@functools.cache
def _parse(text: str) -> TrainerVersion:
    return TrainerVersion.parse(text)


def sort_key(text: str) -> TrainerVersion:
    return release(text)


V2_2 = TrainerVersion(2, 2)
V2_3 = TrainerVersion(2, 3)
