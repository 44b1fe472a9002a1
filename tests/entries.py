"""Tests' view of a results-cache entry (migrator/batch/resultcache.py) as one JSON value:
``{"format", "strings", "folders": {path: records}}``, read from and written to the entry's
lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from migrator.batch import resultcache


def read_entry(path: Path) -> dict[str, Any]:
    read = resultcache._entry(path.read_bytes())
    assert read is not None, f"{path} is not an entry of format {resultcache.FORMAT}"
    folders, strings = read
    return {"format": resultcache.FORMAT, "strings": strings,
            "folders": {folder: json.loads(bytes(line)) for folder, line in folders.items()}}


def write_entry(path: Path, data: dict[str, Any]) -> None:
    text = resultcache._entry_text(data["strings"], data["folders"])
    assert text is not None
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
