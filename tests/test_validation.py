"""Validation against the target API: strict models, admission rules, runtime resolution,
user CRDs, the generated JSON Schemas, and the official kubeflow-trainer-api models."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

from migrator import convert_text
from migrator.check import validate
from migrator.knowledge import catalog
from migrator.knowledge.runtimeindex import defaults
from tests import goldens
from tests.test_cli import run
from tests.test_corpus import CRD_FILES, trainer_objects

ROOT = goldens.ROOT
YAML_SAFE = YAML(typ="safe", pure=True)


def _outputs(target: str) -> list[dict[str, Any]]:
    objects = []
    for case in goldens.cases():
        for document in goldens.convert(case, target).documents:
            if document.status == "converted":
                for doc in YAML_SAFE.load_all(document.text):
                    objects += list(trainer_objects(doc))
    return objects


def _findings(doc: dict[str, Any], target: str = "2.2", **kwargs: Any) -> list[str]:
    loaded = catalog.load()
    found = validate.check(doc, loaded.target(target), loaded.codes,
                           defaults(loaded.target(target)), **kwargs)
    return [f"{f.code} {f.path}" for f in found]


TRAINJOB: dict[str, Any] = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
    "metadata": {"name": "ok"},
    "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 2}}}


def _patched(**job: Any) -> dict[str, Any]:
    doc = copy.deepcopy(TRAINJOB)
    doc["spec"]["runtimePatches"] = [{"manager": "example.com/m", "trainingRuntimeSpec": {
        "template": {"spec": {"replicatedJobs": [{"name": "node", **job}]}}}}]
    return doc


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_every_output_passes_the_validator(target: str) -> None:
    outputs = _outputs(target)
    # TrainJobs of every legacy kind and companion runtimes are among them
    assert {doc["kind"] for doc in outputs} >= {"TrainJob", "TrainingRuntime"}
    assert {doc["metadata"]["name"] for doc in outputs if doc["kind"] == "TrainJob"
            and "metadata" in doc} >= {"bert-ft", "jax-full", "xgb-full"}
    for doc in outputs:
        assert _findings(doc, target, embedded="metadata" not in doc) == [], doc


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda d: d["spec"].update(podTemplateOverrides=[]), "V602 spec.podTemplateOverrides"),
    (lambda d: d["spec"]["trainer"].update(numProcPerNode="auto"),
     "V602 spec.trainer.numProcPerNode"),
    (lambda d: d["spec"]["trainer"].update(env=[{"name": f"E{i}"} for i in range(129)]),
     "V601 spec.trainer.env"),
    (lambda d: d["metadata"].update(name="Not_A_Label"), "V603 metadata.name"),
    (lambda d: d["spec"].update(managedBy="someone/else"), "V602 spec.managedBy"),
    (lambda d: d["spec"].update(activeDeadlineSeconds=0), "V601 spec.activeDeadlineSeconds"),
    (lambda d: d.pop("metadata"), "V602 metadata.name"),
])
def test_broken_trainjobs_are_caught(mutate: Any, expected: str) -> None:
    doc = copy.deepcopy(TRAINJOB)
    mutate(doc)
    assert expected in _findings(doc)


def test_patch_rules_and_runtime_resolution() -> None:
    env_patch = _patched(template={"spec": {"template": {"spec": {"containers": [
        {"name": "node", "env": [{"name": "A", "value": "1"}]}]}}}})
    assert "V603 spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0]" \
        ".template.spec.template.spec.containers[0].env" in _findings(env_patch)
    unknown_job = _patched()
    unknown_job["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"][
        "replicatedJobs"][0]["name"] = "trainer"
    assert any(f.startswith("V604") for f in _findings(unknown_job))
    sidecar = _patched(template={"spec": {"template": {"spec": {"containers": [
        {"name": "sidecar"}]}}}})
    assert any(f.startswith("V604") and f.endswith(".name") for f in _findings(sidecar))
    twice = copy.deepcopy(TRAINJOB)
    twice["spec"]["runtimePatches"] = [{"manager": "example.com/m"}, {"manager": "example.com/m"},
                                       {"manager": "nodomain"}]
    found = _findings(twice)
    assert "V603 spec.runtimePatches[1].manager" in found
    assert "V603 spec.runtimePatches[2].manager" in found
    mismatch = copy.deepcopy(TRAINJOB)
    mismatch["spec"]["runtimeRef"]["name"] = "jax-distributed"
    assert "V604 spec.runtimeRef" in _findings(mismatch, policy="torch")
    unknown = copy.deepcopy(TRAINJOB)
    unknown["spec"]["runtimeRef"]["name"] = "nowhere"
    assert _findings(unknown) == []
    assert "V604 spec.runtimeRef" in _findings(unknown, resolve=True)


def test_runtime_rules() -> None:
    runtime = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
               "metadata": {"name": "r"}, "spec": {
                   "mlPolicy": {"torch": {}, "jax": {}},
                   "template": {"spec": {"replicatedJobs": [{
                       "name": "node", "replicas": 2,
                       "template": {"metadata": {"labels": {
                           "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                           "spec": {"template": {"spec": {"containers": [{"name": "x"}]}}}}}]}}}}
    found = _findings(runtime)
    assert "V602 spec.mlPolicy" in found
    assert "V603 spec.template.spec.replicatedJobs[0].replicas" in found
    assert "V603 spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers" \
        in found


def test_validate_command(tmp_path: Path) -> None:
    upgrades = goldens.FIXTURES / "trainer-upgrades"
    shutil.copy(upgrades / "trainjob-v2.1.in.yaml", tmp_path / "a.yaml")
    shutil.copy(goldens.FIXTURES / "pytorchjob" / "full.v2.3.out.yaml", tmp_path / "b.yaml")
    shutil.copy(goldens.FIXTURES / "pytorchjob" / "full.v2.2.out.yaml", tmp_path / "c.yaml")
    proc = run("validate", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert "a.yaml:11:3: error V602 unknown field 'labels'" in proc.stdout  # validate's results
    assert "b.yaml:2: TrainJob/bert-ft: rejected by Trainer 2.2 (1 error)" in proc.stdout
    assert "c.yaml:2: TrainJob/bert-ft: valid for Trainer 2.2" in proc.stdout
    assert run("validate", "b.yaml", "c.yaml", "--target", "2.3", cwd=tmp_path).returncode == 0
    assert (tmp_path / "a.yaml").read_text() == (
        goldens.FIXTURES / "trainer-upgrades" / "trainjob-v2.1.in.yaml").read_text()


def test_runtimes_option_resolves_refs(tmp_path: Path) -> None:
    job = tmp_path / "job.yaml"
    job.write_text((goldens.FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text())
    runtimes = tmp_path / "runtimes"
    runtimes.mkdir()
    (runtimes / "list.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: ClusterTrainingRuntime\n"
        "  metadata: {name: torch-cuda}\n  spec:\n    mlPolicy: {torch: {}}\n"
        "    template:\n      spec:\n        replicatedJobs:\n        - name: node\n"
        "          template:\n            spec:\n              template:\n"
        "                spec:\n                  containers: [{name: node, image: x}]\n")
    ok = run("convert", "job.yaml", "--runtime", "torch-cuda", "--runtimes", "runtimes",
             cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    missing = run("convert", "job.yaml", "--runtime", "torch-cuda-typo", "--runtimes",
                  "runtimes", cwd=tmp_path)
    assert missing.returncode == 1
    assert "V604" in missing.stderr
    in_repo = run("validate", ".", "--runtimes", "runtimes", cwd=tmp_path)
    assert in_repo.returncode == 0, in_repo.stderr


def test_crd_option_is_strict(tmp_path: Path, shared: Path) -> None:
    crd21 = shared / "crds" / "trainer-v2.1.0" / "trainer.kubeflow.org_trainjobs.yaml"
    if not crd21.exists():
        pytest.skip("no Trainer 2.1 CRD in ../shared")
    job = tmp_path / "job.yaml"
    job.write_text((goldens.FIXTURES / "pytorchjob" / "full.in.yaml").read_text())
    proc = run("convert", "job.yaml", "--crd", str(crd21), cwd=tmp_path)
    assert proc.returncode == 1
    assert "V605" in proc.stderr
    assert "runtimePatches" in proc.stderr
    crd22 = shared / "crds" / "trainer-v2.2.0" / "trainer.kubeflow.org_trainjobs.yaml"
    assert run("convert", "job.yaml", "--crd", str(crd22), cwd=tmp_path).returncode == 0
    bad = tmp_path / "not-a-crd.yaml"
    bad.write_text("kind: ConfigMap\n")
    usage = run("convert", "job.yaml", "--crd", str(bad), cwd=tmp_path)
    assert usage.returncode == 2
    assert "no CustomResourceDefinition" in usage.stderr


def test_generated_schemas_are_up_to_date() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_schemas.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_checked_in_schemas_accept_every_output(target: str) -> None:
    schemas = {kind: json.loads((ROOT / "schemas" / f"{name}-v{target}.schema.json").read_text())
               for kind, name in (("TrainJob", "trainjob"), ("TrainingRuntime", "trainingruntime"),
                                  ("ClusterTrainingRuntime", "trainingruntime"))}
    for doc in _outputs(target):
        if "metadata" in doc:
            jsonschema.validate(doc, schemas[doc["kind"]])
    broken = copy.deepcopy(TRAINJOB)
    broken["spec"]["podTemplateOverrides"] = []
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schemas["TrainJob"])


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_upstream_crds_agree(target: str, shared: Path, crdcheck: ModuleType) -> None:
    """Whatever our validator accepts among the outputs, the upstream CRDs accept too."""
    validators = {kind: crdcheck.load_crd(shared / "crds" / f"trainer-v{target}.0" / name)
                  for kind, name in CRD_FILES.items()}
    outputs = _outputs(target)
    assert outputs, "no fixture converts"
    for doc in outputs:
        kind, api, validator = validators[doc["kind"]]
        assert crdcheck.problems(doc, kind, api, validator) == []


OFFICIAL = {"2.2": "2.2.1", "2.3": "2.3.0"}


@pytest.fixture(scope="session")
def official_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """kubeflow-trainer-api of each target, installed into its own folder (network needed)."""
    folders = {}
    for target, version in OFFICIAL.items():
        folder = tmp_path_factory.mktemp(f"kta-{version}")
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                               "--target", str(folder), f"kubeflow-trainer-api=={version}"],
                              capture_output=True, text=True, timeout=300, check=False)
        if proc.returncode != 0:
            pytest.skip(f"kubeflow-trainer-api {version} cannot be installed: "
                        f"{proc.stderr.strip().splitlines()[-1:]}")
        folders[target] = folder
    return folders


CONFORMANCE = """
import json, sys
from deepdiff import DeepDiff
from kubeflow_trainer_api import models
docs = json.load(sys.stdin)
names = {"TrainJob": "TrainerV1alpha1TrainJob",
         "TrainingRuntime": "TrainerV1alpha1TrainingRuntime",
         "ClusterTrainingRuntime": "TrainerV1alpha1ClusterTrainingRuntime"}
