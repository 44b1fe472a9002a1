"""CHECK ``validate`` over a run's own files: only YAML streams are read for the runtimes they
hold, a file of the run that does not parse never stops the run nor is blamed on
``--runtimes``, and Markdown pages are not validated (real-repository trial 12, P6)."""

from __future__ import annotations

from pathlib import Path

from tests.test_cli import run

RUNTIME = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: a-legacy
  labels:
    trainer.kubeflow.org/framework: torch
spec:
  mlPolicy:
    numNodes: 4
    torch: {}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels:
              trainer.kubeflow.org/trainjob-ancestor-step: trainer
          spec:
            template:
              spec:
                containers:
                - name: node
                  image: gcr.io/kubeflow-ci/pytorch-dist-mnist_test:1.0
                restartPolicy: OnFailure
"""
TRAINJOB = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: a
spec:
  runtimeRef:
    name: a-legacy
    kind: TrainingRuntime
  trainer:
    numNodes: 4
    image: gcr.io/kubeflow-ci/pytorch-dist-mnist_test:1.0
"""
# a TrainJob the cluster rejects (an unknown field), in a page as ``convert`` writes pages
PAGE = f"""# Notes

Some text: here.

```yaml
{RUNTIME}---
{TRAINJOB}  podTemplateOverrides: []
```
"""


def _files(folder: Path) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "README.md").write_text(PAGE, encoding="utf-8")
    (folder / "job.yaml").write_text(f"{RUNTIME}---\n{TRAINJOB}", encoding="utf-8")


def _no_runtimes_blamed(output: str) -> None:
    assert "--runtimes" not in output
    assert "Traceback" not in output
    assert "\\n" not in output  # no Python repr of a multi-line message


NOT_VALIDATED = ("README.md: not validated: validate reads YAML streams, not the manifests "
                 "shown in a page or a script (check reads those)")


def test_validate_a_page_and_a_manifest_validates_the_manifest(tmp_path: Path) -> None:
    _files(tmp_path)
    proc = run("validate", "README.md", "job.yaml", "-j", "1", cwd=tmp_path)
    _no_runtimes_blamed(proc.stdout + proc.stderr)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == [
        "job.yaml:1: TrainingRuntime/a-legacy: valid for Trainer 2.2",
        "job.yaml:27: TrainJob/a: valid for Trainer 2.2", NOT_VALIDATED]
    assert "2 files, 2 documents" in proc.stderr


def test_validate_a_tree_that_includes_markdown(tmp_path: Path) -> None:
    _files(tmp_path / "tree")
    proc = run("validate", "tree", "--include", "*.md", "--include", "*.yaml", "-j", "1",
               cwd=tmp_path)
    _no_runtimes_blamed(proc.stdout + proc.stderr)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tree/job.yaml:27: TrainJob/a: valid for Trainer 2.2" in proc.stdout.splitlines()


def test_a_file_of_the_run_that_does_not_parse_does_not_stop_the_run(tmp_path: Path) -> None:
    """A walked YAML file that names a runtime kind but is not YAML: its runtimes are not
    known, the run goes on (a runtimeRef that resolves nowhere is an error only with
    --runtimes), and the broken document is an error of its own (Y101: a cluster would not
    accept it either)."""
    (tmp_path / "broken.yaml").write_text(RUNTIME + "  oops: [\n", encoding="utf-8")
    (tmp_path / "job.yaml").write_text(TRAINJOB + "  podTemplateOverrides: []\n",
                                       encoding="utf-8")
    proc = run("validate", ".", "-j", "1", cwd=tmp_path)
    _no_runtimes_blamed(proc.stdout + proc.stderr)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the TrainJob's own error
    lines = proc.stdout.splitlines()
    assert lines[0] == "broken.yaml:1: TrainingRuntime: rejected by Trainer 2.2 (1 error)"
    assert lines[1].startswith("broken.yaml:")
    assert " error Y101 " in lines[1]
    assert "job.yaml:1: TrainJob/a: rejected by Trainer 2.2 (1 error)" in lines
    assert "error V602" in proc.stdout
    assert "2 files, 2 documents" in proc.stderr


def test_runtimes_the_user_names_are_still_read_strictly_in_one_line(tmp_path: Path) -> None:
    _files(tmp_path)
    proc = run("validate", "job.yaml", "--runtimes", "README.md", "-j", "1", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert errors == ["Error: --runtimes README.md: cannot read it (not YAML: while scanning "
                      "for the next token; found character '`' that cannot start any token at "
                      "line 5, column 1)"]


def test_jobs_in_markdown_fences_are_not_validated(tmp_path: Path) -> None:
    """docs/usage.md says so: validate checks YAML streams; a page's fenced TrainJob (here
    one the cluster would reject) is neither validated nor counted."""
    _files(tmp_path)
    proc = run("validate", "README.md", "-j", "1", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.splitlines() == [NOT_VALIDATED]  # a file named is always reported
    assert "1 file, 0 documents" in proc.stderr
    usage = (Path(__file__).resolve().parent.parent / "docs" / "usage.md").read_text(
        encoding="utf-8")
    assert "TrainJobs inside Markdown fences" in " ".join(usage.split())


def test_a_template_is_not_taken_for_broken_yaml(tmp_path: Path) -> None:
    """A Helm template of a TrainJob (convert writes such templates) is not YAML, but it is
    no broken manifest either: validate passes over it, as before; plain broken YAML that
    names Trainer's group is an error."""
    (tmp_path / "chart.yaml").write_text("{{- if .Values.on }}\n" + TRAINJOB + "{{- end }}\n",
                                         encoding="utf-8")
    proc = run("validate", "chart.yaml", "-j", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Y101" not in proc.stdout
    (tmp_path / "broken.yaml").write_text(TRAINJOB + "  oops: [\n", encoding="utf-8")
    proc = run("validate", "broken.yaml", "-j", "1", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert " error Y101 " in proc.stdout
