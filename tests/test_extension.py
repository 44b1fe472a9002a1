"""Knowledge lives in mappings/: a new legacy kind and a new Trainer target are data only.

The test copies mappings/ to a temporary folder, adds a legacy kind (MXJob: a made-up mapping
file, its name in kinds.yaml moved from ``retired`` to ``trainingKinds``) and a made-up target
(targets/v2.4.yaml, written as changes to v2.3), points the tool at the copy with
``$TRAINJOB_MIGRATE_MAPPINGS`` and converts through the command line. No code is touched.
Also here: the target-delta expansion and the version type.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedSeq

from migrator.check import runtimefiles
from migrator.errors import MappingFileError
from migrator.knowledge import apimodels, catalog, runtimeindex
from migrator.knowledge.versions import V2_3, TrainerVersion

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "extension"


def _mappings(tmp_path: Path, *, list_kind: bool = True) -> Path:
    root = tmp_path / "mappings"
    shutil.copytree(catalog.mappings_dir(), root)
    shutil.copy(DATA / "mxjob.yaml", root / "legacy" / "mxjob.yaml")
    shutil.copy(DATA / "v2.4.yaml", root / "targets" / "v2.4.yaml")
    if list_kind:
        yaml = YAML()
        kinds = yaml.load((root / "kinds.yaml").read_text(encoding="utf-8"))
        kinds["trainingKinds"].insert(kinds["trainingKinds"].index("JAXJob") + 1, "MXJob")
        kinds["retired"].remove("MXJob")  # shipped: a retired kind, reported (K110)
        with (root / "kinds.yaml").open("w", encoding="utf-8") as out:
            yaml.dump(kinds, out)
    return root


def _cli(tmp_path: Path, mappings: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": str(ROOT)}  # this checkout's code, whatever is installed
    env.pop("TRAINJOB_MIGRATE_MAPPINGS", None)
    if mappings is not None:
        env["TRAINJOB_MIGRATE_MAPPINGS"] = str(mappings)
    return subprocess.run([sys.executable, "-m", "migrator", *args], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=120, check=False)


def test_a_new_kind_and_target_from_data_only(tmp_path: Path) -> None:
    mappings = _mappings(tmp_path)
    proc = _cli(tmp_path, mappings, "convert", str(DATA / "mxjob.in.yaml"), "--target", "2.4")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (DATA / "mxjob.v2.4.out.yaml").read_text(encoding="utf-8")
    assert "MXJob/mxjob-simple → TrainJob/mxjob-simple" in proc.stderr
    # behaviour is simulated from upstream source, which data cannot add: explain-diff says so
    explained = _cli(tmp_path, mappings, "explain-diff", str(DATA / "mxjob.in.yaml"),
                     "--target", "2.4")
    assert explained.returncode == 0, explained.stderr
    assert "MXJob/mxjob-simple → TrainJob/mxjob-simple (runtime: not simulated)" in \
        explained.stdout
    assert "note: behaviour not simulated: unknown Trainer version '2.4'" in explained.stdout
    # the cheap text checks (load/detect.py) know the new kind too: an MXJob that does not
    # parse (a template) is still reported as an MXJob, not passed over as unknown text
    (tmp_path / "chart.yaml").write_text(
        "apiVersion: kubeflow.org/v1\nkind: MXJob\nmetadata:\n  name: x\nspec:\n"
        "  mxReplicaSpecs: {{ toYaml .Values.replicas }}\n", encoding="utf-8")
    proc = _cli(tmp_path, mappings, "convert", "chart.yaml", "-o", "out", "--report", "r.json")
    assert proc.returncode == 0, proc.stderr
    documents = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["documents"]
    assert [(d["source"].get("kind"), d["status"]) for d in documents] == [("MXJob", "skipped")]


def _scattered_jobs(tmp_path: Path) -> None:
    """The MXJob in a Markdown page (whole, and a fragment showing only its replica specs),
    in a shell heredoc, and as the base of a kustomization whose patch targets kind MXJob."""
    job = (DATA / "mxjob.in.yaml").read_text(encoding="utf-8").split("\n", 1)[1]
    (tmp_path / "README.md").write_text(
        f"# Train\n\n```yaml\n{job}```\n\nMore workers:\n\n```yaml\nspec:\n"
        "  mxReplicaSpecs:\n    Worker:\n      replicas: 4\n```\n", encoding="utf-8")
    _shell_and_overlay(tmp_path, job)


def _shell_and_overlay(tmp_path: Path, job: str) -> None:
    """The MXJob ``job`` in a shell heredoc (run.sh) and as the base of a kustomization whose
    patch targets kind MXJob (kust/)."""
    (tmp_path / "run.sh").write_text(f"#!/bin/sh\nkubectl apply -f - <<EOF\n{job}EOF\n",
                                     encoding="utf-8")
    (tmp_path / "kust").mkdir()
    (tmp_path / "kust" / "job.yaml").write_text(job, encoding="utf-8")
    (tmp_path / "kust" / "kustomization.yaml").write_text(
        "resources: [job.yaml]\npatches:\n  - target: {kind: MXJob, name: mxjob-simple}\n"
        "    patch: |-\n      - op: replace\n        path: /spec/mxReplicaSpecs/Worker/replicas\n"
        "        value: 4\n", encoding="utf-8")


def _outcomes(tmp_path: Path, mappings: Path | None) -> list[tuple[str, str, Any, list[str]]]:
    report = tmp_path / ("with.json" if mappings else "without.json")
    proc = _cli(tmp_path, mappings, "check", "README.md", "run.sh", "kust", "--report",
                str(report))
    assert proc.returncode in (0, 1), proc.stderr
    return [(d["file"], d["status"], d["source"].get("kind"), [f["code"] for f in d["findings"]])
            for d in json.loads(report.read_text(encoding="utf-8"))["documents"]]


def test_the_text_scanners_know_the_new_kind(tmp_path: Path) -> None:
    """Markdown snippets (kinds and replica-spec fields), shell heredocs (load/textscan) and
    Kustomize patch targets read the legacy kinds from mappings/, not from a list in code."""
    _scattered_jobs(tmp_path)
    codes = ["F510", "R214", "C401", "C407", "C408"]
    assert _outcomes(tmp_path, _mappings(tmp_path)) == [
        ("README.md", "converted", "MXJob", codes),
        ("README.md", "skipped", None, ["E804"]),  # the fragment: mxReplicaSpecs alone
        ("run.sh", "converted", "MXJob", codes),
        ("kust/job.yaml", "converted", "MXJob", codes),
        ("kust/kustomization.yaml", "converted", "Kustomization", ["E809"]),
    ]
    # with the shipped mappings an MXJob is nobody's business: nothing is converted
    assert all(status != "converted" and "E804" not in found
               for _, status, _, found in _outcomes(tmp_path, None))


def test_validate_reads_the_trainer_kinds_from_data(tmp_path: Path) -> None:
    """``validate`` (check/audit.py) checks what kinds.yaml calls a Trainer object: a
    prototype apiVersion added there is validated (and rejected), unknown before."""
    (tmp_path / "tj.yaml").write_text(
        "apiVersion: kubeflow.org/v2beta9\nkind: TrainJob\nmetadata:\n  name: proto\n"
        "spec:\n  runtimeRef:\n    name: torch-distributed\n", encoding="utf-8")
    unknown = _cli(tmp_path, None, "validate", "tj.yaml")
    assert (unknown.returncode, "0 documents" in unknown.stderr) == (0, True), unknown.stderr
    mappings = _mappings(tmp_path)
    yaml = YAML()
    data = yaml.load((mappings / "kinds.yaml").read_text(encoding="utf-8"))
    data["prototypes"].append({"apiVersion": "kubeflow.org/v2beta9", "kind": "TrainJob"})
    with (mappings / "kinds.yaml").open("w", encoding="utf-8") as out:
        yaml.dump(data, out)
    known = _cli(tmp_path, mappings, "validate", "tj.yaml")
    assert known.returncode == 1, known.stderr
    assert "error V602 apiVersion: input should be 'trainer.kubeflow.org/v1alpha1'" in \
        known.stdout + known.stderr


def test_the_new_target_limits_come_from_its_file(tmp_path: Path) -> None:
    mappings = _mappings(tmp_path)
    image = "registry.example.com/" + "a" * 600 + ":1"  # over 2.3's 500, under 2.4's 1000
    source = (DATA / "mxjob.in.yaml").read_text(encoding="utf-8").replace(
        "docker.io/kubeflow/mxjob-simple:latest", image)
    (tmp_path / "long.yaml").write_text(source, encoding="utf-8")
    on_23 = _cli(tmp_path, mappings, "convert", "long.yaml", "--target", "2.3")
    assert on_23.returncode == 1
    assert "error V601 image: string should have at most 500 characters" in on_23.stderr
    on_24 = _cli(tmp_path, mappings, "convert", "long.yaml", "--target", "2.4")
    assert on_24.returncode == 0, on_24.stderr
    assert image in on_24.stdout


def test_without_the_data_the_kind_and_target_are_unknown(tmp_path: Path) -> None:
    # shipped, MXJob is a retired kind: reported (K110), left as it is, never converted
    shipped = _cli(tmp_path, None, "convert", str(DATA / "mxjob.in.yaml"))
    assert shipped.returncode == 1
    assert "error K110 MXJob (kubeflow.org/v1)" in shipped.stderr
    assert shipped.stdout == (DATA / "mxjob.in.yaml").read_text(encoding="utf-8")
    assert _cli(tmp_path, None, "convert", str(DATA / "mxjob.in.yaml"),
                "--target", "2.4").returncode == 2


def test_a_mapping_for_an_unlisted_kind_fails_closed(tmp_path: Path) -> None:
    mappings = _mappings(tmp_path, list_kind=False)
    proc = _cli(tmp_path, mappings, "convert", str(DATA / "mxjob.in.yaml"))
    assert proc.returncode == 2
    assert "trainingKinds lacks the mapped kinds ['MXJob']" in proc.stderr
    assert "Traceback" not in proc.stderr


def _edit(path: Path, change: Any) -> None:
    """Apply ``change`` to the loaded YAML file at ``path`` and write it back."""
    yaml = YAML()
    data = yaml.load(path.read_text(encoding="utf-8"))
    change(data)
    with path.open("w", encoding="utf-8") as out:
        yaml.dump(data, out)


def test_the_trainer_api_version_comes_from_the_target_file(tmp_path: Path) -> None:
    """The TrainJob's group/version is the target file's: a made-up 2.4 on
    trainer.kubeflow.org/v1beta1 is written and passes the strict model of 2.4 (built from
    the same file), and ``validate`` finds TrainJobs of the new version."""
    mappings = _mappings(tmp_path)
    _edit(mappings / "targets" / "v2.4.yaml",
          lambda data: data.insert(3, "apiVersion", "trainer.kubeflow.org/v1beta1"))
    proc = _cli(tmp_path, mappings, "convert", str(DATA / "mxjob.in.yaml"), "--target", "2.4")
    assert proc.returncode == 0, proc.stderr
    expected = (DATA / "mxjob.v2.4.out.yaml").read_text(encoding="utf-8")
    assert proc.stdout == expected.replace("/v1alpha1\n", "/v1beta1\n")
    (tmp_path / "tj.yaml").write_text(proc.stdout, encoding="utf-8")
    valid = _cli(tmp_path, mappings, "validate", "tj.yaml", "--target", "2.4")
    assert (valid.returncode, "1 document" in valid.stderr) == (0, True), valid.stderr
    # the other targets keep their own version: the file is a TrainJob v1alpha1 does not accept
    on_23 = _cli(tmp_path, mappings, "validate", "tj.yaml", "--target", "2.3")
    assert on_23.returncode == 1
    assert "error V602 apiVersion: input should be 'trainer.kubeflow.org/v1alpha1'" in \
        on_23.stdout + on_23.stderr


@pytest.fixture
def fresh_catalog(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Load the knowledge layer anew (in this process) from the mappings folder the test
    sets in ``$TRAINJOB_MIGRATE_MAPPINGS``; the shipped catalog is back afterwards."""
    def clear() -> None:
        catalog.load.cache_clear()
        runtimefiles.from_files.cache_clear()
        runtimeindex._DEFAULTS.clear()
        apimodels._train_job.cache_clear()
        apimodels._runtime.cache_clear()

    monkeypatch.setenv("TRAINJOB_MIGRATE_CACHE_DIR", str(tmp_path / "cache"))
    clear()
    yield
    monkeypatch.undo()
    clear()


