"""Template stage: field shapes for placeholders, read once from mappings/templates.yaml."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path


@dataclass(frozen=True)
class Fields:
    int_fields: frozenset[str]
    int_patterns: tuple[re.Pattern[str], ...]
    list_fields: frozenset[str]
    string_lists: frozenset[str]
    quantity_parents: frozenset[str]
    quantity_fields: frozenset[str]
    process_count_fields: frozenset[str]
    string_maps: frozenset[str]
    split_codes: frozenset[str]
    broken_codes: frozenset[str]
    enum_fields: dict[str, tuple[str, ...]]
    item_fields: dict[str, dict[str, object]]
    map_wrappers: dict[str, tuple[str, ...]]
    enum_keys: dict[str, tuple[str, ...]]
    item_keys: dict[str, str]

    def item_key(self, parent: str) -> str:
        """Template stage: the field a placeholder item of list ``parent`` carries its word in."""
        return self.item_keys.get(parent, "name")

    def is_int(self, key: str) -> bool:
        return key in self.int_fields or any(p.search(key) for p in self.int_patterns)


def _mappings() -> Path:
    here = Path(__file__).resolve().parent.parent
    packaged = here / "_mappings"
    return packaged if packaged.is_dir() else here.parent / "mappings"


@cache
def load() -> Fields:
    from ruamel.yaml import YAML

    data = YAML(typ="safe", pure=True).load((_mappings() / "templates.yaml").read_text("utf-8"))
    return Fields(frozenset(data["int_fields"]),
                  tuple(re.compile(p) for p in data["int_key_patterns"]),
                  frozenset(data["list_fields"]), frozenset(data["string_lists"]),
                  frozenset(data["quantity_parents"]), frozenset(data["quantity_fields"]),
                  frozenset(data["process_count_fields"]),
                  frozenset(data["string_maps"]), frozenset(data["split_codes"]),
                  frozenset(data["broken_codes"]),
                  {k: tuple(v) for k, v in data["enum_fields"].items()},
                  {k: dict(v) for k, v in data["item_fields"].items()},
                  {k: tuple(v) for k, v in data["map_wrappers"].items()},
                  {k: tuple(v) for k, v in (data.get("enum_keys") or {}).items()},
                  {k: str(v) for k, v in (data.get("item_keys") or {}).items()})


class _Lazy:
    def __getattr__(self, name: str) -> object:
        return getattr(load(), name)


FIELDS: Fields = _Lazy()  # type: ignore[assignment]
