"""KNOWLEDGE: locate, load and cross-check the data files in mappings/ (cached per process).

Building the catalog parses the files and validates them with pydantic (``specmodels``); the
result is kept as a JSON entry of the per-user cache (``cache.cached_json``), which later runs
decode by the declarations in specs.py (``plain.decode``) without importing pydantic or a YAML
parser. An entry that does not decode is rebuilt.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from migrator.errors import MappingFileError
from migrator.knowledge import plain
from migrator.knowledge.specs import (
    KUBE_SCALARS,
    CodeDoc,
    IntegrationsSpec,
    KindIndex,
    KubeTypes,
    MappingSpec,
    Operators,
    PodRules,
    TargetSpec,
    UpgradeSpec,
)
from migrator.settings import flow_list
from migrator.settings import mappings_dir as mappings_dir  # also catalog.mappings_dir


def _read_yaml(path: Path) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, YAMLError) as exc:
        raise MappingFileError(f"{path}: {exc}") from None
    except RecursionError:  # nested deeper than the pure loader's recursion takes
        raise MappingFileError(f"{path}: nested too deeply to parse") from None


class Catalog(plain.Declared):
    """Everything in mappings/, validated."""

    legacy: dict[tuple[str, str], MappingSpec]
    targets: dict[str, TargetSpec]
    pod: PodRules
    kinds: KindIndex
    codes: dict[str, CodeDoc]
    upgrade: UpgradeSpec
    integrations: IntegrationsSpec
    kube: KubeTypes  # common/kubernetes.yaml (check/podschema.py)
    operators: Operators  # common/legacy-operators.yaml (check/operators.py)

    def target(self, version: str) -> TargetSpec:
        return self.targets[version]


class _Entry(plain.Declared):
    """A catalog as a cache entry: the files' values in the catalog's order."""

    legacy: list[MappingSpec]
    targets: list[TargetSpec]
    pod: PodRules
    kinds: KindIndex
    codes: dict[str, CodeDoc]
    upgrade: UpgradeSpec
    integrations: IntegrationsSpec
    kube: KubeTypes
    operators: Operators


def _stored(catalog: Catalog) -> Any:
    return plain.dump(_Entry(
        legacy=list(catalog.legacy.values()), targets=list(catalog.targets.values()),
        pod=catalog.pod, kinds=catalog.kinds, codes=catalog.codes, upgrade=catalog.upgrade,
        integrations=catalog.integrations, kube=catalog.kube, operators=catalog.operators))


def _restored(data: Any) -> Catalog:
    entry = plain.decode(_Entry, data)
    legacy = {(spec.source.api_version, spec.source.kind): spec for spec in entry.legacy}
    targets = {target.version: target for target in entry.targets}
    if len(legacy) != len(entry.legacy) or len(targets) != len(entry.targets):
        raise plain.Undecodable("a kind or target twice")
    return Catalog(legacy=legacy, targets=targets, pod=entry.pod, kinds=entry.kinds,
                   codes=entry.codes, upgrade=entry.upgrade, integrations=entry.integrations,
                   kube=entry.kube, operators=entry.operators)


@functools.lru_cache(maxsize=1)
def load() -> Catalog:
    """The validated catalog; a per-user cache keyed by the data files' contents (and this
    code's) spares later runs the parsing and validation."""
    from migrator.knowledge import cache

    root = mappings_dir()
    parts = _inputs(root)
    _LOADED.clear()
    _LOADED[root] = parts
    return cache.cached_json("catalog", cache.key(parts), lambda: _stored(_build(root)),
                             _restored)


_LOADED: dict[Path, list[bytes]] = {}  # the inputs of the catalog load() returns


def digest(*extra: bytes) -> str:
    """A cache key that changes with the mapping data, the knowledge code, the Python, tool,
    pydantic and ruamel.yaml installs (what the catalog is built from) and ``extra`` (say,
    the bytes of the caller's own code), without importing pydantic. Once the catalog is
    loaded, its inputs (read once per process) are those of the loaded catalog."""
    from migrator.knowledge import cache

    root = mappings_dir()
    parts = _LOADED.get(root)
    return cache.key([*(_inputs(root) if parts is None else parts), *extra])


def _inputs(root: Path) -> list[bytes]:
    """Everything a built catalog depends on: the data files, the code, the versions."""
    import sys

    from migrator.version import __version__

    here = Path(__file__).parent  # the code that builds and reads a catalog
    parts = [__version__.encode(), sys.version.encode(), *_install_stamps()]
    parts += [(here / name).read_bytes() for name in (
        "catalog.py", "specs.py", "plain.py", "specmodels.py", "cache.py")]
    for path in sorted(root.rglob("*.yaml")):
        parts += [path.relative_to(root).as_posix().encode(), path.read_bytes()]
    return parts