problems = []
for doc in docs:
    model = getattr(models, names[doc["kind"]])
    loaded = model.from_dict(doc)
    again = json.loads(loaded.to_json())
    diff = DeepDiff(doc, again, ignore_order=True, ignore_numeric_type_changes=True)
    lost = {k: v for k, v in diff.items() if k != "dictionary_item_added"}  # defaults may appear
    if lost:
        problems.append((doc["kind"], doc.get("metadata", {}).get("name"), str(lost)[:400]))
print(json.dumps(problems))
"""


def _corpus_outputs(target: str) -> list[dict[str, Any]]:
    from tests.conftest import SHARED
    from tests.test_corpus import _legacy_files

    if not (SHARED / "corpus").is_dir():
        return []
    objects = []
    for path in _legacy_files(SHARED):
        text = path.read_text(encoding="utf-8", errors="replace")
        for companions in (False, True):
            result = convert_text(text, target=target, allow_lossy=True,
                                  companion_runtimes=companions)
            for document in result.documents:
                if document.status == "converted" and not any(
                        f.code == "Y113" for f in document.findings):
                    # (converted templates are checked after rendering, in tests/templates/)
                    for doc in YAML_SAFE.load_all(document.text):
                        objects += list(trainer_objects(doc))
    return objects


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_outputs_load_into_official_models(target: str, official_models: dict[str, Path]) -> None:
    """Fixture outputs, and corpus outputs when ../shared is there."""
    docs = [d for d in _outputs(target) + _corpus_outputs(target) if "metadata" in d]
    env = {"PYTHONPATH": str(official_models[target]), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", CONFORMANCE], input=json.dumps(docs),
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout) == []


def test_convert_never_writes_an_invalid_manifest() -> None:
    text = (goldens.FIXTURES / "pytorchjob" / "full.in.yaml").read_text()
    result = convert_text(text, manager="not-domain-prefixed", allow_lossy=True)
    (doc,) = result.documents
    assert doc.status == "failed"
    assert "V603" in [f.code for f in doc.findings]
    assert result.text == text


BROKEN = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: this-trainjob-name-is-definitely-much-too-long-for-an-rfc-1035-label-x
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: "two"
    numProccesPerNode: 4
  runtimePatches:
    - manager: example.com/team
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      spec:
                        containers:
                          - name: sidecar
                            volumeMounts: [{name: data, mountPath: /data}]
"""