def _runtime(kind: str, name: str, torch: str) -> str:
    """A runtime document (YAML text) of one replicated job, ``node``, on the torch policy."""
    return (f"apiVersion: trainer.kubeflow.org/v1alpha1\nkind: {kind}\nmetadata:\n  name: {name}\n"
            f"spec:\n  mlPolicy:\n    torch: {torch}\n  template:\n    spec:\n"
            "      replicatedJobs:\n        - name: node\n          template:\n            spec:\n"
            "              template:\n                spec:\n                  containers:\n"
            "                    - name: node\n")


RUNTIMES = (_runtime("ClusterRuntime", "torch-fast", "{}")
            + "---\n" + _runtime("ClusterTrainingRuntime", "torch-slow", "{}"))


def test_the_runtime_kinds_come_from_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          fresh_catalog: None) -> None:
    """Runtime files (``--runtimes``), default runtimes and the strict runtime models know
    the runtime kinds kinds.yaml names (made-up ones here), and no others."""
    mappings = _mappings(tmp_path)
    _edit(mappings / "kinds.yaml", lambda data: data.update(runtimeKinds=_flow(
        ["ClusterRuntime", "Runtime"])))
    monkeypatch.setenv("TRAINJOB_MIGRATE_MAPPINGS", str(mappings))
    (tmp_path / "runtimes.yaml").write_text(RUNTIMES, encoding="utf-8")
    found = runtimefiles.from_files((str(tmp_path / "runtimes.yaml"),))
    assert list(found) == [("ClusterRuntime", "torch-fast")]
    assert found[("ClusterRuntime", "torch-fast")].policy == "torch"
    target = catalog.load().target("2.2")
    assert ("ClusterRuntime", "torch-distributed") in runtimeindex.defaults(target)
    model = apimodels.model_for("2.2", "Runtime")
    assert model is not None
    assert model.model_json_schema()["properties"]["kind"]["enum"] == ["Runtime",
                                                                        "ClusterRuntime"]
    assert apimodels.model_for("2.2", "TrainingRuntime") is None
    assert apimodels.kinds() == ("TrainJob", "Runtime", "ClusterRuntime")


