"""Repository-scale workflows: check, diff, pre-commit hooks, selection, parallel runs, CI."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.goldens import FIXTURES, ROOT
from tests.test_cli import run

LEGACY = FIXTURES / "pytorchjob" / "minimal.in.yaml"
CURRENT = FIXTURES / "pytorchjob" / "minimal.v2.2.out.yaml"
FAILING = FIXTURES / "tfjob" / "no-companion.in.yaml"
CLEAN = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n"


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "jobs").mkdir()
    shutil.copy(LEGACY, tmp_path / "jobs" / "legacy.yaml")
    (tmp_path / "jobs" / "clean.yaml").write_text(CLEAN)
    return tmp_path


def test_check_exit_codes_and_lines(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    proc = run("check", "jobs", cwd=tree)
    assert proc.returncode == 1
    assert "jobs/legacy.yaml:1: PyTorchJob/minimal: would convert to TrainJob/minimal" in \
        proc.stdout  # check's results go to stdout, the summary alone to stderr
    assert len(proc.stderr.splitlines()) == 1
    assert (tree / "jobs" / "legacy.yaml").read_text() == LEGACY.read_text()
    assert run("check", "jobs/clean.yaml", str(CURRENT), cwd=tree).returncode == 0
    assert run("check", "missing.yaml", cwd=tree).returncode == 2
    failing = run("check", str(FAILING), cwd=tree)
    assert failing.returncode == 1
    assert "needs manual work (K105) — see: trainjob-migrate explain K105" in failing.stdout


def test_check_is_terse_under_pre_commit(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    env = {**os.environ, "PRE_COMMIT": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "migrator", "check", str(FAILING), "jobs"],
                          cwd=tree, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()  # one line per document, each saying what to do
    # placed at the error, with its message (issue 31: pre-commit lines keep line:col)
    assert re.match(r".*no-companion\.in\.yaml:\d+:\d+: TFJob/tf-simple: needs manual work: "
                    r"error K105 .+ — see: trainjob-migrate explain K105$", lines[0]), lines[0]
    assert "convert --in-place" not in lines[0]
    assert lines[1].endswith("— fix: trainjob-migrate convert --in-place jobs/legacy.yaml")
    assert len(lines) == 2


def test_diff_and_convert_diff(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    proc = run("diff", "jobs", cwd=tree)
    assert proc.returncode == 1
    assert proc.stdout.startswith("--- a/jobs/legacy.yaml\n+++ b/jobs/legacy.yaml\n")
    assert "-kind: PyTorchJob\n" in proc.stdout
    assert "+kind: TrainJob\n" in proc.stdout
    assert "\033[" not in proc.stdout  # not a terminal: no colour
    coloured = run("convert", "--diff", "--color", "always", "jobs", cwd=tree)
    assert "\033[32m+kind: TrainJob" in coloured.stdout
    assert run("diff", "jobs/clean.yaml", cwd=tree).stdout == ""


def test_gitignore_include_exclude(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    (tree / ".gitignore").write_text("generated/\n*.skip.yaml\n")
    (tree / "generated").mkdir()
    shutil.copy(LEGACY, tree / "generated" / "ignored.yaml")
    shutil.copy(LEGACY, tree / "jobs" / "also.skip.yaml")
    (tree / "jobs" / "nested").mkdir()
    (tree / "jobs" / "nested" / ".gitignore").write_text("!keep.skip.yaml\n")
    shutil.copy(LEGACY, tree / "jobs" / "nested" / "keep.skip.yaml")
    shutil.copy(LEGACY, tree / "jobs" / "job.manifest")
    proc = run("check", ".", cwd=tree)
    assert "ignored.yaml" not in proc.stdout
    assert "also.skip.yaml" not in proc.stdout
    assert "jobs/nested/keep.skip.yaml" in proc.stdout
    assert "job.manifest" not in proc.stdout
    everything = run("check", ".", "--no-gitignore", cwd=tree)
    assert "ignored.yaml" in everything.stdout
    included = run("check", ".", "--include", "*.manifest", cwd=tree)
    assert "jobs/job.manifest" in included.stdout
    assert "legacy.yaml" not in included.stdout
    excluded = run("check", ".", "--exclude", "jobs/legacy.yaml", cwd=tree)
    assert "legacy.yaml" not in excluded.stdout
    named = run("check", "jobs/legacy.yaml", "--exclude", "jobs/*", cwd=tree)
    assert named.returncode == 0


def test_changed_since_limits_the_files(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=tree, check=True)
    subprocess.run([*git, "add", "."], cwd=tree, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=tree, check=True)
    shutil.copy(LEGACY, tree / "jobs" / "new.yaml")
    proc = run("check", ".", "--changed-since", "HEAD", cwd=tree)
    assert "jobs/new.yaml" in proc.stdout
    assert "jobs/legacy.yaml" not in proc.stdout
    bad = run("check", ".", "--changed-since", "no-such-ref", cwd=tree)
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr


def test_changed_since_asks_git_once_when_nothing_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """"Nothing changed" is an answer: the walks of a run (routing, processing) reuse it
    instead of asking git again (and possibly getting another answer)."""
    from migrator.batch import discovery

    tree = _tree(tmp_path)
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=tree, check=True)
    subprocess.run([*git, "add", "."], cwd=tree, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=tree, check=True)
    asked = []
    resolve = discovery._with_changes

    def counted(selection: Any) -> Any:
        asked.append(selection.changed_since)
        return resolve(selection)

    monkeypatch.setattr(discovery, "_with_changes", counted)
    proc = run("check", ".", "--changed-since", "HEAD", cwd=tree)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert asked == ["HEAD"]


def test_parallel_run_matches_serial(tmp_path: Path) -> None:
    corpus = tmp_path / "many"
    corpus.mkdir()
    for index in range(30):  # ordinary files first: workers start in the middle of the run
        (corpus / f"0-plain-{index:03d}.yaml").write_text(CLEAN)
    (corpus / "1-binary.yaml").write_bytes(b"kind: PyTorchJob\x00\x01")
    cases = sorted(FIXTURES.glob("*/*.in.yaml"))
    for index in range(80):
        source = cases[index % len(cases)]
        shutil.copy(source, corpus / f"2-{index:03d}-{source.parent.name}-{source.name}")
    serial = run("convert", "many", "-j", "1", "--report", "serial.json", cwd=tmp_path)
    parallel = run("convert", "many", "-j", "2", "--report", "parallel.json", cwd=tmp_path)
    assert serial.stdout == parallel.stdout
    assert serial.returncode == parallel.returncode == 2  # the binary file
    assert serial.stderr.splitlines()[:-1] == parallel.stderr.splitlines()[:-1]  # not timings
    for jobs in ("1", "2"):
        run("convert", "many", "-o", f"out{jobs}", "-j", jobs, cwd=tmp_path)
    written = sorted(p.relative_to(tmp_path / "out1") for p in (tmp_path / "out1").rglob("*"))
    assert written == sorted(p.relative_to(tmp_path / "out2")
                             for p in (tmp_path / "out2").rglob("*"))
    assert all((tmp_path / "out1" / name).read_bytes() == (tmp_path / "out2" / name).read_bytes()
               for name in written if (tmp_path / "out1" / name).is_file())

    def documents(name: str) -> object:
        return json.loads((tmp_path / name).read_text())["documents"]

    assert documents("serial.json") == documents("parallel.json")


def test_backup_and_write_failure(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    proc = run("convert", "--in-place", "--backup", ".orig", "jobs", cwd=tree)
    assert proc.returncode == 0, proc.stderr
    assert (tree / "jobs" / "legacy.yaml.orig").read_text() == LEGACY.read_text()
    assert "kind: TrainJob" in (tree / "jobs" / "legacy.yaml").read_text()
    assert run("convert", "--backup", ".orig", "jobs", cwd=tree).returncode == 2
    if os.geteuid() == 0:
        return  # root can write into read-only directories
    readonly = tmp_path / "ro"
    readonly.mkdir()
    shutil.copy(LEGACY, readonly / "job.yaml")
    readonly.chmod(0o555)
    try:
        failed = run("convert", "--in-place", "ro", cwd=tmp_path)
        assert failed.returncode == 2
        assert "Y106" in failed.stderr
        assert (readonly / "job.yaml").read_text() == LEGACY.read_text()
    finally:
        readonly.chmod(0o755)


def test_baseline_and_config_ignores(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    shutil.copy(FAILING, tree / "jobs" / "tf.yaml")
    first = run("check", "jobs", "--write-baseline", "baseline.json", cwd=tree)
    assert "wrote" in first.stderr
    data = json.loads((tree / "baseline.json").read_text())
    assert {"file": "jobs/tf.yaml", "code": "K105", "path": "kind"} in data["findings"]
    accepted = run("convert", "jobs", "-o", "out", "--baseline", "baseline.json", cwd=tree)
    assert accepted.returncode == 0, accepted.stderr
    assert "accepted findings suppressed" in accepted.stderr
    (tree / ".trainjob-migrate.yaml").write_text(
        "ignore:\n  - paths: [jobs/tf.yaml]\n    codes: [K105]\n")
    assert run("convert", "jobs", "-o", "out2", cwd=tree).returncode == 0
    (tree / ".trainjob-migrate.yaml").write_text("exclude: [jobs/tf.yaml]\n")
    assert "tf.yaml" not in run("check", "jobs", cwd=tree).stderr


def test_github_annotations_and_step_summary(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    shutil.copy(FAILING, tree / "jobs" / "tf.yaml")
    summary = tree / "summary.md"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GITHUB_ACTIONS": "true",
           "GITHUB_STEP_SUMMARY": str(summary)}
    proc = subprocess.run([sys.executable, "-m", "migrator", "check", "jobs"], cwd=tree,
                          env=env, capture_output=True, text=True, check=False)
    assert "::error file=jobs/tf.yaml,line=3,col=1,title=K105::" in proc.stdout
    text = summary.read_text()
    assert text.startswith("## trainjob-migrate")
    assert "| `jobs/tf.yaml` | 2 | TFJob/tf-simple | failed | C408, F531, K105, R210 |" in text


@pytest.mark.skipif(shutil.which("pre-commit") is None or shutil.which("git") is None,
                    reason="pre-commit and git are needed")
def test_pre_commit_hooks(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    untracked = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all",
                                ".pre-commit-hooks.yaml", "migrator", "mappings",
                                "pyproject.toml"], cwd=ROOT, capture_output=True, text=True,
                               check=False)
    if untracked.returncode != 0 or any(line.startswith("??")
                                        for line in untracked.stdout.splitlines()):
        pytest.skip("the hooks are installed from committed and modified files only; commit the "
                    "new files first")
    repo = _tree(tmp_path)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-home"))}
    env.pop("PYTHONPATH", None)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    # One snapshot of this checkout (committed and modified files, as `pre-commit try-repo`
    # takes them) at one revision: pre-commit installs the hooks' environment once for the
    # four runs below instead of once per run.
    snapshot = tmp_path_factory.mktemp("hooks-repo") / "repo"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(snapshot)],
                   check=True)
    changed = subprocess.run(["git", "diff", "--name-only", "HEAD"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    for name in changed:
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, snapshot / name)
        else:
            (snapshot / name).unlink(missing_ok=True)
    commit = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
              "--allow-empty", "-a", "-m", "snapshot"]
    subprocess.run(commit, cwd=snapshot, check=True)
    revision = subprocess.run(["git", "rev-parse", "HEAD"], cwd=snapshot, capture_output=True,
                              text=True, check=True).stdout.strip()
    config = tmp_path / "pre-commit-config.yaml"
    config.write_text(f"repos:\n- repo: {snapshot}\n  rev: {revision}\n  hooks:\n"
                      "  - id: trainjob-migrate\n  - id: trainjob-migrate-check\n")

    def hook(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["pre-commit", "run", "-c", str(config), name, "--all-files"],
                              cwd=repo, env=env, capture_output=True, text=True, timeout=600,
                              check=False)

    checked = hook("trainjob-migrate-check")
    assert checked.returncode == 1, checked.stdout
    assert "jobs/legacy.yaml:1: PyTorchJob/minimal: would convert" in checked.stdout
    assert "clean.yaml" not in checked.stdout.split("Using config")[-1].split("===")[-1] \
        .replace("2 files", "")
    assert (repo / "jobs" / "legacy.yaml").read_text() == LEGACY.read_text()
    fixed = hook("trainjob-migrate")
    assert fixed.returncode == 1
    assert "files were modified by this hook" in fixed.stdout
    assert (repo / "jobs" / "legacy.yaml").read_text() == CURRENT.read_text()
    assert (repo / "jobs" / "clean.yaml").read_text() == CLEAN
    assert hook("trainjob-migrate").returncode == 0
    assert hook("trainjob-migrate-check").returncode == 0


FAKE_HELM = """#!/bin/sh
# a stand-in for `helm template CHART`: the chart's template with values filled in
[ "$1" = template ] || exit 2
for chart; do :; done  # the last argument (the chart comes after "--")
sed -e 's/{{ .Release.Name }}/release-name/' -e 's/{{ .Values.workers }}/2/' \
  "$chart/templates/job.yaml"
