"""TEMPLATE stage: convert Helm/Go templates and envsubst files, keeping every template action."""

from __future__ import annotations

from migrator.template.convert import Note, Outcome, convert_template, dialect_of

__all__ = ["Note", "Outcome", "convert_template", "dialect_of"]
