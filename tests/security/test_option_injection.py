"""Issue 12 item 4: user-controlled strings never reach git or helm as options.

``--changed-since`` is resolved to a commit before git sees it (a value that starts with ``-``
is a usage error), and a chart folder whose name looks like an option is passed to
``helm template`` after ``--``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.support import JOB, run, said

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True,
                                               check=False).returncode != 0,
                                reason="git is not installed")


def _repo(folder: Path) -> Path:
    folder.mkdir()
    (folder / "job.yaml").write_text(JOB)
    for command in (["init", "-q"], ["add", "job.yaml"],
                    ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "x"]):
        subprocess.run(["git", *command], cwd=folder, check=True, capture_output=True)
    return folder


@pytest.mark.parametrize("ref", ["--output={victim}", "-o{victim}", "--output", "-"])
def test_changed_since_is_never_an_option_to_git(tmp_path: Path, ref: str) -> None:
    repo = _repo(tmp_path / "repo")
    victim = tmp_path / "victim"
    proc = run(["check", f"--changed-since={ref.format(victim=victim)}", "."], cwd=repo)
    assert not victim.exists(), "git took --changed-since as an option and wrote a file"
    assert proc.returncode == 2, said(proc)
    assert "--changed-since" in said(proc)
    assert "Traceback" not in said(proc)


def test_changed_since_takes_ordinary_revisions(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    (repo / "new.yaml").write_text(JOB)
    for ref in ("HEAD", "HEAD~0", "master@{0}" if _branch(repo) == "master" else "main@{0}"):
        proc = run(["check", "--changed-since", ref, "."], cwd=repo)
        assert proc.returncode == 1, said(proc)
        assert "new.yaml" in said(proc)
        assert "job.yaml" not in said(proc).replace("new.yaml", "")


HOSTILE_NAMES = ["new\nline.yaml", "caf\u00e9.yaml", '"quoted".yaml', "-dash.yaml",
                 "tab\there.yaml", "back\\slash.yaml", "cr\rname.yaml", " space .yaml"]


def test_changed_since_finds_files_with_any_name(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    for name in HOSTILE_NAMES:
        (repo / name).write_text(JOB)
    proc = run(["convert", "--changed-since", "HEAD", "-o", str(tmp_path / "out"), "."],
               cwd=repo)
    assert proc.returncode == 0, said(proc)
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == sorted(HOSTILE_NAMES)  # and not job.yaml, which is unchanged


def test_changed_since_unknown_revision_is_a_usage_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    proc = run(["check", "--changed-since", "no-such-branch", "."], cwd=repo)
    assert proc.returncode == 2
    assert "no-such-branch" in said(proc)
    assert "Traceback" not in said(proc)


def _branch(repo: Path) -> str:
    return subprocess.run(["git", "branch", "--show-current"], cwd=repo, capture_output=True,
                          text=True, check=True).stdout.strip()


FAKE_HELM = """\
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_HELM_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
options, positional, ended = [], [], False
for arg in args[1:]:  # like helm's flag parser: options until "--"
    if ended or not arg.startswith("-"):
        positional.append(arg)
    elif arg == "--":
        ended = True
    else:
        options.append(arg)
if any(o.startswith("--post-renderer") for o in options):
    open(os.environ["FAKE_HELM_MARKER"], "w").write("post-renderer ran")
if args[:1] != ["template"] or options or len(positional) != 1:
    sys.exit("Error: unexpected arguments " + json.dumps(args))
sys.stdout.write("---\\n# Source: chart/templates/job.yaml\\n" + os.environ["FAKE_HELM_OUTPUT"])
"""


def test_chart_folder_named_like_an_option_is_passed_as_a_path(tmp_path: Path) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    helm = tools / "helm"
    helm.write_text(f"#!{sys.executable}\n{FAKE_HELM}")
    helm.chmod(0o755)
    work = tmp_path / "work"
    chart = work / "--post-renderer=evil"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: evil\nversion: 0.1.0\n")
    (chart / "templates" / "job.yaml").write_text(JOB.replace("minimal", "{{ .Release.Name }}"))
    log, marker = tmp_path / "helm.log", tmp_path / "marker"
    proc = run(["check", "--helm", "."], cwd=work, extra_env={
        "PATH": f"{tools}:/usr/bin:/bin", "FAKE_HELM_LOG": str(log),
        "FAKE_HELM_MARKER": str(marker), "FAKE_HELM_OUTPUT": JOB})
    assert not marker.exists(), "the chart folder's name reached helm as an option"
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls, said(proc)
    for call in calls:
        paths = [i for i, arg in enumerate(call) if "post-renderer" in arg]
        assert "--" in call, call
        assert all(i > call.index("--") for i in paths), call
    assert proc.returncode == 1, said(proc)  # the rendered PyTorchJob is legacy
    assert "PyTorchJob" in said(proc)


def test_chart_with_a_link_to_outside_is_not_rendered(tmp_path: Path) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    helm = tools / "helm"
    helm.write_text(f"#!{sys.executable}\n{FAKE_HELM}")
    helm.chmod(0o755)
    chart = tmp_path / "work" / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "files").mkdir()
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: leak\nversion: 0.1.0\n")
    (chart / "templates" / "job.yaml").write_text(JOB)
    (tmp_path / "secret").write_text("SECRET-VALUE\n")
    (chart / "files" / "x").symlink_to(tmp_path / "secret")
    log = tmp_path / "helm.log"
    proc = run(["convert", "--helm", "."], cwd=tmp_path / "work", extra_env={
        "PATH": f"{tools}:/usr/bin:/bin", "FAKE_HELM_LOG": str(log),
        "FAKE_HELM_MARKER": str(tmp_path / "marker"), "FAKE_HELM_OUTPUT": JOB})
    assert not log.exists(), "helm ran on a chart that links outside itself"
    assert proc.returncode == 2, said(proc)
    assert "link to outside the chart" in said(proc)