def test_the_managed_by_values_come_from_the_target_file(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         fresh_catalog: None) -> None:
    """spec.managedBy accepts what the release's target file lists: a controller added to the
    made-up 2.4 is accepted there and still refused on 2.3."""
    mappings = _mappings(tmp_path)
    _edit(mappings / "targets" / "v2.4.yaml", lambda data: data.update(managedBy=_flow(
        ["trainer.kubeflow.org/trainjob-controller", "example.com/controller"])))
    monkeypatch.setenv("TRAINJOB_MIGRATE_MAPPINGS", str(mappings))
    job = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
           "spec": {"runtimeRef": {"name": "torch-distributed"},
                    "managedBy": "example.com/controller"}}
    on_24, on_23 = apimodels.model_for("2.4", "TrainJob"), apimodels.model_for("2.3", "TrainJob")
    assert on_24 is not None
    assert on_23 is not None
    on_24.model_validate(job)
    with pytest.raises(ValidationError, match=r"kueue\.x-k8s\.io/multikueue"):
        on_23.model_validate(job)


def _flow(items: list[str]) -> CommentedSeq:
    """A list that ruamel writes on one line, ``[a, b]``."""
    seq = CommentedSeq(items)
    seq.fa.set_flow_style()
    return seq


def test_the_runtime_kinds_reach_the_command_line_options(tmp_path: Path) -> None:
    """``--runtime-kind`` offers the kinds of kinds.yaml (read as text at start-up), and a
    list the text reading would not see as the catalog does is a mapping error."""
    mappings = _mappings(tmp_path)
    _edit(mappings / "kinds.yaml", lambda data: data.update(runtimeKinds=_flow(
        ["ClusterRuntime", "Runtime"])))
    shipped = _cli(tmp_path, None, "convert", "--help")
    assert "[ClusterTrainingRuntime|TrainingRuntime]" in " ".join(shipped.stdout.split())
    made_up = _cli(tmp_path, mappings, "convert", "--help")
    assert "[ClusterRuntime|Runtime]" in " ".join(made_up.stdout.split()), made_up.stdout
    refused = _cli(tmp_path, mappings, "convert", str(DATA / "mxjob.in.yaml"),
                   "--runtime-kind", "TrainingRuntime")
    assert refused.returncode == 2
    assert "'TrainingRuntime' is not one of 'ClusterRuntime', 'Runtime'" in refused.stderr
    _edit(mappings / "kinds.yaml",
          lambda data: data.update(runtimeKinds=["ClusterRuntime", "Runtime"]))  # block style
    proc = _cli(tmp_path, mappings, "convert", str(DATA / "mxjob.in.yaml"))
    assert proc.returncode == 2
    assert "runtimeKinds must be a one-line list [a, b]" in proc.stderr
    assert "Traceback" not in proc.stderr


