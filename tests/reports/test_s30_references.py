"""REPORT: ``@mentions`` and issue references (``#123``) from the input reach the Markdown
report and the GitHub step summary inert: GitHub would notify the people and link the issues
(issue 30, 18). They stay readable (a zero-width joiner after ``@``/``#``), and code spans,
where GitHub acts on neither, keep the text as it is."""

from __future__ import annotations

from pathlib import Path

from migrator.report import github
from migrator.report.markup import code_span, markdown_text
from tests.reports.helpers import LIVE_REFERENCE, check_markdown, cli

ZERO_WIDTH_JOINER = "\u200d"
JOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: "@octocat #12"
spec:
  "ping @org/team about kubeflow/trainer#3 and GH-7": 1
  pytorchReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: x
"""


def test_markdown_text_makes_references_inert() -> None:
    shown = markdown_text("ping @octocat, @org/team: #12, kubeflow/trainer#3, GH-7")
    assert LIVE_REFERENCE.search(shown) is None
    assert shown.replace(ZERO_WIDTH_JOINER, "") == \
        "ping @octocat, @org/team: #12, kubeflow/trainer#3, GH-7"
    assert markdown_text("C# and a # b") == "C# and a # b"
    assert code_span("@octocat #12") == "`@octocat #12`"


def test_step_summary_makes_references_inert() -> None:
    report = {"target": "2.2", "summary": {
        "files": 1, "documents": {"converted": 0, "unchanged": 0, "skipped": 0, "failed": 1},
        "findings": {"error": 1, "warning": 0, "info": 0}},
        "documents": [{"file": "@a/#1.yaml", "line": 1, "status": "failed",
                       "source": {"kind": "PyTorchJob", "name": "@octocat #12"},
                       "findings": [{"code": "Y101"}]}]}
    check_markdown(github.step_summary(report))


def test_the_markdown_report_and_summary_make_references_inert(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB, encoding="utf-8")
    summary = tmp_path / "summary.md"
    run = cli("check", "job.yaml", "--report", str(tmp_path / "r.md"), github=True,
              summary=summary, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    report = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "octocat" in report
    check_markdown(report)
    check_markdown(summary.read_text(encoding="utf-8"))
