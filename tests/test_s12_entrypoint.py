"""A PyTorchJob whose trainer container has no command runs the image's entrypoint: whether it
starts torchrun is unknown, so the contract change is a warning (F506), as for a plain command."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrator import convert_text
from migrator.results import Finding, Severity
from tests.test_cli import run

IMAGE = "gcr.io/kubeflow-ci/pytorch-dist-mnist_test:1.0"


def _job(container: str, kind: str = "PyTorchJob", specs: str = "pytorchReplicaSpecs",
         name: str = "pytorch") -> str:
    """A Master + Worker job whose containers end with ``container`` (extra keys, indented)."""
    roles = "".join(f"""    {role}:
      replicas: {count}
      template:
        spec:
          containers:
          - name: {name}
            image: {IMAGE}
{container}""" for role, count in (("Master", 1), ("Worker", 3)))
    return f"apiVersion: kubeflow.org/v1\nkind: {kind}\nmetadata:\n  name: a\nspec:\n" \
           f"  {specs}:\n{roles}"


def _f506(text: str) -> list[Finding]:
    result = convert_text(text)
    assert [d.status for d in result.documents] == ["converted"]
    return [f for f in result.findings if f.code == "F506"]


def test_no_command_is_a_warning_naming_the_entrypoint() -> None:
    found = _f506(_job(""))
    assert len(found) == 1
    finding = found[0]
    assert finding.severity is Severity.WARNING
    assert "no command" in finding.message
    assert "entrypoint" in finding.message
    assert finding.path == "spec.pytorchReplicaSpecs.Worker.template.spec.containers[name=pytorch]"
    assert finding.line == 19  # the Worker's container (the template the trainer comes from)


def test_args_without_command_run_the_entrypoint_with_them() -> None:
    found = _f506(_job("            args: [--epochs, '1']\n"))
    assert len(found) == 1
    assert "entrypoint with these args" in found[0].message
    assert found[0].severity is Severity.WARNING


def test_args_naming_torchrun_are_taken_as_the_launch() -> None:
    assert _f506(_job("            args: [torchrun, --nnodes=2, /var/mnist.py]\n"
                      "            resources: {limits: {nvidia.com/gpu: 1}}\n")) == []


@pytest.mark.parametrize("command", ["[python, /var/mnist.py]", "[sh, -c, 'python train.py']"])
def test_an_explicit_command_without_torchrun_keeps_its_message(command: str) -> None:
    found = _f506(_job(f"            command: {command}\n"))
    assert len(found) == 1
    assert found[0].message.startswith("the command does not start torchrun")
    assert found[0].path.endswith("containers[name=pytorch].command")


def test_torchrun_command_has_no_f506() -> None:
    assert _f506(_job("            command: [torchrun, /var/mnist.py]\n"
                      "            resources: {limits: {nvidia.com/gpu: 1}}\n")) == []


def test_other_frameworks_without_command_get_no_torchrun_warning() -> None:
    """XGBoost and JAX have no torchrun launch; their contract findings are warnings already."""
    result = convert_text(_job("", "XGBoostJob", "xgbReplicaSpecs", "xgboost"))
    codes = {f.code: f.severity for f in result.findings}
    assert "F506" not in codes
    assert codes.get("F509") is Severity.WARNING


def test_fail_on_warning_fails_and_check_names_f506(tmp_path: Path) -> None:
    path = tmp_path / "nocmd.yaml"
    path.write_text(_job(""), encoding="utf-8")
    converted = run("convert", str(path), "-o", str(tmp_path / "out"), "--fail-on", "warning",
                    "-j", "1")
    assert converted.returncode == 1, converted.stdout + converted.stderr
    checked = run("check", str(path), "-j", "1")
    assert "F506" in checked.stdout + checked.stderr
