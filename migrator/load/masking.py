"""LOAD stage: hide non-YAML placeholders (Argo parameters, Hugo shortcodes) behind plain
tokens while a snippet is converted, and put them back afterwards.

A token is a lowercase DNS-label-safe word, so it survives name and label validation; a
conversion whose output lost a token is not used (the placeholder would be silently dropped).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from migrator.results import FrozenValue, _set

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only

ARGO_PARAMETER = re.compile(r"\{\{[^{}\n]*\}\}")  # {{inputs.parameters.x}}, {{workflow.name}}
SHORTCODE = re.compile(r"\{\{[<%].*?[%>]\}\}")  # Hugo {{< x >}} and {{% x %}}
SHELL = re.compile(r"\$\{[^}\n]*\}|\$\([^)\n]*\)|\$[A-Za-z_][A-Za-z0-9_]*|`[^`\n]*`")  # expansions
_TOKEN = "tjmph{0}x{1}z"


@fields_only
class Masked(FrozenValue):
    """``text`` with every placeholder replaced by a token; ``tokens`` maps them back (a frozen
    value written by hand: see migrator/results.py)."""

    FIELDS = ("text", "tokens")
    text: str
    tokens: dict[str, str]

    def __init__(self, text: str, tokens: dict[str, str]) -> None:
        _set(self, "text", text)
        _set(self, "tokens", tokens)

    def restore(self, converted: str) -> str | None:
        """``converted`` with the placeholders back; None when a token went missing."""
        for token, original in self.tokens.items():
            if token not in converted:
                return None
            converted = converted.replace(token, original)
        return converted


def mask(text: str, pattern: re.Pattern[str]) -> Masked:
    """Replace each match of ``pattern`` in ``text`` by a token unique to this text."""
    salt = 0
    while f"tjmph{salt}x" in text:
        salt += 1
    tokens: dict[str, str] = {}
    seen: dict[str, str] = {}

    def token(match: re.Match[str]) -> str:
        original = match.group(0)
        if original not in seen:
            seen[original] = _TOKEN.format(salt, len(seen))
            tokens[seen[original]] = original
        return seen[original]

    return Masked(pattern.sub(token, text), tokens)
