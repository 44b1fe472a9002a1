"""Issue 30 (hostile repositories, round two): every file the tool parses besides the documents
it converts (the config, ``--runtimes``, ``--crd``, a baseline) is read as inputs are (a
regular file, non-blocking, capped) and bounded before it is parsed or expanded (nesting,
merge keys, aliases): one line and exit 2, never a hang, a traceback or gigabytes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from migrator.check import crdschema, runtimefiles
from migrator.load import sources
from migrator.report.baseline import BaselineError, load_baseline
from tests.security.support import JOB, run, said
from tests.test_s12_validate_runtimes import RUNTIME

# 324 bytes that a safe loader keeps as shared lists: 9**9 values once expanded
ALIAS_BOMB = "".join(f"{n}: &{n} [{', '.join([prev] * 9)}]\n" for n, prev in
                     zip("abcdefghi", ['"x"', *("*" + c for c in "abcdefgh")], strict=True))
DEEP_YAML = "spec: " + "[" * 5000 + "]" * 5000 + "\n"
DEEP_JSON = '{"findings": ' + "[" * 100_000 + "]" * 100_000 + "}\n"


def _one_line_exit_2(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    output = said(proc)
    assert proc.returncode == 2, output
    assert "Traceback" not in output, output
    assert "RecursionError" not in output, output
    for word in words:
        assert word in output, output


def _repository(tmp_path: Path, config: str) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "job.yaml").write_text(JOB)
    (tmp_path / ".trainjob-migrate.yaml").write_text(config)
    return tmp_path


def test_an_alias_bomb_in_the_config_is_one_line_while_the_cache_is_on(tmp_path: Path) -> None:
    """(issue 30, 9) 324 bytes hung every run: the cache entry went through 9**9 values."""
    (tmp_path / "repo").mkdir()
    folder = _repository(tmp_path / "repo", ALIAS_BOMB)
    proc = run(["check", "."], cwd=folder, timeout=60,
               extra_env={"TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")})
    _one_line_exit_2(proc, "alias", ".trainjob-migrate.yaml")


def test_a_deeply_nested_config_is_one_line(tmp_path: Path) -> None:
    proc = run(["check", "."], cwd=_repository(tmp_path, DEEP_YAML), timeout=60)
    _one_line_exit_2(proc, "nests deeper", ".trainjob-migrate.yaml")


def test_a_deeply_nested_baseline_is_one_line(tmp_path: Path) -> None:
    """(issue 30, 19) the config may name the baseline; json's recursion was a traceback."""
    folder = _repository(tmp_path, "baseline: baseline.json\n")
    (folder / "baseline.json").write_text(DEEP_JSON)
    with pytest.raises(BaselineError, match="nests more than"):
        load_baseline(folder / "baseline.json")
    _one_line_exit_2(run(["check", "."], cwd=folder, timeout=60), "baseline")


def test_a_baseline_still_loads(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text(
        '{"version": 1, "findings": [\n  {"file": "a#b.yaml", "code": "Y101", "path": "x"}]}\n')
    assert load_baseline(tmp_path / "b.json") == {("a#b.yaml", "Y101", "x")}


@pytest.mark.parametrize("text", [DEEP_YAML, ALIAS_BOMB], ids=["deep", "aliases"])
def test_a_hostile_crd_file_is_one_line(tmp_path: Path, text: str) -> None:
    (tmp_path / "crd.yaml").write_text(text)
    (tmp_path / "job.yaml").write_text(JOB)
    crdschema.load.cache_clear()
    with pytest.raises(crdschema.CRDError):
        crdschema.load(str(tmp_path / "crd.yaml"))
    _one_line_exit_2(run(["check", "--crd", "crd.yaml", "job.yaml"], cwd=tmp_path, timeout=60),
                     "--crd crd.yaml")


@pytest.mark.parametrize("text", [DEEP_YAML, ALIAS_BOMB], ids=["deep", "aliases"])
def test_a_hostile_runtimes_file_is_one_line(tmp_path: Path, text: str) -> None:
    (tmp_path / "rt.yaml").write_text("kind: TrainingRuntime\n" + text)
    (tmp_path / "job.yaml").write_text(JOB)
    _one_line_exit_2(run(["check", "--runtimes", "rt.yaml", "job.yaml"], cwd=tmp_path,
                         timeout=60), "--runtimes rt.yaml")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("option", ["--crd", "--runtimes"])
def test_a_device_is_never_read_as_a_crd_or_runtimes(tmp_path: Path, option: str) -> None:
    """(issue 30, 14) ``--runtimes /dev/zero`` grew to 8 GB."""
    (tmp_path / "job.yaml").write_text(JOB)
    proc = run(["check", option, "/dev/zero", "job.yaml"], cwd=tmp_path, timeout=60,
               memory_limit=1 << 30)
    _one_line_exit_2(proc, "not a regular file")


def test_a_fifo_in_a_runtimes_folder_is_passed_over(tmp_path: Path) -> None:
    """(issue 30, 14) it hung the run."""
    (tmp_path / "runtimes").mkdir()
    os.mkfifo(tmp_path / "runtimes" / "fifo.yaml")
    (tmp_path / "runtimes" / "rt.yaml").write_text(RUNTIME)
    (tmp_path / "job.yaml").write_text(JOB)
    proc = run(["check", "--runtimes", "runtimes", "job.yaml"], cwd=tmp_path, timeout=60)
    assert proc.returncode == 1, said(proc)
    assert runtimefiles.from_files((str(tmp_path / "runtimes"),)).keys() == {
        ("TrainingRuntime", "a-legacy")}


def test_a_runtime_file_of_the_run_beyond_the_cap_is_not_read(tmp_path: Path) -> None:
    """(issue 30, 14) validate read the run's runtime files whole (400 MB: minutes)."""
    big = tmp_path / "big.yaml"
    big.write_text(RUNTIME + ("#" * 99 + "\n") * (sources.MAX_BYTES // 100 + 1))
    runtimefiles.from_files.cache_clear()
    assert runtimefiles.from_files((str(big),), local=True) == {}
    small = tmp_path / "small.yaml"
    small.write_text(RUNTIME)
    assert list(runtimefiles.from_files((str(small),), local=True)) == [
        ("TrainingRuntime", "a-legacy")]


REUSED_ANCHOR = JOB.replace("  name: minimal\n", "  name: minimal\n"
                            "  labels: {a: &x \"\u202eevil\"}\n"
                            "  annotations: {b: &x c, d: *x}\n")


def test_a_reused_anchor_prints_nothing_raw(tmp_path: Path) -> None:
    """(issue 30, 20) the YAML library's warning quoted the input raw (a right-to-left
    override reached the terminal)."""
    (tmp_path / "job.yaml").write_text(REUSED_ANCHOR)
    proc = run(["check", "job.yaml"], cwd=tmp_path, timeout=60)
    assert proc.returncode == 1, said(proc)
    assert "\u202e" not in said(proc)
    assert "anchor" not in said(proc)
    assert "job.yaml:1: PyTorchJob/minimal: would convert" in proc.stdout


@pytest.mark.parametrize("parse", ["load", "safe_documents"])
def test_a_reused_anchor_warns_nobody(parse: str) -> None:
    """(pytest turns every warning into an error: a warning that escaped is a failure here)"""
    from migrator.load import yamlio

    loaded = getattr(yamlio, parse)(REUSED_ANCHOR)
    root = loaded if parse == "load" else loaded[0]
    assert root["metadata"]["annotations"]["d"] == "c"