def _install_stamps() -> list[bytes]:
    """Where pydantic, pydantic-core and ruamel.yaml are installed, with each package file's
    size and times (an upgrade rewrites them), found without importing the packages."""
    import importlib.util
    import os

    parts = []
    for module in ("pydantic", "pydantic_core", "ruamel.yaml"):
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
        if not origin:
            parts.append(f"{module} missing".encode())
            continue
        try:
            info = os.stat(origin)
            stamp = f"{origin} {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns}"
        except OSError:
            stamp = f"{origin} unreadable"
        parts.append(stamp.encode("utf-8", "surrogateescape"))
    return parts


def _build(root: Path) -> Catalog:
    """The catalog of the data files under ``root``, validated (imports pydantic)."""
    from migrator.knowledge.specmodels import validate as _model

    legacy: dict[tuple[str, str], MappingSpec] = {}
    for path in sorted((root / "legacy").glob("*.yaml")):
        spec = _model(MappingSpec, path, _read_yaml(path))
        _check_id(path, spec.id)
        key = (spec.source.api_version, spec.source.kind)
        if key in legacy:
            raise MappingFileError(f"{path}: {key[0]} {key[1]} is already mapped")
        legacy[key] = spec
    targets: dict[str, TargetSpec] = {}
    raw_targets = {path.stem: (path, _read_yaml(path))
                   for path in sorted((root / "targets").glob("*.yaml"))}
    for name, (path, _) in raw_targets.items():
        target = _model(TargetSpec, path, expand_target(name, raw_targets))
        _check_id(path, target.id)
        targets[target.version] = target
    pod = _model(PodRules, root / "common" / "podtemplate.yaml",
                 _read_yaml(root / "common" / "podtemplate.yaml"))
    kinds = _model(KindIndex, root / "kinds.yaml", _read_yaml(root / "kinds.yaml"))
    _check_flow_lists(root / "kinds.yaml", kinds)
    raw_codes = _read_yaml(root / "codes.yaml")
    codes = {code: _model(CodeDoc, root / "codes.yaml", doc) for code, doc in raw_codes.items()}
    upgrade = _model(UpgradeSpec, root / "upgrade.yaml", _read_yaml(root / "upgrade.yaml"))
    _check_id(root / "upgrade.yaml", upgrade.id)
    integrations = _model(IntegrationsSpec, root / "common" / "integrations.yaml",
                          _read_yaml(root / "common" / "integrations.yaml"))
    _check_id(root / "common" / "integrations.yaml", integrations.id)
    kube = _model(KubeTypes, root / "common" / "kubernetes.yaml",
                  _read_yaml(root / "common" / "kubernetes.yaml"))
    _check_kube_types(kube)
    operators = _model(Operators, root / "common" / "legacy-operators.yaml",
                       _read_yaml(root / "common" / "legacy-operators.yaml"))
    catalog = Catalog(legacy=legacy, targets=targets, pod=pod, kinds=kinds, codes=codes,
                      upgrade=upgrade, integrations=integrations, kube=kube, operators=operators)
    _check_codes(catalog)
    _check_targets(catalog)
    _check_kinds(catalog)
    return catalog


# kinds.yaml lists that start-up code reads as text, without a YAML parser (settings.flow_list)
FLOW_LISTS = ("runtimeKinds", "candidateMarkers", "legacyGroups")


def _check_flow_lists(path: Path, kinds: KindIndex) -> None:
    """The lists read as text at start-up (``--runtime-kind`` choices, the candidate check)
    read the same as the parsed file: else the tool would act on other values than the
    catalog's (a list spread over several lines, a comment inside it)."""
    from migrator.knowledge.specmodels import dump_by_alias

    parsed = dump_by_alias(kinds)
    for key in FLOW_LISTS:
        if flow_list(path, key) != tuple(parsed[key]):
            raise MappingFileError(f"{path}: {key} must be a one-line list [a, b] (start-up "
                                   f"code reads it as text), read as {list(flow_list(path, key))}")


def _check_kinds(catalog: Catalog) -> None:
    """kinds.yaml names every mapped legacy kind, every legacy kind it names is mapped or
    pending, and a retired kind is not listed, so not mapped (the text checks in
    load/detect.py read the same lists)."""
    trainer = {item.kind for item in (*catalog.kinds.current, *catalog.kinds.prototypes)}
    listed = set(catalog.kinds.training_kinds) - trainer
    mapped = {kind for _, kind in catalog.legacy}
    pending = {item.kind for item in catalog.kinds.pending}
    if mapped - listed:
        raise MappingFileError(f"kinds.yaml: trainingKinds lacks the mapped kinds "
                               f"{sorted(mapped - listed)}")
    retired = set(catalog.kinds.retired) & set(catalog.kinds.training_kinds)
    if retired:
        raise MappingFileError(f"kinds.yaml: the retired kinds {sorted(retired)} are also in "
                               "trainingKinds (a kind that converts is not retired)")
    if listed - mapped - pending:
        raise MappingFileError(f"kinds.yaml: {sorted(listed - mapped - pending)} have no "
                               "legacy/*.yaml mapping and are not pending")
    apis = [key[0] for key in catalog.legacy] + [item.api_version for item in (
        *catalog.kinds.current, *catalog.kinds.prototypes, *catalog.kinds.pending)] + [
        target.api_version for target in catalog.targets.values()]
    unmarked = sorted({api for api in apis
                       if not any(marker in api for marker in catalog.kinds.candidate_markers)})
    if unmarked:
        raise MappingFileError(f"kinds.yaml: candidateMarkers match none of {unmarked}: "
                               "documents of those APIs would never be looked at")
    groups = sorted({api.rpartition("/")[0] for api, _ in catalog.legacy}
                    - set(catalog.kinds.legacy_groups))
    if groups:
        raise MappingFileError(f"kinds.yaml: legacyGroups lacks the mapped groups {groups}")
    for target in catalog.targets.values():
        accepted = sorted(set(catalog.kinds.legacy_managers) & set(target.managed_by))
        if accepted:
            raise MappingFileError(f"kinds.yaml: legacyManagers {accepted} are values Trainer "
                                   f"{target.version}'s spec.managedBy accepts (targets/*.yaml "
                                   "managedBy): a job naming them would lose them")


