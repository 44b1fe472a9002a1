"""Template stage: the first line of every converted template, so that a second run leaves the
file alone (idempotence); read by the router without loading the template converter."""

from __future__ import annotations

MARK = "{{- /* converted by trainjob-migrator (docs/templates.md) */ -}}"
ENV_MARK = "# converted by trainjob-migrator (docs/templates.md)"
