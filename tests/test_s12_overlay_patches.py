"""Kustomize (real-repository trial 12, P1): an overlay's patches are judged together, as
kustomize applies them. Two patches that set Master and Worker the same way convert only
together (between them the roles differ, P306); the overlay converts, and building the
converted overlay on the converted base gives the conversion of the built legacy overlay."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from migrator import convert_text
from migrator.convert import kustomization
from migrator.load import stream, yamlio
from tests import goldens
from tests.test_s12_kustomize import JOB, TARGET  # (the same base job and patch target)

KUBECTL = shutil.which("kubectl")

ARGS = "/spec/pytorchReplicaSpecs/{role}/template/spec/containers/0/args/0"
AFFINITY = "/spec/pytorchReplicaSpecs/{role}/template/spec/affinity"


def _op(role: str, value: str, path: str = ARGS) -> str:
    return (f"- patch: |-\n    - op: replace\n      path: {path.format(role=role)}\n"
            f"      value: {value}\n" + TARGET)


# the training-on-eks ddp overlay: the same script for Master, then for Worker
DDP = ("resources:\n- ../../base\npatches:\n" + _op("Master", "torchrun /app/ddp.py")
       + _op("Worker", "torchrun /app/ddp.py"))
# the fsdp overlay: the roles end up with different affinities, a genuine P306
FSDP = ("resources:\n- ../../base\npatches:\n"
        + _op("Master", "{nodeAffinity: {}}", AFFINITY).replace("replace", "add")
        + _op("Worker", "{podAffinity: {}}", AFFINITY).replace("replace", "add"))
# three patches: the replica count converts alone, the two scripts only together
MIXED = ("resources:\n- ../../base\npatches:\n" + _op("Master", "torchrun /app/b.py")
         + _op("Worker", "3", "/spec/pytorchReplicaSpecs/{role}/replicas")
         + _op("Worker", "torchrun /app/b.py"))
# kustomize applies patchesStrategicMerge before patchesJson6902, whatever the file's order
ORDERED = """\
resources:
- ../../base
patchesJson6902:
- target:
    group: kubeflow.org
    version: v1
    kind: PyTorchJob
    name: train
  path: master.yaml
patchesStrategicMerge:
- worker.yaml
"""
MASTER_FILE = f"- op: replace\n  path: {ARGS.format(role='Master')}\n  value: torchrun /app/c.py\n"
WORKER_FILE = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
spec:
  pytorchReplicaSpecs:
    Worker:
      template:
        spec:
          containers:
            - name: pytorch
              image: docker.io/example/train:1.0
              command: ["/bin/bash", "-c"]
              args: ["torchrun /app/c.py"]
"""


def tree(root: Path, overlays: dict[str, str], files: dict[str, str] | None = None) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / "base").mkdir()
    (root / "base" / "kustomization.yaml").write_text("resources:\n- job.yaml\n")
    (root / "base" / "job.yaml").write_text(JOB)
    for name, text in overlays.items():
        (root / "overlays" / name).mkdir(parents=True)
        (root / "overlays" / name / "kustomization.yaml").write_text(text)
        for file, body in (files or {}).items():
            (root / "overlays" / name / file).write_text(body)
    return root


def docs(text: str) -> list[Any]:
    return [yamlio.plain(yamlio.load(c.body)) for c in stream.split(text) if c.has_content]


def build(folder: Path) -> list[Any]:
    """``kustomize build`` of an overlay of inline JSON 6902 patches (kubectl when installed;
    without it, a small builder of its own for the ``replace``/``add``/``test`` patches of
    these tests, independent of the code under test)."""
    if KUBECTL is not None:
        return docs(subprocess.run([KUBECTL, "kustomize", str(folder)], capture_output=True,
                                   text=True, timeout=120, check=True).stdout)
    root = yamlio.plain(yamlio.load((folder / "kustomization.yaml").read_text()))
    if set(root) - {"resources", "patches"}:
        pytest.skip("kubectl (kustomize) not installed")
    job = docs((folder / "../../base/job.yaml").read_text())[0]
    for entry in root["patches"]:
        if entry["target"]["kind"] != job["kind"]:
            continue
        for op in yamlio.plain(yamlio.load(entry["patch"])):
            *parents, last = [int(t) if t.isdigit() else t for t in op["path"][1:].split("/")]
            node = job
            for token in parents:
                node = node[token]
            if op["op"] == "test":
                assert node[last] == op["value"]
            else:
                node[last] = copy.deepcopy(op["value"])
    return [job]


def convert_tree(root: Path) -> None:
    """Convert every file the way a run with -o does: every file read unconverted."""
    outputs: dict[Path, str] = {}
    for path in sorted(root.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if kustomization.is_kustomization(path.name):
            result = kustomization.convert_kustomization(str(path), text)
        else:
            result = kustomization.convert_patch_file(str(path), text) or convert_text(text)
        assert not result.failed, [f.message for f in result.findings]
        outputs[path] = result.text
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(goldens.ROOT), "PATH": "/usr/bin:/bin",
           "TRAINJOB_MIGRATE_NO_CACHE": "1"}
    return subprocess.run([sys.executable, "-m", "migrator", *args, "-j", "1"],
                          capture_output=True, text=True, timeout=600, cwd=cwd, env=env,
                          check=False)