PROTOTYPE = """apiVersion: kubeflow.org/v2alpha1
kind: TrainJob
metadata:
  name: proto
spec:
  runtimeRef:
    name: torch-distributed
  datasetSpec:
    storageUri: hf://tatsu-lab/alpaca
---
""" + _runtime("ClusterTrainingRuntime", "torch-old", "{rdzvBackend: c10d}")


def test_the_upgrade_to_22_reads_its_fields_from_data(tmp_path: Path) -> None:
    """What the upgrade of older Trainer manifests does with each field is
    mappings/upgrade.yaml: a made-up prototype field moved to the initializer and a made-up
    removed runtime field are honoured from data alone (shipped: U901, and left unchanged)."""
    (tmp_path / "old.yaml").write_text(PROTOTYPE, encoding="utf-8")
    shipped = _cli(tmp_path, None, "convert", "old.yaml")
    assert shipped.returncode == 0, shipped.stderr
    assert "warning U901 spec.datasetSpec is not a TrainJob field and was dropped" in \
        shipped.stderr
    assert "ClusterTrainingRuntime/torch-old unchanged" in shipped.stderr
    assert "rdzvBackend: c10d" in shipped.stdout

    mappings = _mappings(tmp_path)

    def upgrade(data: Any) -> None:
        data["trainJobSpec"]["datasetSpec"] = {"op": "initializer", "to": "dataset"}
        data["removedRuntimeFields"].append({"path": "spec.mlPolicy.torch.rdzvBackend",
                                             "code": "T705", "why": "Trainer picks c10d"})

    def markers(data: Any) -> None:
        for item in data["current"]:
            if item["kind"] == "ClusterTrainingRuntime":
                item["preV22Markers"].append("spec.mlPolicy.torch.rdzvBackend")

    _edit(mappings / "upgrade.yaml", upgrade)
    _edit(mappings / "kinds.yaml", markers)
    known = _cli(tmp_path, mappings, "convert", "old.yaml")
    assert known.returncode == 0, known.stderr
    assert "U901" not in known.stderr
    assert "  initializer:\n    dataset:\n      storageUri: hf://tatsu-lab/alpaca\n" in \
        known.stdout
    assert "warning T705 mlPolicy.torch.rdzvBackend was removed in Trainer 2.2 (Trainer picks " \
        "c10d)" in known.stderr
    assert "rdzvBackend" not in known.stdout


