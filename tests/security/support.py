"""Helpers for the security tests: run the CLI as a user would, and a legacy job to convert."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[2]

JOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: minimal
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: pytorch
              image: registry.example/train:1.0
              command: ["torchrun", "/app/train.py"]
              resources:
                limits:
                  nvidia.com/gpu: 1
"""

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  key: value
"""


def converted(text: str = JOB) -> str:
    """What the tool converts ``text`` to (through the public API)."""
    from migrator import convert_text

    return convert_text(text).text


def env(**extra: str) -> dict[str, str]:
    """A minimal environment for the CLI: this checkout on the path, the test session's cache."""
    values = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
              "HOME": os.environ.get("HOME", "/nonexistent"), "LC_ALL": "C.UTF-8"}
    if "TRAINJOB_MIGRATE_CACHE_DIR" in os.environ:
        values["TRAINJOB_MIGRATE_CACHE_DIR"] = os.environ["TRAINJOB_MIGRATE_CACHE_DIR"]
    values.update(extra)
    return values


def run(args: Sequence[str], cwd: Path, *, timeout: float = 120, stdin: IO[Any] | None = None,
        input_bytes: bytes | None = None, extra_env: dict[str, str] | None = None,
        memory_limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m migrator ARGS`` in ``cwd``; text output, never raises on the exit code."""
    def limit() -> None:
        if memory_limit is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    proc = subprocess.run([sys.executable, "-m", "migrator", *args], cwd=cwd,
                          env=env(**(extra_env or {})), capture_output=True, timeout=timeout,
                          check=False, stdin=stdin, input=input_bytes, preexec_fn=limit)
    return subprocess.CompletedProcess(proc.args, proc.returncode,
                                       proc.stdout.decode("utf-8", "replace"),
                                       proc.stderr.decode("utf-8", "replace"))


def said(proc: subprocess.CompletedProcess[str]) -> str:
    """Everything a run printed (result lines go to stdout or stderr depending on the command)."""
    return proc.stderr + proc.stdout


def tree(folder: Path) -> dict[str, bytes | str]:
    """Every entry below ``folder`` (not following links): file bytes, ``-> target`` for links,
    ``<dir>`` for folders; what a test compares before and after a run."""
    found: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            key = str(path.relative_to(folder))
            if path.is_symlink():
                found[key] = "-> " + os.readlink(path)
            elif path.is_dir():
                found[key] = "<dir>"
            else:
                found[key] = path.read_bytes()
    return found
