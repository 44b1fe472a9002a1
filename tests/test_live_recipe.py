"""Issue 31 item 2: a cluster dump (``kind: List``) is converted item by item, and README's
live-namespace recipe, run as written against a stand-in kubectl, applies only TrainJobs and
deletes only the legacy jobs that converted."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.goldens import FIXTURES, ROOT
from tests.test_cli import run

DUMPS = FIXTURES / "dumps"
LEGACY_KINDS = ("PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob")


def _dump(*, running: bool) -> str:
    """kubectl-get.in.yaml's List (a finished and a suspended job), with the running job of
    running.in.yaml as a third item when ``running``."""
    text = (DUMPS / "kubectl-get.in.yaml").read_text()
    if running:
        job = (DUMPS / "running.in.yaml").read_text().split("\n", 2)[2].rstrip("\n")
        text += "".join(("  - " if i == 0 else "    ") + line + "\n"
                        for i, line in enumerate(job.split("\n")))
    return text


def _kinds_and_names(text: str) -> list[tuple[str, str]]:
    """(kind, name) of each object of a List dump or converted List (items at indent 4)."""
    return re.findall(r"^    kind: (\w+)\n    metadata:\n(?:      .*\n)*?      name: (\S+)",
                      text, re.M)


def test_a_running_item_does_not_block_the_others(tmp_path: Path) -> None:
    dump = tmp_path / "legacy.yaml"
    dump.write_text(_dump(running=True))
    result = run("convert", str(dump))
    assert result.returncode == 1  # one job was not converted
    assert _kinds_and_names(result.stdout) == [("TrainJob", "finished"), ("TrainJob", "waiting"),
                                               ("PyTorchJob", "running")]
    assert "error K108" in result.stderr
    only = run("convert", "--converted-only", str(dump))
    assert only.returncode == 1
    assert _kinds_and_names(only.stdout) == [("TrainJob", "finished"), ("TrainJob", "waiting")]
    checked = run("check", str(dump))
    assert checked.returncode == 1
    assert "left unconverted: items[2] (K108)" in checked.stdout


def test_converted_only_leaves_out_documents_that_did_not_convert(tmp_path: Path) -> None:
    running = (DUMPS / "running.in.yaml").read_text()
    finished = _dump(running=False)
    stream = tmp_path / "two.yaml"
    stream.write_text(running + "---\n" + finished)
    result = run("convert", "--converted-only", str(stream))
    assert result.returncode == 1
    assert "kind: PyTorchJob" not in result.stdout
    assert _kinds_and_names(result.stdout) == [("TrainJob", "finished"), ("TrainJob", "waiting")]
    for refused in (("--in-place",), ("-o", str(tmp_path / "out")), ("--diff",)):
        usage = run("convert", "--converted-only", *refused, str(stream))
        assert usage.returncode == 2
        assert "--converted-only is for the stream on standard output" in usage.stderr


FAKE_KUBECTL = r'''
import json, os, re, sys
state = os.environ["FAKE_KUBECTL_STATE"]
args = sys.argv[1:]
def objects(text):
    """(kind, name) of every object in a YAML stream or List (the recipe's files)."""
    from ruamel.yaml import YAML
    found = []
    for doc in YAML(typ="safe").load_all(text):
        if not doc:
            continue
        for item in doc.get("items", [doc]) if doc.get("kind") == "List" else [doc]:
            found.append((item["kind"], item["metadata"]["name"]))
    return found
if args[0] == "get" and "-f" in args:
    path = args[args.index("-f") + 1]
    found = objects(open(path).read())
    if not found:
        sys.exit("error: no objects passed to get")
    for kind, name in found:
        print(f"{kind.lower()}.trainer.kubeflow.org/{name}")
elif args[0] == "get":
    sys.stdout.write(open(os.path.join(state, "dump.yaml")).read())
elif args[0] == "apply":
    path = args[args.index("-f") + 1]
    with open(os.path.join(state, "applied.json"), "w") as out:
        json.dump(objects(open(path).read()), out)
elif args[0] == "delete":
    rest, given = [], iter(args[1:])
    for arg in given:
        if arg == "-n":
            next(given)
        elif not arg.startswith("-"):
            rest.append(arg)
    kinds, names = rest[0], rest[1:]
    if not names:
        sys.exit("error: resource(s) were provided, but no name was specified")
    with open(os.path.join(state, "deleted.json"), "w") as out:
        json.dump(names, out)
else:
    sys.exit(f"fake kubectl: unexpected {args}")
'''


def _recipe() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Migrate a live namespace"):]
    start = section.index("```bash\n") + 8
    return section[start:section.index("\n```", start)]


@pytest.mark.skipif(os.name == "nt", reason="a POSIX shell recipe")
@pytest.mark.parametrize("running", [True, False])
def test_readme_live_namespace_recipe(tmp_path: Path, running: bool) -> None:
    bin_dir, state, work = tmp_path / "bin", tmp_path / "state", tmp_path / "work"
    for folder in (bin_dir, state, work):
        folder.mkdir()
    (state / "dump.yaml").write_text(_dump(running=running))
    (bin_dir / "kubectl").write_text(f"#!{sys.executable}\n{FAKE_KUBECTL}")
    (bin_dir / "trainjob-migrate").write_text(
        f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m migrator \"$@\"\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "FAKE_KUBECTL_STATE": str(state)}
    env.pop("PRE_COMMIT", None)
    done = subprocess.run(["bash", "-c", _recipe()], cwd=work, env=env, text=True,
                          capture_output=True, timeout=300, check=False)
    import json

    applied = json.loads((state / "applied.json").read_text())
    assert applied == [["TrainJob", "finished"], ["TrainJob", "waiting"]], done.stderr
    assert not any(kind in LEGACY_KINDS for kind, _ in applied)
    assert json.loads((state / "deleted.json").read_text()) == ["finished", "waiting"]


@pytest.mark.skipif(os.name == "nt", reason="a POSIX shell recipe")
def test_readme_recipe_deletes_nothing_when_nothing_converted(tmp_path: Path) -> None:
    bin_dir, state, work = tmp_path / "bin", tmp_path / "state", tmp_path / "work"
    for folder in (bin_dir, state, work):
        folder.mkdir()
    (state / "dump.yaml").write_text((DUMPS / "running.in.yaml").read_text())
    (bin_dir / "kubectl").write_text(f"#!{sys.executable}\n{FAKE_KUBECTL}")
    (bin_dir / "trainjob-migrate").write_text(
        f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m migrator \"$@\"\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "FAKE_KUBECTL_STATE": str(state)}
    env.pop("PRE_COMMIT", None)
    subprocess.run(["bash", "-c", _recipe()], cwd=work, env=env, text=True,
                   capture_output=True, timeout=300, check=False)
    assert not (state / "deleted.json").exists()
    assert "kind:" not in (work / "trainjobs.yaml").read_text()
