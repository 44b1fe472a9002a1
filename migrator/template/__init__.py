"""TEMPLATE stage: convert Helm/Go templates and envsubst files, keeping every template action."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from migrator.template.convert import Note, Outcome, convert_template, dialect_of

__all__ = ["Note", "Outcome", "convert_template", "dialect_of"]


if not TYPE_CHECKING:  # mypy sees the names above, so a misspelled import is still an error

    def __getattr__(name: str) -> Any:
        """The converter's names, loaded on first use: a run whose files hold no template
        (most of them reach ``route``) never loads the template converter."""
        if name in __all__:
            from migrator.template import convert

            return getattr(convert, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
