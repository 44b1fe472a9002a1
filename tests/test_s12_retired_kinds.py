"""Kinds of retired Kubeflow operators (MXJob, ChainerJob; mappings/kinds.yaml ``retired``) are
reported as K110 and left byte-identical, wherever they are written: never passed over as
unknown objects (real-repository trial 12, P4)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from migrator.convert import markdown, shell
from migrator.convert.text import convert_text
from migrator.knowledge import catalog

ROOT = Path(__file__).resolve().parent.parent

MXJOB = """apiVersion: kubeflow.org/v1
kind: MXJob
metadata:
  name: mxnet-job
spec:
  jobMode: MXTrain
  mxReplicaSpecs:
    Scheduler:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
            - name: mxnet
              image: docker.io/kubeflow/mxnet-gpu:latest
"""
CHAINERJOB = """apiVersion: kubeflow.org/v1alpha1
kind: ChainerJob
metadata:
  name: example-job-mn
spec:
  backend: mpi
  master:
    template:
      spec:
        containers:
        - name: chainer
          image: everpeace/chainermn:1.3.0
"""


def _outcomes(documents: list) -> list[tuple[str, str | None, list[str]]]:  # type: ignore[type-arg]
    return [(d.status, d.source.get("kind"), [f.code for f in d.findings]) for d in documents]


@pytest.mark.parametrize("text", [MXJOB, CHAINERJOB], ids=["MXJob", "ChainerJob"])
def test_a_retired_kind_is_reported_and_left_as_it_is(text: str) -> None:
    result = convert_text(text)
    kind = text.split("kind: ", 1)[1].split("\n", 1)[0]
    assert _outcomes(result.documents) == [("skipped", kind, ["K110"])]
    assert result.documents[0].findings[0].severity.value == "error"
    assert result.text == text


def test_beside_a_job_that_converts_only_the_retired_one_is_kept() -> None:
    job = (ROOT / "fixtures" / "pytorchjob" / "minimal.in.yaml").read_text(encoding="utf-8")
    result = convert_text(MXJOB + "---\n" + job)
    assert [(status, kind) for status, kind, _ in _outcomes(result.documents)] == [
        ("skipped", "MXJob"), ("converted", "PyTorchJob")]
    assert result.text.startswith(MXJOB + "---\n")


def test_a_retired_kind_of_another_group_is_nobodys_business() -> None:
    """Only the Kubeflow groups (kinds.yaml ``candidateMarkers``) are looked at."""
    other = MXJOB.replace("kubeflow.org/v1", "example.com/v1")
    result = convert_text(other)
    assert result.documents == [] or all(not d.findings for d in result.documents)
    assert result.text == other


def test_in_markdown_fences_and_heredocs() -> None:
    page = f"# MXNet\n\n```yaml\n{MXJOB}```\n\nAgain:\n\n```\n{MXJOB}```\n"
    result = markdown.convert(page)
    assert _outcomes(result.documents) == [("skipped", "MXJob", ["K110"])] * 2
    assert [d.line for d in result.documents] == [4, 24]
    assert result.text == page
    script = f"#!/bin/sh\nkubectl apply -f - <<EOF\n{MXJOB}EOF\n"
    in_shell = shell.convert(script)
    assert _outcomes(in_shell.documents) == [("skipped", "MXJob", ["K110"])]
    assert in_shell.text == script


def _cli(tmp_path: Path, *args: str, mappings: Path | None = None,
         cache: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("TRAINJOB_MIGRATE_MAPPINGS", None)
    if mappings is not None:
        env["TRAINJOB_MIGRATE_MAPPINGS"] = str(mappings)
    # with the cache: a file written just now is recorded too (no 2 s "racily clean" wait)
    run = ("import sys; import migrator.batch.resultcache as r; r.RACY_SECONDS = -3600; "
           "from migrator.cli import main; sys.argv[0] = 'trainjob-migrate'; main()")
    command = [sys.executable, "-c", run, *args] if cache else \
        [sys.executable, "-m", "migrator", *args, *(["--no-cache"] * (args[0] != "explain"))]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120, check=False)


def test_check_fails_and_convert_keeps_the_file(tmp_path: Path) -> None:
    (tmp_path / "mxjob.yaml").write_text(MXJOB, encoding="utf-8")
    (tmp_path / "page.md").write_text(f"```yaml\n{MXJOB}```\n", encoding="utf-8")
    checked = _cli(tmp_path, "check", "mxjob.yaml", "page.md")
    assert checked.returncode == 1, checked.stderr
    assert "mxjob.yaml:1: error K110 MXJob (kubeflow.org/v1) is a kind of a retired " \
        "Kubeflow operator" in checked.stdout
    assert "page.md:2: error K110" in checked.stdout
    assert "2 files, 2 documents: 0 would convert, 0 unchanged, 2 skipped" in checked.stderr
    converted = _cli(tmp_path, "convert", "mxjob.yaml")
    assert converted.returncode == 1
    assert converted.stdout == MXJOB
    explained = _cli(tmp_path, "explain", "K110")
    assert explained.returncode == 0
    assert "K110 retired-training-kind (error)" in explained.stdout


def _mappings_copy(tmp_path: Path) -> Path:
    root = tmp_path / "mappings"
    shutil.copytree(catalog.mappings_dir(), root)
    return root


def _edit_kinds(mappings: Path, change: object) -> None:
    yaml = YAML()
    path = mappings / "kinds.yaml"
    data = yaml.load(path.read_text(encoding="utf-8"))
    change(data)  # type: ignore[operator]
    with path.open("w", encoding="utf-8") as out:
        yaml.dump(data, out)


def test_a_retired_kind_that_is_also_a_training_kind_fails_closed(tmp_path: Path) -> None:
    mappings = _mappings_copy(tmp_path)
    _edit_kinds(mappings, lambda data: data["trainingKinds"].append("MXJob"))
    (tmp_path / "mxjob.yaml").write_text(MXJOB, encoding="utf-8")
    proc = _cli(tmp_path, "check", "mxjob.yaml", mappings=mappings)
    assert proc.returncode == 2
    assert "the retired kinds ['MXJob'] are also in trainingKinds" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_results_cache_is_keyed_on_the_kinds_file(tmp_path: Path) -> None:
    """A cached "nothing here" from mappings that did not know the kind is not reused once
    kinds.yaml lists it: the cache key stamps the mappings files."""
    mappings = _mappings_copy(tmp_path)
    kinds = (mappings / "kinds.yaml").read_text(encoding="utf-8")
    _edit_kinds(mappings, lambda data: data["retired"].remove("MXJob"))
    jobs = tmp_path / "jobs"
    jobs.mkdir()
    (jobs / "mxjob.yaml").write_text(MXJOB, encoding="utf-8")
    before = _cli(tmp_path, "check", "jobs", mappings=mappings, cache=True)
    assert before.returncode == 0, before.stderr
    assert "1 file, 0 documents" in before.stderr
    entries = list((tmp_path / "cache").glob("results-*.json"))
    assert len(entries) == 1
    assert "mxjob.yaml" in entries[0].read_text(encoding="utf-8")
    again = _cli(tmp_path, "check", "jobs", mappings=mappings, cache=True)
    assert (again.returncode, list((tmp_path / "cache").glob("results-*.json"))) == (0, entries)
    (mappings / "kinds.yaml").write_text(kinds, encoding="utf-8")
    after = _cli(tmp_path, "check", "jobs", mappings=mappings, cache=True)
    assert after.returncode == 1, after.stderr
    assert "error K110" in after.stdout
    assert len(list((tmp_path / "cache").glob("results-*.json"))) == 2  # another key
