"""The specs as plain declared values: the same catalog as pydantic's validation gives, read
from the cache without pydantic, damaged entries rebuilt, and the data files' errors named as
pydantic names them."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from ruamel.yaml import YAML

from migrator.errors import MappingFileError
from migrator.knowledge import cache, catalog, plain, specmodels, specs

ROOT = Path(__file__).resolve().parent.parent



def _read(path: Path) -> Any:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


def _same(value: Any, model: Any, where: str) -> None:
    """``value`` (plain) holds what ``model`` (pydantic) holds, field by field."""
    if isinstance(model, BaseModel):
        assert isinstance(value, plain.Declared), where
        assert type(value).__name__ == type(model).__name__, where
        assert tuple(type(model).model_fields) == value.FIELDS, where
        for name in value.FIELDS:
            _same(getattr(value, name), getattr(model, name), f"{where}.{name}")
    elif isinstance(model, list):
        assert type(value) is list, where
        for index, (item, expected) in enumerate(zip(value, model, strict=True)):
            _same(item, expected, f"{where}.{index}")
    elif isinstance(model, dict):
        assert type(value) is dict, where
        assert list(value) == list(model), where
        for key, expected in model.items():
            _same(value[key], expected, f"{where}.{key}")
    else:
        assert type(value) is type(model), where
        assert value == model, where


def _validated(loaded: catalog.Catalog) -> Iterator[tuple[Any, type[plain.Declared], Any]]:
    """(plain value, its class, pydantic's validation of the same data) for every file."""
    root = catalog.mappings_dir()
    _yaml = functools.cache(_read)  # each file parsed once (codes.yaml is read per code)
    for spec in loaded.legacy.values():
        yield spec, specs.MappingSpec, _yaml(root / "legacy" / f"{spec.id}.yaml")
    raw = {path.stem: (path, _yaml(path)) for path in sorted((root / "targets").glob("*.yaml"))}
    for target in loaded.targets.values():
        yield target, specs.TargetSpec, catalog.expand_target(target.id, raw)
    yield loaded.pod, specs.PodRules, _yaml(root / "common" / "podtemplate.yaml")
    yield loaded.kinds, specs.KindIndex, _yaml(root / "kinds.yaml")
    for code, doc in loaded.codes.items():
        yield doc, specs.CodeDoc, _yaml(root / "codes.yaml")[code]
    yield loaded.upgrade, specs.UpgradeSpec, _yaml(root / "upgrade.yaml")
    yield loaded.integrations, specs.IntegrationsSpec, _yaml(root / "common" / "integrations.yaml")
    yield loaded.kube, specs.KubeTypes, _yaml(root / "common" / "kubernetes.yaml")
    yield loaded.operators, specs.Operators, _yaml(root / "common" / "legacy-operators.yaml")


def test_the_cached_catalog_is_what_pydantic_validates(cache_dir: Path) -> None:
    """Differential: the catalog read back from its JSON entry holds, field by field, what the
    pydantic models give for the shipped mappings/ (and shows the same ``repr``)."""
    catalog.load()
    catalog.load.cache_clear()
    loaded = catalog.load()  # decoded from the entry
    assert len(list(cache_dir.glob("catalog-*.json"))) == 1
    assert loaded == catalog._build(catalog.mappings_dir())
    count = 0
    for value, cls, data in _validated(loaded):
        model = specmodels.model(cls).model_validate(data)
        _same(value, model, cls.__name__)
        assert repr(value) == repr(model)
        assert specmodels.dump_by_alias(value) == model.model_dump(by_alias=True)
        count += 1
    assert count > 40


def test_a_warm_catalog_imports_no_pydantic(tmp_path: Path) -> None:
    """With the catalog cached, the mapping knowledge (the catalog, the Kubernetes type
    tables, the legacy operators' additions) loads without pydantic or a YAML parser."""
    env = {**os.environ, "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("TRAINJOB_MIGRATE_NO_CACHE", None)
    probe = ("import sys\n"
             "from migrator.knowledge import catalog\n"
             "from migrator.check import operators, podschema\n"
             "catalog.load(); podschema.types(); operators.load(); operators.sshd_command()\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in "
             "('pydantic', 'pydantic_core', 'annotated_types', 'typing_inspection') "
             "or m.startswith('ruamel.yaml') or m == 'migrator.knowledge.specmodels'))\n")

    def run() -> str:
        return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                              env=env, cwd=ROOT, check=True, timeout=120).stdout.strip()

    assert "pydantic" in run()  # the first run builds the catalog
    assert run() == "[]"


def test_the_catalog_key_is_made_without_pydantic(tmp_path: Path) -> None:
    probe = ("import sys\nfrom migrator.knowledge import catalog\ncatalog.digest()\n"
             "print('pydantic' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=120).stdout
    assert out.strip() == "False"


@pytest.fixture(scope="module")
def stored_entry(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, bytes]:
    """The catalog's cache entry (file name, bytes), built once for the module: the tests that
    damage an entry start from a copy of it instead of building the catalog again each."""
    folder = tmp_path_factory.mktemp("catalog") / "cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TRAINJOB_MIGRATE_CACHE_DIR", str(folder))
        patch.delenv("TRAINJOB_MIGRATE_NO_CACHE", raising=False)
        catalog.load.cache_clear()
        try:
            catalog.load()
        finally:
            catalog.load.cache_clear()
    (entry,) = folder.glob("catalog-*.json")
    return entry.name, entry.read_bytes()


def _entry(cache_dir: Path, stored: tuple[str, bytes]) -> tuple[Path, dict[str, Any]]:
    """The stored entry in ``cache_dir`` (a private folder, as the cache makes it), loaded."""
    cache_dir.mkdir(mode=0o700)
    name, data = stored
    (cache_dir / name).write_bytes(data)
    catalog.load()
    (entry,) = cache_dir.glob("catalog-*.json")
    return entry, json.loads(entry.read_text(encoding="utf-8"))


def _first(data: dict[str, Any], key: str) -> dict[str, Any]:
    value: dict[str, Any] = data[key][0]
    return value


DAMAGE: dict[str, Callable[[dict[str, Any]], Any]] = {
    "not a mapping": lambda data: [data],
    "a field missing": lambda data: data.pop("kube"),
    "an unknown field": lambda data: data.update(more=1),
    "a nested field missing": lambda data: _first(data, "legacy").pop("framework"),
    "a nested unknown field": lambda data: _first(data, "legacy")["source"].update(x=1),
    "a camelCase key": lambda data: _first(data, "legacy").update(
        replicaSpecs=_first(data, "legacy").pop("replica_specs")),
    "a wrong scalar": lambda data: _first(data, "targets")["limits"].update(name="63"),
    "a boolean for an int": lambda data: _first(data, "targets")["limits"].update(name=True),
    "an int for a boolean": lambda data: _first(data, "targets").update(honours_managed_by=1),
    "null for a list": lambda data: _first(data, "targets").update(managed_by=None),
    "a string for a list": lambda data: data["kinds"].update(runtime_kinds="ab"),
    "a list too short": lambda data: data["kinds"].update(runtime_kinds=["A"]),
    "an empty string": lambda data: data["integrations"]["kueue"].update(queue_label=""),
    "a literal out of its choices": lambda data: data["codes"]["K105"].update(severity="x"),
    "a cross-field rule broken": lambda data: _first(data, "legacy")["rules"].append(
        {"source": "spec.x", "op": "copy", "to": None, "fn": None, "code": None}),
    "a list for a mapping": lambda data: data["upgrade"].update(train_job_spec=[]),
    "a kind twice": lambda data: data["legacy"].append(_first(data, "legacy")),
    "a list item of the wrong type": lambda data: data["operators"].update(sshd_command=[1]),
    "a null list item": lambda data: data["kinds"].update(training_kinds=[None]),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_entry_is_rebuilt(cache_dir: Path, stored_entry: tuple[str, bytes],
                                    damage: str) -> None:
    """JSON that is not a catalog, whatever is wrong with it, is a miss: the catalog is
    rebuilt (never a traceback) and the entry replaced."""
    entry, data = _entry(cache_dir, stored_entry)
    built, stored = catalog.load(), entry.read_bytes()
    changed = DAMAGE[damage](data)
    entry.write_text(json.dumps(changed if isinstance(changed, list) else data),
                     encoding="utf-8")
    assert entry.read_bytes() != stored
    catalog.load.cache_clear()
    assert catalog.load() == built
    assert entry.read_bytes() == stored  # rewritten


def test_a_deeply_nested_entry_is_rebuilt(cache_dir: Path,
                                          stored_entry: tuple[str, bytes]) -> None:
    entry, _ = _entry(cache_dir, stored_entry)
    built = catalog.load()
    entry.write_text('{"legacy": ' + "[" * 100000 + "]" * 100000 + "}", encoding="utf-8")
    catalog.load.cache_clear()
    assert catalog.load() == built


def _mapping_copy(tmp_path: Path) -> Path:
    root = tmp_path / "mappings"
    shutil.copytree(catalog.mappings_dir(), root)
    return root


def _edit(path: Path, change: Callable[[Any], Any]) -> None:
    data = _read(path)
    change(data)
    with path.open("w", encoding="utf-8") as out:
        YAML().dump(data, out)


def _any(mapping: dict[str, Any]) -> Any:
    return next(iter(mapping.values()))


def _role(data: Any) -> Any:
    return _any(_any(data["operators"])["roles"])


# (file, change, message): the first problem pydantic finds, as the catalog reports it
BAD_FILES = [
    ("legacy/pytorchjob.yaml", lambda d: d.update(foo=1),
     "legacy/pytorchjob.yaml: foo: Extra inputs are not permitted"),
    ("legacy/pytorchjob.yaml",
     lambda d: d["rules"].append({"from": "spec.x", "op": "copy"}),
     "legacy/pytorchjob.yaml: rules.9: Value error, op 'copy' needs 'to'"),
    ("legacy/pytorchjob.yaml", lambda d: d["rules"].insert(0, {"op": "drop"}),
     "legacy/pytorchjob.yaml: rules.0.from: Field required"),
    ("legacy/pytorchjob.yaml", lambda d: d.update(source=5),
     "legacy/pytorchjob.yaml: source: Input should be a valid dictionary or instance of "
     "ApiKind"),
    ("legacy/pytorchjob.yaml", lambda d: d.update(launcher={"wrap": "other"}),
     "legacy/pytorchjob.yaml: launcher.wrap: Input should be 'tf-config'"),
    ("targets/v2.2.yaml", lambda d: d.update(managedBy=[]),
     "targets/v2.2.yaml: managedBy: List should have at least 1 item after validation, not 0"),
    ("targets/v2.2.yaml", lambda d: d["limits"].update(name="x"),
     "targets/v2.2.yaml: limits.name: Input should be a valid integer, unable to parse "
     "string as an integer"),
    ("kinds.yaml", lambda d: d.update(runtimeKinds=["a", "b", "c"]),
     "kinds.yaml: runtimeKinds: List should have at most 2 items after validation, not 3"),
    ("upgrade.yaml", lambda d: d["trainJobSpec"].update(x={"op": "initializer"}),
     "upgrade.yaml: trainJobSpec.x: Value error, `to` goes with op 'initializer' (and only "
     "with it)"),
    ("upgrade.yaml", lambda d: d["trainJobSpec"].update(x={"op": "keep", "to": "y"}),
     "upgrade.yaml: trainJobSpec.x: Value error, `to` goes with op 'initializer' (and only "
     "with it)"),
    ("common/integrations.yaml", lambda d: d["kueue"].update(queueLabel=""),
     "common/integrations.yaml: kueue.queueLabel: String should have at least 1 character"),
    ("common/podtemplate.yaml", lambda d: _any(d["podSpec"]["fields"]).update({"as": 3}),
     "common/podtemplate.yaml: podSpec.fields.containers.as: Input should be a valid string"),
    ("codes.yaml", lambda d: _any(d).update(severity="fatal"),
     "codes.yaml: severity: Input should be 'error', 'warning' or 'info'"),
    ("common/kubernetes.yaml", lambda d: _any(d["types"]).update(bogus=1),
     "common/kubernetes.yaml: types.PodTemplateSpec.bogus: Extra inputs are not permitted"),
    ("common/kubernetes.yaml", lambda d: _any(d["types"]).update(required="x"),
     "common/kubernetes.yaml: types.PodTemplateSpec.required: Input should be a valid list"),
    ("common/kubernetes.yaml", lambda d: _any(d["types"])["fields"].update(x="Nothing"),
     "kubernetes.yaml: PodTemplateSpec.x: unknown type 'Nothing'"),
    ("common/legacy-operators.yaml", lambda d: _role(d).update(command=5),
     "common/legacy-operators.yaml: operators.pytorchjob.roles.*.command: Input should be a "
     "valid dictionary or instance of Command"),
    ("common/legacy-operators.yaml", lambda d: d.update(extra=1),
     "common/legacy-operators.yaml: extra: Extra inputs are not permitted"),
]


@pytest.mark.parametrize(("name", "change", "message"), BAD_FILES,
                         ids=[f"{case[0]}-{index}" for index, case in enumerate(BAD_FILES)])
def test_a_bad_data_file_is_named_as_pydantic_names_it(
        tmp_path: Path, name: str, change: Callable[[Any], Any], message: str) -> None:
    root = _mapping_copy(tmp_path)
    _edit(root / name, change)
    with pytest.raises(MappingFileError) as caught:
        catalog._build(root)
    assert str(caught.value) in (f"{root}/{message}", message)


def test_the_data_files_take_the_field_names_too(tmp_path: Path) -> None:
    """As before: a key may be the camelCase alias or the field's own name."""
    root = _mapping_copy(tmp_path)
    _edit(root / "legacy" / "pytorchjob.yaml",
          lambda d: d.update(replica_specs=d.pop("replicaSpecs")))
    shipped = catalog._build(catalog.mappings_dir())
    assert catalog._build(root).legacy == shipped.legacy


def test_declared_values_behave_as_frozen_values() -> None:
    jobs = [specs.JobSpec(name="node", containers=["node"])]
    runtime = specs.RuntimeSpec(name="r", kind="K", policy="torch", trainer_job="node",
                                container="node", jobs=jobs)
    assert runtime.jobs == jobs
    assert runtime.jobs is not jobs  # a list argument is copied
    assert runtime.reserved_env == []
    assert runtime.companion is False
    assert runtime.reserved_env is not specs.RuntimeSpec.DEFAULTS["reserved_env"]
    same = specs.RuntimeSpec(name="r", kind="K", policy="torch", trainer_job="node",
                             container="node", jobs=list(jobs))
    assert runtime == same
    assert runtime != jobs[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        runtime.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError, match="lacks the field 'containers'"):
        specs.JobSpec(name="node")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="has no field 'image'"):
        specs.JobSpec(name="node", containers=[], image="x")  # type: ignore[call-arg]
    assert hash(specs.ApiKind(api_version="v1", kind="K")) == \
        hash(specs.ApiKind(api_version="v1", kind="K"))
    assert repr(specs.ApiKind(api_version="v1", kind="K")) == \
        "ApiKind(api_version='v1', kind='K')"


def test_the_cache_key_follows_the_declarations(tmp_path: Path) -> None:
    """The key covers the code that builds and reads an entry (not only the data)."""
    digest = cache.key(catalog._inputs(catalog.mappings_dir()))
    here = Path(catalog.__file__).parent
    for name in ("specs.py", "plain.py", "specmodels.py"):
        assert (here / name).read_bytes() in catalog._inputs(catalog.mappings_dir()), name
    assert digest == cache.key(catalog._inputs(catalog.mappings_dir()))


def test_a_check_with_warm_caches_imports_no_pydantic(tmp_path: Path) -> None:
    """The hook's case: ``check`` of a legacy file that changed since the last run, with the
    catalog (and the compiled shapes) cached, never imports pydantic; the findings are those
    of the run that built the caches."""
    env = {**os.environ, "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("TRAINJOB_MIGRATE_NO_CACHE", None)
    job = tmp_path / "job.yaml"
    source = (ROOT / "fixtures" / "pytorchjob" / "companion.in.yaml").read_text(encoding="utf-8")
    runs = []
    for edit in ("", "# changed since the last run\n"):
        job.write_text(source + edit, encoding="utf-8")
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "migrator", "check",
                               str(job)], capture_output=True, text=True, env=env, cwd=tmp_path,
                              check=False, timeout=120)
        imported = {line.rpartition("|")[2].strip() for line in proc.stderr.splitlines()
                    if line.startswith("import time:")}
        findings = [re.sub(r" \(\d+\.\d+s\)$", "", line) for line in proc.stderr.splitlines()
                    if not line.startswith("import time:")]
        runs.append((proc.returncode, proc.stdout, findings, imported))
    (first_rc, first_out, first_findings, built), (rc, out, findings, imported) = runs
    assert "pydantic" in built  # the first run built the caches
    assert "pydantic" not in imported
    assert not {name for name in imported if name.startswith(("pydantic", "annotated_types"))}
    assert (rc, out, findings) == (first_rc, first_out, first_findings)
    assert "error" in first_out  # the job has findings to compare