def _check_kube_types(kube: KubeTypes) -> None:
    """Every field of kubernetes.yaml names a scalar or a type of the file (or a list of one)."""
    for name, kube_type in kube.types.items():
        for field, spec in kube_type.fields.items():
            inner = spec[0] if isinstance(spec, list) and len(spec) == 1 else spec
            if not isinstance(inner, str) or (inner not in KUBE_SCALARS and
                                              inner not in kube.types):
                raise MappingFileError(f"kubernetes.yaml: {name}.{field}: unknown type {spec!r}")


# Lists in a target delta replace the base's list, except these, whose items merge by name.
MERGED_BY_NAME = ("defaultRuntimes",)


def expand_target(name: str, raw: dict[str, tuple[Path, Any]],
                  seen: tuple[str, ...] = ()) -> Any:
    """The full data of target file ``name``: itself, or, with ``base: v<X.Y>``, its base
    (expanded) with the file's other keys merged in — mappings merge key by key, lists
    replace the base's list (items of ``defaultRuntimes`` merge by ``name``; new ones are
    appended), scalars replace."""
    path, data = raw[name]
    if not isinstance(data, dict) or "base" not in data:
        return data
    base = data["base"]
    if base not in raw:
        raise MappingFileError(f"{path}: base {base!r} is not a target file in "
                               f"{path.parent}")
    if base in (*seen, name):
        raise MappingFileError(f"{path}: base {base!r} makes a cycle")
    return _merge(expand_target(base, raw, (*seen, name)),
                  {k: v for k, v in data.items() if k != "base"}, "")


def _merge(base: Any, delta: Any, key: str) -> Any:
    if isinstance(base, dict) and isinstance(delta, dict):
        merged = dict(base)
        for k, value in delta.items():
            merged[k] = _merge(base[k], value, k) if k in base else value
        return merged
    if key in MERGED_BY_NAME and isinstance(base, list) and isinstance(delta, list) and \
            all(isinstance(item, dict) and "name" in item for item in (*base, *delta)):
        items = {item["name"]: item for item in base}
        for item in delta:
            items[item["name"]] = _merge(items[item["name"]], item, "") \
                if item["name"] in items else item
        return list(items.values())
    return delta


def _check_targets(catalog: Catalog) -> None:
    """Every framework a mapping names has a policy on every target, and roles fit its jobs."""
    for target in catalog.targets.values():
        for name, framework in target.frameworks.items():
            if framework.policy not in target.policies:
                raise MappingFileError(f"target {target.id}: framework {name!r} names unknown "
                                       f"policy {framework.policy!r}")
        for spec in catalog.legacy.values():
            needed = target.frameworks.get(spec.framework)
            if needed is None:
                raise MappingFileError(f"target {target.id} has no framework {spec.framework!r} "
                                       f"(needed by {spec.id})")
            jobs = {job.name for job in target.policies[needed.policy].jobs}
            for role, rules in spec.replica_specs.roles.items():
                if rules.job not in jobs:
                    raise MappingFileError(f"{spec.id}: role {role} maps to job {rules.job!r}, "
                                           f"which the {needed.policy} policy lacks")


def _check_id(path: Path, spec_id: str) -> None:
    if path.stem != spec_id:
        raise MappingFileError(f"{path}: id {spec_id!r} does not match the file name")


def used_codes(catalog: Catalog) -> set[str]:
    """Codes that the data files refer to."""
    used = {rule.code for spec in catalog.legacy.values() for rule in spec.rules if rule.code}
    for spec in catalog.legacy.values():
        used.update(note.code for note in spec.notes)
        used.update(role.unsupported for role in spec.replica_specs.roles.values()
                    if role.unsupported)
    for group in (catalog.pod.pod_metadata, catalog.pod.pod_spec, catalog.pod.container):
        used.add(group.other_code)
        used.update(rule.code for rule in group.fields.values() if rule.code)
    used.update(field.code for field in catalog.upgrade.removed_runtime_fields)
    return used


def _check_codes(catalog: Catalog) -> None:
    missing = sorted(used_codes(catalog) - catalog.codes.keys())
    if missing:
        raise MappingFileError(f"codes used in mappings/ but not in codes.yaml: {missing}")