def test_a_mapped_api_outside_the_candidate_markers_fails_closed(tmp_path: Path) -> None:
    """kinds.yaml ``candidateMarkers`` (the text check before any parsing) must match every
    apiVersion the mappings know, and ``legacyGroups`` every legacy mapping's group: else
    documents of that API would silently never be looked at."""
    mappings = _mappings(tmp_path)
    _edit(mappings / "legacy" / "mxjob.yaml",
          lambda data: data["source"].update(apiVersion="mxnet.example.org/v1"))
    proc = _cli(tmp_path, mappings, "convert", str(DATA / "mxjob.in.yaml"))
    assert proc.returncode == 2
    assert "candidateMarkers match none of ['mxnet.example.org/v1']" in proc.stderr
    _edit(mappings / "kinds.yaml", lambda data: data["candidateMarkers"].append("example.org"))
    proc = _cli(tmp_path, mappings, "convert", str(DATA / "mxjob.in.yaml"))
    assert proc.returncode == 2
    assert "legacyGroups lacks the mapped groups ['mxnet.example.org']" in proc.stderr
    assert "Traceback" not in proc.stderr


def _raw(**targets: Any) -> dict[str, tuple[Path, Any]]:
    return {name: (Path(f"targets/{name}.yaml"), data) for name, data in targets.items()}


def test_a_target_delta_expands_over_its_base() -> None:
    base = {"id": "v1.0", "version": "1.0", "limits": {"a": 1, "b": 2}, "fields": ["x", "y"],
            "defaultRuntimes": [{"name": "r1", "image": "i1", "policy": "p"},
                                {"name": "r2", "image": "i2"}]}
    delta = {"id": "v1.1", "version": "1.1", "base": "v1.0", "limits": {"b": 3},
             "fields": ["z"],
             "defaultRuntimes": [{"name": "r1", "image": "j1"}, {"name": "r3", "image": "i3"}]}
    raw = _raw(**{"v1.0": base, "v1.1": delta, "v1.2": {"id": "v1.2", "base": "v1.1"}})
    assert catalog.expand_target("v1.1", raw) == {
        "id": "v1.1", "version": "1.1", "limits": {"a": 1, "b": 3}, "fields": ["z"],
        "defaultRuntimes": [{"name": "r1", "image": "j1", "policy": "p"},
                            {"name": "r2", "image": "i2"}, {"name": "r3", "image": "i3"}]}
    assert catalog.expand_target("v1.2", raw)["version"] == "1.1"  # chains
    assert catalog.expand_target("v1.0", raw) is base


@pytest.mark.parametrize(("targets", "message"), [
    ({"v1.1": {"base": "v0.9"}}, "base 'v0.9' is not a target file"),
    ({"v1.1": {"base": "v1.2"}, "v1.2": {"base": "v1.1"}}, "makes a cycle"),
])
def test_a_bad_base_is_a_mapping_error(targets: dict[str, Any], message: str) -> None:
    with pytest.raises(MappingFileError, match=message):
        catalog.expand_target("v1.1", _raw(**targets))


