"""Importing the converter imports neither ``dataclasses`` nor ``inspect`` (issue 18: a warm
check imports the converter at its first changed file; dataclasses costs ~5-8 ms with
inspect, ast, dis and tokenize, and each generated class ~0.3 ms more), and the converter's
value classes, written by hand (migrator/results.py), behave as the dataclasses they
replaced: the same fields, defaults and default factories, ``==`` field by field, the
dataclass repr, frozen ones hashable and refusing changes, mutable ones unhashable,
``dataclasses.replace`` and pickling."""

from __future__ import annotations

import copy
import dataclasses
import functools
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from migrator.check.audit import TrainerObjects
from migrator.check.crdschema import CRD
from migrator.convert.argo import Requirement, Rewrite
from migrator.convert.classify import Classification
from migrator.convert.draft import Companion, Draft, PodPatch
from migrator.convert.rules.context import RuleContext
from migrator.convert.rules.transforms import Call
from migrator.convert.status import Live
from migrator.load.masking import Masked
from migrator.load.textscan import Heredoc, Hit
from migrator.load.yamlio import Indent
from tests.goldens import ROOT

PROBE = ("import sys, migrator.launch, migrator.convert.document; "
         "print(sorted({'dataclasses', 'inspect'} & set(sys.modules)))")


def test_importing_the_converter_imports_neither_dataclasses_nor_inspect() -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          check=False, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


# what a worker of a check does with a batch of changed files (convert them, slim the results)
BATCH_PROBE = """
import sys
from migrator.batch import parallel
from migrator.settings import ConvertOptions
task = parallel._Task(ConvertOptions(), False, 10**7, False, False, None)
results = parallel._process_batch([(name, name) for name in sys.argv[1:]], task)
assert all(r.result is not None and r.source is None for r in results), results
print(sorted({'dataclasses', 'inspect'} & set(sys.modules)))
"""


