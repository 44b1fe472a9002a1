"""Issue 17: terminal lines and hooks say what to do; results on stdout, the rest on stderr;
colour only where wanted (NO_COLOR / FORCE_COLOR), findings coloured by severity."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.goldens import FIXTURES
from tests.reports.helpers import cli

FULL = FIXTURES / "pytorchjob" / "full.in.yaml"
MINIMAL = FIXTURES / "pytorchjob" / "minimal.in.yaml"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _error_file(tmp_path: Path) -> Path:
    """A job that needs manual work (an error finding)."""
    path = tmp_path / "manual.yaml"
    path.write_text(MINIMAL.read_text().replace("name: minimal", "name: Not_A_Label"))
    return path


def test_check_results_go_to_stdout(tmp_path: Path) -> None:
    run = cli("check", MINIMAL, _error_file(tmp_path))
    assert run.returncode == 1
    assert "minimal.in.yaml" in run.stdout
    assert "manual.yaml" in run.stdout
    assert re.search(r"\d+ files?, \d+ documents?:", run.stderr), run.stderr
    assert "files, " not in run.stdout


def test_check_lines_say_what_fixes_the_file(tmp_path: Path) -> None:
    manual = _error_file(tmp_path)
    run = cli("check", MINIMAL, manual)
    convertible = next(line for line in run.stdout.splitlines() if "minimal.in.yaml" in line)
    assert "convert --in-place" in convertible
    needs_work = next(line for line in run.stdout.splitlines() if "manual.yaml" in line)
    assert "M101" in needs_work
    assert "explain M101" in needs_work
    assert "convert --in-place" not in needs_work


def test_check_summary_does_not_say_converted(tmp_path: Path) -> None:
    run = cli("check", MINIMAL)
    summary = run.stderr.strip().splitlines()[-1]
    assert " converted" not in summary, summary
    assert "would convert" in summary or "legacy" in summary, summary


def test_summary_line_counts_files_and_documents(tmp_path: Path) -> None:
    run = cli("convert", MINIMAL, FULL, "-o", tmp_path / "out")
    last = run.stderr.strip().splitlines()[-1]
    assert re.match(r"2 files, 2 documents: ", last), last


def test_fix_hook_prints_one_line_per_file(tmp_path: Path) -> None:
    target = tmp_path / "full.yaml"
    shutil.copy(FULL, target)
    run = cli("convert", "--in-place", target, env={"PRE_COMMIT": "1"})
    output = run.stdout + run.stderr
    lines = [line for line in output.splitlines() if "full.yaml" in line]
    assert len(lines) == 1, output
    shutil.copy(FULL, target)
    verbose = cli("convert", "--in-place", "-v", target, env={"PRE_COMMIT": "1"})
    output = verbose.stdout + verbose.stderr
    assert len([line for line in output.splitlines() if "full.yaml" in line]) > 1


def test_no_color_wins_and_force_color_colours_findings(tmp_path: Path) -> None:
    plain = cli("diff", MINIMAL, env={"NO_COLOR": "1", "FORCE_COLOR": "1"})
    assert not ANSI.search(plain.stdout + plain.stderr)
    forced = cli("diff", MINIMAL, env={"FORCE_COLOR": "1"})
    assert ANSI.search(forced.stdout)
    findings = cli("check", "-v", FULL, env={"FORCE_COLOR": "1"})
    coloured = [line for line in findings.stdout.splitlines()
                if ANSI.search(line) and " warning " in ANSI.sub("", line)]
    assert coloured, findings.stdout
    assert not ANSI.search(cli("check", "-v", FULL).stdout)  # not a terminal: no colour