def test_hand_broken_trainjob_gets_one_line_per_problem(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text(BROKEN)
    proc = run("validate", "broken.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    errors = [line for line in proc.stdout.splitlines() if ": error V6" in line]
    assert [line.split(": error ")[1][:4] for line in errors] == ["V603", "V602", "V602", "V604"]
    assert errors[0].startswith("broken.yaml:4:3:")
    assert "numNodes" in errors[1]
    assert "numProccesPerNode" in errors[2]
    assert "no container 'sidecar'" in errors[3]


MPI_RUNTIME = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: openmpi-sshd}
spec:
  mlPolicy: {numNodes: 1, mpi: {numProcPerNode: 1, sshAuthMountPath: /home/mpiuser/.ssh,
                                runLauncherAsNode: false}}
  template:
    spec:
      replicatedJobs:
      - name: launcher
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec: {template: {spec: {containers: [{name: node, image: IMAGE}]}}}
      - name: node
        template:
          spec: {template: {spec: {containers: [{name: node, image: IMAGE,
            command: [/usr/sbin/sshd], args: [-De, -f, /home/mpiuser/.sshd_config]}]}}}
"""


def test_mpi_workers_resolved_against_the_given_runtime(tmp_path: Path) -> None:
    job = goldens.FIXTURES / "mpijob-v2beta1" / "no-companion.in.yaml"
    (tmp_path / "same.yaml").write_text(MPI_RUNTIME.replace("IMAGE",
                                                            "mpioperator/mpi-pi:openmpi"))
    same = run("convert", str(job), "--runtime", "openmpi-sshd", "--runtimes",
               str(tmp_path / "same.yaml"))
    assert same.returncode == 0, same.stderr
    assert "F519" not in same.stderr
    assert "F522" not in same.stderr
    (tmp_path / "other.yaml").write_text(MPI_RUNTIME.replace("IMAGE", "other/image:1"))
    other = run("convert", str(job), "--runtime", "openmpi-sshd", "--runtimes",
                str(tmp_path / "other.yaml"))
    assert other.returncode == 1
    assert "error F519 the Worker container's image" in other.stderr
    assert "container's command" not in other.stderr
