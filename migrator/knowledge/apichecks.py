"""KNOWLEDGE: the strict Trainer models (``apimodels``) as checkers of their compiled programs,
cached per catalog: validating a document, or naming the ML policy sources, needs no pydantic
once the programs are built (``apimodels.programs``, on a cache miss)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from migrator.knowledge import catalog, shapes

_LOADED: dict[int, tuple[Any, Programs]] = {}


class Programs:
    """The checkers of every Trainer version and kind, and the ML policy sources, from the
    programs of the cache entry: each checker is loaded when first asked for, and the sources
    found when first asked for (a check of a TrainJob loads one program of six)."""

    __slots__ = ("_checkers", "_kinds", "_models", "_sources")

    def __init__(self, models: dict[str, Any], kinds: dict[str, dict[str, str]]) -> None:
        self._models = models
        self._kinds = kinds
        self._checkers: dict[str, shapes.Checker | None] = {}
        self._sources: tuple[str, ...] | None = None

    def versions(self) -> frozenset[str]:
        """The Trainer versions the programs cover."""
        return frozenset(self._kinds)

    def has(self, version: str, kind: str) -> bool:
        """Whether Trainer ``version`` (one of ``versions``) has a model of ``kind``."""
        return kind in self._kinds[version]

    def checker(self, version: str, kind: str) -> shapes.Checker | None:
        """The checker of ``kind`` in ``version`` (``has``); None when its program cannot be
        loaded (a damaged entry: pydantic's model judges instead)."""
        name = self._kinds[version][kind]
        if name not in self._checkers:
            try:
                self._checkers[name] = shapes.load(self._models[name])
            except shapes.ProgramError:  # a damaged entry: pydantic's model instead
                self._checkers[name] = None
        return self._checkers[name]

    @property
    def sources(self) -> tuple[str, ...]:
        if self._sources is None:
            rules = {tuple(pair[0] for pair in rule[1]) for rule in _after_rules(self._models)}
            if len(rules) != 1:  # a damaged entry: from the models themselves
                from migrator.knowledge import apimodels

                self._sources = tuple(apimodels.ml_policy_sources())
            else:
                self._sources = rules.pop()
        return self._sources


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
    if not isinstance(models, dict) or not isinstance(kinds, dict) or not all(
            isinstance(named, dict) and all(isinstance(name, str) and name in models
                                            for name in named.values())
            for named in kinds.values()):
        raise shapes.ProgramError("not the Trainer models' programs")
    return Programs(models, kinds)


def _after_rules(node: Any, depth: int = 0) -> list[Any]:
    """The ``one_ml_policy_source`` rules in programs (``[[field, ...], ...]`` pairs)."""
    found: list[Any] = []
    if depth > 64:
        return found
    if isinstance(node, list):
        if len(node) == 5 and node[0] == "model" and isinstance(node[4], list) and \
                node[4] and node[4][0] == "one_ml_policy_source" and len(node[4]) > 1 and \
                isinstance(node[4][1], list) and all(
                    isinstance(pair, list) and pair and isinstance(pair[0], str)
                    for pair in node[4][1]):
            found.append(node[4])
        for child in node:
            found += _after_rules(child, depth + 1)
    elif isinstance(node, dict):
        for child in node.values():
            found += _after_rules(child, depth + 1)
    return found
