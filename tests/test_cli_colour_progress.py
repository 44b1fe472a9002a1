"""Issue 31 item 8: --color never and TERM=dumb turn every colour off (stderr too); progress
says what the run does, and prints a line every few seconds when stderr is not a terminal."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.goldens import FIXTURES
from tests.test_cli import run

MANUAL = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: Bad_Name
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: x
"""


@pytest.mark.parametrize("command", ["convert", "check", "diff", "validate"])
def test_color_never_wins_over_force_color(tmp_path: Path, command: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(MANUAL)
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    coloured = run(command, str(job), str(FIXTURES / "pytorchjob" / "minimal.in.yaml"))
    plain = run(command, "--color", "never", str(job),
                str(FIXTURES / "pytorchjob" / "minimal.in.yaml"))
    assert plain.returncode == coloured.returncode, plain.stderr
    assert "\x1b[" not in plain.stdout + plain.stderr
    if command != "validate":  # (validate prints no severity here to colour)
        assert "\x1b[" in coloured.stdout + coloured.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_term_dumb_turns_colour_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from migrator.report.terminal import color_wanted

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert color_wanted(_Terminal())
    monkeypatch.setenv("TERM", "dumb")
    assert not color_wanted(_Terminal())
    assert color_wanted(_Terminal(), "always")


@pytest.mark.parametrize(("command", "label"), [("check", "checking"),
                                                 ("validate", "checking")])
def test_progress_lines_when_stderr_is_not_a_terminal(command: str, label: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from migrator.batch import progress

    monkeypatch.setattr(progress, "TICK_SECONDS", 0.0)
    result = run(command, str(FIXTURES / "pytorchjob"))
    lines = [line for line in result.stderr.splitlines() if line.startswith(f"{label}: ")]
    assert lines, result.stderr
    assert lines[0].startswith(f"{label}: 1 file done (")
    quiet = run(command, "-q", str(FIXTURES / "pytorchjob"))
    assert not [line for line in quiet.stderr.splitlines() if line.startswith(f"{label}: ")]
    monkeypatch.setenv("PRE_COMMIT", "1")
    hook = run(command, str(FIXTURES / "pytorchjob"))
    assert not [line for line in hook.stderr.splitlines() if line.startswith(f"{label}: ")]
