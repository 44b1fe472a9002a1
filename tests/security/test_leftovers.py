"""Issue 12 item 12: what a SIGKILL can leave, and how little.

A new file (an ``-o`` output, a first report) is named complete in one step, so no kill
can leave a temporary file for it. Replacing an existing file needs a temporary name and a
rename; a SIGKILL between the two leaves the complete new content as ``.NAME.XXXXXXXX.tmp``,
and the next run that writes NAME removes it — only that exact name, only a regular file of
the user's older than the run, never a link or a file with other links.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from migrator import atomic
from tests.security.support import CONFIGMAP, JOB, converted, run, said

LEFTOVER = ".job.yaml.0123abcd.tmp"


def _plant(folder: Path, name: str, *, age: float = 60.0, text: str = "partial") -> Path:
    path = folder / name
    path.write_text(text)
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def test_next_in_place_run_removes_a_killed_runs_leftover(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    (tmp_path / "other.yaml").write_text(CONFIGMAP)
    _plant(tmp_path, LEFTOVER, text=converted())
    proc = run(["convert", "--in-place", "."], cwd=tmp_path)
    assert proc.returncode == 0, said(proc)
    assert (tmp_path / "job.yaml").read_text() == converted()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.yaml", "other.yaml"]


def test_only_exact_old_regular_leftovers_of_written_files_are_removed(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    (tmp_path / "other.yaml").write_text(CONFIGMAP)
    kept = [
        _plant(tmp_path, ".job.yaml.0123ABCD.tmp"),  # not lowercase hex
        _plant(tmp_path, ".job.yaml.0123abc.tmp"),  # 7 digits
        _plant(tmp_path, ".job.yaml.0123abcd.tmp.bak"),
        _plant(tmp_path, "job.yaml.0123abcd.tmp"),  # not hidden
        _plant(tmp_path, ".other.yaml.0123abcd.tmp"),  # other.yaml is not written
        _plant(tmp_path, ".job.yaml.4567abcd.tmp", age=-3600),  # newer than the run
    ]
    (tmp_path / "target").write_text("not ours to remove")
    os.symlink("target", tmp_path / ".job.yaml.89abcdef.tmp")
    linked = _plant(tmp_path, ".job.yaml.fedcba98.tmp")
    os.link(linked, tmp_path / "second-name")
    removed = _plant(tmp_path, LEFTOVER)
    proc = run(["convert", "--in-place", "."], cwd=tmp_path)
    assert proc.returncode == 0, said(proc)
    assert not removed.exists()
    assert all(path.exists() for path in kept)
    assert (tmp_path / ".job.yaml.89abcdef.tmp").is_symlink()
    assert linked.exists()
    assert (tmp_path / "target").read_text() == "not ours to remove"


def test_a_leftover_of_a_report_goes_with_the_next_report(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    (tmp_path / "report.json").write_text("{}")
    leftover = _plant(tmp_path, ".report.json.0a1b2c3d.tmp")
    proc = run(["check", "job.yaml", "--report", "report.json"], cwd=tmp_path)
    assert proc.returncode == 1, said(proc)
    assert not leftover.exists()
    assert (tmp_path / "report.json").read_text().startswith("{")


@pytest.mark.skipif(not atomic._TMPFILE, reason="needs O_TMPFILE (Linux)")
def test_a_new_file_is_named_without_a_rename(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    renames: list[str] = []
    real = os.replace

    def counting(source: str, target: str, **kwargs: int) -> None:
        renames.append(target)
        real(source, target, **kwargs)

    monkeypatch.setattr(os, "replace", counting)
    atomic.replace_file(tmp_path / "new.yaml", b"new\n")
    assert renames == []  # one link: nothing to kill between naming and renaming
    atomic.replace_file(tmp_path / "new.yaml", b"newer\n")
    assert renames == ["new.yaml"]
    assert (tmp_path / "new.yaml").read_bytes() == b"newer\n"
    assert [p.name for p in tmp_path.iterdir()] == ["new.yaml"]


def test_a_link_at_a_new_name_is_replaced_not_followed(tmp_path: Path) -> None:
    os.symlink(tmp_path / "elsewhere", tmp_path / "out.yaml")  # dangling
    atomic.replace_file(tmp_path / "out.yaml", b"data\n")
    assert not (tmp_path / "elsewhere").exists()
    assert not (tmp_path / "out.yaml").is_symlink()
    assert (tmp_path / "out.yaml").read_bytes() == b"data\n"
