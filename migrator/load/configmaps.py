"""LOAD: the ConfigMaps of a stream, by name, as a job in a namespace sees them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ruamel.yaml.error import YAMLError

from migrator.load import stream, yamlio


class ConfigMaps:
    """Each ConfigMap's ``data`` by name and namespace ("" when the document names none)."""

    def __init__(self, chunks: Iterable[stream.Chunk]) -> None:
        self.by_name: dict[str, dict[str, Mapping[str, Any]]] = {}
        for chunk in chunks:
            if "ConfigMap" not in chunk.body:
                continue
            try:
                node = yamlio.plain(yamlio.load(chunk.body))
            except (ValueError, yamlio.DocumentError, YAMLError, RecursionError):
                continue  # it names nothing
            if not isinstance(node, Mapping) or node.get("kind") != "ConfigMap":
                continue
            metadata, data = node.get("metadata"), node.get("data")
            if isinstance(metadata, Mapping) and isinstance(data, Mapping):
                self.by_name.setdefault(str(metadata.get("name")), {})[
                    str(metadata.get("namespace") or "")] = data

    def __bool__(self) -> bool:
        return bool(self.by_name)

    def seen_from(self, namespace: str) -> Mapping[str, Mapping[str, Any]]:
        """The ConfigMaps a pod in ``namespace`` mounts by name: those of that namespace, or
        of none stated on either side (both then land in the namespace they are applied to)."""
        return _Seen(self.by_name, namespace)


class _Seen(Mapping[str, Mapping[str, Any]]):
    def __init__(self, by_name: dict[str, dict[str, Mapping[str, Any]]], namespace: str) -> None:
        self.by_name, self.namespace = by_name, namespace

    def _pick(self, name: str) -> Mapping[str, Any] | None:
        found = self.by_name.get(name) or {}
        if self.namespace:
            return found.get(self.namespace, found.get(""))
        return found.get("") if "" in found else next(iter(found.values()), None)

    def __getitem__(self, name: str) -> Mapping[str, Any]:
        data = self._pick(name)
        if data is None:
            raise KeyError(name)
        return data

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._pick(name) is not None

    def __iter__(self) -> Iterator[str]:
        return (name for name in self.by_name if name in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)
