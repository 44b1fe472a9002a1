"""File-system faults: unreadable inputs, unwritable targets, vanishing files, full disks,
interrupts, symlink loops, and two runs on the same tree. Nothing is ever half-written."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from migrator import atomic
from migrator.batch import runner
from migrator.settings import RunSettings
from tests.goldens import FIXTURES, ROOT

GOOD = (FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text()
CONVERTED = (FIXTURES / "pytorchjob" / "minimal.v2.2.out.yaml").read_text()


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def _leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file(tmp_path: Path) -> None:
    locked = tmp_path / "locked.yaml"
    locked.write_text(GOOD)
    locked.chmod(0)
    (tmp_path / "good.yaml").write_text(GOOD)
    proc = _run("convert", ".", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 2
    assert "locked.yaml: error Y102" in proc.stderr
    assert (tmp_path / "out" / "good.yaml").exists()


def test_unwritable_target_directory(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(GOOD)
    (tmp_path / "out" / "good.yaml").mkdir(parents=True)  # a folder where the file goes
    proc = _run("convert", "good.yaml", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 2
    assert "good.yaml: error Y106" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert (tmp_path / "good.yaml").read_text() == GOOD


def _settings(tmp_path: Path, *names: str) -> RunSettings:
    return RunSettings(paths=tuple(str(tmp_path / n) for n in names), mode="in-place")


def test_target_that_disappears_is_not_resurrected(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text(GOOD)
    real_print = runner._print

    def vanish_then_print(*args: object, **kwargs: object) -> None:
        real_print(*args, **kwargs)  # type: ignore[arg-type]
        (tmp_path / "b.yaml").unlink(missing_ok=True)

    monkeypatch.setattr(runner, "_print", vanish_then_print)
    assert runner.run(_settings(tmp_path, "a.yaml", "b.yaml")) == 2
    assert (tmp_path / "a.yaml").read_text() == CONVERTED
    assert not (tmp_path / "b.yaml").exists()


def test_disk_full_during_write_leaves_the_input(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "job.yaml").write_text(GOOD)

    def full_disk(handle: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic, "write_all", full_disk)
    assert runner.run(_settings(tmp_path, "job.yaml")) == 2
    assert (tmp_path / "job.yaml").read_text() == GOOD
    assert _leftovers(tmp_path) == []


def test_interrupt_during_in_place_write_is_atomic(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "job.yaml").write_text(GOOD)

    def interrupted(src: object, dst: object, **dir_fds: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)  # the rename of every atomic write
    with pytest.raises(KeyboardInterrupt):
        runner.run(_settings(tmp_path, "job.yaml"))
    assert (tmp_path / "job.yaml").read_text() == GOOD
    assert _leftovers(tmp_path) == []


def test_sigint_exits_130_without_traceback(tmp_path: Path) -> None:
    for index in range(300):
        (tmp_path / f"j{index:03d}.yaml").write_text(GOOD)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen([sys.executable, "-m", "migrator", "convert", "--in-place", "-j",
                             "1", "."], cwd=tmp_path, env=env, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stderr is not None
    first = proc.stderr.readline()  # the first file is done: interrupt mid-batch
    assert first.startswith("rewrote")
    proc.send_signal(2)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the batch finished before the signal arrived")
    assert proc.returncode == 130
    assert "Traceback" not in err
    for path in tmp_path.glob("*.yaml"):
        assert path.read_text() in (GOOD, CONVERTED)
    assert _leftovers(tmp_path) == []


def test_symlink_loops(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "good.yaml").write_text(GOOD)
    (tree / "loop").symlink_to(tree, target_is_directory=True)
    (tree / "a.yaml").symlink_to(tree / "b.yaml")
    (tree / "b.yaml").symlink_to(tree / "a.yaml")
    proc = _run("convert", "tree", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 2
    assert "a.yaml: error Y102" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert (tmp_path / "out" / "good.yaml").read_text() == CONVERTED
    assert not (tmp_path / "out" / "loop").exists()


def test_in_place_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    (tmp_path / "real.yaml").write_text(GOOD)
    (tmp_path / "link.yaml").symlink_to(tmp_path / "real.yaml")
    assert _run("convert", "--in-place", "link.yaml", cwd=tmp_path).returncode == 0
    assert (tmp_path / "link.yaml").is_symlink()
    assert (tmp_path / "real.yaml").read_text() == CONVERTED


def test_two_runs_at_once_on_the_same_tree(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    for index in range(60):
        shutil.copy(FIXTURES / "pytorchjob" / "minimal.in.yaml", tree / f"j{index:02d}.yaml")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "migrator", "convert", "--in-place", "-j", "1", "tree"]
    first = subprocess.Popen(command, cwd=tmp_path, env=env, stderr=subprocess.PIPE)
    second = subprocess.Popen(command, cwd=tmp_path, env=env, stderr=subprocess.PIPE)
    _, err1 = first.communicate(timeout=120)
    _, err2 = second.communicate(timeout=120)
    assert first.returncode == 0, err1
    assert second.returncode == 0, err2
    for path in tree.glob("*.yaml"):
        assert path.read_text() == CONVERTED
    assert _leftovers(tmp_path) == []
