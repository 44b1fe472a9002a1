"""Issue 30 items 7 and 13: .gitignore files are read as git reads them, in bounded time.

Every line git accepts is accepted, with git's meaning (``!``, ``\\``, ``a\\``, ``[z-a]`` made
every walk a traceback); a .gitignore that is a link is not read (git does not follow it);
the number of patterns a walk reads is capped (Y102 naming the file), and a name no pattern
matches is told so without asking each pattern.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from migrator.batch.discovery import MAX_IGNORE_PATTERNS, Selection, Walk
from tests.security.support import JOB, run, said

GIT = shutil.which("git")

LINES = ["!", "\\", "a\\", "[z-a]", "[z-a]x", "[!z-a]x", "[", "x[", "[]]", "[!]]", "[a-]",
         "[[:alpha:]]x", "[[:nope:]]", "[[:x]", "\\!x", "a\\ ", "b  ", "[]-[]", "[[-]]",
         "[!/]y", "*[!a]", "\\#x", "[a-\\]]", "[\\]]", "[-a]", "!b", "[^a]z"]
NAMES = ["a", "b", "x", "ax", "1x", "zx", "!x", "a ", "]", "]x", "a\\", "-", "[", "z", "^",
         "xa", "#x", "1", "y", "\\", "ab", "[x", "bz", "az", "ay", "-x", "b.yaml"]


def _names(folder: Path) -> set[str]:
    return {os.path.relpath(path, folder) for path, _ in Walk((str(folder),),
                                                                 Selection(include=("*",)))}


@pytest.mark.parametrize("line", LINES)
def test_a_gitignore_line_git_accepts_is_read_as_git_reads_it(tmp_path: Path,
                                                               line: str) -> None:
    folder = tmp_path / "tree"
    folder.mkdir()
    for name in NAMES:
        (folder / name).write_text("x")
    (folder / ".gitignore").write_text(line + "\n")
    walked = _names(folder)  # (a traceback before)
    if GIT is None:
        return
    subprocess.run([GIT, "init", "-q"], cwd=folder, check=True, capture_output=True)
    proc = subprocess.run([GIT, "check-ignore", "--no-index", "-z", "--stdin"], cwd=folder,
                          input="\0".join(NAMES) + "\0", capture_output=True, text=True,
                          check=False)
    ignored = {name for name in proc.stdout.split("\0") if name}
    assert sorted(set(NAMES) - walked) == sorted(ignored)


def test_a_gitignore_line_does_not_stop_the_run(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("!\n\\\na\\\n[z-a]\n")
    (tmp_path / "job.yaml").write_text(JOB)
    proc = run(["check", "--no-cache", "."], cwd=tmp_path)
    assert "Traceback" not in said(proc), said(proc)
    assert proc.returncode == 1, said(proc)
    assert "job.yaml:" in said(proc)


def test_a_gitignore_that_is_a_link_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("job.yaml\nSECRET-LINE-[z-a]\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "job.yaml").write_text(JOB)
    os.symlink(outside, tree / ".gitignore")
    proc = run(["check", "--no-cache", "."], cwd=tree)
    assert "SECRET-LINE" not in said(proc)
    assert "Traceback" not in said(proc), said(proc)
    assert "job.yaml:" in said(proc), "the linked .gitignore was read"
    assert proc.returncode == 1, said(proc)


def test_the_patterns_a_walk_reads_are_capped(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "job.yaml").write_text(JOB)
    (tree / "sub" / "ignored.yaml").write_text(JOB.replace("minimal", "ignored"))
    (tree / ".gitignore").write_text("".join(f"p{i}\n" for i in range(MAX_IGNORE_PATTERNS)))
    (tree / "sub" / ".gitignore").write_text("ignored.yaml\n")  # one more: past the cap
    proc = run(["check", "--no-cache", "."], cwd=tree)
    out = said(proc)
    assert "Traceback" not in out, out
    assert (f"sub{os.sep}.gitignore: error Y102 its 1 patterns not used: a walk reads at most "
            f"{MAX_IGNORE_PATTERNS} .gitignore patterns") in out, out
    assert "ignored.yaml:" in out, out  # walked, as the finding says
    assert proc.returncode == 2, out


def test_a_name_no_pattern_matches_asks_no_pattern(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import pathspec.pattern

    (tmp_path / ".gitignore").write_text("".join(f"build-{i}/\n*.log{i}\n/tmp{i}\n!keep{i}\n"
                                                 for i in range(500)))
    for index in range(50):
        (tmp_path / f"m{index}.yaml").write_text("x")
    calls = []
    original = pathspec.pattern.RegexPattern.match_file

    def counted(self: object, file: str) -> object:
        calls.append(file)
        return original(self, file)

    monkeypatch.setattr(pathspec.pattern.RegexPattern, "match_file", counted)
    assert len(list(Walk((str(tmp_path),)))) == 50
    assert calls == []


def test_a_gitignore_past_the_cap_is_not_read_line_by_line(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from migrator.load import globs

    (tmp_path / ".gitignore").write_text("x[a-z]*y\n" * 200_000)  # (1.8 MB: read up to 1 MiB)
    (tmp_path / "job.yaml").write_text(JOB)
    calls = []
    original = globs.git_pattern

    def counted(line: str) -> str | None:
        calls.append(line)
        return original(line)

    monkeypatch.setattr(globs, "git_pattern", counted)
    unlisted: dict[str, object] = {}
    walk = Walk((str(tmp_path),), unlisted=unlisted)  # type: ignore[arg-type]
    assert [os.path.basename(path) for path, _ in walk] == ["job.yaml"]
    assert calls == []
    assert list(unlisted) == [str(tmp_path / ".gitignore")]
