"""The Trainer side's sources: its copy of the default runtimes matches the upstream manifests
(``../shared/runtimes``), its citations point at the lines they claim (checked against a local
mirror of the upstream repositories when one is present), and the real default runtimes build.
"""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from migrator.simulate.model import Event, Scenario
from migrator.simulate.trainer import default_runtime, outcome, world
from migrator.simulate.trainer_runtimes import MANIFESTS
from migrator.simulate.trainer_sources import ROWS, cite

VERSIONS = ("2.2", "2.3")
MIRRORS = Path(os.environ.get("TRAINJOB_UPSTREAM_MIRRORS", "/work/.mirror"))
MIRROR_OF = {"kubeflow/trainer": "kubeflow+trainer", "kubernetes-sigs/jobset":
             "kubernetes-sigs+jobset", "kubernetes/api": "kubernetes+api"}


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _manifest(shared: Path, version: str, name: str) -> Any:
    path = shared / "runtimes" / f"trainer-v{version}.0" / MANIFESTS[name]
    return _plain(YAML(typ="safe").load(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(MANIFESTS))
def test_default_runtimes_match_the_manifests(shared: Path, version: str, name: str) -> None:
    assert default_runtime(name, version) == _manifest(shared, version, name)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(MANIFESTS))
def test_real_default_runtimes_build_and_finish(shared: Path, version: str, name: str) -> None:
    runtime = _manifest(shared, version, name)
    trainjob = {"metadata": {"name": "real"}, "spec": {
        "runtimeRef": {"name": name}, "trainer": {"numNodes": 2}}}
    built = world(trainjob, runtime, version)
    assert built.extras["created"] is True
    mpi = runtime["spec"]["mlPolicy"].get("mpi") is not None
    nodes = [p for p in built.pods if p.identity.startswith("node-")]
    launchers = [p for p in built.pods if p.identity.startswith("launcher-")]
    # MPI with runLauncherAsNode: numNodes 2 = 1 launcher + 1 node; otherwise 2 nodes
    assert (len(nodes), len(launchers)) == ((1, 1) if mpi else (2, 0))
    finisher = launchers[0].identity if mpi else None
    events = ((Event(finisher, "exit", 0),) if finisher is not None
              else tuple(Event(p.identity, "exit", 0) for p in nodes))
    assert outcome(trainjob, runtime, version, Scenario("ok", events)).phase == "Succeeded"


@cache
def _file(repo: str, tag: str, path: str) -> list[str] | None:
    git_dir = MIRRORS / MIRROR_OF[repo] / "repo"
    if not git_dir.is_dir():
        return None
    shown = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{tag}:{path}"],
                           capture_output=True, text=True, check=False)
    return shown.stdout.splitlines() if shown.returncode == 0 else None


@pytest.mark.parametrize("key", sorted(ROWS))
def test_citations_point_at_their_lines(key: str) -> None:
    checked = 0
    for version, row in ROWS[key].items():
        lines = _file(row.repo, row.tag, row.path)
        if lines is None:
            continue
        assert row.anchor in lines[row.line - 1], f"{key} {version}: {row.path}:{row.line}"
        checked += 1
    if not checked:
        pytest.skip("no local mirror of the upstream repositories")


def test_cite_is_per_release() -> None:
    v22, v23 = cite("patch_per_job", "2.2"), cite("patch_per_job", "2.3")
    assert v22 is not None
    assert v22.tag == "v2.2.0"
    assert v23 is None
    assert cite("no-such-rule", "2.2") is None
    merged = cite("resources_merge", "2.3")
    assert merged is not None
    assert str(merged).startswith(
        "kubeflow/trainer@v2.3.0 pkg/runtime/core/trainingruntime.go:")


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _documents(path: Path) -> list[dict[str, Any]]:
    loaded = YAML(typ="safe").load_all(path.read_text(encoding="utf-8"))
    return [_plain(doc) for doc in loaded if isinstance(doc, dict)]


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*/*.v2.[23].out.yaml")),
                         ids=lambda path: f"{path.parent.name}/{path.name}")
def test_converted_fixtures_build(path: Path) -> None:
    # the converter's outputs are only inputs here: every TrainJob with its companion (or a
    # transcribed default) runtime builds without a controller error
    version = path.name.rsplit(".v", 1)[1][:3]
    documents = _documents(path)
    runtimes = {doc["metadata"]["name"]: doc for doc in documents
                if str(doc.get("kind", "")).endswith("TrainingRuntime")}
    built = 0
    for trainjob in (doc for doc in documents if doc.get("kind") == "TrainJob"):
        name = trainjob["spec"]["runtimeRef"]["name"]
        runtime = runtimes.get(name) or default_runtime(name, version)
        if runtime is None:
            continue  # a torchtune runtime: not transcribed
        result = world(trainjob, runtime, version)
        assert "error" not in result.extras
        assert result.pods or result.extras.get("managedBy")
        built += 1
    if not built:
        pytest.skip("no top-level TrainJob with a runtime the simulator knows")
