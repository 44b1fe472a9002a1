"""BATCH output tree (``convert -o``): each folder among several paths keeps its place, two
inputs never share an output path silently, and the output folder exists from the start
(real-repository trial 12, P2 and P7)."""

from __future__ import annotations

import json
from pathlib import Path

from migrator.batch import writer
from tests.test_cli import run, run_process

JOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: {name}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: gcr.io/kubeflow-ci/pytorch-dist-mnist_test:1.0
    Worker:
      replicas: {workers}
      template:
        spec:
          containers:
          - name: pytorch
            image: gcr.io/kubeflow-ci/pytorch-dist-mnist_test:1.0
"""


def _job(path: Path, name: str, workers: int = 3) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(JOB.format(name=name, workers=workers), encoding="utf-8")


def _name(path: Path) -> str:
    """The metadata.name of the (converted) job in ``path``."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("  name: "):
            return line.split(": ", 1)[1]
    raise AssertionError(f"no name in {path}")


def test_two_folders_with_the_same_file_keep_both_outputs(tmp_path: Path) -> None:
    _job(tmp_path / "a" / "job.yaml", "job-a")
    _job(tmp_path / "b" / "job.yaml", "job-b", workers=7)
    _job(tmp_path / "b" / "sub" / "deep.yaml", "deep")
    proc = run("convert", "a", "b", "-j", "1", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out"
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*.yaml")) == \
        ["a/job.yaml", "b/job.yaml", "b/sub/deep.yaml"]
    assert _name(out / "a" / "job.yaml") == "job-a"
    assert _name(out / "b" / "job.yaml") == "job-b"
    assert "numNodes: 8" in (out / "b" / "job.yaml").read_text(encoding="utf-8")


def test_a_folder_and_a_named_file_keep_their_places(tmp_path: Path) -> None:
    _job(tmp_path / "a" / "job.yaml", "job-a")
    _job(tmp_path / "job.yaml", "top")
    proc = run("convert", "a", "job.yaml", "-j", "1", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _name(tmp_path / "out" / "a" / "job.yaml") == "job-a"
    assert _name(tmp_path / "out" / "job.yaml") == "top"


def test_one_folder_is_still_mirrored_directly_below_the_output_folder(tmp_path: Path) -> None:
    _job(tmp_path / "jobs" / "job.yaml", "job-a")
    _job(tmp_path / "jobs" / "team" / "x.yaml", "x")
    proc = run("convert", "jobs", "-j", "1", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out"
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*.yaml")) == \
        ["job.yaml", "team/x.yaml"]


def test_standard_input_and_a_file_named_stdin_yaml_never_overwrite(tmp_path: Path) -> None:
    _job(tmp_path / "stdin.yaml", "from-file")
    proc = run("convert", "-", "stdin.yaml", "-j", "1", "-o", "out", "--report", "r.json",
               stdin=JOB.format(name="from-stdin", workers=3), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert _name(tmp_path / "out" / "stdin.yaml") == "from-stdin"  # the first one's, intact
    lines = [line for line in proc.stderr.splitlines() if "Y106" in line]
    assert lines == ["stdin.yaml: error Y106 cannot write the result: out/stdin.yaml is also "
                     "the output path of standard input, an earlier input of this run (the "
                     "input is unchanged)"]
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [(d["file"], d["status"]) for d in report["documents"]] == \
        [("-", "converted"), ("stdin.yaml", "failed")]


def test_two_folders_outside_the_working_directory_can_collide(tmp_path: Path) -> None:
    """A folder outside the working directory is placed at its absolute path (without the
    leading separator), which a folder inside it may also have: with -j 2 (worker processes
    that write their own files) the later input is refused, never written over the first."""
    outside = tmp_path / "outside"
    here = tmp_path / "here"
    inner = here.joinpath(*outside.parts[1:])  # here/<outside's path without the root>
    for index in range(12):
        _job(inner / f"j{index}.yaml", f"inner-{index}")
        _job(outside / f"j{index}.yaml", f"outside-{index}")
    proc = run_process("convert", str(inner.relative_to(here)), str(outside), "-j", "2", "-o",
                       "out", cwd=here)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    written = here.joinpath("out", *outside.parts[1:])
    assert sorted(p.name for p in written.iterdir()) == sorted(f"j{i}.yaml" for i in range(12))
    assert {_name(p) for p in written.iterdir()} == {f"inner-{i}" for i in range(12)}
    refused = [line for line in proc.stderr.splitlines() if "error Y106" in line]
    assert len(refused) == 12
    first = f"{outside}/j0.yaml: error Y106 cannot write the result: " \
        f"out/{written.relative_to(here / 'out')}/j0.yaml is also the output path of " \
        f"{inner.relative_to(here)}/j0.yaml, an earlier input of this run"
    assert any(line.startswith(first) for line in refused), refused
    assert "12 converted" in proc.stderr
    assert "12 failed" in proc.stderr


def test_claims_give_each_output_path_to_its_first_input_every_time() -> None:
    found = [("-", "stdin.yaml"), ("a/x.yaml", "a/x.yaml"), ("-", "stdin.yaml"),
             ("/elsewhere/a/x.yaml", "./a/../a/x.yaml"), ("b.yaml", "b.yaml")]
    claims = writer.Claims(found, Path("out"))
    once = list(claims)
    assert once == list(claims)  # iterable again, with the same answer
    assert [relative.startswith(writer.TAKEN) for _, relative in once] == \
        [False, False, True, False, False]
    assert once[2][1] == f"{writer.TAKEN}out/stdin.yaml is also the output path of standard " \
        "input, an earlier input of this run"
    # ``..`` and ``.`` are dropped when writing, so these two share out/a/x.yaml
    dotted = list(writer.Claims([("a/x.yaml", "a/x.yaml"), ("c", "a/./x.yaml")], Path("o")))
    assert dotted[1][1].startswith(f"{writer.TAKEN}o/a/x.yaml is also the output path of "
                                   "a/x.yaml")


def test_nothing_to_convert_still_writes_a_report_inside_the_output_folder(
        tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "cm.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    proc = run("convert", "tree", "-j", "1", "-o", "out", "--report", "out/report.json",
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert report["summary"]["files"] == 1
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["report.json"]


def test_a_report_folder_elsewhere_is_still_never_created(tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "cm.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    proc = run("convert", "tree", "-j", "1", "-o", "out", "--report", "missing/report.json",
               cwd=tmp_path)
    assert proc.returncode == 2
    assert "error Y107 cannot write the report: the folder missing does not exist" in \
        proc.stderr
    assert not (tmp_path / "missing").exists()
    assert (tmp_path / "out").is_dir()


def test_an_output_folder_that_cannot_be_created_is_one_line(tmp_path: Path) -> None:
    _job(tmp_path / "job.yaml", "job-a")
    (tmp_path / "plain").write_text("a file\n", encoding="utf-8")
    proc = run_process("convert", "job.yaml", "-j", "1", "-o", "plain/out", "--report",
                       "plain/out/r.json", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [
        "error: cannot create the output folder plain/out: Not a directory"]
    assert proc.stdout == ""
