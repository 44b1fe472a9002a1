"""Issue 30 (hostile repositories, round two), the write path: what changes while a run goes on.

Another user of a shared folder swaps an input for a link to a private file between the read
and the write; someone saves an edit while ``--in-place`` converts the file; a report name in
``-o`` is a planted link or FIFO; a backup suffix names another input; a file's ACL and
extended attributes. Each test fails on the code before the fix.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from migrator.batch import files, pipeline, writer
from migrator.batch.writer import Destination
from migrator.results import FileResult
from migrator.settings import ConvertOptions
from tests.security.support import JOB, converted, env, run, said, tree

PRIVATE = JOB.replace("name: minimal", "name: private-job")  # tempting: a legacy job too
OTHER = JOB.replace("name: minimal", "name: other")


def _shared(base: Path) -> tuple[Path, Path, Path]:
    """A shared folder with one job, and a private file outside it."""
    shared, outside = base / "shared", base / "home"
    shared.mkdir()
    outside.mkdir()
    (shared / "a.yaml").write_text(JOB)
    private = outside / "private.yaml"
    private.write_text(PRIVATE)
    return shared, outside, private


def _swap_to_link(path: Path, target: Path) -> None:
    link = path.with_name(".swap-link")
    link.symlink_to(target)
    os.replace(link, path)


def _during_conversion(monkeypatch: pytest.MonkeyPatch, act: Callable[[], object]) -> None:
    """Run ``act`` after the file was read, while it is converted (before the write)."""
    original = files.convert_or_audit

    def converting(*args: object, **kwargs: object) -> object:
        act()
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(files, "convert_or_audit", converting)


def _in_place(name: str, backup: str | None = None) -> FileResult:
    return files.process_file(name, os.path.basename(name), ConvertOptions(),
                              destination=Destination(backup=backup))


def test_in_place_never_writes_through_a_link_swapped_in_after_the_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared, _, private = _shared(tmp_path)
    target = shared / "a.yaml"
    _during_conversion(monkeypatch, lambda: _swap_to_link(target, private))
    result = _in_place(str(target))
    assert private.read_text() == PRIVATE, "the private file was written through the link"
    assert target.is_symlink()  # untouched
    assert os.readlink(target) == str(private)
    assert not result.written
    assert result.write_error is not None
    assert writer.coded(result.write_error)[0] == "Y120", result.write_error


@pytest.mark.parametrize("same_size_and_time", [False, True])
def test_an_edit_saved_during_the_conversion_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, same_size_and_time: bool) -> None:
    target = tmp_path / "a.yaml"
    target.write_text(JOB)
    before = os.stat(target)
    edited = JOB.replace("image: registry.example/train:1.0",
                         "image: registry.example/train:2.0")
    assert len(edited) == len(JOB)

    def save() -> None:
        with open(target, "w") as handle:  # as an editor that writes in place
            handle.write(edited if same_size_and_time else edited + "# note\n")
        if same_size_and_time:  # within one clock tick: only the bytes tell
            os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))

    _during_conversion(monkeypatch, save)
    result = _in_place(str(target))
    assert target.read_text().startswith(edited), "the edit was lost"
    assert result.write_error is not None
    assert not result.written
    assert writer.coded(result.write_error)[0] == "Y120"


def test_an_edit_saved_after_the_backup_leaves_no_backup(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.yaml"
    target.write_text(JOB)
    original = writer._write_backup

    def then_edit(*args: object, **kwargs: object) -> object:
        made = original(*args, **kwargs)  # type: ignore[arg-type]
        target.write_text(JOB + "# saved just now\n")
        return made

    monkeypatch.setattr(writer, "_write_backup", then_edit)
    result = _in_place(str(target), backup=".orig")
    assert target.read_text() == JOB + "# saved just now\n"
    assert result.write_error is not None
    assert writer.coded(result.write_error)[0] == "Y120"
    assert not (tmp_path / "a.yaml.orig").exists()  # the next run starts afresh


def test_an_edit_during_the_run_fails_it_with_y120_and_exit_2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from migrator.cli import main

    target = tmp_path / "a.yaml"
    target.write_text(JOB)
    _during_conversion(monkeypatch, lambda: target.write_text(JOB + "# saved\n"))
    monkeypatch.chdir(tmp_path)
    outcome = CliRunner().invoke(main, ["convert", "--in-place", "-j", "1", "a.yaml"])
    assert outcome.exit_code == 2, outcome.output
    assert "Y120" in outcome.output
    assert target.read_text() == JOB + "# saved\n"


def test_a_file_swapped_for_a_link_after_the_walk_is_not_read(tmp_path: Path) -> None:
    shared, _, private = _shared(tmp_path)
    private.write_text(PRIVATE + "# secret: hunter2\n")
    found = [(str(shared / "a.yaml"), "a.yaml")]  # the walk saw a regular file
    _swap_to_link(shared / "a.yaml", private)
    out = tmp_path / "out"
    results = list(pipeline.process_paths((str(shared),), ConvertOptions(), found=found,
                                          destination=Destination(output_dir=out)))
    assert results[0].unreadable is not None, "the private file was read through the link"
    assert "hunter2" not in repr(results[0])
    assert not out.exists() or not any(out.iterdir())
    # a link in the tree that leads inside it is still followed (the walk takes it)
    (shared / "b.yaml").write_text(JOB)
    (shared / "c.yaml").symlink_to("b.yaml")
    found = [(str(shared / "c.yaml"), "c.yaml")]
    results = list(pipeline.process_paths((str(shared),), ConvertOptions(), found=found,
                                          destination=Destination(output_dir=out)))
    assert results[0].unreadable is None
    assert results[0].written
    assert (out / "c.yaml").read_text() == converted()


def test_a_folder_swapped_for_a_link_is_neither_read_nor_rewritten(tmp_path: Path) -> None:
    shared, outside, _ = _shared(tmp_path)
    (shared / "sub").mkdir()
    (shared / "sub" / "a.yaml").write_text(JOB)
    (outside / "a.yaml").write_text(PRIVATE)  # the victim's folder holds a job of that name
    found = [(str(shared / "sub" / "a.yaml"), "sub/a.yaml")]  # the walk saw a real folder
    (shared / "sub").rename(shared / "gone")
    (shared / "sub").symlink_to(outside, target_is_directory=True)
    results = list(pipeline.process_paths((str(shared),), ConvertOptions(), found=found,
                                          destination=Destination()))
    assert (outside / "a.yaml").read_text() == PRIVATE, "rewritten through a folder link"
    assert not results[0].written
    assert results[0].unreadable is not None, "read through a folder link"
    assert "private-job" not in repr(results[0])


def test_a_link_named_on_the_command_line_still_leads_anywhere(tmp_path: Path) -> None:
    shared, _, private = _shared(tmp_path)
    (shared / "mine.yaml").symlink_to(private)
    proc = run(["convert", "--in-place", "shared/mine.yaml"], cwd=tmp_path)
    assert proc.returncode == 0, said(proc)
    assert (shared / "mine.yaml").is_symlink()
    assert private.read_text() == converted(PRIVATE)


# --- reports and baselines -------------------------------------------------------------------

@pytest.mark.parametrize("option", ["--report", "--write-baseline"])
def test_a_report_never_follows_a_link_planted_in_the_output_folder(
        tmp_path: Path, option: str) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "job.yaml").write_text(JOB)
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    (outside / "victim").write_text("precious\n")
    (out / "report.json").symlink_to(outside / "victim")
    (out / "dangling.json").symlink_to(outside / "created")
    for name in ("report.json", "dangling.json"):
        proc = run(["convert", "in", "-o", "out", option, f"out/{name}"], cwd=tmp_path)
        assert proc.returncode == 2, said(proc)
        assert "Y107" in said(proc), said(proc)
        assert "symbolic link" in said(proc), said(proc)
        assert "Traceback" not in said(proc)
        assert (out / name).is_symlink()
    assert tree(outside) == {"victim": b"precious\n"}


def test_a_fifo_at_a_report_path_is_refused_without_blocking(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "job.yaml").write_text(JOB)
    (tmp_path / "out").mkdir()
    os.mkfifo(tmp_path / "out" / "report.md")
    proc = run(["convert", "in", "-o", "out", "--report", "out/report.md"], cwd=tmp_path,
               timeout=60)
    assert proc.returncode == 2, said(proc)
    assert "Y107" in said(proc), said(proc)
    assert "FIFO" in said(proc), said(proc)


def test_a_baseline_to_standard_output_is_still_written(tmp_path: Path) -> None:
    """``/dev/stdout`` is a link to the pipe the shell gives: written, not refused."""
    (tmp_path / "job.yaml").write_text(JOB)
    command = f"{shlex.quote(sys.executable)} -m migrator check job.yaml -q " \
        "--write-baseline /dev/stdout | cat"
    proc = subprocess.run(["sh", "-c", command], cwd=tmp_path, capture_output=True,
                          text=True, env=env(), timeout=120, check=False)
    assert '"findings"' in proc.stdout, proc.stdout + proc.stderr


# --- backups ---------------------------------------------------------------------------------

def test_a_backup_never_overwrites_another_input(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(JOB)
    (tmp_path / "a.yaml.yml").write_text(OTHER)
    proc = run(["convert", "--in-place", "--backup", ".yml", "."], cwd=tmp_path)
    assert (tmp_path / "a.yaml.yml").read_text() == converted(OTHER), "that job is lost"
    assert (tmp_path / "a.yaml").read_text() == JOB  # refused: its backup name is taken
    assert proc.returncode == 2, said(proc)
    assert "Y121" in said(proc), said(proc)


def test_a_backup_left_by_an_interrupted_run_is_kept(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(JOB)
    (tmp_path / "a.yaml.orig").write_text(JOB)  # what a run killed after the backup left
    proc = run(["convert", "--in-place", "--backup", ".orig", "a.yaml"], cwd=tmp_path)
    assert proc.returncode == 0, said(proc)
    assert (tmp_path / "a.yaml").read_text() == converted()
    assert (tmp_path / "a.yaml.orig").read_text() == JOB


# --- extended attributes and ACLs ------------------------------------------------------------

def _acl(group_perms: int, named_group: tuple[int, int] | None) -> bytes:
    """A ``system.posix_acl_access`` value (version 2; entries tag, perm, id)."""
    import struct

    entries = [(0x01, 6, 0xFFFFFFFF), (0x04, group_perms, 0xFFFFFFFF)]  # user obj, group obj
    if named_group is not None:
        entries.append((0x08, named_group[1], named_group[0]))  # a named group
    entries += [(0x10, 6, 0xFFFFFFFF), (0x20, 0, 0xFFFFFFFF)]  # mask, other
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


@pytest.fixture
def xattr_file(tmp_path: Path) -> Path:
    target = tmp_path / "a.yaml"
    target.write_text(JOB)
    os.chmod(target, 0o640)
    try:
        os.setxattr(target, "user.origin", b"hand-written")
        os.setxattr(target, "system.posix_acl_access", _acl(0, (4242, 4)))
    except OSError as exc:
        pytest.skip(f"no extended attributes or ACLs here: {exc}")
    return target


def test_a_rewrite_keeps_the_acl_and_extended_attributes(xattr_file: Path) -> None:
    before = {k: os.getxattr(xattr_file, k) for k in os.listxattr(xattr_file)}
    mode = os.stat(xattr_file).st_mode
    proc = run(["convert", "--in-place", "--backup", ".orig", "a.yaml"], cwd=xattr_file.parent)
    assert proc.returncode == 0, said(proc)
    assert xattr_file.read_text() == converted()
    for path in (xattr_file, xattr_file.with_name("a.yaml.orig")):
        after = {k: os.getxattr(path, k) for k in os.listxattr(path)}
        assert after == before, path
        assert os.stat(path).st_mode == mode, path
    if shutil.which("getfacl"):
        shown = subprocess.run(["getfacl", "-cn", str(xattr_file)], capture_output=True,
                               text=True, check=False).stdout
        assert "group::---" in shown, shown
        assert "group:4242:r--" in shown, shown


# --- the concurrent swapper ------------------------------------------------------------------

def test_in_place_runs_against_a_concurrent_swapper(tmp_path: Path) -> None:
    """A thread flips ``a.yaml`` between a fresh legacy job and a link to a private file
    while in-place (and ``-o``) runs go on: the private file is never modified, never read
    into an output, and nothing is written outside the shared folder and the output tree.
    A few seconds here; ``TRAINJOB_RACE_SECONDS`` for longer."""
    shared, outside, private = _shared(tmp_path)
    private.write_text(PRIVATE + "# secret: hunter2\n")
    private_before = private.read_bytes(), os.stat(private).st_mtime_ns
    outside_before = tree(outside)
    out = tmp_path / "out"
    target = shared / "a.yaml"
    seconds = float(os.environ.get("TRAINJOB_RACE_SECONDS", "3"))
    stop = threading.Event()
    flips = [0]

    def swapper() -> None:
        while not stop.is_set():
            fresh = shared / ".swap-file"
            fresh.write_text(JOB)
            os.replace(fresh, target)
            _swap_to_link(target, private)
            flips[0] += 1

    converted()  # the converter imported: the seconds go to runs
    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    runs = written = refused = 0
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline or runs < 30:
            output = Destination(output_dir=out) if runs % 3 == 2 else Destination(
                backup=".orig" if runs % 3 == 1 else None)
            found = [(str(target), "a.yaml")]
            for result in pipeline.process_paths((str(shared),), ConvertOptions(),
                                                 found=found, destination=output):
                written += result.written
                refused += result.write_error is not None or result.unreadable is not None
                assert "hunter2" not in repr(result.source)
            runs += 1
            if runs % 3 == 1:  # the backup is kept: start the next backup run afresh
                with_backup = shared / "a.yaml.orig"
                if with_backup.exists() or with_backup.is_symlink():
                    with_backup.unlink()
    finally:
        stop.set()
        thread.join()
    assert (private.read_bytes(), os.stat(private).st_mtime_ns) == private_before
    assert tree(outside) == outside_before
    for name, content in tree(out).items() if out.exists() else ():
        assert "hunter2" not in str(content), name
        assert "private-job" not in str(content), name
    assert set(os.listdir(shared)) <= {"a.yaml", ".swap-file", ".swap-link", "a.yaml.orig"}
    print(f"{runs} runs, {written} written, {refused} refused or unread, {flips[0]} flips")
    assert flips[0] >= 3, flips
