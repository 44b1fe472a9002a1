"""Hostile input for the readers of manifests inside other files: nothing hangs, blocks on a
FIFO, recurses for ever or raises."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from migrator.convert import kustomization, markdown, shell
from migrator.convert.argo import parse, rewrite_failure, rewrite_success
from migrator.load import masking, textscan

JOB = ("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: x\nspec:\n"
       "  pytorchReplicaSpecs:\n    Worker:\n      replicas: 1\n      template:\n        spec:\n"
       "          containers:\n            - name: pytorch\n              image: x/y:1\n")


def test_kustomization_resources_that_are_not_regular_files(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)  # reading it would block for ever
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "kustomization.yaml").write_text(
        "resources: [pipe.yaml, loop, /dev/stdin, /dev/zero, ., ../, missing.yaml]\n"
        "patches:\n  - target: {kind: PyTorchJob, name: x}\n    patch: '[]'\n")
    result = kustomization.convert_kustomization(str(tmp_path / "kustomization.yaml"),
                                                 (tmp_path / "kustomization.yaml").read_text())
    # no legacy base was readable; those outside the folder were not even opened
    assert {f.code for f in result.findings} == {"E810"}
    assert [m for f in result.findings if "not read" in (m := f.message)] == [
        f"the base {entry!r} is outside the repository (or the folder being converted); it "
        "was not read" for entry in ("/dev/stdin", "/dev/zero", "../")]


def test_a_kustomization_that_includes_itself(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    (tmp_path / "kustomization.yaml").write_text(
        "resources: [job.yaml, ., ./, ../" + tmp_path.name + "]\nimages:\n  - name: x/y\n"
        "    newTag: '2'\n")
    result = kustomization.convert_kustomization(str(tmp_path / "kustomization.yaml"),
                                                 (tmp_path / "kustomization.yaml").read_text())
    assert "ImageTagTransformer" in result.text


@pytest.mark.parametrize("page", [
    "```yaml\n" * 5000,  # fences opening and closing
    "~~~\n" + "```yaml\n" * 2000,  # an unclosed fence with fences inside
    "```yaml\n" + "a: &a [x]\n" + "\n".join(f"b{i}: &b{i} [*a, *a]" for i in range(40)) + "\n",
    "```yaml\n" + JOB + "x: " + "[" * 5000 + "\n```\n",  # deep nesting
    "```yaml\n" + JOB.replace("name: x\n", "name: {{< " + "{" * 3000 + " >}}\n") + "```\n",
])
def test_hostile_pages(page: str) -> None:
    result = markdown.convert(page)
    assert isinstance(result.text, str)
    assert all(f.code != "Y105" for f in result.findings)


def test_hostile_scripts() -> None:
    script = "cat <<EOF\n" * 3000 + JOB + "cat <<-'E'\n\t" + JOB + "E\n"
    result = shell.convert(script)
    assert all(f.code != "Y105" for f in result.findings)
    assert textscan.heredocs("<<" * 10000)[1] == []


def test_hostile_conditions() -> None:
    for expression in ("(" * 10000, "a in (" + ",".join(["x"] * 10000) + ")",
                       "status." + "a." * 10000 + " > 0", ",,,", "!"):
        parse(expression)
        rewrite_success(expression, suspended_first=False)
        rewrite_failure(expression)


def test_masking_tokens_already_in_the_text() -> None:
    text = "".join(f"tjmph{i}x " for i in range(50)) + "{{a}}"
    masked = masking.mask(text, masking.ARGO_PARAMETER)
    assert masked.restore(masked.text) == text
