#!/usr/bin/env python3
"""Benchmark: a realistic tree of manifests, the CLI timed against simple floors.

    python benchmarks/bench.py [--files 5000] [--legacy-share 0.05]

The tree holds ``--files`` YAML files: a ``--legacy-share`` of them are legacy jobs of every
kind (the fixture inputs of all kinds, renamed), the rest ordinary Kubernetes manifests. Each
goal is a ratio measured in the same run on the same machine, and is printed with its verdict:

- check over the tree        <= 3.0x  grep -rlE 'kind: *(PyTorchJob|TFJob|...)' over it
- convert -o, --jobs 1       <= 1.3x  a bare ruamel.yaml round trip of the legacy files, run
                                      as a process of its own like the CLI (interpreter
                                      start, ruamel import, reading the files, load + dump)
- convert -o, --jobs 2       >= 1.6x  faster than --jobs 1
- check of one ordinary file <= 2.0x  python -c "import yaml"
- peak memory (RSS) of convert over the full tree <= 1.5x that over a fifth of it

Commands compared with each other run in turn, five times, and the best time of each counts
(the machine may be shared; a busy spell then weighs on all of them alike). Also printed, to
explain the figures: the floor of any Python program over the tree (an interpreter started
with -I -S that only walks the tree and reads every file), the round trip timed inside this
process, and the first run after an install (the per-user catalog cache still cold). Every
CLI run uses a cache folder of its own in the temporary tree.

Exit status 0 when every goal is met, 1 otherwise (the figures are printed either way).
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = "PyTorchJob|TFJob|MPIJob|XGBoostJob|PaddleJob|JAXJob"
ORDINARY = ["""apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-{i}
  labels: {{app: web-{i}}}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: web-{i}}}
  template:
    metadata:
      labels: {{app: web-{i}}}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          ports: [{{containerPort: 80}}]
          resources:
            requests: {{cpu: 100m, memory: 64Mi}}
""", """apiVersion: v1
kind: Service
metadata:
  name: svc-{i}
spec:
  selector: {{app: web-{i}}}
  ports:
    - port: 80
      targetPort: 80
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg-{i}
data:
  settings.yaml: |
    level: info
    replicas: 3
"""]


def legacy_inputs() -> list[str]:
    """Fixture inputs of every legacy kind that convert without options."""
    texts = []
    for path in sorted((ROOT / "fixtures").glob("*/*.in.yaml")):
        text = path.read_text(encoding="utf-8")
        if "kubeflow.org/v1" in text and not text.startswith("# options:"):
            texts.append(text)
    return texts


def make_tree(root: Path, files: int, share: float) -> list[Path]:
    legacy_texts = legacy_inputs()
    every = max(1, round(1 / share))
    legacy = []
    for i in range(files):
        path = root / f"team{i % 40}" / f"app{i % 7}" / f"m{i}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        if i % every == 0:
            text = legacy_texts[(i // every) % len(legacy_texts)]
            path.write_text(text.replace("name: ", f"name: b{i}-", 1), encoding="utf-8")
            legacy.append(path)
        else:
            path.write_text(ORDINARY[i % 2].format(i=i), encoding="utf-8")
    return legacy


def timed(command: list[str], repeat: int = 3, cwd: Path | None = None) -> float:
    """Best wall time of ``repeat`` runs of ``command``."""
    return compared([command], repeat, cwd)[0]


def compared(commands: list[list[str]], repeat: int = 5, cwd: Path | None = None) -> list[float]:
    """Best wall time of each command, the commands run in turn ``repeat`` times (so that a
    busy spell of a shared machine weighs on all of them alike)."""
    best = [float("inf")] * len(commands)
    for _ in range(repeat):
        for index, command in enumerate(commands):
            started = time.perf_counter()
            subprocess.run(command, capture_output=True, check=False, cwd=cwd)
            best[index] = min(best[index], time.perf_counter() - started)
    return best


def best_of(func: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - started)
    return best


ROUND_TRIP = """
import io, sys
from ruamel.yaml import YAML
for path in sys.argv[1:]:
    yaml = YAML()
    out = io.StringIO()
    with open(path, encoding="utf-8") as handle:
        yaml.dump_all(list(yaml.load_all(handle.read())), out)
"""

WALK = """
import os, sys
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        with open(os.path.join(folder, name), "rb") as handle:
            handle.read()
