"""Issue 31 item 3: in a git work tree, what git holds is what the walk checks.

A tracked file that matches a .gitignore is checked (git matches patterns only against
untracked files; a real MPIJob was missed); untracked files git ignores are passed over and
counted in the summary line; a nested repository is walked with its own rules. Without git
(or outside a work tree) the .gitignore files are read as before.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.security.support import JOB, run, said

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")


def _git(folder: Path, *args: str) -> None:
    assert GIT is not None
    subprocess.run([GIT, "-c", "user.email=t@example.com", "-c", "user.name=t",
                    "-c", "protocol.file.allow=always", *args], cwd=folder, check=True,
                   capture_output=True)


def _job(path: Path, name: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(JOB.replace("minimal", name))


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / ".gitignore").write_text("build/\n*.generated.yaml\n")
    _job(repo / "jobs" / "train.yaml", "train")
    _job(repo / "build" / "mpi.yaml", "tracked-mpi")  # tracked although ignored
    _job(repo / "jobs" / "kept.generated.yaml", "tracked-generated")
    _git(repo, "add", ".gitignore", "jobs/train.yaml")
    _git(repo, "add", "-f", "build/mpi.yaml", "jobs/kept.generated.yaml")
    _git(repo, "commit", "-qm", "x")
    _job(repo / "build" / "untracked.yaml", "untracked-build")  # ignored
    _job(repo / "jobs" / "other.generated.yaml", "untracked-generated")  # ignored
    _job(repo / "jobs" / "new.yaml", "new")  # untracked, not ignored
    return repo


def _checked(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return sorted({line.split(":", 1)[0] for line in said(proc).splitlines()
                   if ": PyTorchJob/" in line})


def test_a_tracked_file_that_matches_gitignore_is_checked(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    proc = run(["check", "--no-cache", "."], cwd=repo)
    assert _checked(proc) == ["build/mpi.yaml", "jobs/kept.generated.yaml", "jobs/new.yaml",
                              "jobs/train.yaml"], said(proc)
    assert "; 2 ignored (.gitignore); " in proc.stderr.splitlines()[0], said(proc)
    assert proc.returncode == 1


def test_a_folder_of_the_work_tree(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    proc = run(["check", "--no-cache", "."], cwd=repo / "build")
    assert _checked(proc) == ["mpi.yaml"], said(proc)
    assert "; 1 ignored (.gitignore); " in proc.stderr.splitlines()[0], said(proc)


def test_a_nested_repository_is_walked_with_its_own_rules(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    inner = repo / "vendor" / "inner"
    inner.mkdir(parents=True)
    _git(inner, "init", "-q")
    (inner / ".gitignore").write_text("skip.yaml\n")
    _job(inner / "skip.yaml", "inner-skip")
    _job(inner / "job.yaml", "inner-job")
    proc = run(["check", "--no-cache", "vendor"], cwd=repo)
    assert _checked(proc) == ["vendor/inner/job.yaml"], said(proc)


def test_without_git_the_gitignore_files_are_read(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    tools = tmp_path / "tools"  # a PATH without git
    tools.mkdir()
    proc = run(["check", "--no-cache", "."], cwd=repo, extra_env={"PATH": str(tools)})
    assert _checked(proc) == ["jobs/new.yaml", "jobs/train.yaml"], said(proc)
    assert "Traceback" not in said(proc)


def test_no_gitignore_walks_everything(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    proc = run(["check", "--no-cache", "--no-gitignore", "."], cwd=repo)
    assert len(_checked(proc)) == 6, said(proc)
    assert "ignored (.gitignore)" not in said(proc)
    assert os.path.exists(repo / "build" / "untracked.yaml")


def test_a_hooks_git_variables_do_not_change_what_the_walk_sees(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    proc = run(["check", "--no-cache", "build"], cwd=repo, extra_env={
        "GIT_DIR": str(tmp_path / "elsewhere"), "GIT_INDEX_FILE": str(tmp_path / "index"),
        "GIT_WORK_TREE": str(tmp_path)})
    assert _checked(proc) == ["build/mpi.yaml"], said(proc)