"""
CHART_TEMPLATE = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {{ .Release.Name }}-train
spec:
  nprocPerNode: "1"
  pytorchReplicaSpecs:
    Worker:
      replicas: {{ .Values.workers }}
      template:
        spec:
          containers:
            - name: pytorch
              image: img:1
              command: [torchrun, t.py]
"""


def test_helm_charts_are_converted_or_rendered(tmp_path: Path) -> None:
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: demo\nversion: 0.1.0\n")
    (chart / "templates" / "job.yaml").write_text(CHART_TEMPLATE)
    checked = run("check", "chart", cwd=tmp_path)
    assert checked.returncode == 1
    assert ("chart/templates/job.yaml:1: PyTorchJob/{{ .Release.Name }}-train: would convert to "
            "TrainJob/{{ .Release.Name }}-train") in checked.stdout
    assert "Y113" in run("check", "chart", "-v", cwd=tmp_path).stdout
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "helm").write_text(FAKE_HELM)
    (bin_dir / "helm").chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{bin_dir}{os.pathsep}"
           f"{os.environ['PATH']}"}
    proc = subprocess.run([sys.executable, "-m", "migrator", "convert", "chart", "--helm", "-o",
                           "out"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert "chart/helm-template.yaml:1: PyTorchJob/release-name-train → TrainJob" in proc.stderr
    assert "kind: TrainJob" in (tmp_path / "out" / "chart" / "helm-template.yaml").read_text()
    assert (chart / "templates" / "job.yaml").read_text() == CHART_TEMPLATE


def test_size_cap_is_configurable(tmp_path: Path) -> None:
    shutil.copy(LEGACY, tmp_path / "job.yaml")
    proc = run("check", "job.yaml", "--max-file-size", "100", cwd=tmp_path)
    assert proc.returncode == 2
    assert "larger than the 100-byte cap" in proc.stdout
    assert run("check", "job.yaml", cwd=tmp_path).returncode == 1


_MAIN_PROCESS = os.getpid()


def _dying_batch(batch: list[tuple[str, str]], task: Any) -> Any:
    """In a worker, the batch holding file 027 kills the process (as the OOM killer would):
    once when TRAINJOB_TEST_DIE_ONCE names a marker file to leave, else every time (as a
    parser crash would)."""
    from migrator.batch import parallel

    if os.getpid() != _MAIN_PROCESS and any("027-" in name for name, _ in batch):
        marker = os.environ.get("TRAINJOB_TEST_DIE_ONCE")
        if not marker:
            os._exit(9)
        if not os.path.exists(marker):
            Path(marker).touch()
            os._exit(9)
    return parallel._REAL_PROCESS_BATCH(batch, task)  # type: ignore[attr-defined]


def test_a_worker_that_dies_does_not_lose_files(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A worker killed mid-run: its files are converted again (one by one, on a fresh worker)
    and the results equal a serial run's."""
    from migrator.batch import parallel, pipeline
    from migrator.settings import ConvertOptions

    monkeypatch.setenv("TRAINJOB_TEST_DIE_ONCE", str(tmp_path / "died"))
    parallel._worker_died.cache_clear()  # said once per process: maybe by an earlier test

    tree = tmp_path / "many"
    tree.mkdir()
    cases = sorted(FIXTURES.glob("*/*.in.yaml"))
    for index in range(60):
        source = cases[index % len(cases)]
        shutil.copy(source, tree / f"{index:03d}-{source.parent.name}-{source.name}")
    found = [(str(path), path.name) for path in sorted(tree.iterdir())]
    monkeypatch.setattr(parallel, "_REAL_PROCESS_BATCH", parallel._process_batch, raising=False)
    monkeypatch.setattr(parallel, "_process_batch", _dying_batch)
    options = ConvertOptions()
    in_parallel = list(pipeline.process_paths((str(tree),), options, jobs=2, found=found))
    serial = list(pipeline.process_paths((str(tree),), options, jobs=1, found=found))
    assert [f.name for f in in_parallel] == [f.name for f in serial]
    assert [f.result.text if f.result else None for f in in_parallel] == \
        [f.result.text if f.result else None for f in serial]
    assert "a worker process died" in capsys.readouterr().err


def test_a_file_that_kills_every_worker_is_reported_not_fatal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose conversion kills the worker every time (a crash in a parser): it is
    reported (Y105) and left alone; this process never converts it, every other file is
    converted as in a serial run."""
    from migrator.batch import parallel, pipeline
    from migrator.settings import ConvertOptions

    tree = tmp_path / "many"
    tree.mkdir()
    cases = sorted(FIXTURES.glob("*/*.in.yaml"))
    for index in range(40):
        source = cases[index % len(cases)]
        shutil.copy(source, tree / f"{index:03d}-{source.parent.name}-{source.name}")
    found = [(str(path), path.name) for path in sorted(tree.iterdir())]
    monkeypatch.delenv("TRAINJOB_TEST_DIE_ONCE", raising=False)
    monkeypatch.setattr(parallel, "_REAL_PROCESS_BATCH", parallel._process_batch, raising=False)
    monkeypatch.setattr(parallel, "_process_batch", _dying_batch)
    options = ConvertOptions()
    in_parallel = list(pipeline.process_paths((str(tree),), options, jobs=2, found=found))
    serial = list(pipeline.process_paths((str(tree),), options, jobs=1, found=found))
    assert [f.name for f in in_parallel] == [f.name for f in serial]
    for mine, theirs in zip(in_parallel, serial, strict=True):
        if "027-" in mine.name:
            assert [f.code for f in mine.findings] == ["Y105"]
            assert mine.result is not None
            assert not mine.result.changed
        else:
            assert mine.result is not None
            assert theirs.result is not None
            assert mine.result.text == theirs.result.text