def test_the_shipped_v23_is_a_delta_of_v22() -> None:
    text = (catalog.mappings_dir() / "targets" / "v2.3.yaml").read_text(encoding="utf-8")
    assert "\nbase: v2.2\n" in text
    loaded = catalog.load()
    v22, v23 = loaded.target("2.2"), loaded.target("2.3")
    assert v23.limits.command_item_length > v22.limits.command_item_length
    assert v23.limits.image == v22.limits.image  # inherited
    assert [r.name for r in v23.default_runtimes] == [r.name for r in v22.default_runtimes]


def test_trainer_versions_order_numerically() -> None:
    parse = TrainerVersion.parse
    assert parse("2.10") > parse("2.9") > parse("2.3") > parse("v2.2.1") > parse("2.2")
    assert parse("2.2") == TrainerVersion(2, 2, 0)
    assert str(parse("2.3")) == "2.3"
    assert sorted(["2.10", "2.2", "2.9"], key=parse) == ["2.2", "2.9", "2.10"]
    with pytest.raises(ValueError, match="not a Trainer version"):
        parse("latest")
    assert catalog.load().target("2.3").release >= V2_3 > catalog.load().target("2.2").release


def test_the_candidate_check_reads_its_markers_from_data(tmp_path: Path) -> None:
    """The cheap check every document passes before it is parsed (load/detect.py) reads
    kinds.yaml ``candidateMarkers``: a legacy kind of a made-up group outside kubeflow.org is
    converted once its group is listed there (and in ``legacyGroups``), from data alone."""
    mappings = _mappings(tmp_path)
    _edit(mappings / "legacy" / "mxjob.yaml",
          lambda data: data["source"].update(apiVersion="mxnet.example.org/v1"))
    _edit(mappings / "kinds.yaml", lambda data: (data["candidateMarkers"].append("example.org"),
                                                 data["legacyGroups"].append("mxnet.example.org")))
    source = (DATA / "mxjob.in.yaml").read_text(encoding="utf-8").replace(
        "apiVersion: kubeflow.org/v1", "apiVersion: mxnet.example.org/v1")
    (tmp_path / "mx.yaml").write_text(source, encoding="utf-8")
    proc = _cli(tmp_path, mappings, "convert", "mx.yaml")
    assert proc.returncode == 0, proc.stderr
    assert "MXJob/mxjob-simple → TrainJob/mxjob-simple" in proc.stderr
    assert proc.stdout.startswith("# MXJob: a made-up legacy kind")
    assert "kind: TrainJob\n" in proc.stdout


def _made_up_group(tmp_path: Path) -> tuple[Path, str]:
    """A copy of mappings/ whose MXJob is of a made-up group outside kubeflow.org (listed in
    ``candidateMarkers`` and ``legacyGroups``), and the MXJob text of that group."""
    mappings = _mappings(tmp_path)
    _edit(mappings / "legacy" / "mxjob.yaml",
          lambda data: data["source"].update(apiVersion="mxnet.example.org/v1"))
    _edit(mappings / "kinds.yaml", lambda data: (data["candidateMarkers"].append("example.org"),
                                                 data["legacyGroups"].append("mxnet.example.org")))
    job = (DATA / "mxjob.in.yaml").read_text(encoding="utf-8").split("\n", 1)[1].replace(
        "apiVersion: kubeflow.org/v1", "apiVersion: mxnet.example.org/v1")
    return mappings, job


def test_a_made_up_group_is_found_wherever_a_job_is_written_out(tmp_path: Path) -> None:
    """Every text check for "is there a Kubeflow job in here" reads kinds.yaml
    ``candidateMarkers`` (load/detect.is_candidate): a job of a made-up group is converted in
    a Markdown shell snippet's heredoc, a shell script's heredoc, a ConfigMap's string value
    and a kustomization's base; another version of the group is an old API (K101)."""
    mappings, job = _made_up_group(tmp_path)
    (tmp_path / "README.md").write_text(
        f"# Train\n\n```bash\nkubectl apply -f - <<EOF\n{job}EOF\n```\n", encoding="utf-8")
    _shell_and_overlay(tmp_path, job)
    indented = "".join(f"    {line}\n" for line in job.splitlines())
    (tmp_path / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: templates\ndata:\n"
        f"  job.yaml: |\n{indented}", encoding="utf-8")
    (tmp_path / "old.yaml").write_text(job.replace("mxnet.example.org/v1",
                                                   "mxnet.example.org/v2"), encoding="utf-8")
    files = ("README.md", "run.sh", "cm.yaml", "kust", "old.yaml")

    def outcomes(where: Path | None) -> list[tuple[str, str, Any]]:
        report = tmp_path / ("with.json" if where else "without.json")
        proc = _cli(tmp_path, where, "check", *files, "--report", str(report))
        assert proc.returncode in (0, 1), proc.stderr
        return [(d["file"], d["status"], [f["code"] for f in d["findings"]
                                          if f["code"] in ("E808", "K101", "E809")])
                for d in json.loads(report.read_text(encoding="utf-8"))["documents"]]

    found = outcomes(mappings)
    assert found == [
        ("README.md", "converted", []), ("run.sh", "converted", []),
        ("cm.yaml", "converted", []), ("kust/job.yaml", "converted", []),
        ("kust/kustomization.yaml", "converted", ["E809"]), ("old.yaml", "skipped", ["K101"])]
    # with the shipped markers none of it is a Kubeflow job
    assert all(status != "converted" for _, status, _ in outcomes(None))


