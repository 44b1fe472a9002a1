"""A folder the walk enters but cannot list (no permission, removed during the run) is a Y102
finding on that folder, as an unreadable file is: exit 2 in every command, the rest of the
batch still processed and reported, every report format carrying it, never replayed from the
results cache. Folders the walk skips anyway (hidden, excluded, ignored) stay silent.

The in-process tests make ``os.scandir`` fail for one folder (they run as root too); the last
test locks a real folder with mode 000, under a prefix that makes permission bits apply."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.support import CONFIGMAP, JOB, converted
from tests.test_cli import run

LOCKED_LINE = "locked: error Y102 cannot list folder: Permission denied"
_SCANDIR = os.scandir


def _tree(tmp_path: Path) -> Path:
    """open/a.yaml (a legacy job), plain.yaml, and locked/b.yaml (a legacy job)."""
    root = tmp_path / "repo"
    (root / "open").mkdir(parents=True)
    (root / "locked").mkdir()
    (root / "open" / "a.yaml").write_text(JOB, encoding="utf-8")
    (root / "plain.yaml").write_text(CONFIGMAP, encoding="utf-8")
    (root / "locked" / "b.yaml").write_text(JOB, encoding="utf-8")
    return root


@pytest.fixture
def lock(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Folder names whose listing fails with EACCES (as mode 000 does for a user)."""
    names: set[str] = set()

    def scandir(path: str | os.PathLike[str] = ".") -> object:
        if os.path.basename(os.path.normpath(os.fspath(path))) in names:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return _SCANDIR(path)

    monkeypatch.setattr(os, "scandir", scandir)
    return names


