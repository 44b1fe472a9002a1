"""Markdown fences with no info string that hold shell, not YAML (real-repository trial 12,
P8): a heredoc is converted as in a ```bash fence; a block that is neither YAML nor a shell
snippet is passed over like a block tagged with another language, never a Y101 error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from migrator.convert import markdown

ROOT = Path(__file__).resolve().parent.parent

JOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: a
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: gcr.io/kubeflow-ci/pytorch-dist-mnist_test:1.0
            command: [python, /var/mnist.py]
    Worker:
      replicas: 3
      template:
        spec:
          containers:
          - name: pytorch
            image: gcr.io/kubeflow-ci/pytorch-dist-mnist_test:1.0
            command: [python, /var/mnist.py]
"""


def _fence(info: str, body: str) -> str:
    return f"```{info}\n{body}```\n"


def _converted_fences(text: str) -> list[str]:
    """The bodies of the page's fences."""
    lines, blocks = markdown.scan(text)
    return ["".join(lines[b.first:b.last]) for b in blocks]


# the trial's repro/heredoc.md: the same heredoc in an untagged and in a ```bash fence
REPRO = "# doc\n" + _fence("", f"cat <<EOF > job.yaml\n{JOB}EOF\n") + "\n" + \
    _fence("bash", f"cat <<EOF > job.yaml\n{JOB}EOF\n")


def test_the_repro_converts_both_fences_alike() -> None:
    result = markdown.convert(REPRO)
    assert [(d.status, d.source.get("kind"), d.line) for d in result.documents] == [
        ("converted", "PyTorchJob", 4), ("converted", "PyTorchJob", 31)]
    assert not [f for d in result.documents for f in d.findings if f.code == "Y101"]
    untagged, tagged = _converted_fences(result.text)
    assert untagged == tagged
    assert untagged.startswith("cat <<EOF > job.yaml\napiVersion: trainer.kubeflow.org/v1alpha1\n"
                               "kind: TrainJob\n")
    assert untagged.endswith("EOF\n")
    again = markdown.convert(result.text)  # idempotent: the converted page has nothing to do
    assert again.text == result.text
    assert not again.changed


@pytest.mark.parametrize("body", [
    f"$ kubectl apply -f - <<EOF\n{JOB}EOF\n",  # a prompt line starting the heredoc
    f"# the job\ncat <<'EOF' > job.yaml\n{JOB}EOF\n",  # a comment before it
    f"\ncat <<EOF | kubectl apply -f -\n{JOB}EOF\n",  # a blank line before it
    f"export NS=team\ncat <<EOF | kubectl apply -n $NS -f -\n{JOB}EOF\n",  # not YAML: shell
], ids=["prompt", "comment", "blank", "export"])
def test_an_untagged_heredoc_converts_as_in_a_shell_fence(body: str) -> None:
    page = "Run:\n\n" + _fence("", body)
    result = markdown.convert(page)
    shell = markdown.convert("Run:\n\n" + _fence("bash", body))
    assert [(d.status, d.source.get("kind")) for d in result.documents] == [
        ("converted", "PyTorchJob")]
    assert [d.line for d in result.documents] == [d.line for d in shell.documents]
    assert _converted_fences(result.text) == _converted_fences(shell.text)
    assert "kind: TrainJob" in result.text


def test_the_shape_is_read_from_the_first_command_line() -> None:
    _, blocks = markdown.scan(
        _fence("", f"$ kubectl apply -f - <<EOF\n{JOB}EOF\n")
        + _fence("", f"cat <<EOF > job.yaml\n{JOB}EOF\n")
        + _fence("", JOB)
        + _fence("", "apiVersion: v1\nkind: ConfigMap\ndata:\n  run.sh: |\n"
                     "    cat <<EOF | kubectl apply -f -\n    kind: Pod\n    EOF\n")
        + _fence("", "- cat <<EOF\n")
        + _fence("python", "cat <<EOF\n"))
    assert [b.is_shell for b in blocks] == [True, True, False, False, False, False]


@pytest.mark.parametrize("body", [
    "kubectl logs -f train-master-0\nEpoch 1: loss=0.3, accuracy: 0.91 {x}\n",  # not YAML
    "$ kubectl get pods\nNAME: train-0   READY: 1/1\n",  # a command's output, no job
], ids=["text", "output"])
def test_an_untagged_block_that_is_not_yaml_is_passed_over(body: str) -> None:
    page = "See:\n\n" + _fence("", body)
    result = markdown.convert(page)
    assert (result.documents, result.text) == ([], page)
    # as a block of another language is
    assert markdown.convert("See:\n\n" + _fence("text", body)).documents == []


def test_a_broken_legacy_job_in_an_untagged_block_is_still_reported() -> None:
    """Neither YAML nor a heredoc, but it shows a legacy job: check must not pass over it."""
    result = markdown.convert("See:\n\n" + _fence("", f"{JOB}  broken: [\n"))
    assert [[f.code for f in d.findings] for d in result.documents] == [["Y101"]]


def test_a_prompt_then_a_legacy_job_in_an_untagged_block_is_reported() -> None:
    """(review 13) ``$ kubectl get ... -o yaml`` then the job: not YAML, no heredoc, but it
    shows a legacy job, so it is reported (Y101) as it was before untagged shell blocks."""
    block = _fence("", f"$ kubectl get pytorchjob a -o yaml\n{JOB}")
    result = markdown.convert("See:\n\n" + block)
    assert [[f.code for f in d.findings] for d in result.documents] == [["Y101"]]


def test_an_untagged_block_with_a_trainjob_and_a_broken_document_is_read_as_yaml() -> None:
    """(review 13) A TrainJob beside a broken one: read as YAML as before (the broken one is
    reported), not passed over as text."""
    trainjob = ("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n"
                "  name: t\nspec:\n  runtimeRef: {name: torch-distributed}\n"
                "  trainer: {numNodes: 2, numProcPerNode: 4}\n")
    broken = trainjob.replace("  name: t\n", "  name: u\n\tbad: tab\n")  # not YAML
    result = markdown.convert("See:\n\n" + _fence("", trainjob + "---\n" + broken))
    assert [[f.code for f in d.findings] for d in result.documents if d.findings] == [["Y101"]]


def test_a_yaml_tagged_block_that_is_not_yaml_is_still_an_error() -> None:
    result = markdown.convert(_fence("yaml", f"{JOB}  broken: [\n"))
    assert [[f.code for f in d.findings] for d in result.documents] == [["Y101"]]


def test_check_of_the_repro_and_of_a_broken_untagged_block(tmp_path: Path) -> None:
    (tmp_path / "heredoc.md").write_text(REPRO, encoding="utf-8")
    (tmp_path / "broken.md").write_text(_fence("", f"{JOB}  broken: [\n"), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")}

    def check(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "migrator", "check", name, "--no-cache"],
                              capture_output=True, text=True, env=env, cwd=tmp_path,
                              timeout=120, check=False)

    repro = check("heredoc.md")
    assert repro.returncode == 1  # something would change: both jobs convert
    assert "Y101" not in repro.stdout + repro.stderr
    assert "2 would convert, 0 unchanged, 0 skipped" in repro.stderr
    broken = check("broken.md")  # a legacy job that does not parse is still reported
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "Y101" in broken.stdout
