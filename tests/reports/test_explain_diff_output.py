"""Issue 12 item 2 for ``explain-diff``: hostile names, keys and file names never become a
workflow command (``::cmd`` or the runner's older ``##[cmd]``) and never reach a terminal raw."""

from __future__ import annotations

from pathlib import Path

from tests.reports.helpers import cli, injected_commands

JOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: "a\\n::error::pwned-name ##[error]pwned-legacy"
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          "x\\n::add-mask::pwned-key": 4
          containers:
            - {name: pytorch, image: "##[set-output name=a;]b", command: [torchrun],
               "\\e]0;TITLE\\a": 5}
"""


def test_explain_diff_neutralises_hostile_text(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB, encoding="utf-8")
    (tmp_path / "f\n::error::pwned-file ##[add-mask]x.yaml").write_text(JOB, encoding="utf-8")
    names = sorted(path.name for path in tmp_path.iterdir())
    run = cli("explain-diff", *names, cwd=tmp_path, github=True)
    assert run.returncode in (0, 1), run.stderr
    assert "Traceback" not in run.stderr
    output = f"{run.stdout}\n{run.stderr}"
    assert "TrainJob" in run.stdout
    assert injected_commands(output) == []
    assert "\x1b" not in output
    assert "\x07" not in output


def test_explain_diff_escapes_terminal_sequences_outside_ci(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB, encoding="utf-8")
    run = cli("explain-diff", "job.yaml", cwd=tmp_path)
    assert "\x1b" not in run.stdout + run.stderr
    assert "Traceback" not in run.stderr