def _said(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


def said_once(done: subprocess.CompletedProcess[str], line: str) -> bool:
    """Whether ``line`` is on stdout and the run says Y102 once in all."""
    return _said(done).count("Y102") == 1 and line in done.stdout


@pytest.mark.parametrize("command", [
    ("check", "."),
    ("convert", ".", "-o", "../out"),
    ("convert", ".", "--in-place"),
    ("validate", "."),
    ("diff", "."),
    ("convert", "."),
    ("check", "--jobs", "2", "--no-cache", "."),
])
def test_an_unlistable_folder_is_y102_and_exit_2(tmp_path: Path, lock: set[str],
                                                  command: tuple[str, ...]) -> None:
    root = _tree(tmp_path)
    lock.add("locked")
    done = run(*command, cwd=root)
    said = _said(done)
    assert "Traceback" not in said, said
    assert done.returncode == 2, said
    assert said.count(LOCKED_LINE) == 1, said
    assert "cannot read file" not in said
    if command[0] != "validate":  # (validate reports TrainJobs only) the rest was processed
        assert "open/a.yaml:1: PyTorchJob/minimal" in said, said
    # the folder counts as a file with one failed document
    assert re.search(r"^3 files, .*: .*\b1 (failed|need manual work|rejected)\b",
                     done.stderr, re.M), done.stderr
    if "-o" in command:
        assert (tmp_path / "out" / "open" / "a.yaml").read_text() == converted()
    if "--in-place" in command:
        assert (root / "open" / "a.yaml").read_text() == converted()
        assert (root / "locked" / "b.yaml").read_text() == JOB


def test_a_named_folder_that_cannot_be_listed(tmp_path: Path, lock: set[str]) -> None:
    root = _tree(tmp_path)
    lock.add("locked")
    done = run("check", "locked", cwd=root)
    assert done.returncode == 2, _said(done)
    assert LOCKED_LINE in done.stdout
    assert "1 file, 1 document" in done.stderr


def test_every_report_format_carries_it(tmp_path: Path, lock: set[str]) -> None:
    root = _tree(tmp_path)
    lock.add("locked")
    reports = [tmp_path / f"report.{suffix}" for suffix in ("json", "sarif", "md", "xml",
                                                            "html")]
    done = run("check", ".", *(f"--report={path}" for path in reports), cwd=root)
    assert done.returncode == 2, _said(done)
    built = json.loads(reports[0].read_text())
    failed = [d for d in built["documents"] if d["file"] == "./locked"]
    assert [(d["status"], [(f["code"], f["severity"], f["message"]) for f in d["findings"]])
            for d in failed] == [("failed", [("Y102", "error",
                                               "cannot list folder: Permission denied")])]
    assert built["summary"]["documents"]["failed"] == 1
    assert built["summary"]["codes"]["Y102"] == 1
    assert [d["file"] for d in built["documents"]] == ["./open/a.yaml", "./locked"]
    sarif = json.loads(reports[1].read_text())
    results = [(r["ruleId"], r["level"], r["message"]["text"],
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
               for r in sarif["runs"][0]["results"] if r["ruleId"] == "Y102"]
    assert results == [("Y102", "error", "cannot list folder: Permission denied", "locked")]
    for path in reports[2:]:
        text = path.read_text()
        assert "cannot list folder: Permission denied" in text, path
        assert "cannot read file" not in text, path


def test_github_annotation(tmp_path: Path, lock: set[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path)
    lock.add("locked")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    done = run("check", ".", cwd=root)
    assert done.returncode == 2, _said(done)
    assert "::error file=locked,title=Y102::cannot list folder: Permission denied%0A" in \
        done.stdout, done.stdout


def test_a_folder_removed_during_the_walk(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path)

    def scandir(path: str | os.PathLike[str] = ".") -> object:
        if os.path.basename(os.fspath(path)) == "locked":  # gone after its parent's listing
            (Path(path) / "b.yaml").unlink()
            os.rmdir(path)
        return _SCANDIR(path)

    monkeypatch.setattr(os, "scandir", scandir)
    done = run("check", ".", cwd=root)
    assert done.returncode == 2, _said(done)  # as a file that vanished before it was read
    assert "locked: error Y102 cannot list folder: No such file or directory" in done.stdout
    assert "open/a.yaml:1: PyTorchJob/minimal" in done.stdout


@pytest.mark.parametrize("args", [("--exclude", "locked/"), ()])
def test_folders_the_walk_skips_stay_silent(tmp_path: Path, lock: set[str],
                                            args: tuple[str, ...]) -> None:
    root = tmp_path / "repo"
    for name in (".hidden", "locked", "ignored", "kept"):
        (root / name).mkdir(parents=True)
        (root / name / "x.yaml").write_text(CONFIGMAP, encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("ignored/\n")
    lock.update({".hidden", "ignored", "link", "locked"})
    (root / "link").symlink_to(root / "kept")  # a folder link is never walked into
    done = run("check", ".", *args, cwd=root)
    assert (done.returncode, "Y102" in _said(done)) == (0 if args else 2, not args), _said(done)
    if not args:  # the same folder, not skipped, is reported: only skipped ones are silent
        assert said_once(done, LOCKED_LINE)


def test_changed_since_reports_only_a_folder_with_changes(tmp_path: Path,
                                                          lock: set[str]) -> None:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    root = _tree(tmp_path)
    (root / "quiet").mkdir()
    (root / "quiet" / "c.yaml").write_text(CONFIGMAP, encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(root)]
    for step in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "base"]):
        subprocess.run([*git, *step], check=True, capture_output=True)
    (root / "locked" / "b.yaml").write_text(JOB + "# changed\n", encoding="utf-8")
    lock.update({"locked", "quiet"})
    done = run("check", "--changed-since", "HEAD", ".", cwd=root)
    assert done.returncode == 2, _said(done)
    assert said_once(done, LOCKED_LINE), _said(done)  # quiet/ holds no change: not reported


def test_never_replayed_from_the_results_cache(tmp_path: Path, lock: set[str],
                                               cache_dir: Path) -> None:
    root = _tree(tmp_path)
    assert run("check", ".", cwd=root).returncode == 1  # recorded with locked/ listable
    lock.add("locked")
    for _ in range(2):  # the first run is not recorded as an empty folder the second replays
        done = run("check", ".", cwd=root)
        assert done.returncode == 2, _said(done)
        assert said_once(done, LOCKED_LINE), _said(done)
    lock.clear()
    done = run("check", ".", cwd=root)
    assert done.returncode == 1, _said(done)
    assert "locked/b.yaml:1: PyTorchJob/minimal" in done.stdout, done.stdout
    assert any(cache_dir.rglob("*.json"))  # (the cache was in use)


def _without_permission_override() -> tuple[str, ...] | None:
    """A command prefix under which permission bits apply (root ignores them)."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    prefix = (setpriv, "--bounding-set=-dac_override,-dac_read_search")
    probe = subprocess.run([*prefix, "true"], capture_output=True, check=False)
    return prefix if probe.returncode == 0 else None


def test_a_real_mode_000_folder(tmp_path: Path) -> None:
    prefix = _without_permission_override()
    if prefix is None:
        pytest.skip("running as root without setpriv: permission bits do not apply")
    root = _tree(tmp_path)
    (tmp_path / "cache").mkdir(mode=0o700)
    env = {"PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8",
           "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}

    def check() -> subprocess.CompletedProcess[str]:
        return subprocess.run([*prefix, sys.executable, "-m", "migrator", "check", "."],
                              cwd=root, env=env, capture_output=True, text=True, check=False,
                              timeout=120)

    (root / "locked").chmod(0)
    try:
        locked = [check(), check()]
        (root / "locked").chmod(0o755)
        opened = check()
        (root / "locked").chmod(0)
        again = check()
    finally:
        (root / "locked").chmod(0o755)
    for done in (*locked, again):
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode == 2, _said(done)
        assert said_once(done, LOCKED_LINE), _said(done)
    assert opened.returncode == 1, _said(opened)
    assert "locked/b.yaml:1: PyTorchJob/minimal" in opened.stdout
