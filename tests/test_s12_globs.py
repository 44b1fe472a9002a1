"""LOAD globs in bounded time (hostile-input attack 12): a run of ``*`` in a .gitignore or an
--exclude is one ``*`` (as git reads it), and a pattern with too many wildcards is refused
(a usage error on the command line and in the config; in a .gitignore the pattern is not
used and the file is reported, Y102), never matched for minutes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from migrator.batch import discovery
from migrator.load import globs
from tests.goldens import FIXTURES, ROOT

LEGACY = (FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text()


@pytest.mark.parametrize(("pattern", "normal", "refused"), [
    ("**********x", "*x", False),
    ("a***b/***/c", "a*b/**/c", False),
    ("!**/x", "!**/x", False),
    ("*.yaml", "*.yaml", False),
    ("**/charts/**/templates/*.yaml", "**/charts/**/templates/*.yaml", False),
    ("*-*-*.yaml", "*-*-*.yaml", False),
    (r"a\*\*\*\*b", r"a\*\*\*\*b", False),  # escaped: no wildcard
    ("[*][*][*][*]x", "[*][*][*][*]x", False),  # bracket expressions: no wildcard
    ("*a*a*a*b", "*a*a*a*b", True),  # four in one name
    ("*a*a*a*a*a*a*a*a*b", "*a*a*a*a*a*a*a*a*b", True),
    ("a/**/a/**/a/**/a/**/a/**/x", "a/**/a/**/a/**/a/**/a/**/x", True),
    ("**/**/**/**/**/x", "**/**/**/**/**/x", False),  # one ``**`` (pathspec merges them)
    ("**/build/**/*-*.*", "**/build/**/*-*.*", False),  # a leading ``**`` is not counted
    ("a/**/b/**/*-*.*", "a/**/b/**/*-*.*", True),
])
def test_normal_form_and_refusal(pattern: str, normal: str, refused: bool) -> None:
    assert globs.normal(pattern) == normal
    assert globs.too_complex(pattern) is refused


def test_a_run_of_stars_matches_as_one_star_and_compiles_to_one() -> None:
    spec = discovery._spec(("**********x",))
    assert "[^/]*[^/]*" not in spec.patterns[0].regex.pattern  # minutes per name before
    assert spec.match_file("a" * 42 + "x")
    assert not spec.match_file("a" * 42)
    assert spec.match_file("d/yx")


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRAINJOB_MIGRATE_NO_CACHE": "1"}
    return subprocess.run([sys.executable, "-m", "migrator", *args], capture_output=True,
                          text=True, cwd=root, env=env, timeout=120, check=False)


def _repo(tmp_path: Path, gitignore: str) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".gitignore").write_text(gitignore)
    (root / "d").mkdir()
    (root / "d" / ("a" * 60 + ".yaml")).write_text(LEGACY)
    (root / "d" / "build.yaml").write_text(LEGACY)
    return root


def test_a_gitignore_pattern_too_slow_to_match_is_not_used_and_reported(
        tmp_path: Path) -> None:
    root = _repo(tmp_path, "*a*a*a*a*a*a*a*a*b\nbuild.yaml\n")
    proc = _run(root, "check", ".", "-j", "1")
    assert proc.returncode == 2, proc.stdout + proc.stderr  # the .gitignore is reported
    assert ".gitignore: error Y102 pattern '*a*a*a*a*a*a*a*a*b' (line 1) not used" in \
        proc.stdout
    assert f"d/{'a' * 60}.yaml:1: PyTorchJob/minimal: would convert" in proc.stdout
    assert "build.yaml" not in proc.stdout  # its other patterns still apply


def test_a_gitignore_run_of_stars_applies_as_git_reads_it(tmp_path: Path) -> None:
    root = _repo(tmp_path, "**********d.yaml\n")  # as ``*d.yaml``: build.yaml is ignored
    proc = _run(root, "check", ".", "-j", "1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "build.yaml" not in proc.stdout
    assert "Y102" not in proc.stdout


@pytest.mark.parametrize("where", ["cli", "config"])
def test_a_glob_too_slow_to_match_is_a_usage_error(tmp_path: Path, where: str) -> None:
    root = _repo(tmp_path, "")
    pattern = "*a*a*a*a*a*a*a*a*b"
    if where == "config":
        (root / ".trainjob-migrate.yaml").write_text(f"exclude: ['{pattern}']\n")
        proc = _run(root, "check", ".")
    else:
        proc = _run(root, "check", ".", "--exclude", pattern)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"pattern '{pattern}': more than 4 wildcards" in proc.stderr
    assert "Traceback" not in proc.stderr