def test_patches_that_convert_only_together_convert(tmp_path: Path) -> None:
    root = tree(tmp_path / "repo", {"ddp": DDP})
    path = root / "overlays" / "ddp" / "kustomization.yaml"
    result = kustomization.convert_kustomization(str(path), DDP)
    assert not result.failed, [f.message for f in result.findings]
    first, second = result.findings
    assert (first.code, first.path, second.code, second.path) == (
        "E809", "patches[0]", "E809", "patches[1]")
    assert "test /kind" in first.message
    assert "patches[1]" in first.message
    assert "/spec/trainer/args/0" in second.message
    assert "patches[0]" in second.message
    out = yamlio.plain(yamlio.load(result.text))
    assert yamlio.plain(yamlio.load(out["patches"][0]["patch"])) == [
        {"op": "test", "path": "/kind", "value": "TrainJob"}]
    assert [p["target"]["kind"] for p in out["patches"]] == ["TrainJob", "TrainJob"]


@pytest.mark.parametrize("overlay", [DDP, MIXED], ids=["ddp", "mixed"])
def test_the_converted_overlay_builds_to_the_converted_build(tmp_path: Path,
                                                             overlay: str) -> None:
    root = tree(tmp_path / "repo", {"o": overlay})
    legacy = build(root / "overlays" / "o")
    expected = docs(convert_text(json.dumps(legacy[0]) + "\n").text)
    assert expected[0]["kind"] == "TrainJob"
    convert_tree(root)
    assert build(root / "overlays" / "o") == expected


def test_a_genuine_difference_between_the_roles_still_fails(tmp_path: Path) -> None:
    root = tree(tmp_path / "repo", {"fsdp": FSDP})
    path = root / "overlays" / "fsdp" / "kustomization.yaml"
    result = kustomization.convert_kustomization(str(path), FSDP)
    assert result.failed
    assert {f.code for f in result.findings} == {"E810"}
    assert result.text == FSDP


def test_check_converts_the_overlay_and_its_base(tmp_path: Path) -> None:
    root = tree(tmp_path / "repo", {"ddp": DDP})
    done = run("check", ".", cwd=root)
    out = done.stdout + done.stderr
    assert "E810" not in out, out
    assert "E811" not in out, out
    assert "PyTorchJob/train: would convert" in out
    assert "Kustomization: would convert" in out


def test_a_failing_sibling_overlay_still_holds_the_base(tmp_path: Path) -> None:
    root = tree(tmp_path / "repo", {"ddp": DDP, "fsdp": FSDP})
    done = run("check", ".", cwd=root)
    out = done.stdout + done.stderr
    assert "base/job.yaml:1: error E811" in out, out
    assert "also patched by the overlay 'overlays/fsdp/kustomization.yaml'" in out


def test_strategic_merge_patches_come_first(tmp_path: Path) -> None:
    """Kustomize applies ``patchesStrategicMerge`` before ``patchesJson6902``: the Worker
    patch (first applied) changes nothing on the TrainJob, the Master patch makes both
    changes. Both are patch files, rewritten with their kustomization."""
    root = tree(tmp_path / "repo", {"o": ORDERED},
                {"master.yaml": MASTER_FILE, "worker.yaml": WORKER_FILE})
    folder = root / "overlays" / "o"
    kept = kustomization.convert_kustomization(str(folder / "kustomization.yaml"), ORDERED)
    assert not kept.failed, [f.message for f in kept.findings]
    by_path = {f.path: f.message for f in kept.findings}
    assert "patchesJson6902[0]" in by_path
    assert "also makes the change of patchesStrategicMerge[0]" in by_path["patchesJson6902[0]"]
    worker = kustomization.convert_patch_file(str(folder / "worker.yaml"), WORKER_FILE)
    assert worker is not None
    assert not worker.failed
    assert "patchesJson6902[0]" in worker.findings[0].message
    assert yamlio.plain(yamlio.load(worker.text)) == {
        "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
        "metadata": {"name": "train"}}
    master = kustomization.convert_patch_file(str(folder / "master.yaml"), MASTER_FILE)
    assert master is not None
    assert not master.failed
    assert "/spec/trainer/args/0" in master.text


@pytest.mark.skipif(KUBECTL is None, reason="kubectl (kustomize) not installed")
@pytest.mark.parametrize("mode", ["-o", "--in-place"])
def test_patch_files_judged_together_build_to_the_converted_build(tmp_path: Path,
                                                                  mode: str) -> None:
    root = tree(tmp_path / "repo", {"o": ORDERED},
                {"master.yaml": MASTER_FILE, "worker.yaml": WORKER_FILE})
    legacy = build(root / "overlays" / "o")
    expected = docs(convert_text(json.dumps(legacy[0]) + "\n").text)
    if mode == "-o":  # (files left alone are not written: the output starts as a copy)
        shutil.copytree(root, tmp_path / "out", ignore=shutil.ignore_patterns(".git"))
    args = ["convert", ".", "-o", str(tmp_path / "out")] if mode == "-o" else \
        ["convert", "--in-place", "."]
    done = run(*args, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    converted = tmp_path / "out" if mode == "-o" else root
    assert build(converted / "overlays" / "o") == expected
