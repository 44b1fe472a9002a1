"""A walked folder cannot make the tool read or rewrite a file outside it (issue 12).

Folder links were never followed in walks; file links are followed only when they resolve
inside the walked folder. A link named on the command line is the user's choice: followed,
and ``--in-place`` writes through it (the link stays a link).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security.support import JOB, converted, run, said


@pytest.mark.parametrize("absolute", [True, False])
def test_in_place_walk_does_not_rewrite_files_outside_through_links(tmp_path: Path,
                                                                    absolute: bool) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    victim = outside / "victim.yaml"
    victim.write_text(JOB)
    (repo / "link.yaml").symlink_to(victim if absolute else Path("..", "outside", "victim.yaml"))
    (repo / "own.yaml").write_text(JOB)
    (repo / "alias.yaml").symlink_to("own.yaml")  # inside the walked folder: fine
    proc = run(["convert", "--in-place", "."], cwd=repo)
    assert proc.returncode == 0, said(proc)
    assert victim.read_text() == JOB
    assert (repo / "link.yaml").is_symlink()
    assert (repo / "own.yaml").read_text() == converted()


def test_walk_does_not_print_files_outside_through_links(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "secret.yaml").write_text("token: SECRET-VALUE\n")
    (repo / "leak.yaml").symlink_to(tmp_path / "secret.yaml")
    (repo / "job.yaml").write_text(JOB)
    proc = run(["convert", "."], cwd=repo)
    assert "SECRET-VALUE" not in said(proc)
    assert "TrainJob" in proc.stdout


def test_a_link_named_on_the_command_line_is_followed(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    target = tmp_path / "outside" / "job.yaml"
    target.write_text(JOB)
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "link.yaml").symlink_to(target)
    proc = run(["convert", "--in-place", "link.yaml"], cwd=tmp_path / "repo")
    assert proc.returncode == 0, said(proc)
    assert target.read_text() == converted()
    assert (tmp_path / "repo" / "link.yaml").is_symlink()