"""


def bare_round_trip(paths: list[Path]) -> None:
    """The round trip of ROUND_TRIP, inside this process (no start-up, ruamel imported)."""
    from ruamel.yaml import YAML

    for path in paths:
        yaml = YAML()
        out = io.StringIO()
        yaml.dump_all(list(yaml.load_all(path.read_text(encoding="utf-8"))), out)


def peak_rss_mb(command: list[str]) -> float:
    """Peak resident memory of a child process, in MiB."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], capture_output=True);"
            " print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, *command], capture_output=True,
                         text=True, check=True)
    return int(out.stdout.strip()) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--legacy-share", type=float, default=0.05)
    args = parser.parse_args()
    cli = [sys.executable, "-m", "migrator"]
    results: list[tuple[str, float, str, bool]] = []
    with tempfile.TemporaryDirectory() as temp:
        os.environ["TRAINJOB_MIGRATE_CACHE_DIR"] = str(Path(temp) / "cache")
        tree = Path(temp) / "tree"
        legacy = make_tree(tree, args.files, args.legacy_share)
        small = Path(temp) / "small"
        small_legacy = make_tree(small, args.files // 5, args.legacy_share)
        print(f"tree: {args.files} files, {len(legacy)} legacy ({args.legacy_share:.0%}); "
              f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}")

        cold = timed([*cli, "check", str(legacy[0])], repeat=1)
        warm = timed([*cli, "check", str(legacy[0])])
        print(f"  check of one legacy file: {cold:.3f}s on the first run after an install "
              f"(catalog cache cold), {warm:.3f}s after")

        grep, walk, check = compared([["grep", "-rlE", f"kind: *({KINDS})", str(tree)],
                                      [sys.executable, "-I", "-S", "-c", WALK, str(tree)],
                                      [*cli, "check", str(tree), "-q"]])
        results.append(("check / grep -rlE", check / grep, "<= 3.0", check / grep <= 3.0))
        print(f"  grep -rlE: {grep:.3f}s; check: {check:.3f}s; the floor of any Python program "
              f"(python -I -S reading every file): {walk:.3f}s = {walk / grep:.1f}x grep")

        out = Path(temp) / "out"
        serial, parallel, floor = compared([
            [*cli, "convert", str(tree), "-o", str(out / "j1"), "-q", "-j", "1"],
            [*cli, "convert", str(tree), "-o", str(out / "j2"), "-q", "-j", "2"],
            [sys.executable, "-c", ROUND_TRIP, *map(str, legacy)]])
        shutil.rmtree(out, ignore_errors=True)
        inside = best_of(lambda: bare_round_trip(legacy))
        results.append(("convert -j1 / ruamel round trip", serial / floor, "<= 1.3",
                        serial / floor <= 1.3))
        results.append(("convert -j1 / convert -j2 (speed-up)", serial / parallel, ">= 1.6",
                        serial / parallel >= 1.6))
        print(f"  convert -j1: {serial:.3f}s; -j2: {parallel:.3f}s; ruamel round trip of the "
              f"legacy files: {floor:.3f}s as a process ({inside:.3f}s inside this one)")

        one = tree / "team1" / "app1" / "m1.yaml"
        hook, import_yaml = compared([[*cli, "check", str(one)],
                                      [sys.executable, "-c", "import yaml"]], repeat=7)
        results.append(("hook check of 1 file / import yaml", hook / import_yaml, "<= 2.0",
                        hook / import_yaml <= 2.0))
        print(f"  check of one ordinary file: {hook * 1000:.0f} ms; "
              f"python -c 'import yaml': {import_yaml * 1000:.0f} ms")

        big = peak_rss_mb([*cli, "convert", str(tree), "-o", str(Path(temp) / "o1"), "-q",
                           "-j", "1"])
        little = peak_rss_mb([*cli, "convert", str(small), "-o", str(Path(temp) / "o2"), "-q",
                              "-j", "1"])
        results.append((f"peak RSS {args.files} files / {args.files // 5} files", big / little,
                        "<= 1.5", big / little <= 1.5))
        print(f"  peak RSS: {big:.0f} MiB ({args.files} files) vs {little:.0f} MiB "
              f"({args.files // 5} files, {len(small_legacy)} legacy)")
    print()
    width = max(len(name) for name, *_ in results)
    for name, ratio, goal, ok in results:
        print(f"{name:<{width}}  {ratio:6.2f}  goal {goal:<7} {'met' if ok else 'MISSED'}")
    return 0 if all(ok for *_, ok in results) else 1


if __name__ == "__main__":
    assert resource  # POSIX only (peak memory)
    sys.exit(main())
