"""Issue 30 item 12: git, started for ``--changed-since`` (and to list a work tree's files),
runs nothing the repository configures.

A repository handed over with its ``.git`` can name programs for git to run: hooks
(``post-index-change`` when the index is written), clean/smudge filters and diff drivers
(``.gitattributes`` + ``.git/config``), an fsmonitor hook, an external diff. Each writes a
marker here; after the run there is none.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.security.support import JOB, run, said

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")


def _git(repo: Path, *args: str) -> None:
    assert GIT is not None
    subprocess.run([GIT, "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                   cwd=repo, check=True, capture_output=True)


def _program(path: Path, marker: Path, tail: str = "") -> str:
    path.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{marker}'\n{tail}")
    path.chmod(0o755)
    return str(path)


def _hostile_repo(tmp_path: Path) -> tuple[Path, Path]:
    repo, markers = tmp_path / "repo", tmp_path / "markers"
    repo.mkdir()
    markers.mkdir()
    (repo / "job.yaml").write_text(JOB)
    (repo / "other.yaml").write_text(JOB.replace("minimal", "other"))
    (repo / ".gitattributes").write_text("*.yaml filter=evil diff=evil\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "x")
    programs = tmp_path / "programs"
    programs.mkdir()
    settings = {
        "filter.evil.clean": _program(programs / "clean", markers / "clean", "cat\n"),
        "filter.evil.smudge": _program(programs / "smudge", markers / "smudge", "cat\n"),
        "filter.evil.process": _program(programs / "process", markers / "process"),
        "filter.evil.required": "true",
        "diff.evil.textconv": _program(programs / "textconv", markers / "textconv", "cat \"$1\"\n"),
        "diff.evil.command": _program(programs / "diffcmd", markers / "diffcmd"),
        "diff.external": _program(programs / "external", markers / "external"),
        "core.fsmonitor": _program(programs / "fsmonitor", markers / "fsmonitor"),
        "core.pager": _program(programs / "pager", markers / "pager", "cat\n"),
    }
    for key, value in settings.items():
        _git(repo, "config", key, value)
    for hook in ("post-index-change", "post-checkout", "pre-commit", "reference-transaction"):
        _program(repo / ".git" / "hooks" / hook, markers / hook)
    # a tracked file whose content changed, one touched only (its stat no longer matches the
    # index: git reads it, through the filter, to tell), and a new one
    (repo / "job.yaml").write_text(JOB.replace("minimal", "renamed"))
    later = time.time() + 5
    os.utime(repo / "other.yaml", (later, later))
    (repo / "new.yaml").write_text(JOB.replace("minimal", "new"))
    return repo, markers


def test_changed_since_runs_nothing_the_repository_configures(tmp_path: Path) -> None:
    repo, markers = _hostile_repo(tmp_path)
    index = (repo / ".git" / "index").read_bytes()
    proc = run(["check", "--changed-since", "HEAD", "--no-cache", "."], cwd=repo)
    assert sorted(os.listdir(markers)) == [], said(proc)
    assert "Traceback" not in said(proc), said(proc)
    assert proc.returncode == 1, said(proc)
    assert "new.yaml" in said(proc)
    assert "job.yaml" in said(proc)
    assert "other.yaml" not in said(proc), "a file only touched counts as unchanged"
    assert (repo / ".git" / "index").read_bytes() == index, "git wrote the index"


def test_a_walk_of_a_work_tree_runs_nothing_the_repository_configures(tmp_path: Path) -> None:
    repo, markers = _hostile_repo(tmp_path)
    proc = run(["check", "--no-cache", "."], cwd=repo)
    assert sorted(os.listdir(markers)) == [], said(proc)
    assert proc.returncode == 1, said(proc)
    assert "new.yaml" in said(proc)
