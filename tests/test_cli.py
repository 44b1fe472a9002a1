"""The command line as a user runs it: exit codes, output, files on disk (in-process with
click's CliRunner; ``run_process`` for what only a real process shows)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import jsonschema
import pytest

from tests.goldens import FIXTURES, ROOT

PYTORCH = FIXTURES / "pytorchjob"
REPORT_SCHEMA = ROOT / "schemas" / "report.schema.json"


def run(*args: str, stdin: str | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI in this process (click's CliRunner), as a user would see it: exit code, stdout,
    stderr, and a traceback on stderr if something escaped (as the interpreter would print)."""
    from click.testing import CliRunner

    from migrator.cli import main

    previous = Path.cwd()
    environment = dict(os.environ)  # `--no-cache` sets TRAINJOB_MIGRATE_NO_CACHE for workers:
    os.chdir(cwd or ROOT)  # not for the tests that run after this one in the process
    try:
        result = CliRunner().invoke(main, list(args), input=stdin, prog_name="trainjob-migrate",
                                    catch_exceptions=True)
    finally:
        os.chdir(previous)
        if os.environ != environment:
            os.environ.clear()
            os.environ.update(environment)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "Traceback (most recent call last):\n" + "".join(
            traceback.format_exception(result.exception))
    return subprocess.CompletedProcess(["trainjob-migrate", *args], result.exit_code,
                                       result.stdout, stderr)


def run_process(*args: str, stdin: str | None = None,
                cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI as a real process (``python -m migrator``), for what only a process shows."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "migrator", *args], input=stdin, text=True,
                          capture_output=True, cwd=cwd or ROOT, env=env, timeout=120, check=False)


def test_version_and_help() -> None:
    from migrator.version import __version__

    assert __version__ in run_process("--version").stdout
    assert "convert" in run_process("--help").stdout


@pytest.mark.parametrize("args", [("check", "x.yaml"), ("convert", "x.yaml"), ("explain", "F501"),
                                  ("rules",)])
