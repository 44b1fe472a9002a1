"""Issue 30 item 1: no process the tool starts imports a module from the working folder or
from the scanned repository.

The tool starts the Helm SDK renderer (``--helm`` without a helm binary), git
(``--changed-since``) and forked workers (``-j``); a repository that plants ``helm_python.py``,
``migrator/``, ``yaml.py`` or ``ruamel/`` must not have any of them imported. Each planted
module writes a marker when imported; after the runs there is none.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.support import JOB, env

pytest.importorskip("helm_python")
GIT = shutil.which("git")

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: trainer\nversion: 0.1.0\n",
    "values.yaml": "workers: 2\n",
    "templates/job.yaml": JOB.replace("replicas: 2", "replicas: {{ .Values.workers }}"),
}

# module files a repository could plant, relative to the folder on the import path
PLANTED = ("helm_python.py", "migrator/__init__.py", "migrator/template/__init__.py",
           "migrator/template/helmsdk.py", "yaml.py", "ruamel/__init__.py",
           "ruamel/yaml/__init__.py", "pathspec.py", "click.py", "pydantic.py")


def _plant(folder: Path, markers: Path) -> None:
    for relative in PLANTED:
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        marker = markers / f"{folder.name}-{relative.replace('/', '.')}"
        path.write_text(f"open({str(marker)!r}, 'w').close()\n")


def _tools(tmp_path: Path) -> str:
    """A PATH with git (when installed) and without helm: the SDK renderer is used."""
    tools = tmp_path / "tools"
    tools.mkdir()
    if GIT is not None:
        (tools / "git").symlink_to(GIT)
    return str(tools)


def _run(args: list[str], cwd: Path, path: str) -> subprocess.CompletedProcess[str]:
    # the parent itself started as the docs say (-P: not from the working folder)
    return subprocess.run([sys.executable, "-P", "-m", "migrator", *args], cwd=cwd,
                          env=env(PATH=path), capture_output=True, text=True, timeout=300,
                          check=False)


def _repository(folder: Path) -> None:
    for name, text in CHART.items():
        (folder / "chart" / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / "chart" / name).write_text(text)
    for index in range(6):  # enough files to convert for the workers
        (folder / f"job{index}.yaml").write_text(JOB.replace("minimal", f"job{index}"))
    if GIT is not None:
        for command in (["init", "-q"], ["add", "-A"], ["-c", "user.email=t@example.com",
                                                        "-c", "user.name=t", "commit", "-qm",
                                                        "x"]):
            subprocess.run([GIT, *command], cwd=folder, check=True, capture_output=True)
        (folder / "new.yaml").write_text(JOB)


def test_no_child_imports_from_the_working_folder(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    work, repo = tmp_path / "work", tmp_path / "repo"
    work.mkdir()
    repo.mkdir()
    _repository(repo)
    _repository(work)
    _plant(work, markers)
    _plant(repo, markers)
    path = _tools(tmp_path)
    runs = [(["check", "--helm", "-j", "2", "--no-cache", "."], work),
            (["check", "--helm", "-j", "2", "--no-cache", str(repo)], work),
            (["convert", "--helm", "-j", "1", "--no-cache", "-o", str(tmp_path / "out"),
              str(repo)], work)]
    if GIT is not None:
        runs.append((["check", "--changed-since", "HEAD", "-j", "2", "--no-cache", "."], repo))
    for args, cwd in runs:
        proc = _run(args, cwd, path)
        said = proc.stdout + proc.stderr
        assert not sorted(os.listdir(markers)), (args, said)
        assert "Traceback" not in said, said
        assert proc.returncode == (0 if args[0] == "convert" else 1), (args, said)
        if "--helm" in args:  # the chart was rendered (by the SDK) and its job found
            assert f"chart{os.sep}helm-template.yaml" in said, said
            assert "helm template failed" not in said, said
