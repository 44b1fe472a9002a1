"""Issue 12 item 6: only a config the user (or root) controls is applied, and the run says which.

The search walks up from the working directory and stops after the repository root, and at
the first folder that someone else owns or may write to (like a 1777 /tmp): a
``.trainjob-migrate.yaml`` planted there is not applied. A config file that others may write
is ignored with a warning. ``--config`` always applies the named file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.security.support import JOB, run, said

# Applied, this config hides the legacy job: `check job.yaml` exits 0 instead of 1.
HIDING = "exclude: [job.yaml]\n"


def _project(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "job.yaml").write_text(JOB)
    return folder


def _applied(proc_returncode: int) -> bool:
    return proc_returncode == 0


def test_config_in_a_world_writable_ancestor_is_not_applied(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # like /tmp
    (shared / ".trainjob-migrate.yaml").write_text(HIDING)
    project = _project(shared / "me" / "project")
    proc = run(["check", "job.yaml"], cwd=project)
    assert proc.returncode == 1, said(proc)
    assert "Traceback" not in said(proc)


def test_config_in_a_group_writable_ancestor_is_not_applied(tmp_path: Path) -> None:
    shared = tmp_path / "team"
    shared.mkdir()
    (shared / ".trainjob-migrate.yaml").write_text(HIDING)
    os.chown(shared, -1, _other_gid())
    shared.chmod(0o775)
    project = _project(shared / "project")
    assert run(["check", "job.yaml"], cwd=project).returncode == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to create files owned by others")
def test_config_owned_by_another_user_is_not_applied(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".trainjob-migrate.yaml").write_text(HIDING)
    os.chown(home / ".trainjob-migrate.yaml", 4242, 4242)
    project = _project(home / "project")
    proc = run(["check", "job.yaml"], cwd=project)
    assert proc.returncode == 1, said(proc)
    assert ".trainjob-migrate.yaml" in said(proc)  # says why it was passed over


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to create folders owned by others")
def test_search_stops_at_a_folder_owned_by_another_user(tmp_path: Path) -> None:
    (tmp_path / ".trainjob-migrate.yaml").write_text(HIDING)
    other = tmp_path / "other"
    other.mkdir()
    os.chown(other, 4242, 4242)
    project = _project(other / "project")
    assert run(["check", "job.yaml"], cwd=project).returncode == 1


def test_config_that_others_may_write_is_ignored_with_a_warning(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    config = project / ".trainjob-migrate.yaml"
    config.write_text(HIDING)
    config.chmod(0o666)
    proc = run(["check", "job.yaml"], cwd=project)
    assert proc.returncode == 1, said(proc)
    assert str(config) in said(proc) or ".trainjob-migrate.yaml" in said(proc)


def test_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / ".trainjob-migrate.yaml").write_text(HIDING)
    repo = _project(tmp_path / "repo")
    (repo / ".git").mkdir()
    project = repo / "deploy"
    project.mkdir()
    (project / "job.yaml").write_text(JOB)
    assert run(["check", "job.yaml"], cwd=project).returncode == 1


def test_the_repository_config_is_applied_and_named(tmp_path: Path) -> None:
    repo = _project(tmp_path / "repo")
    (repo / ".git").mkdir()
    (repo / ".trainjob-migrate.yaml").write_text(HIDING)
    project = repo / "deploy"
    project.mkdir()
    (project / "job.yaml").write_text(JOB)
    proc = run(["check", "job.yaml"], cwd=project)
    assert _applied(proc.returncode), said(proc)
    assert str(repo / ".trainjob-migrate.yaml") in said(proc)


def test_an_explicit_config_is_applied_and_named(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    (shared / "team.yaml").write_text(HIDING)
    project = _project(tmp_path / "project")
    proc = run(["check", "--config", str(shared / "team.yaml"), "job.yaml"], cwd=project)
    assert _applied(proc.returncode), said(proc)
    assert str(shared / "team.yaml") in said(proc)


def _other_gid() -> int:
    """A group the current user is not in (root can chown to any)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to give a folder to another group")
    return 4242


def test_a_deeply_nested_config_is_one_line(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    (project / ".trainjob-migrate.yaml").write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")
    proc = run(["check", "job.yaml"], cwd=project)
    assert proc.returncode == 2
    assert "cannot read config" in said(proc)
    assert "Traceback" not in said(proc)


@pytest.mark.parametrize("baseline", ["/dev/zero", "../outside.json", "/proc/self/environ"])
def test_a_config_baseline_stays_in_the_config_folder(tmp_path: Path, baseline: str) -> None:
    project = _project(tmp_path / "project")
    (project / ".trainjob-migrate.yaml").write_text(f"baseline: {baseline}\n")
    proc = run(["check", "job.yaml"], cwd=project, timeout=30)
    assert proc.returncode == 2
    assert "baseline" in said(proc)
    assert "Traceback" not in said(proc)


def test_a_broken_pyproject_table_is_reported_not_skipped(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    (project / "pyproject.toml").write_text("[tool.trainjob-migrate]\ntarget = '2.2\n")
    proc = run(["check", "job.yaml"], cwd=project)
    assert proc.returncode == 2
    assert "pyproject.toml" in said(proc)