def test_a_missing_mappings_folder_is_one_line_not_a_traceback(tmp_path: Path,
                                                               args: tuple[str, ...]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "TRAINJOB_MIGRATE_MAPPINGS": str(tmp_path / "missing")}
    proc = subprocess.run([sys.executable, "-m", "migrator", *args], text=True,
                          capture_output=True, cwd=tmp_path, env=env, timeout=120, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"TRAINJOB_MIGRATE_MAPPINGS={tmp_path / 'missing'} is not a folder" in proc.stderr


def test_convert_file_to_stdout() -> None:
    proc = run("convert", str(PYTORCH / "minimal.in.yaml"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (PYTORCH / "minimal.v2.2.out.yaml").read_text()
    assert "PyTorchJob/minimal → TrainJob/minimal" in proc.stderr


def test_convert_stdin() -> None:
    proc = run("convert", "-", stdin=(PYTORCH / "minimal.in.yaml").read_text())
    assert proc.returncode == 0
    assert proc.stdout == (PYTORCH / "minimal.v2.2.out.yaml").read_text()


def test_target_23_and_runtime_options() -> None:
    proc = run("convert", str(PYTORCH / "minimal.in.yaml"), "--target", "2.3", "--runtime",
               "torch-cuda-251", "--runtime-kind", "TrainingRuntime")
    assert proc.returncode == 0
    assert "name: torch-cuda-251\n    kind: TrainingRuntime" in proc.stdout


def test_error_finding_exits_1_and_keeps_document() -> None:
    source = (PYTORCH / "elastic-scaling.in.yaml").read_text()
    proc = run("convert", "-", stdin=source)
    assert proc.returncode == 1
    assert proc.stdout == source
    assert "error F501" in proc.stderr
    lossy = run("convert", "-", "--allow-lossy", stdin=source)
    assert "kind: TrainJob" in lossy.stdout
    assert lossy.returncode == 1


def test_fail_on_warning() -> None:
    path = str(PYTORCH / "master-worker.in.yaml")
    assert run("convert", path).returncode == 0
    assert run("convert", path, "--fail-on", "warning").returncode == 1
    assert run("convert", path, "--fail-on", "never").returncode == 0


def test_output_dir_mirrors_tree(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(PYTORCH, src / "jobs")
    out = tmp_path / "out"
    proc = run("convert", str(src), "-o", str(out))
    assert proc.returncode == 1  # some fixtures carry error findings
    converted = out / "jobs" / "minimal.in.yaml"
    assert converted.read_text() == (PYTORCH / "minimal.v2.2.out.yaml").read_text()
    assert not (out / "jobs" / "invalid.in.yaml").exists()


def test_in_place_rewrites_only_successful_files(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text((PYTORCH / "minimal.in.yaml").read_text())
    good.chmod(0o640)
    bad_text = (PYTORCH / "minimal.in.yaml").read_text() + "---\n" + \
        (PYTORCH / "elastic-scaling.in.yaml").read_text()
    bad.write_text(bad_text)
    proc = run("convert", str(tmp_path), "--in-place")
    assert proc.returncode == 1
    assert good.read_text() == (PYTORCH / "minimal.v2.2.out.yaml").read_text()
    assert oct(good.stat().st_mode & 0o777) == oct(0o640)
    assert bad.read_text() == bad_text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml", "good.yaml"]
    again = run("convert", str(tmp_path), "--in-place")
    assert good.read_text() == (PYTORCH / "minimal.v2.2.out.yaml").read_text()
    assert "rewrote" not in again.stderr


def test_in_place_keeps_crlf(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_bytes((PYTORCH / "minimal.in.yaml").read_bytes().replace(b"\n", b"\r\n"))
    assert run("convert", str(path), "--in-place").returncode == 0
    data = path.read_bytes()
    assert b"TrainJob" in data
    assert data.count(b"\r\n") == data.count(b"\n")


def test_json_report_matches_schema(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    proc = run("convert", str(PYTORCH), "--report", str(report), "-o", str(tmp_path / "o"))
    assert proc.returncode == 1
    data = json.loads(report.read_text())
    jsonschema.validate(data, json.loads(REPORT_SCHEMA.read_text()))
    assert data["schemaVersion"] == 2
    assert data["target"] == "2.2"
    full = next(d for d in data["documents"] if d["file"].endswith("full.in.yaml"))
    assert full["status"] == "converted"
    assert {"from": "spec.pytorchReplicaSpecs.Worker.template.spec.containers[name=pytorch].image",
            "to": "spec.trainer.image", "value": "registry.example/bert:1.2"} in full["mappings"]
    # a document fails exactly when it has an error finding (no --allow-lossy), and the
    # summary counts what the documents say
    failed = [d for d in data["documents"] if d["status"] == "failed"]
    assert failed == [d for d in data["documents"]
                      if any(f["severity"] == "error" for f in d["findings"])]
    assert any(d["file"].endswith("invalid.in.yaml") for d in failed)
    assert data["summary"]["documents"]["failed"] == len(failed)


def test_unreadable_input_exits_2_without_traceback(tmp_path: Path) -> None:
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("kind: PyTorchJob\nname: caf\xe9\n".encode("latin-1"))
    good = tmp_path / "z.yaml"
    good.write_text((PYTORCH / "minimal.in.yaml").read_text())
    proc = run("convert", str(latin), str(tmp_path / "missing.yaml"), str(good), "-o",
               str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "latin.yaml: error Y102" in proc.stderr
    assert "missing.yaml: error Y102" in proc.stderr
    assert (tmp_path / "out").exists()


def test_invalid_yaml_is_reported_with_line() -> None:
    proc = run("convert", "-", stdin="apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nspec: [\n")
    assert proc.returncode == 1
    assert "error Y101" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("args", [["convert"], ["convert", "x.yaml", "--target", "9.9"],
                                  ["convert", "-", "--in-place"],
                                  ["convert", "x", "-o", "d", "--in-place"],
                                  ["convert", "x", "--report", "r.txt"], ["explain", "NOPE"]])
def test_usage_errors_exit_2(args: list[str]) -> None:
    proc = run(*args, stdin="")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_explain_and_rules() -> None:
    from migrator.knowledge.catalog import load

    proc = run("explain", "F501")
    assert proc.returncode == 0
    assert "Fix:" in proc.stdout
    assert run("explain", "elastic-policy").stdout == proc.stdout
    listed = run("rules").stdout
    for code in load().codes:
        assert code in listed


def test_nothing_to_do_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    proc = run("convert", str(path), "--in-place")
    assert proc.returncode == 0
    assert path.read_text() == "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"


@pytest.mark.parametrize("arguments", [["convert", "cm.yaml", "-q"],
                                       ["check", "tree", "-j", "2"],
                                       ["convert", "tree", "-o", "out", "-j", "2"]])
def test_no_heavy_imports_for_files_without_kubeflow_kinds(tmp_path: Path,
                                                           arguments: list[str]) -> None:
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
    (tmp_path / "cm.yaml").write_text(manifest)
    (tmp_path / "tree").mkdir()
    for index in range(40):  # enough files for a parallel run
        (tmp_path / "tree" / f"cm{index}.yaml").write_text(manifest)
    code = ("import sys\nfrom migrator.cli import run_main\n"
            f"try:\n    run_main({arguments!r})\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('ruamel.yaml', 'pydantic', 'jsonschema', 'deepdiff')"
            " if m in sys.modules]\nprint(heavy)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          check=False)
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stderr
