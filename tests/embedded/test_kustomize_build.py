"""Kustomize end to end: building the converted overlay gives what converting the built
legacy overlay gives (needs kubectl, skipped without it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from migrator import convert_text
from migrator.convert import kustomization
from migrator.load import stream, yamlio
from tests import goldens

OVERLAY = goldens.FIXTURES / "kustomize" / "overlay"
KUBECTL = shutil.which("kubectl")


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The overlay copied into a git checkout of its own. Outside a run a kustomization reads
    its bases only below its git top-level (``kustomization.confinement``): the fixtures in
    this project's tree would depend on the project being a git checkout (an exported
    source tree, a tarball or an sdist is not), and on where it lies."""
    copy = tmp_path / "overlay"
    shutil.copytree(OVERLAY, copy)
    (copy / ".git").mkdir()  # a checkout: its overlays may read ../base
    return copy


def _docs(text: str) -> list[Any]:
    return [yamlio.plain(yamlio.load(c.body)) for c in stream.split(text) if c.has_content]


def _build(folder: Path) -> str:
    assert KUBECTL is not None
    done = subprocess.run([KUBECTL, "kustomize", str(folder)], capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout


def _convert_tree(root: Path) -> None:
    """Convert the overlay's files the way a run with -o does: every file read unconverted."""
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


@pytest.mark.skipif(KUBECTL is None, reason="kubectl (kustomize) not installed")
def test_converted_overlay_builds_to_the_converted_build(checkout: Path) -> None:
    legacy = _build(checkout / "dev")
    expected = _docs(convert_text(legacy).text)
    _convert_tree(checkout)
    built = _docs(_build(checkout / "dev"))
    assert built == expected
    assert built[0]["metadata"]["name"] == "dev-train"  # namePrefix still reaches it
    assert built[0]["spec"]["trainer"]["image"].endswith(":2.0")  # so does images:


@pytest.mark.skipif(KUBECTL is None, reason="kubectl (kustomize) not installed")
def test_converting_an_overlay_in_place_twice(tmp_path: Path) -> None:
    """In place, the overlay is converted before the base it reads (the run orders them)."""
    import sys

    expected = _docs(convert_text(_build(OVERLAY / "dev")).text)
    copy = tmp_path / "overlay"
    shutil.copytree(OVERLAY, copy)
    command = [sys.executable, "-m", "migrator", "convert", str(copy), "--include", "*.yaml",
               "--in-place"]
    env = {"PYTHONPATH": str(goldens.ROOT), "PATH": "/usr/bin:/bin"}
    first = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env,
                           check=False)
    assert "E810" not in first.stdout + first.stderr
    assert _docs(_build(copy / "dev")) == expected
    texts = {p: p.read_text(encoding="utf-8") for p in copy.rglob("*.yaml")}
    subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert {p: p.read_text(encoding="utf-8") for p in copy.rglob("*.yaml")} == texts


def test_kustomization_findings(checkout: Path) -> None:
    path = checkout / "dev" / "kustomization.yaml"
    result = kustomization.convert_kustomization(str(path), path.read_text(encoding="utf-8"))
    codes = [(f.code, f.path) for f in result.findings]
    assert codes == [("E809", "patches[0]"), ("E809", "patches[1]"),
                     ("E809", "images[0]")]
    assert "kind: TrainJob" in result.text
    again = kustomization.convert_kustomization(str(path), result.text)
    assert again.findings == []  # its targets are TrainJobs now: nothing left to do


def test_a_patch_that_breaks_conversion_is_reported_and_nothing_changes() -> None:
    path = goldens.FIXTURES / "kustomize" / "diverging" / "kustomization.yaml"
    text = path.read_text(encoding="utf-8")
    result = kustomization.convert_kustomization(str(path), text)
    assert result.text == text
    assert result.failed
    [finding] = result.findings
    assert finding.code == "E810"
    assert "/spec/pytorchReplicaSpecs/Worker/template/spec/nodeSelector" in finding.message


def test_patch_files_are_found_through_their_kustomization(checkout: Path) -> None:
    folder = checkout / "dev"
    assert kustomization.owner(str(folder / "resources.yaml")) == folder / "kustomization.yaml"
    assert kustomization.owner(str(checkout / "base" / "pytorchjob.yaml")) is None
    args = folder / "more-workers-args.yaml"
    result = kustomization.convert_patch_file(str(args), args.read_text(encoding="utf-8"))
    assert result is not None
    assert "path: /spec/trainer/args" in result.text


def test_target_names_match_like_kustomize_without_backtracking() -> None:
    jobs = [{"kind": "PyTorchJob", "metadata": {"name": "train-a"}},
            {"kind": "PyTorchJob", "metadata": {"name": "aa"}}]
    assert len(kustomization.targets({"kind": "PyTorchJob", "name": "train-.*"}, jobs)) == 1
    assert len(kustomization.targets({"kind": "PyTorchJob", "name": "train-a"}, jobs)) == 1
    assert kustomization.targets({"kind": "TFJob", "name": "train-a"}, jobs) == []
    # a pattern with groups or nested repetition could backtrack for ever in Python's re:
    # it is compared as text, never run
    assert kustomization.targets({"kind": "PyTorchJob", "name": "(a+)+"}, jobs) == []
