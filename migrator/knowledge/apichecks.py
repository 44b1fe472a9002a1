"""KNOWLEDGE: the strict Trainer models (``apimodels``) as checkers of their compiled programs,
cached per catalog: validating a document, or naming the ML policy sources, needs no pydantic
once the programs are built (``apimodels.programs``, on a cache miss)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from migrator.knowledge import catalog, shapes

_LOADED: dict[int, tuple[Any, Programs]] = {}


class Programs:
    """The checkers of every Trainer version and kind, and the ML policy sources."""

    __slots__ = ("checkers", "sources")

    def __init__(self, checkers: dict[str, dict[str, shapes.Checker]],
                 sources: tuple[str, ...]) -> None:
        self.checkers = checkers
        self.sources = sources


def programs() -> Programs:
    """The programs of the catalog loaded now (the models are built from its target files)."""
    from migrator.knowledge import cache

    loaded = catalog.load()
    known = _LOADED.get(0)
    if known is not None and known[0] is loaded:
        return known[1]
    here = Path(__file__).parent
    digest = catalog.digest(*((here / name).read_bytes() for name in (
        "apimodels.py", "apichecks.py", "shapes.py", "shapebuild.py")))
    found = cache.cached_json("shapes-api", digest, _build, _use)
    _LOADED[0] = (loaded, found)
    return found


def ml_policy_sources() -> tuple[str, ...]:
    """The ML policy sources of a runtime's ``spec.mlPolicy`` in the API's order (the fields
    the runtime models' one-source rule reads: ``apimodels.ml_policy_sources``)."""
    return programs().sources


def _build() -> Any:
    from migrator.knowledge import apimodels

    return apimodels.programs()


def _use(data: Any) -> Programs:
    models, kinds = data["models"], data["kinds"]
    if not isinstance(models, dict) or not isinstance(kinds, dict):
        raise shapes.ProgramError("not the Trainer models' programs")
    loaded = {name: shapes.load(program) for name, program in models.items()}
    checkers = {version: {kind: loaded[name] for kind, name in named.items()}
                for version, named in kinds.items()}
    rules = {tuple(pair[0] for pair in rule[1]) for rule in _after_rules(models)}
    if len(rules) != 1:
        raise shapes.ProgramError("the runtime models name no one ML policy source rule")
    return Programs(checkers, rules.pop())


def _after_rules(node: Any) -> list[Any]:
    """The ``one_ml_policy_source`` rules in (already loaded, so well-formed) programs."""
    found = []
    if isinstance(node, list):
        if len(node) == 5 and node[0] == "model" and isinstance(node[4], list) and \
                node[4][0] == "one_ml_policy_source":
            found.append(node[4])
        for child in node:
            found += _after_rules(child)
    elif isinstance(node, dict):
        for child in node.values():
            found += _after_rules(child)
    return found
