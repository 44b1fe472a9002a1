"""Kustomize (real-repository trial 12): a legacy base follows its overlays (P1: an overlay
that cannot be converted holds back the jobs it patches, E811, in every mode), and resolving
a kustomization's resources does not round-trip parse documents that cannot be legacy jobs
(P11: CustomResourceDefinitions that name the legacy kinds in their schema)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from migrator.convert import kustomization
from migrator.load import yamlio
from tests import goldens

KUBECTL = shutil.which("kubectl")

JOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: docker.io/example/train:1.0
              command: ["/bin/bash", "-c"]
              args: ["torchrun /app/placeholder.py"]
    Worker:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: docker.io/example/train:1.0
              command: ["/bin/bash", "-c"]
              args: ["torchrun /app/placeholder.py"]
"""
OTHER = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: other
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: pytorch
              image: docker.io/example/other:1.0
              command: ["torchrun", "/app/other.py"]
"""
TARGET = "  target:\n    kind: PyTorchJob\n    name: train\n"
MASTER_ONLY = ("resources:\n- ../../base\npatches:\n- patch: |-\n    - op: replace\n"
               "      path: /spec/pytorchReplicaSpecs/Master/template/spec/containers/0/args/0\n"
               "      value: torchrun /app/real.py\n" + TARGET)
MORE_WORKERS = ("resources:\n- ../../base\npatches:\n- patch: |-\n    - op: replace\n"
                "      path: /spec/pytorchReplicaSpecs/Worker/replicas\n      value: 3\n"
                + TARGET)


def tree(root: Path, bad: bool = True) -> Path:
    """A checkout with a base of two legacy jobs (only ``train`` is patched) and two
    overlays: ``good`` converts on its own, ``bad`` (a Master-only patch: Master and Worker
    then differ) does not."""
    (root / ".git").mkdir(parents=True)
    (root / "base").mkdir()
    (root / "base" / "kustomization.yaml").write_text("resources:\n- job.yaml\n")
    (root / "base" / "job.yaml").write_text(JOB + "---\n" + OTHER)
    for name, text in (("good", MORE_WORKERS), ("bad", MASTER_ONLY))[:2 if bad else 1]:
        (root / "overlays" / name).mkdir(parents=True)
        (root / "overlays" / name / "kustomization.yaml").write_text(text)
    return root


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(goldens.ROOT), "PATH": "/usr/bin:/bin",
           "TRAINJOB_MIGRATE_NO_CACHE": "1"}
    return subprocess.run([sys.executable, "-m", "migrator", *args, "-j", "1"],
                          capture_output=True, text=True, timeout=600, cwd=cwd, env=env,
                          check=False)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.parts}


def test_check_holds_the_base_of_an_overlay_that_cannot_be_converted(tmp_path: Path) -> None:
    root = tree(tmp_path / "repo")
    done = run("check", ".", cwd=root)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    held = [line for line in out.splitlines() if "E811" in line and "error" in line]
    assert len(held) == 1, out  # the patched job only, not ``other``
    assert "base/job.yaml:1:" in held[0]
    assert "'overlays/bad/kustomization.yaml'" in held[0]
    assert "'overlays/good/kustomization.yaml'" in held[0]  # held with its job: named too
    assert "PyTorchJob/other: would convert" in out
    assert "PyTorchJob/train: would convert" not in out
    # the good overlay is not retargeted: the job it patches stays a PyTorchJob
    assert "also patched by the overlay 'overlays/bad/kustomization.yaml'" in out


def test_in_place_leaves_the_base_and_the_overlays_byte_identical(tmp_path: Path) -> None:
    # (in place a file is rewritten only when nothing in it failed: the held job is a failure)
    root = tree(tmp_path / "repo")
    before = snapshot(root)
    done = run("convert", "--in-place", ".", cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "base/job.yaml:1: error E811" in done.stdout + done.stderr
    assert snapshot(root) == before


def test_output_tree_and_diff_hold_the_job_too(tmp_path: Path) -> None:
    root = tree(tmp_path / "repo")
    done = run("convert", ".", "-o", str(tmp_path / "out"), cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    written = (tmp_path / "out" / "base" / "job.yaml").read_text()
    assert written.startswith(JOB + "---\n")  # byte-identical, the unpatched job converted
    assert "kind: TrainJob" in written.split("---\n", 1)[1]
    done = run("diff", ".", cwd=root)
    assert "E811" in done.stdout + done.stderr
    assert "-kind: PyTorchJob" in done.stdout  # ``other`` converts
    assert done.stdout.count("-kind: PyTorchJob") == 1  # ``train`` is left out of the diff


def test_a_convertible_overlay_still_converts_with_its_base(tmp_path: Path) -> None:
    root = tree(tmp_path / "repo", bad=False)
    done = run("convert", "--in-place", ".", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "E811" not in done.stdout + done.stderr
    assert (root / "base" / "job.yaml").read_text().count("kind: TrainJob") == 2
    assert "kind: TrainJob" in (root / "overlays" / "good" / "kustomization.yaml").read_text()


def test_a_held_base_is_not_replayed_from_the_results_cache(tmp_path: Path) -> None:
    """A base in a folder without a kustomization (a file resource below the overlay's
    folder, as kustomize's load restrictions allow) would be cached; its result depends on
    the overlays, so it is not recorded: fixing the overlay lets it convert on the next
    run."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "overlay" / "jobs").mkdir(parents=True)
    (root / "overlay" / "jobs" / "job.yaml").write_text(JOB)
    kustomization = root / "overlay" / "kustomization.yaml"
    kustomization.write_text(MASTER_ONLY.replace("../../base", "jobs/job.yaml"))
    env = {"PYTHONPATH": str(goldens.ROOT), "PATH": "/usr/bin:/bin",
           "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}

    def check() -> str:
        done = subprocess.run([sys.executable, "-m", "migrator", "check", ".", "-j", "1"],
                              capture_output=True, text=True, timeout=600, cwd=root, env=env,
                              check=False)
        return done.stdout + done.stderr

    from migrator.batch.resultcache import RACY_SECONDS

    time.sleep(RACY_SECONDS + 0.3)  # a file changed just now is never recorded
    assert "jobs/job.yaml:1: error E811" in check()
    assert "jobs/job.yaml:1: error E811" in check()  # warm
    kustomization.write_text(MORE_WORKERS.replace("../../base", "jobs/job.yaml"))
    out = check()
    assert "E811" not in out
    assert "PyTorchJob/train: would convert" in out


def test_a_base_cached_before_its_overlay_fails_is_checked_again(tmp_path: Path) -> None:
    """(review 13) A converting base near a kustomization is never cached: an overlay that
    gains a patch it cannot convert holds the base back on the next warm run too."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "overlay" / "jobs").mkdir(parents=True)
    (root / "overlay" / "jobs" / "job.yaml").write_text(JOB)
    kustomization = root / "overlay" / "kustomization.yaml"
    kustomization.write_text("resources:\n- jobs/job.yaml\n")  # no patch yet
    env = {"PYTHONPATH": str(goldens.ROOT), "PATH": "/usr/bin:/bin",
           "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}

    def check(*extra: str) -> str:
        done = subprocess.run([sys.executable, "-m", "migrator", "check", ".", *extra],
                              capture_output=True, text=True, timeout=600, cwd=root, env=env,
                              check=False)
        return done.stdout + done.stderr

    from migrator.batch.resultcache import RACY_SECONDS

    time.sleep(RACY_SECONDS + 0.3)
    for _ in range(2):  # cold, then warm: the base converts
        assert "PyTorchJob/train: would convert" in check("-j", "1")
    kustomization.write_text(MASTER_ONLY.replace("../../base", "jobs/job.yaml"))
    for extra in (("-j", "1"), ("-j", "2"), ("--no-cache",)):
        assert "jobs/job.yaml:1: error E811" in check(*extra), extra


def test_a_legacy_job_far_from_any_kustomization_never_walks_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a file in or below a folder with a kustomization can be a base (kustomize's
    load restrictions): converting any other file never works out the run's overlays (a
    second walk of the whole run, in every worker)."""
    from migrator.convert import routing
    from migrator.results import TextResult

    (tmp_path / "jobs").mkdir()
    job = tmp_path / "jobs" / "job.yaml"
    job.write_text(JOB)
    asked: list[str] = []
    monkeypatch.setattr(kustomization, "holds", lambda options: asked.append("x"))
    from migrator.convert.text import convert_text
    from migrator.settings import ConvertOptions

    result: TextResult = convert_text(JOB, options=ConvertOptions())
    assert result.changed
    with routing.run_of((str(tmp_path),), [(str(job), "job.yaml")]):
        assert routing.hold_bases(str(job), JOB, result, ConvertOptions())[1] is True
    assert asked == []
    (tmp_path / "kustomization.yaml").write_text("resources:\n- jobs/job.yaml\n")
    with routing.run_of((str(tmp_path),), [(str(job), "job.yaml")]):
        routing.hold_bases(str(job), JOB, result, ConvertOptions())
    assert asked == ["x"]


@pytest.mark.skipif(KUBECTL is None, reason="kubectl (kustomize) not installed")
def test_the_overlay_still_deploys_its_patch_after_in_place(tmp_path: Path) -> None:
    """The trial's symptom: after --in-place, building the overlay that could not be converted
    gave the base job without the overlay's patch (it targets a kind that was gone)."""
    assert KUBECTL is not None
    root = tree(tmp_path / "repo")
    run("convert", "--in-place", ".", cwd=root)
    built = subprocess.run([KUBECTL, "kustomize", str(root / "overlays" / "bad")],
                           capture_output=True, text=True, timeout=120, check=True).stdout
    assert "torchrun /app/real.py" in built


CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: pytorchjobs.kubeflow.org
spec:
  group: kubeflow.org
  names:
    kind: PyTorchJob
  versions:
    - name: v1
      schema:
        openAPIV3Schema:
          description: 'apiVersion: kubeflow.org/v1 kind: PyTorchJob'
          properties:
            kind:
              type: string
"""


def test_resolving_resources_does_not_parse_a_crd(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "crd.yaml").write_text(CRD)
    (tmp_path / "job.yaml").write_text(OTHER)
    root = {"resources": ["crd.yaml", "job.yaml"]}
    loaded: list[str] = []
    real_load = yamlio.load

    def load(text: str) -> Any:
        loaded.append(text)
        return real_load(text)

    monkeypatch.setattr(yamlio, "load", load)
    found = kustomization.bases(tmp_path, root)
    assert [job["metadata"]["name"] for job in found.jobs] == ["other"]
    assert found.files == 2
    assert not any("CustomResourceDefinition" in text for text in loaded)
    assert len(loaded) == 1


@pytest.mark.parametrize(("body", "skipped"), [
    (CRD, True),
    ("kind: 'ConfigMap'  # a comment\napiVersion: v1\n", True),
    (OTHER, False),
    ('{"kind": "CustomResourceDefinition", "apiVersion": "v1"}\n', False),  # parsed
    ("kind: !!str PyTorchJob\napiVersion: kubeflow.org/v1\n", False),  # a tag: parsed
    ("kind: &k Service\napiVersion: v1\n", False),  # an anchor: parsed
    ("  kind: Service\n  apiVersion: v1\n", False),  # indented: parsed
    ("kind:\n  Service\n", False),  # the value on the next line: parsed
])
def test_only_a_plain_top_level_kind_skips_the_parse(body: str, skipped: bool) -> None:
    assert kustomization._other_kind(body) is skipped
