#!/usr/bin/env python3
"""Benchmark: generate a tree of manifests (5% legacy PyTorchJobs) and time the CLI on it.

    python benchmarks/bench.py [--files 2000]

Prints wall times for `convert -o`, for a bare ruamel.yaml round trip of just the legacy
files (the floor a converter cannot beat), and the ratio between them.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEGACY = (ROOT / "fixtures" / "pytorchjob" / "full.in.yaml").read_text()
OTHER = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-{i}
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.27
"""


def make_tree(root: Path, files: int) -> list[Path]:
    legacy = []
    for i in range(files):
        path = root / f"d{i % 50}" / f"f{i}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        if i % 20 == 0:
            path.write_text(LEGACY.replace("bert-ft", f"bert-{i}"))
            legacy.append(path)
        else:
            path.write_text(OTHER.format(i=i))
    return legacy


def bare_round_trip(paths: list[Path]) -> float:
    from ruamel.yaml import YAML

    started = time.perf_counter()
    for path in paths:
        yaml = YAML()
        out = io.StringIO()
        yaml.dump_all(list(yaml.load_all(path.read_text())), out)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        tree = Path(temp) / "tree"
        legacy = make_tree(tree, args.files)
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "migrator", "convert", str(tree), "-o",
                               str(Path(temp) / "out"), "-q"], capture_output=True, text=True,
                              check=False)
        convert = time.perf_counter() - started
        floor = bare_round_trip(legacy)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "migrator", "--version"], capture_output=True,
                       check=True)
        startup = time.perf_counter() - started
    print(f"files: {args.files} ({len(legacy)} legacy); exit {proc.returncode}")
    print(f"convert -o: {convert:.2f}s; bare ruamel round trip of legacy files: {floor:.2f}s; "
          f"ratio {convert / floor:.2f}")
    print(f"CLI start-up (--version): {startup * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