def test_a_worker_converting_changed_files_imports_neither_dataclasses_nor_inspect() -> None:
    """Nor does converting (a job, a Katib experiment, an Argo workflow) and slimming the
    results for the main process (this imported dataclasses: ~7 ms of every warm check that
    converts a file)."""
    names = [str(ROOT / "fixtures" / case) for case in (
        "pytorchjob/full.in.yaml", "embedded/katib-experiment.in.yaml",
        "argo/train-then-clean-up.in.yaml", "tfjob/multi-worker.in.yaml")]
    assert all(os.path.exists(name) for name in names)
    for _run in ("fills the per-user caches (building them imports pydantic)", "warm"):
        proc = subprocess.run([sys.executable, "-c", BATCH_PROBE, *names], capture_output=True,
                              text=True, check=False, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


DIRECT_PROBE = """
import sys
from migrator.batch import parallel
from migrator.settings import ConvertOptions
found = [(name, name) for name in sys.argv[1:]]
results = list(parallel.run(iter(found), ConvertOptions(), 2, False, 10**7, False, False,
                            direct=True))
assert [r.name for r in results] == sys.argv[1:] and all(r.result for r in results), results
print(sorted({'socket', 'multiprocessing'} & set(sys.modules)))
"""


def test_a_direct_run_imports_no_socket() -> None:
    """A warm run's direct worker is reached over two pipes: the main process imports
    neither ``socket`` (~2.5 ms, before the worker is forked) nor multiprocessing."""
    names = [str(ROOT / "fixtures" / case) for case in (
        "pytorchjob/full.in.yaml", "xgboostjob/minimal.in.yaml")]
    assert all(os.path.exists(name) for name in names)
    proc = subprocess.run([sys.executable, "-c", DIRECT_PROBE, *names], capture_output=True,
                          text=True, check=False, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


class Required:
    """A field without a default."""


class Factory:
    """A field whose default is made by a factory: a new ``value`` (equal) each time."""

    def __init__(self, value: Any) -> None:
        self.value = value


REQUIRED = Required()

# Each class: frozen, its fields in the dataclass's order with their defaults, and one
# example (every field given, a value different from its default).
CLASSES: list[tuple[type, bool, dict[str, Any], dict[str, Any]]] = [
    (CRD, True,
     {"path": REQUIRED, "kind": REQUIRED, "group": REQUIRED, "validators": REQUIRED},
     {"path": "crd.yaml", "kind": "TrainJob", "group": "trainer.kubeflow.org",
      "validators": {"v1alpha1": "validator"}}),
    (TrainerObjects, True,
     {"kinds": REQUIRED, "groups": REQUIRED, "prototypes": REQUIRED},
     {"kinds": frozenset({"TrainJob"}), "groups": ("trainer.kubeflow.org/",),
      "prototypes": frozenset({"kubeflow.org/v2alpha1"})}),
    (Requirement, True,
     {"key": REQUIRED, "operator": REQUIRED, "values": ()},
     {"key": "status.phase", "operator": "in", "values": ("a", "b")}),
    (Rewrite, True,
     {"expression": REQUIRED, "changed": REQUIRED, "untranslated": ()},
     {"expression": "x == 1", "changed": True, "untranslated": ("y",)}),
    (Classification, True,
     {"verdict": REQUIRED, "mapping": None, "detail": ""},
     {"verdict": "pre-v22", "mapping": "mapping", "detail": "marker"}),
    (PodPatch, False,
     {"labels": Factory({}), "annotations": Factory({}), "spec": Factory({}),
      "container": Factory({})},
     {"labels": {"a": "1"}, "annotations": {"b": "2"}, "spec": {"hostIPC": True},
      "container": {"image": "x"}}),
    (Companion, False,
     {"name": REQUIRED, "policy": REQUIRED, "kind": REQUIRED, "policy_fields": Factory({}),
      "jobset": Factory({}), "job_fields": Factory({}), "templates": Factory({}),
      "depends_on": Factory({}), "pod_group": None},
     {"name": "job-runtime", "policy": "mpi", "kind": "TrainingRuntime",
      "policy_fields": {"runLauncherAsNode": True}, "jobset": {"ttlSecondsAfterFinished": 5},
      "job_fields": {"node": {"backoffLimit": 3}}, "templates": {"node": {"spec": {}}},
      "depends_on": {"node": [("launcher", "Ready")]}, "pod_group": {"volcano": {}}}),
    (Draft, False,
     {"name": None, "generate_name": None, "namespace": None, "labels": None,
      "annotations": None, "source_metadata": None, "runtime_name": "",
      "runtime_kind": Factory("ClusterTrainingRuntime"), "suspend": None,
      "active_deadline_seconds": None, "managed_by": None, "trainer": Factory({}),
      "jobset_labels": Factory({}), "jobset_annotations": Factory({}), "jobs": Factory({}),
      "job_order": ("node",), "patch_job": "node", "patch_container": "node",
      "companion": None, "num_nodes": 0, "runtime": None, "runtime_pods": Factory({}),
      "runtime_doc": None},
     {"name": "job", "generate_name": "job-", "namespace": "ns", "labels": {"a": "1"},
      "annotations": {"b": "2"}, "source_metadata": {"name": "job"},
      "runtime_name": "torch-distributed", "runtime_kind": "TrainingRuntime",
      "suspend": True, "active_deadline_seconds": 60, "managed_by": "kueue.x-k8s.io/multikueue",
      "trainer": {"numNodes": 2}, "jobset_labels": {"c": "3"},
      "jobset_annotations": {"d": "4"}, "jobs": {"node": PodPatch({"e": "5"})},
      "job_order": ("launcher", "node"), "patch_job": "launcher",
      "patch_container": "main", "companion": Companion("r", "mpi", "TrainingRuntime"),
      "num_nodes": 2, "runtime": "runtime", "runtime_pods": {"node": {"spec": {}}},
      "runtime_doc": {"kind": "TrainingRuntime"}}),
    (RuleContext, False,
     {"job": REQUIRED, "spec": REQUIRED, "pod_rules": REQUIRED, "target": REQUIRED,
      "options": REQUIRED, "ledger": REQUIRED, "runtime": REQUIRED, "embedded": False,
      "trainer_main": None},
     {"job": "job", "spec": "spec", "pod_rules": "rules", "target": "2.3",
      "options": "options", "ledger": "ledger", "runtime": "runtime", "embedded": True,
      "trainer_main": "container"}),
    (Call, True,
     {"value": REQUIRED, "path": REQUIRED, "draft": REQUIRED, "ledger": REQUIRED,
      "target": REQUIRED},
     {"value": 3, "path": ("spec", "x"), "draft": "draft", "ledger": "ledger",
      "target": "2.3"}),
    (Live, True,
     {"state": REQUIRED, "condition": REQUIRED, "code": REQUIRED},
     {"state": "running", "condition": "Running", "code": "K108"}),
    (Masked, True,
     {"text": REQUIRED, "tokens": REQUIRED},
     {"text": "a tjmph0x0z", "tokens": {"tjmph0x0z": "{{x}}"}}),
    (Heredoc, True,
     {"first": REQUIRED, "last": REQUIRED, "body": REQUIRED, "strip_tabs": REQUIRED,
      "quoted": REQUIRED},
     {"first": 1, "last": 3, "body": "a\nb\n", "strip_tabs": True, "quoted": True}),
    (Hit, True,
     {"path": REQUIRED, "line": REQUIRED, "kind": REQUIRED},
     {"path": ("spec", 0), "line": 4, "kind": "PyTorchJob"}),
    (Indent, True,
     {"mapping": 2, "sequence": 4, "offset": 2},
     {"mapping": 4, "sequence": 2, "offset": 0}),
]
IDS = [cls.__name__ for cls, *_ in CLASSES]


def _reference(cls: type, frozen: bool, defaults: dict[str, Any]) -> type:
    """The dataclass the class replaced (its fields and defaults)."""
    specs: list[tuple[str, Any, Any]] = []
    for name, default in defaults.items():
        if isinstance(default, Factory):
            made = functools.partial(copy.copy, default.value)
            specs.append((name, Any, dataclasses.field(default_factory=made)))
        elif default is REQUIRED:
            specs.append((name, Any, dataclasses.field()))
        else:
            specs.append((name, Any, dataclasses.field(default=default)))
    return dataclasses.make_dataclass(cls.__name__, specs, frozen=frozen)


@pytest.mark.parametrize(("cls", "frozen", "defaults", "example"), CLASSES, ids=IDS)
def test_fields_and_defaults_are_the_dataclass_ones(cls: type, frozen: bool,
                                                    defaults: dict[str, Any],
                                                    example: dict[str, Any]) -> None:
    assert tuple(defaults) == cls.FIELDS  # type: ignore[attr-defined]
    assert dataclasses.is_dataclass(cls)
    assert [f.name for f in dataclasses.fields(cls)] == list(defaults)
    required = [example[name] for name, default in defaults.items() if default is REQUIRED]
    first, second = cls(*required), cls(*required)
    reference = _reference(cls, frozen, defaults)(*required)
    assert repr(first) == repr(reference)
    for name, default in defaults.items():
        if isinstance(default, Factory):
            assert getattr(first, name) == default.value
            if isinstance(default.value, (dict, list)):  # a new one each time
                assert getattr(first, name) is not getattr(second, name)
        elif default is not REQUIRED:
            assert getattr(first, name) == default
    assert first == second
    assert cls(**example) == cls(*example.values())


@pytest.mark.parametrize(("cls", "frozen", "defaults", "example"), CLASSES, ids=IDS)
def test_behaves_as_the_dataclass(cls: type, frozen: bool, defaults: dict[str, Any],
                                  example: dict[str, Any]) -> None:
    value = cls(**example)
    reference = _reference(cls, frozen, defaults)(**example)
    assert repr(value) == repr(reference)
    assert [getattr(value, name) for name in defaults] == list(example.values())
    assert value == copy.deepcopy(value)
    assert value == pickle.loads(pickle.dumps(value))
    assert value != object()
    assert value != reference  # another class, as between two dataclasses
    copied = dataclasses.replace(value)
    assert copied is not value
    assert copied == value
    assert all(getattr(copied, name) is getattr(value, name) for name in defaults)
    for name in defaults:
        changed = dataclasses.replace(value, **{name: "changed"})
        assert getattr(changed, name) == "changed"
        assert changed != value  # every field is compared
    if frozen:
        try:
            expected = hash(tuple(example.values()))
        except TypeError:  # a field holds an unhashable value: the dataclass raised too
            with pytest.raises(TypeError):
                hash(value)
        else:
            assert hash(value) == hash(copy.deepcopy(value))
            assert hash(value) == hash(reference) == expected
        name = next(iter(defaults))
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, name, None)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(value, name)
    else:
        with pytest.raises(TypeError):
            hash(value)
        name = next(iter(defaults))
        setattr(value, name, "changed")
        assert getattr(value, name) == "changed"


def test_converting_embedded_and_snippet_jobs_imports_no_dataclasses(tmp_path: Path) -> None:
    """Copies of options, findings and documents (an Argo step's job, a Markdown snippet)
    are made by ``results.replaced``, not ``dataclasses.replace`` (a warm run: the catalog,
    whose first build uses pydantic, comes from the cache)."""
    probe = ("import sys, pathlib, migrator.launch\n"
             "from migrator import convert_text\n"
             "for path in sys.argv[1:]:\n"
             "    convert_text(pathlib.Path(path).read_text(), render=False)\n"
             "print(sorted({'dataclasses', 'inspect'} & set(sys.modules)))")
    argo = sorted((ROOT / "fixtures").glob("argo*/*.in.yaml"))
    assert argo
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path)}
    env.pop("TRAINJOB_MIGRATE_NO_CACHE", None)
    for _ in range(2):  # the first run fills the cache
        proc = subprocess.run([sys.executable, "-c", probe, *map(str, argo)],
                              capture_output=True, text=True, check=False, timeout=120, env=env)
        assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_replaced_is_dataclasses_replace() -> None:
    from migrator.results import DocumentResult, Finding, Severity, replaced
    from migrator.settings import ConvertOptions

    finding = Finding("M101", Severity.ERROR, "metadata.name", "bad", "fix", 3, 4)
    document = DocumentResult(0, 1, "converted", "text", findings=[finding])
    options = ConvertOptions(target="2.3", companion_runtimes=True)
    for value, changes in ((finding, {"line": 9, "path": "spec"}),
                           (document, {"line": 7, "status": "skipped"}),
                           (options, {"companion_runtimes": False})):
        assert replaced(value, **changes) == dataclasses.replace(value, **changes)
        assert replaced(value) == value
    with pytest.raises(TypeError, match="no field 'nope'"):
        replaced(finding, nope=1)
