"""Same input, same bytes, whatever the interpreter's string hashing: every fixture and a job
whose roles merge different resources, converted under two PYTHONHASHSEED values (a set's
order, which changes with the seed, must never reach an output or a finding)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.goldens import ROOT

MERGED = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: merged}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: [torchrun, t.py]
            resources:
              limits: {cpu: 2, nvidia.com/gpu: 1, example.com/foo: 2, example.com/bar: 3,
                       hugepages-2Mi: 1Gi}
              requests: {memory: 1Gi, example.com/zz: 1, example.com/aa: 1,
                         ephemeral-storage: 1Gi}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: [torchrun, t.py]
            resources: {limits: {cpu: 1}}
"""

SCRIPT = """
import hashlib, sys
from pathlib import Path
from migrator import convert_text
digest = hashlib.sha256()
texts = [sys.stdin.read()] + [p.read_text(encoding="utf-8")
                              for p in sorted(Path("fixtures").glob("*/*.in.yaml"))]
for text in texts:
    for companions in (False, True):
        result = convert_text(text, allow_lossy=True, companion_runtimes=companions)
        digest.update(result.text.encode())
        for finding in result.findings:
            digest.update(f"{finding.code} {finding.path} {finding.message}".encode())
print(digest.hexdigest())
"""


def _digest(seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run([sys.executable, "-c", SCRIPT], input=MERGED, text=True,
                          capture_output=True, cwd=ROOT, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_outputs_do_not_depend_on_string_hashing() -> None:
    assert _digest("1") == _digest("2")
