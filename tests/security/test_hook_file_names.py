"""The shipped pre-commit hooks take every staged file name as a file name: pre-commit appends
the names as they are after ``entry`` and ``args``, so a repository file named like an option
(``--exclude=*.yaml``, ``--config=evil.yaml``) must not become one (R-L3)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.security.support import CONFIGMAP, JOB, ROOT, run, said

HOOKS = {hook["id"]: hook for hook in YAML(typ="safe", pure=True).load(
    (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
NAMES = ["--exclude=*.yaml", "--config=evil.yaml", "legacy.yaml", "-q"]


def _command(hook: dict[str, Any], files: list[str]) -> list[str]:
    """What pre-commit runs: the entry, the hook's args, then the staged file names."""
    entry = shlex.split(hook["entry"])
    assert entry[0] == "trainjob-migrate"
    return [*entry[1:], *hook.get("args", []), *files]


@pytest.mark.parametrize("hook_id", sorted(HOOKS))
def test_a_file_named_like_an_option_is_a_file(tmp_path: Path, hook_id: str) -> None:
    (tmp_path / ".git").mkdir()
    for name in NAMES:
        (tmp_path / name).write_text(JOB if name == "legacy.yaml" else CONFIGMAP,
                                     encoding="utf-8")
    (tmp_path / "evil.yaml").write_text("target: '2.3'\n", encoding="utf-8")
    proc = run(_command(HOOKS[hook_id], NAMES), tmp_path, extra_env={"PRE_COMMIT": "1"})
    # check: the legacy job was found; convert: it was rewritten (pre-commit fails the hook
    # because a file changed)
    assert proc.returncode == (1 if hook_id == "trainjob-migrate-check" else 0), said(proc)
    assert "legacy.yaml" in said(proc)
    assert "evil.yaml" not in said(proc).replace("--config=evil.yaml", "")  # no config applied
    assert "Traceback" not in said(proc)
    for name in NAMES:
        text = (tmp_path / name).read_text(encoding="utf-8")
        if name == "legacy.yaml" and hook_id == "trainjob-migrate":
            assert "kind: TrainJob" in text
            assert "trainer.kubeflow.org/v1alpha1" in text
        else:
            assert text == (JOB if name == "legacy.yaml" else CONFIGMAP), name