def test_a_made_up_runtime_kind_and_labels_reach_companion_runtimes(tmp_path: Path) -> None:
    """A companion runtime is of kinds.yaml's namespaced runtime kind and carries the
    framework label of mappings/upgrade.yaml ``labels``; the TrainJob references it by that
    kind (made-up names here), and the output validates."""
    shipped = _cli(tmp_path, _mappings(tmp_path / "shipped"), "convert",
                   str(DATA / "mxjob.in.yaml"), "--companion-runtimes")
    mappings = _mappings(tmp_path)
    _edit(mappings / "kinds.yaml", lambda data: data.update(runtimeKinds=_flow(
        ["ClusterRuntime", "Runtime"])))
    _edit(mappings / "upgrade.yaml",
          lambda data: data["labels"].update(framework="example.com/framework"))
    assert shipped.returncode == 0, shipped.stderr
    assert "kind: TrainingRuntime\n" in shipped.stdout
    assert "trainer.kubeflow.org/framework:" in shipped.stdout
    (tmp_path / "mx.yaml").write_text((DATA / "mxjob.in.yaml").read_text(
        encoding="utf-8").replace("spec:\n", "spec:\n  runPolicy: {backoffLimit: 2}\n", 1),
        encoding="utf-8")  # the companion's jobs carry it
    proc = _cli(tmp_path, mappings, "convert", "mx.yaml", "--companion-runtimes",
                "--report", "r.json")
    assert proc.returncode == 0, proc.stderr
    assert "TrainingRuntime" not in proc.stdout
    assert "\nkind: Runtime\n" in proc.stdout
    assert "    kind: Runtime\n" in proc.stdout  # the TrainJob's runtimeRef
    assert "    example.com/framework: " in proc.stdout
    assert "trainer.kubeflow.org/framework" not in proc.stdout
    documents = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["documents"]
    assert [d["output"]["runtime"]["kind"] for d in documents] == ["Runtime"]
    named = [m["to"].split(":")[0] for d in documents for m in d["mappings"]
             if "Runtime/" in m["to"]]  # where the ledger says a field went
    assert named, documents
    assert set(named) == {"Runtime/mxjob-simple-legacy"}
    assert not [f for d in documents for f in d["findings"] if f["code"].startswith("V")]


def test_the_legacy_operator_managers_come_from_data(tmp_path: Path) -> None:
    """kinds.yaml ``legacyManagers``: a managedBy naming a (made-up) legacy operator is dropped
    for Trainer's default controller (R209), not refused as a value the API never allowed
    (R212); a listed manager that a target accepts in spec.managedBy is a mapping error."""
    source = (DATA / "mxjob.in.yaml").read_text(encoding="utf-8").replace(
        "spec:\n", "spec:\n  runPolicy:\n    managedBy: example.com/mx-operator\n", 1)
    (tmp_path / "mx.yaml").write_text(source, encoding="utf-8")
    mappings = _mappings(tmp_path)

    def outcome() -> tuple[int, list[str]]:
        proc = _cli(tmp_path, mappings, "convert", "mx.yaml", "--report", "r.json")
        documents = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["documents"]
        return proc.returncode, [f["code"] for d in documents for f in d["findings"]
                                 if f["code"] in ("R209", "R212")]

    assert outcome() == (1, ["R212"])  # an error: not converted
    _edit(mappings / "kinds.yaml",
          lambda data: data["legacyManagers"].append("example.com/mx-operator"))
    assert outcome() == (0, ["R209"])
    converted = _cli(tmp_path, mappings, "convert", "mx.yaml").stdout
    assert "managedBy" not in converted.split("kind: TrainJob", 1)[1]
    _edit(mappings / "kinds.yaml",
          lambda data: data["legacyManagers"].append("kueue.x-k8s.io/multikueue"))
    refused = _cli(tmp_path, mappings, "convert", "mx.yaml")
    assert refused.returncode == 2
    assert "legacyManagers ['kueue.x-k8s.io/multikueue'] are values Trainer 2.2's " \
        "spec.managedBy accepts" in refused.stderr
    assert "Traceback" not in refused.stderr


