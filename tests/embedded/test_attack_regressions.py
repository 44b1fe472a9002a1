"""Regressions from the attack pass (team notes, attack.md sections 4, 5 and 13): kustomize
paths read only inside the repository, an overlay converted whole or not at all, and the
line endings of Markdown pages and shell scripts kept byte for byte around converted
snippets."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import goldens

OVERLAY = goldens.FIXTURES / "kustomize" / "overlay"
MINIMAL = (goldens.FIXTURES / "pytorchjob" / "minimal.in.yaml").read_bytes()
TARGET = "target: {group: kubeflow.org, version: v1, kind: PyTorchJob, name: train}"
LEGACY_PATCH = ("- op: replace\n  path: /spec/pytorchReplicaSpecs/Worker/replicas\n"
                "  value: 5\n")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(goldens.ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "migrator", *args], capture_output=True,
                          text=True, timeout=600, cwd=cwd, env=env, check=False)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.parts}


def overlay(root: Path, checkout: bool = True) -> Path:
    shutil.copytree(OVERLAY, root)
    if checkout:
        (root / ".git").mkdir()  # a git checkout (found by its .git entry)
    return root


# 4. patch and base paths outside the repository are named, never read


def test_kustomize_paths_outside_the_tree_are_not_read(tmp_path: Path) -> None:
    tree = overlay(tmp_path / "k4", checkout=False)
    secret = tmp_path / "k4secret"
    secret.mkdir()
    (secret / "config.json").write_text('{"auths": {"ghcr.io": {"auth": "c2VjcmV0"}}}')
    (secret / "legacy.yaml").write_text(LEGACY_PATCH)  # would translate (E809) if read
    (tree / "dev" / "linked.yaml").symlink_to(secret / "legacy.yaml")
    (tree / "dev" / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
        "resources: [../base, ../../k4secret/config.json]\npatches:\n"
        f"  - {TARGET}\n    path: {secret / 'config.json'}\n"
        f"  - {TARGET}\n    path: /proc/self/environ\n"
        f"  - {TARGET}\n    path: ../../k4secret/legacy.yaml\n"
        f"  - {TARGET}\n    path: linked.yaml\n"
        "patchesStrategicMerge: [/etc/shadow]\n")
    before = snapshot(tree)
    done = run("check", "-v", ".", cwd=tree)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "auths" not in out
    assert "ghcr" not in out
    assert "E809" not in out  # no patch from outside was translated
    for what, named in [("base", "../../k4secret/config.json"),
                        ("patch file", str(secret / "config.json")),
                        ("patch file", "/proc/self/environ"),
                        ("patch file", "../../k4secret/legacy.yaml"),
                        ("patch file", "linked.yaml"), ("patch file", "/etc/shadow")]:
        assert f"E810 the {what} '{named}' is outside the repository" in out, (named, out)
    done = run("convert", "--in-place", ".", cwd=tree)
    assert done.returncode == 1
    after = snapshot(tree)
    assert {k: after[k] for k in after if k.startswith("dev/")} == {
        k: before[k] for k in before if k.startswith("dev/")}  # the overlay is not rewritten


def test_a_base_up_the_tree_is_read_inside_the_named_folder(tmp_path: Path) -> None:
    # outside a git checkout the folder the user names is the limit: ../base is inside it
    tree = overlay(tmp_path / "plain", checkout=False)
    done = run("check", "-v", ".", cwd=tree)
    assert "outside the repository" not in done.stdout + done.stderr
    assert "E809" in done.stdout
    # naming only the overlay folder puts ../base out of reach: reported, not read
    done = run("check", "-v", "dev", cwd=tree)
    assert "the base '../base' is outside the repository" in done.stdout
    assert done.returncode == 1


# 5. an overlay converts whole or not at all


def test_a_kustomization_alone_is_not_retargeted(tmp_path: Path) -> None:
    tree = overlay(tmp_path / "k3")
    before = snapshot(tree)
    for alone in (("dev/kustomization.yaml",), ("dev/more-workers-args.yaml",),
                  ("dev/kustomization.yaml", "base")):
        done = run("convert", "--in-place", *alone, cwd=tree)
        out = done.stdout + done.stderr
        assert done.returncode == 1, (alone, out)
        assert "convert the whole folder" in out, (alone, out)
        assert {k: v for k, v in snapshot(tree).items() if k.startswith("dev/")} == {
            k: v for k, v in before.items() if k.startswith("dev/")}, alone
        shutil.rmtree(tree)
        overlay(tree)
    done = run("convert", "--in-place", "dev/kustomization.yaml", "base", cwd=tree)
    assert "'more-workers-args.yaml' is part of this overlay but is not converted" in \
        done.stdout + done.stderr
    assert "'resources.yaml' is part of this overlay" in done.stdout + done.stderr


def test_the_whole_overlay_converts_together(tmp_path: Path) -> None:
    tree = overlay(tmp_path / "whole")
    done = run("convert", "--in-place", ".", cwd=tree)
    assert done.returncode == 0, done.stdout + done.stderr
    kustomization = (tree / "dev" / "kustomization.yaml").read_text()
    assert "kind: PyTorchJob" not in kustomization
    assert "kind: TrainJob" in kustomization
    assert "pytorchReplicaSpecs" not in (tree / "dev" / "more-workers-args.yaml").read_text()
    assert "/spec/trainer" in (tree / "dev" / "more-workers-args.yaml").read_text()
    assert "kind: TrainJob" in (tree / "base" / "pytorchjob.yaml").read_text()


def test_a_patch_file_outside_the_run_keeps_the_kustomization(tmp_path: Path) -> None:
    tree = overlay(tmp_path / "repo")
    (tree / "outside").mkdir()
    (tree / "outside" / "patch.yaml").write_text(LEGACY_PATCH)
    text = (tree / "dev" / "kustomization.yaml").read_text()
    (tree / "dev" / "kustomization.yaml").write_text(
        text.replace("path: more-workers-args.yaml", "path: ../outside/patch.yaml"))
    before = snapshot(tree)
    done = run("convert", "--in-place", "dev", "base", cwd=tree)
    assert done.returncode == 1
    assert "'../outside/patch.yaml' is part of this overlay but is not converted" in \
        done.stdout + done.stderr
    assert snapshot(tree)["dev/kustomization.yaml"] == before["dev/kustomization.yaml"]
    assert snapshot(tree)["outside/patch.yaml"] == before["outside/patch.yaml"]


# 13. line endings outside a converted snippet stay as they were


def _converted(tmp_path: Path, name: str, data: bytes) -> bytes:
    (tmp_path / name).write_bytes(data)
    done = run("convert", "--in-place", name, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"rewrote {name}" in done.stderr
    return (tmp_path / name).read_bytes()


CRLF = MINIMAL.replace(b"\n", b"\r\n")


@pytest.mark.parametrize(("name", "head", "job", "tail"), [
    ("page.md", b"# Title\r\n\r\nSome prose.\r\n\r\n```yaml\n", MINIMAL,
     b"```\r\n\r\nMore prose.\r\n"),
    ("mixed.md", b"# Mixed\n\r\nline two\r\nline three\n\n```yaml\r\n", CRLF,
     b"```\nafter\r\nlast\n"),
    ("s.sh", b"#!/bin/sh\r\necho hi\r\nkubectl apply -f - <<EOF\n", MINIMAL,
     b"EOF\r\necho done\r\n"),
    ("run.md", b"Run:\r\n\r\n```bash\r\nkubectl apply -f - <<EOF\r\n", CRLF,
     b"EOF\r\n```\r\nend\r\n"),
], ids=["crlf-page-lf-block", "mixed-page-crlf-block", "crlf-script-lf-heredoc",
        "crlf-shell-block-in-a-page"])
def test_a_block_keeps_its_own_line_endings(tmp_path: Path, name: str, head: bytes, job: bytes,
                                            tail: bytes) -> None:
    """The text around a converted block is byte-identical; the block keeps its endings."""
    out = _converted(tmp_path, name, head + job + tail)
    assert out.startswith(head)
    assert out.endswith(tail)
    body = out[len(head):-len(tail)]
    assert b"TrainJob" in body
    if job is CRLF:
        assert body.count(b"\n") == body.count(b"\r\n")
    else:
        assert b"\r" not in body
