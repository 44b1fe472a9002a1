"""Issue 12 items 2, 3, 10, 11 and 14: what reports and terminal lines do with hostile text,
with report folders that cannot be written, and with conversions that could not be written."""

from __future__ import annotations

import json
import os
import resource
import signal
from pathlib import Path
from urllib.parse import unquote

import pytest

from migrator.report import jsonreport
from tests.goldens import FIXTURES
from tests.reports.helpers import (
    FORMATS,
    Run,
    check_html,
    check_json,
    check_markdown,
    check_xml,
    cli,
    injected_commands,
    workflow_commands,
)
from tests.reports.hostile import write_tree

NAME = "x\n::error::pwned-name`</details><img src=x> ##[error]pwned-legacy"
KEY = "::add-mask::pwned-key|` ##[add-mask]pwned-legacy-key"
VALUE = "v\r::warning::pwned-value```\n  ::set-output name=a::pwned\n\x1b[31m\x07"
FILE = "::error::pwned-file\n::notice::pwned ``` <b>x | #1 100%"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write_tree(tmp_path / "in", NAME, KEY, VALUE, FILE)
    return tmp_path / "in"


def _reports(tmp_path: Path) -> list[str]:
    args: list[str] = []
    for name in FORMATS.values():
        args += ["--report", str(tmp_path / name)]
    return args


def _all_output(run: Run) -> str:
    return f"{run.stdout}\n{run.stderr}"


@pytest.mark.parametrize("command", [
    ("check",), ("check", "-v"), ("convert",), ("convert", "-o", "OUT"), ("diff",),
    ("validate",), ("convert", "--in-place", "--backup", ".bak"),
    ("check", "--report-format", "markdown"), ("check", "--report-format", "html"),
    ("check", "--report-format", "junit"), ("check", "--report-format", "sarif"),
    ("check", "--report-format", "json")])
def test_no_workflow_command_injection(tree: Path, tmp_path: Path,
                                       command: tuple[str, ...]) -> None:
    """12.2: under GITHUB_ACTIONS=true no line the tool prints becomes a workflow command."""
    args = [str(tmp_path / "out") if a == "OUT" else a for a in command]
    summary = tmp_path / "summary.md"
    run = cli(*args, tree, *_reports(tmp_path), github=True, summary=summary)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode in (0, 1), run.stderr
    assert injected_commands(_all_output(run)) == []
    if command[0] != "validate":  # validate finds no TrainJob here, so it has nothing to say
        assert workflow_commands(run.stdout + run.stderr), "the tool's own annotations missing"
    check_markdown(summary.read_text(encoding="utf-8"))


def test_source_header_and_file_names_are_escaped(tree: Path) -> None:
    """12.2: the ``# Source:`` header keeps a hostile file name on one comment line."""
    run = cli("convert", tree, github=True)
    headers = [line for line in run.stdout.splitlines() if line.startswith("# Source:")]
    assert len(headers) == 3, run.stdout
    assert injected_commands(run.stdout) == []
    assert not any(line.strip().startswith("::notice::pwned") for line in run.stdout.splitlines())


def test_terminal_lines_escape_control_characters(tree: Path) -> None:
    """Escape sequences and bells in names never reach a terminal raw (also outside CI)."""
    run = cli("check", "-v", tree)
    assert "\x1b[31m" not in run.stdout + run.stderr
    assert "\x07" not in run.stdout + run.stderr
    assert "Traceback" not in run.stderr


def test_markdown_escapes_by_context(tree: Path, tmp_path: Path) -> None:
    """12.3: backticks, </details>, <img>, \\r and ``` in names stay text in the Markdown."""
    run = cli("check", tree, "--report", tmp_path / "r.md")
    assert run.returncode == 1, run.stderr
    text = (tmp_path / "r.md").read_text(encoding="utf-8")
    outside = check_markdown(text)
    assert "<img" not in outside
    assert "<b>" not in outside


def test_reports_parse_with_hostile_text(tree: Path, tmp_path: Path) -> None:
    """12.10: lone surrogates (non-UTF-8 file names) and control characters in values."""
    run = cli("convert", tree, "-o", tmp_path / "out", *_reports(tmp_path))
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 1, run.stderr
    data = check_json((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    assert any("bad-" in d["file"] for d in data["documents"])
    check_json((tmp_path / "r.sarif").read_text(encoding="utf-8"))
    check_xml((tmp_path / "r.xml").read_text(encoding="utf-8"))
    check_html((tmp_path / "r.html").read_text(encoding="utf-8"))
    check_markdown((tmp_path / "r.md").read_text(encoding="utf-8"))


def _one_line_failure(run: Run) -> str:
    assert run.returncode == 2, run.stderr
    err = run.stderr
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if "report" in line and "error" in line]
    assert len(lines) == 1, err
    return lines[0]


def test_report_in_a_missing_folder_is_not_created(tmp_path: Path) -> None:
    """12.10 / 17: exit 2, one line, and the folder the user did not ask for is not made."""
    target = tmp_path / "nonexistent" / "dir" / "r.html"
    run = cli("check", FIXTURES / "pytorchjob" / "minimal.in.yaml", "--report", target)
    line = _one_line_failure(run)
    assert str(target) in line
    assert not (tmp_path / "nonexistent").exists()


@pytest.mark.parametrize("target", ["/proc/r.json", "/sys/r.sarif", "FILE/r.md"])
def test_unwritable_report_is_one_line_exit_2(tmp_path: Path, target: str) -> None:
    (tmp_path / "FILE").write_text("a file, not a folder")
    path = target.replace("FILE", str(tmp_path / "FILE"))
    run = cli("check", FIXTURES / "pytorchjob" / "minimal.in.yaml", "--report", path)
    _one_line_failure(run)


def _limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, 16 * 1024))


