"""The legacy simulation's citations: every one is registered with text its line contains, and,
given the upstream trees, every line is read and checked.

Set ``TRAINJOB_UPSTREAM_MIRRORS`` to a directory holding bare clones as
``<owner>+<name>/repo`` (``kubeflow+trainer``, ``kubeflow+mpi-operator``, ``kubernetes+api``)
to check every cited line at its tag; without it the check skips.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from migrator.simulate import legacy, legacy_mpi, legacy_training  # noqa: F401  (registers)
from migrator.simulate.legacy_common import CITED

REPOS = {"kubeflow/trainer", "kubeflow/mpi-operator", "kubernetes/api"}


def test_every_citation_is_well_formed() -> None:
    assert len(CITED) > 100
    for citation, token in CITED.items():
        assert citation.repo in REPOS, citation
        assert citation.line > 0, citation
        assert citation.path.endswith(".go"), citation
        assert citation.says, citation
        assert token.strip(), citation


def _mirror(repo: str) -> Path | None:
    root = os.environ.get("TRAINJOB_UPSTREAM_MIRRORS")
    if not root:
        return None
    path = Path(root) / repo.replace("/", "+") / "repo"
    return path if path.is_dir() else None


def test_every_cited_line_says_what_the_citation_claims() -> None:
    checked = 0
    wrong: list[str] = []
    cache: dict[tuple[str, str, str], list[str]] = {}
    for citation, token in CITED.items():
        git_dir = _mirror(citation.repo)
        if git_dir is None:
            continue
        key = (citation.repo, citation.tag, citation.path)
        if key not in cache:
            shown = subprocess.run(
                ["git", f"--git-dir={git_dir}", "show", f"{citation.tag}:{citation.path}"],
                capture_output=True, text=True, check=False)
            cache[key] = shown.stdout.splitlines() if shown.returncode == 0 else []
        lines = cache[key]
        line = lines[citation.line - 1] if citation.line <= len(lines) else ""
        if token not in line:
            wrong.append(f"{citation}: {token!r} not in {line.strip()!r}")
        checked += 1
    if not checked:
        pytest.skip("no upstream mirror (TRAINJOB_UPSTREAM_MIRRORS) at hand")
    assert not wrong, "\n".join(wrong)
