"""Issue 31 item 4: a file named on the command line that holds nothing to report (empty,
broken YAML, plain text, YAML without a job) is said to, instead of a silent "0 documents"."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_cli import run

CASES = {
    "empty.yaml": ("", "empty.yaml: the file is empty: nothing to check"),
    "broken.yaml": ("metadata:\n  name: x\nspec: {a: [unclosed\n",
                    "broken.yaml: not valid YAML (line 4"),
    "notes.txt": ("hello world\nthis is text\n",
                  "notes.txt: not YAML manifests (plain text or a bare value): nothing to check"),
    "cm.yaml": ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\nkind: Service\n",
                "cm.yaml: 2 YAML documents (ConfigMap, Service), no Kubeflow training job or "
                "Trainer object in it"),
    "page.md": ("# A page\n\nNothing to see.\n", "page.md: no Kubeflow training job found in it"),
}


@pytest.mark.parametrize("command", ["check", "convert"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_named_file_without_a_job_is_described(tmp_path: Path, name: str,
                                                  command: str) -> None:
    text, expected = CASES[name]
    (tmp_path / name).write_text(text)
    result = run(command, name, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    said = result.stdout if command == "check" else result.stderr
    lines = [line for line in said.splitlines() if line.startswith(name + ":")]
    assert len(lines) == 1, said
    assert lines[0].startswith(expected)


def test_walked_files_and_quiet_runs_stay_silent(tmp_path: Path) -> None:
    for name, (text, _) in CASES.items():
        (tmp_path / name).write_text(text)
    walked = run("check", ".", cwd=tmp_path)
    assert walked.returncode == 0
    assert walked.stdout == ""
    quiet = run("check", "-q", *CASES, cwd=tmp_path)
    assert quiet.stdout == ""