PATCHED = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: patched
spec:
  runtimeRef:
    name: torch-distributed
  runtimePatches:
    - manager: example.com/migrator
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: extra
"""


def test_the_release_behaviour_comes_from_the_target_file(tmp_path: Path) -> None:
    """What changed between releases is a flag of the target file: a made-up 2.4 (a delta of
    2.3) that turns off ``mpiLauncherWaitsForWorkers``, ``runtimePatchAddsJobs`` and
    ``resourcesMergedPerKey`` behaves as 2.2 does, in the converter and in ``validate``."""
    (tmp_path / "tj.yaml").write_text(PATCHED, encoding="utf-8")
    (tmp_path / "runtime.yaml").write_text(_runtime("ClusterTrainingRuntime", "gpu-torch", "{}")
                                           + "                      resources: "
                                           "{limits: {nvidia.com/gpu: 2}}\n", encoding="utf-8")
    (tmp_path / "torch.yaml").write_text(
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: hz}\nspec:\n"
        "  pytorchReplicaSpecs:\n    Worker:\n      replicas: 2\n      template:\n"
        "        spec:\n          containers:\n          - {name: pytorch, image: 'img:1', "
        "resources: {limits: {cpu: 4}}}\n", encoding="utf-8")
    mpi = ROOT / "fixtures" / "mpijob-v2beta1" / "full.in.yaml"

    def messages(mappings: Path) -> list[str]:
        found = []
        for args in (("convert", str(mpi)), ("validate", "tj.yaml"),
                     ("convert", "torch.yaml", "--runtime", "gpu-torch", "--runtimes",
                      "runtime.yaml")):
            proc = _cli(tmp_path, mappings, *args, "--target", "2.4", "--report", "r.json")
            assert "Traceback" not in proc.stderr
            documents = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
            found += [f["message"] for d in documents["documents"] for f in d["findings"]
                      if f["code"] in ("F520", "R216") or "replicated job 'extra'" in
                      f["message"]]
        return found

    assert messages(_mappings(tmp_path / "as-23")) == [
        "runtime torch-distributed has no replicated job 'extra'; on Trainer 2.4 it is added "
        "as a new replicated job",
        "runtime gpu-torch's node resources limits.nvidia.com/gpu are kept: on Trainer 2.4 "
        "resourcesPerNode is merged per key"]
    mappings = _mappings(tmp_path)
    _edit(mappings / "targets" / "v2.4.yaml", lambda data: data.update(
        mpiLauncherWaitsForWorkers=False, runtimePatchAddsJobs=False,
        resourcesMergedPerKey=False))
    assert messages(mappings) == [
        "the launcher waited for ready workers; Trainer 2.4's MPI runtimes start launcher and "
        "workers together",
        "runtime torch-distributed has no replicated job 'extra'; on Trainer 2.4 it is rejected",
        "runtime gpu-torch's node resources limits.nvidia.com/gpu are dropped: on Trainer 2.4 "
        "resourcesPerNode replaces the runtime's resources"]


def test_the_legacy_label_prefix_comes_from_data(tmp_path: Path) -> None:
    """kinds.yaml ``legacyLabelPrefix``: env read from a label of the legacy operators'
    prefix (a made-up one here) is reported as empty on TrainJob pods (C409)."""
    source = (DATA / "mxjob.in.yaml").read_text(encoding="utf-8").replace(
        "              imagePullPolicy: Always\n",
        "              imagePullPolicy: Always\n              env:\n                - name: RANK\n"
        "                  valueFrom:\n                    fieldRef:\n                      "
        "fieldPath: metadata.labels['mxnet.example.org/replica-index']\n", 1)
    assert "mxnet.example.org/replica-index" in source
    (tmp_path / "mx.yaml").write_text(source, encoding="utf-8")
    mappings = _mappings(tmp_path)

    def c409() -> list[str]:
        proc = _cli(tmp_path, mappings, "convert", "mx.yaml", "--report", "r.json")
        assert "Traceback" not in proc.stderr
        documents = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["documents"]
        return [f["message"] for d in documents for f in d["findings"] if f["code"] == "C409"]

    assert c409() == []
    _edit(mappings / "kinds.yaml",
          lambda data: data.update(legacyLabelPrefix="mxnet.example.org/"))
    assert c409() == ["env RANK reads metadata.labels['mxnet.example.org/replica-index'], "
                      "which TrainJob pods do not have"]