def test_failed_report_write_keeps_the_earlier_report(tmp_path: Path) -> None:
    """12.10: a write that fails half-way (file-size limit) leaves the earlier report whole
    and no temporary file behind."""
    import subprocess
    import sys

    from tests.goldens import ROOT

    folder = tmp_path / "reports"
    folder.mkdir()
    earlier = folder / "r.html"
    earlier.write_text("<!DOCTYPE html><p>the earlier report</p>\n")
    cases = [FIXTURES / "pytorchjob" / "full.in.yaml", FIXTURES / "tfjob" /
             "parameter-server.in.yaml", FIXTURES / "mpijob-v2beta1" / "pi.in.yaml"]
    proc = subprocess.run([sys.executable, "-m", "migrator", "check", *map(str, cases),
                           "--report", str(earlier)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT,
                          preexec_fn=_limit_file_size, timeout=300, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert earlier.read_text() == "<!DOCTYPE html><p>the earlier report</p>\n"
    assert sorted(p.name for p in folder.iterdir()) == ["r.html"]


def test_reports_are_replaced_atomically_and_keep_a_normal_mode(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    report.write_text("old")
    os.chmod(report, 0o644)
    run = cli("check", FIXTURES / "pytorchjob" / "minimal.in.yaml", "--report", report)
    assert run.returncode == 1
    assert json.loads(report.read_text())["schemaVersion"] == jsonreport.SCHEMA_VERSION
    assert report.stat().st_mode & 0o777 == 0o644
    fresh = tmp_path / "fresh.md"
    cli("check", FIXTURES / "pytorchjob" / "minimal.in.yaml", "--report", fresh)
    umask = os.umask(0)
    os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.md", "r.json"]


def test_write_failure_y106_is_in_every_report(tmp_path: Path) -> None:
    """12.11: a conversion that could not be written is not 'converted' in any report."""
    (tmp_path / "job.yaml").write_text((FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text())
    (tmp_path / "out" / "job.yaml").mkdir(parents=True)  # a folder where the output goes
    (tmp_path / "out" / "job.yaml" / "keep").write_text("x")
    run = cli("convert", "job.yaml", "-o", "out", *_reports(tmp_path), cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert "Y106" in run.stdout + run.stderr
    data = json.loads((tmp_path / "r.json").read_text())
    [document] = data["documents"]
    assert document["status"] == "failed"
    assert "Y106" in {f["code"] for f in document["findings"]}
    assert data["summary"]["documents"]["converted"] == 0
    sarif = json.loads((tmp_path / "r.sarif").read_text())
    assert "Y106" in {r["ruleId"] for r in sarif["runs"][0]["results"]}
    junit = check_xml((tmp_path / "r.xml").read_text())
    assert "Y106" in "".join(junit.itertext()) + "".join(
        e.get("message", "") + e.get("type", "") for e in junit.iter())
    assert "Y106" in (tmp_path / "r.md").read_text()
    assert "Y106" in (tmp_path / "r.html").read_text()


def test_sarif_uris_are_percent_encoded(tmp_path: Path) -> None:
    """12.14: ``my job #1 100%.yaml`` is a valid URI reference that decodes to the name."""
    folder = tmp_path / "in dir"
    folder.mkdir()
    name = "my job #1 100% ü.yaml"
    (folder / name).write_text((FIXTURES / "pytorchjob" / "full.in.yaml").read_text())
    run = cli("check", "in dir", "--report", "r.sarif", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    log = json.loads((tmp_path / "r.sarif").read_text())
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in log["runs"][0]["results"]}
    assert uris == {"in%20dir/my%20job%20%231%20100%25%20%C3%BC.yaml"}
    assert {unquote(u) for u in uris} == {f"in dir/{name}"}
    driver = log["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver
    for rule in driver["rules"]:
        assert f"docs/codes.md (#{rule['id'].lower()}-" in rule["help"]["text"], rule


def test_file_name_at_line_start(tmp_path: Path) -> None:
    """12.2: a file named like a workflow command, given relative, starts every line about it;
    outside Actions the line is printed as it is (the detector sees it), on Actions it is
    neutralised."""
    (tmp_path / "::error::pwned.yaml").write_text(
        (FIXTURES / "pytorchjob" / "full.in.yaml").read_text())
    for command in (("check", "-v"), ("convert", "-o", "out"), ("validate",)):
        plain = cli(*command, "::error::pwned.yaml", cwd=tmp_path)
        guarded = cli(*command, "::error::pwned.yaml", cwd=tmp_path, github=True)
        if command[0] != "validate":
            assert injected_commands(_all_output(plain)), command
        assert injected_commands(_all_output(guarded)) == [], command
        assert "Traceback" not in guarded.stderr
