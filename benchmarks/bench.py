#!/usr/bin/env python3
"""Benchmark: a realistic tree of manifests, the CLI timed against simple floors.

    python benchmarks/bench.py [--files 5000] [--legacy-share 0.05] [--repeat 5] [--scale]
                               [--only tree,linear,startup,deep,scale]

The tree holds ``--files`` YAML files: a ``--legacy-share`` of them are legacy jobs of every
kind (the fixture inputs of all kinds, renamed), the rest ordinary Kubernetes manifests. Each
goal is a ratio measured in the same run on the same machine, and is printed with its verdict
(issue 18):

- cold check over the tree       <= 15x grep -rlE 'kind: *(PyTorchJob|...)' over it
                                    (no results cached; the catalog cache warm)
- warm check, tree unchanged     <=  3x grep (the results cache filled by an earlier check)
- warm check, 10 files changed   <=  4x grep (10 legacy files edited before every run)
- convert -o, --jobs 1           <= 1.3x a bare ruamel.yaml round trip of the legacy files, run
                                    as a process of its own like the CLI
- convert -o, --jobs 2           >= 1.6x faster than --jobs 1
- hook-style check of one file   <= 1.5x python -c "import yaml" (``-X importtime``'s top
                                    five imports of that run are printed)
- linear: one job with a 1k, 10k and 100k-item ``command`` list, a 1k/10k/100k-entry
  annotation and label map (converted, so the emitter runs) and a 1 MB / 10 MB env value,
  converted inside one warm process: 100k items < 5 s, and each tenfold input costs at most
  15x the time of the smaller one (linear, with room for noise)
- deep nesting: a 60 KB document nested 30,000 levels is refused (finding Y104, exit 1 or 2),
  never a crash (signal) or a traceback, in well under a second of conversion
- peak memory (RSS) of check over the tree <= 1.5x that over a fifth of it
- ``--scale``: a 100,000-file tree (5% legacy) checked cold: peak RSS <= 1.5x that of the
  ``--files`` tree, time per file <= 1.5x (linear in the file count)

Commands compared with each other run in turn, ``--repeat`` times (those of well under a
second, the warm checks and the hook, at least 10 times, as hyperfine does), and the best
time of each counts (the machine may be shared; a busy spell then weighs on all of them
alike; the load average is printed with each section). Also printed, to explain the figures,
the floors: any Python program over the tree (an interpreter started with -I -S that only
walks the tree and reads every file; one that only stats every file), ``python -c pass`` and
``import click``; for the --jobs 2 speed-up, its ceiling on this machine in this run (a
fixed CPU-bound loop in one process, and split across two); for the cold check, a program
that reads every file and loads the legacy ones with the fastest YAML loader there is in
Python (libyaml, safe: no round-trip objects, no comments), and the same with the loads
split across the CPUs; for the warm check, one that stats every file and loads a results
entry as large as the CLI's (with and without importing click), and for the 10 changed
files, the same plus importing ruamel.yaml and loading the 10 changed files with libyaml,
and the same with this tool's converter imported and run on them in one process (what any
run in a fresh process pays: only a process that stays loaded between runs would not); for
the hook, ``python -c pass`` and ``import click``. Each goal's floor (the speed-up's
ceiling) is printed next to its verdict ("goal X, floor Y, we are at Z"). Also the round
trip timed inside this process, and the first run after an install (the per-user catalog
cache still cold). Every CLI run uses a cache folder of its own in the temporary tree.

Exit status 0 when every goal is met, 1 otherwise (the figures are printed either way).
"""

from __future__ import annotations

import argparse
import io
import json
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

Result = tuple[str, float, str, bool]
# commands of well under a second (warm checks, the hook) run at least this many times, as
# hyperfine does: the best of 5 short runs is often a busy spell of a shared machine
SHORT_RUNS = 10


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
    folders = max(40, files // 125)  # about 18 files per folder, as in a real repository
    for i in range(files):
        path = root / f"team{i % folders}" / f"app{i % 7}" / f"m{i}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        if i % every == 0:
            text = legacy_texts[(i // every) % len(legacy_texts)]
            path.write_text(text.replace("name: ", f"name: b{i}-", 1), encoding="utf-8")
            legacy.append(path)
        else:
            path.write_text(ORDINARY[i % 2].format(i=i), encoding="utf-8")
    return legacy


def compared(commands: list[list[str]], repeat: int = 5, cwd: Path | None = None,
             before: Callable[[int], None] | None = None) -> list[float]:
    """Best wall time of each command, the commands run in turn ``repeat`` times (so that a
    busy spell of a shared machine weighs on all of them alike). ``before(index)`` runs
    (untimed) before each command."""
    best = [float("inf")] * len(commands)
    for _ in range(repeat):
        for index, command in enumerate(commands):
            if before is not None:
                before(index)
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, check=False, cwd=cwd)
            best[index] = min(best[index], time.perf_counter() - started)
            if command[0] == sys.executable and command[1] != "-m" and done.returncode:
                # a floor that fails is fast and wrong: never a figure
                raise RuntimeError(f"a floor failed ({done.returncode}): "
                                   f"{done.stderr.decode(errors='replace')[-800:]}")
    return best


def timed(command: list[str], repeat: int = 3) -> float:
    return compared([command], repeat)[0]


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

STAT = """
import os, sys
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        os.stat(os.path.join(folder, name))
"""

# the floor of a warm check in Python: start (with site, as the CLI), stat every file and
# load the results entry (argv[2]: each of its lines is JSON); FLOOR_CLI also imports click
WARM_FLOOR = """
import json, os, sys
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        os.stat(os.path.join(folder, name))
with open(sys.argv[2], "rb") as handle:
    [json.loads(line) for line in handle.read().splitlines()]
"""

# the floor of a cold check in any Python design: read every file and load the legacy ones
# (argv[3:]) with libyaml's safe loader (the fastest YAML parser Python has: no round-trip
# objects, no comments, no conversion, no output); argv[2] == "0" reads and imports only
# (the loads' share is the difference, which workers could split across the CPUs)
COLD_FLOOR = """
import os, sys
from ruamel.yaml import YAML
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        with open(os.path.join(folder, name), "rb") as handle:
            handle.read()
yaml = YAML(typ="safe", pure=False)
for path in sys.argv[3:] if sys.argv[2] == "1" else ():
    with open(path, encoding="utf-8") as handle:
        list(yaml.load_all(handle.read()))
"""

# the floor of a warm check after 10 files changed: WARM_FLOOR's stats and results entry
# (argv[1], argv[2]), then import ruamel.yaml and load the changed files (argv[3:]) as
# COLD_FLOOR does
WARM_CHANGED_FLOOR = WARM_FLOOR + """
from ruamel.yaml import YAML
yaml = YAML(typ="safe", pure=False)
for path in sys.argv[3:]:
    with open(path, encoding="utf-8") as handle:
        list(yaml.load_all(handle.read()))
"""
# what any run in one process pays with this converter after 10 files changed: WARM_FLOOR's
# stats and results entry, then import the converter and convert the changed files (argv[3:])
# through the public API (no CLI, no walk of the tree, no results written): the part above
# WARM_CHANGED_FLOOR is the converter's import and work, which only a process that stays
# loaded between runs would not pay
WARM_CONVERTER_FLOOR = WARM_FLOOR + """
from migrator import convert_text
for path in sys.argv[3:]:
    with open(path, encoding="utf-8") as handle:
        convert_text(handle.read(), render=False)  # findings only, as check
"""
# the ceiling of any speed-up from a second process on this machine: argv[1] processes share
# a fixed amount of CPU-bound work (no files, no imports, nothing to wait for); the time of
# "1" over that of "2" is what two CPUs give at best in this run (a shared or throttled
# machine gives less than 2)
BUSY = """
import os, sys
share = 8_000_000 // int(sys.argv[1])
children = [os.fork() for _ in range(int(sys.argv[1]) - 1)]
if 0 in children:
    children = []
total = 0
for i in range(share):
    total += i & 7
for child in children:
    os.waitpid(child, 0)
"""
FLOORS: dict[str, float] = {}  # goal name -> the floor's ratio, printed with the verdicts


def bare_round_trip(paths: list[Path]) -> None:
    """The round trip of ROUND_TRIP, inside this process (no start-up, ruamel imported)."""
    from ruamel.yaml import YAML

    for path in paths:
        yaml = YAML()
        out = io.StringIO()
        yaml.dump_all(list(yaml.load_all(path.read_text(encoding="utf-8"))), out)


def peak_rss_mb(command: list[str]) -> tuple[float, float]:
    """Peak resident memory of a child process in MiB, and its wall time."""
    code = ("import resource, subprocess, sys, time; t = time.perf_counter();"
            " subprocess.run(sys.argv[1:], capture_output=True);"
            " print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,"
            " time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code, *command], capture_output=True,
                         text=True, check=True)
    rss, seconds = out.stdout.split()
    return int(rss) / 1024, float(seconds)


def cache_supported(cli: list[str]) -> bool:
    """Whether this version of the CLI has the results cache (``--no-cache``)."""
    out = subprocess.run([*cli, "check", "--help"], capture_output=True, text=True, check=False)
    return "--no-cache" in out.stdout


# ---------------------------------------------------------------------------- the tree


def tree_goals(args: argparse.Namespace, temp: Path, cli: list[str]) -> list[Result]:
    results: list[Result] = []
    tree = temp / "tree"
    legacy = make_tree(tree, args.files, args.legacy_share)
    small = temp / "small"
    small_legacy = make_tree(small, args.files // 5, args.legacy_share)
    print(f"tree: {args.files} files, {len(legacy)} legacy ({args.legacy_share:.0%}); "
          f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}")
    cold = timed([*cli, "check", str(legacy[0])], repeat=1)
    warm = timed([*cli, "check", str(legacy[0])])
    print(f"  check of one legacy file: {cold:.3f}s on the first run after an install "
          f"(catalog cache cold), {warm:.3f}s after")

    grep_command = ["grep", "-rlE", f"kind: *({KINDS})", str(tree)]
    has_cache = cache_supported(cli)
    no_cache = ["--no-cache"] if has_cache else []

    def forget_results(index: int) -> None:  # cold: no results cached, the catalog cached
        for entry in (temp / "cache").glob("results-*"):
            entry.unlink()

    grep, walk, stat, bare, started, click, cold_floor, unloaded, check = compared([
        grep_command, [sys.executable, "-I", "-S", "-c", WALK, str(tree)],
        [sys.executable, "-I", "-S", "-c", STAT, str(tree)],
        [sys.executable, "-I", "-S", "-c", "pass"], [sys.executable, "-c", "pass"],
        [sys.executable, "-c", "import click"],
        [sys.executable, "-c", COLD_FLOOR, str(tree), "1", *map(str, legacy)],
        [sys.executable, "-c", COLD_FLOOR, str(tree), "0"],
        [*cli, "check", str(tree), "-q"]], args.repeat, before=forget_results)
    cpus = os.cpu_count() or 1
    split = unloaded + (cold_floor - unloaded) / cpus  # the loads shared by every CPU
    results.append(("cold check / grep -rlE", check / grep, "<= 15", check / grep <= 15))
    FLOORS["cold check / grep -rlE"] = split / grep
    print(f"  grep -rlE: {grep:.3f}s; cold check: {check:.3f}s; floors of any Python program: "
          f"reading every file {walk:.3f}s = {walk / grep:.1f}x grep, "
          f"stat of every file {stat:.3f}s = {stat / grep:.1f}x grep (both -I -S: "
          f"{bare:.3f}s of it is the bare interpreter)")
    print(f"  start-up: python -c pass {started:.3f}s = {started / grep:.1f}x grep "
          f"(site: {started - bare:.3f}s); python -c 'import click' {click:.3f}s = "
          f"{click / grep:.1f}x grep")
    if started - bare > 0.015:  # a venv's site takes ~2 ms
        print(f"  note: site takes {(started - bare) * 1000:.0f} ms at every start of this "
              f"interpreter ({sys.executable}; .pth files in its site-packages?): every "
              "Python figure here carries it; a virtual environment may start faster "
              "(docs/performance.md)")
    print(f"  cold floor (python, read every file, import ruamel.yaml, libyaml safe load of "
          f"the {len(legacy)} legacy files, no conversion): {cold_floor:.3f}s = "
          f"{cold_floor / grep:.1f}x grep; without the loads {unloaded:.3f}s; the loads split "
          f"across {cpus} CPUs: {split:.3f}s = {split / grep:.1f}x grep")

    if has_cache:
        subprocess.run([*cli, "check", str(tree), "-q"], capture_output=True, check=False)
        edited = legacy[1:11]
        counter = [0]

        def edit(index: int) -> None:
            if index == 1:  # before the "10 files changed" run
                counter[0] += 1
                for path in edited:
                    with path.open("a", encoding="utf-8") as out:
                        out.write(f"# edit {counter[0]}\n")

        entry = max((temp / "cache").glob("results-*"), key=lambda p: p.stat().st_mtime_ns)
        floor_command = [sys.executable, "-c", WARM_FLOOR, str(tree), str(entry)]
        # the unchanged runs first, on their own: a file edited less than RACY_SECONDS before
        # a run is processed again and not recorded, so runs right after the edits below would
        # not be unchanged ones
        grep, unchanged, floor, floor_cli = compared(
            [grep_command, [*cli, "check", str(tree), "-q"], floor_command,
             [floor_command[0], "-c", "import click\n" + WARM_FLOOR, *floor_command[3:]]],
            max(args.repeat, SHORT_RUNS))
        grep_again, changed, changed_floor, converter_floor = compared(
            [grep_command, [*cli, "check", str(tree), "-q"],
             [sys.executable, "-c", WARM_CHANGED_FLOOR, str(tree), str(entry),
              *map(str, edited)],
             [sys.executable, "-c", WARM_CONVERTER_FLOOR, str(tree), str(entry),
              *map(str, edited)]], max(args.repeat, SHORT_RUNS), before=edit)
        grep = min(grep, grep_again)
        results.append(("warm check, unchanged / grep", unchanged / grep, "<= 3",
                        unchanged / grep <= 3))
        results.append(("warm check, 10 files changed / grep", changed / grep, "<= 4",
                        changed / grep <= 4))
        FLOORS["warm check, unchanged / grep"] = floor / grep
        FLOORS["warm check, 10 files changed / grep"] = changed_floor / grep
        print(f"  warm check: {unchanged:.3f}s unchanged, {changed:.3f}s with 10 legacy files "
              f"changed; grep {grep:.3f}s")
        print(f"  warm floor (python -c: stat every file, load the results entry of "
              f"{entry.stat().st_size // 1024} KB): {floor:.3f}s = {floor / grep:.1f}x grep; "
              f"with 'import click': {floor_cli:.3f}s = {floor_cli / grep:.1f}x grep")
        print(f"  warm floor, 10 files changed (the same, then import ruamel.yaml and load the "
              f"10 files with libyaml): {changed_floor:.3f}s = {changed_floor / grep:.1f}x grep")
        print(f"  the same in one process with this converter (stat every file, load the "
              f"results entry, import the converter, convert the 10 files; no CLI): "
              f"{converter_floor:.3f}s = {converter_floor / grep:.1f}x grep")
        same = [subprocess.run([*cli, "check", str(tree), *flag], capture_output=True,
                               text=True, check=False) for flag in ([], ["--no-cache"])]
        identical = same[0].stdout == same[1].stdout and same[0].returncode == same[1].returncode
        results.append(("warm check output == --no-cache output", float(identical), "== 1",
                        identical))
    else:
        results.append(("warm check (results cache)", float("nan"), "exists", False))
        print("  warm check: this version has no results cache (--no-cache)")

    out = temp / "out"

    def fresh_output(index: int) -> None:  # every convert run writes a new tree
        shutil.rmtree(out, ignore_errors=True)

    serial, parallel, floor, one, two = compared([
        [*cli, "convert", str(tree), "-o", str(out / "j1"), "-q", "-j", "1"],
        [*cli, "convert", str(tree), "-o", str(out / "j2"), "-q", "-j", "2"],
        [sys.executable, "-c", ROUND_TRIP, *map(str, legacy)],
        [sys.executable, "-c", BUSY, "1"], [sys.executable, "-c", BUSY, "2"]], args.repeat,
        before=fresh_output)
    shutil.rmtree(out, ignore_errors=True)
    inside = best_of(lambda: bare_round_trip(legacy))
    results.append(("convert -j1 / ruamel round trip", serial / floor, "<= 1.3",
                    serial / floor <= 1.3))
    results.append(("convert -j1 / convert -j2 (speed-up)", serial / parallel, ">= 1.6",
                    serial / parallel >= 1.6))
    FLOORS["convert -j1 / convert -j2 (speed-up)"] = one / two
    print(f"  convert -j1: {serial:.3f}s; -j2: {parallel:.3f}s; ruamel round trip of the "
          f"legacy files: {floor:.3f}s as a process ({inside:.3f}s inside this one)")
    print(f"  ceiling of a speed-up from 2 processes on this machine now: a fixed CPU-bound "
          f"loop {one:.3f}s in one process, {two:.3f}s split in two ({one / two:.2f}x)")
    cserial, cparallel = compared([[*cli, "check", str(tree), "-q", "-j", "1"],
                                   [*cli, "check", str(tree), "-q", "-j", "2"]],
                                  args.repeat, before=forget_results)
    print(f"  cold check -j1: {cserial:.3f}s; -j2: {cparallel:.3f}s "
          f"({cserial / cparallel:.2f}x)")

    big, _ = peak_rss_mb([*cli, "check", str(tree), "-q", "-j", "1", *no_cache])
    little, _ = peak_rss_mb([*cli, "check", str(small), "-q", "-j", "1", *no_cache])
    results.append((f"peak RSS {args.files} files / {args.files // 5} files", big / little,
                    "<= 1.5", big / little <= 1.5))
    print(f"  peak RSS of check -j1: {big:.0f} MiB ({args.files} files) vs {little:.0f} MiB "
          f"({args.files // 5} files, {len(small_legacy)} legacy)")
    return results


# ---------------------------------------------------------------------------- start-up


def startup_goals(args: argparse.Namespace, temp: Path, cli: list[str]) -> list[Result]:
    one = temp / "one.yaml"
    one.write_text(ORDINARY[0].format(i=1), encoding="utf-8")
    subprocess.run([*cli, "check", str(one)], capture_output=True, check=False)  # caches
    hook, import_yaml, click, started = compared(
        [[*cli, "check", str(one)], [sys.executable, "-c", "import yaml"],
         [sys.executable, "-c", "import click"], [sys.executable, "-c", "pass"]],
        max(args.repeat + 4, SHORT_RUNS))
    FLOORS["hook check of 1 file / import yaml"] = started / import_yaml  # any Python program
    print(f"  check of one ordinary file: {hook * 1000:.0f} ms; "
          f"python -c 'import yaml': {import_yaml * 1000:.0f} ms; floors: python -c pass "
          f"{started * 1000:.0f} ms, python -c 'import click' {click * 1000:.0f} ms "
          f"({click / import_yaml:.2f}x import yaml; python -c pass "
          f"{started / import_yaml:.2f}x)")
    out = subprocess.run([*cli[:1], "-X", "importtime", *cli[1:], "check", str(one)],
                         capture_output=True, text=True, check=False)
    rows: list[tuple[int, int, str]] = []
    for line in out.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "self" not in line:
            own_us, total_us, module = line[len("import time:"):].split("|")
            rows.append((int(total_us), int(own_us), module.rstrip()))
    everything = sum(total for total, _, module in rows if not module.startswith("  "))
    print(f"  -X importtime of that check: {everything / 1000:.0f} ms in all ({len(rows)} "
          "modules); top five by own time, and by cumulative time (ms):")
    by_own = sorted(rows, key=lambda row: -row[1])[:5]
    by_total = sorted(rows, key=lambda row: -row[0])[:5]
    for (_, own, first), (total, _, second) in zip(by_own, by_total, strict=True):
        print(f"    {own / 1000:6.1f}  {first.strip():<34} {total / 1000:6.1f}  {second.strip()}")
    return [("hook check of 1 file / import yaml", hook / import_yaml, "<= 1.5",
             hook / import_yaml <= 1.5)]


# ---------------------------------------------------------------------------- linear


def legacy_job(command: int = 3, mapping: int = 0, env_value: str = "") -> str:
    """A PyTorchJob with a ``command`` list of ``command`` items, ``mapping`` annotations and
    pod labels, and an env value of its own."""
    lines = ["apiVersion: kubeflow.org/v1", "kind: PyTorchJob", "metadata:", "  name: big"]
    if mapping:
        lines += ["  annotations:", *(f"    a{i}: v{i}" for i in range(mapping))]
    lines += ["spec:", "  pytorchReplicaSpecs:", "    Master:", "      replicas: 1",
              "      template:"]
    if mapping:
        lines += ["        metadata:", "          labels:",
                  *(f"            l{i}: v{i}" for i in range(mapping))]
    lines += ["        spec:", "          containers:", "            - name: pytorch",
              "              image: x", "              command:",
              "                - torchrun", *(f"                - arg{i}" for i in range(command))]
    if env_value:
        lines += ["              env:", "                - name: BIG",
                  f"                  value: {env_value}"]
    return "\n".join(lines) + "\n"


LINEAR = """
import json, sys, time
from migrator import convert_text
convert_text(open(sys.argv[1], encoding="utf-8").read())  # warm: imports, catalog
text = open(sys.argv[2], encoding="utf-8").read()
started = time.perf_counter()
result = convert_text(text)
print(json.dumps([time.perf_counter() - started, [d.status for d in result.documents]]))
"""
CASE_LIMIT = 300.0  # seconds; a case that takes longer is reported as at least this


def linear_goals(args: argparse.Namespace, temp: Path, cli: list[str]) -> list[Result]:
    cases = {f"command {n:,}": legacy_job(command=n) for n in (1_000, 10_000, 100_000)}
    cases.update({f"map {n:,}": legacy_job(mapping=n) for n in (1_000, 10_000, 100_000)})
    cases.update({f"env value {mb} MB": legacy_job(env_value="x" * (mb << 20)) for mb in (1, 10)})
    warm = temp / "warm.yaml"
    warm.write_text(legacy_job(), encoding="utf-8")
    seconds: dict[str, float] = {}
    print("  conversion time of one job inside a warm process (status):")
    for name, text in cases.items():
        path = temp / (name.replace(" ", "-").replace(",", "") + ".yaml")
        path.write_text(text, encoding="utf-8")
        try:
            out = subprocess.run([sys.executable, "-c", LINEAR, str(warm), str(path)],
                                 capture_output=True, text=True, check=False,
                                 timeout=CASE_LIMIT)
            taken, status = json.loads(out.stdout) if out.returncode == 0 else \
                (float("nan"), f"exit {out.returncode}")
        except subprocess.TimeoutExpired:
            taken, status = CASE_LIMIT, "timed out"
        seconds[name] = taken
        print(f"    {name:<18} {len(text) / 1e6:6.2f} MB  {taken:8.3f}s  {status}", flush=True)
    results: list[Result] = [("command 100,000 items (s)", seconds["command 100,000"], "< 5",
                              seconds["command 100,000"] < 5)]
    for small, large in (("command 1,000", "command 10,000"),
                         ("command 10,000", "command 100,000"),
                         ("map 1,000", "map 10,000"), ("map 10,000", "map 100,000"),
                         ("env value 1 MB", "env value 10 MB")):
        ratio = seconds[large] / max(seconds[small], 1e-3)
        results.append((f"time {large} / {small} (10x input)", ratio, "<= 15", ratio <= 15))
    return results


# ---------------------------------------------------------------------------- nesting


def deep_goals(args: argparse.Namespace, temp: Path, cli: list[str]) -> list[Result]:
    results: list[Result] = []
    others = []
    for i in range(1, 40):
        others.append(temp / "others" / f"m{i}.yaml")
        others[-1].parent.mkdir(exist_ok=True)
        others[-1].write_text(legacy_inputs()[i % 5].replace("name: ", f"name: o{i}-", 1),
                              encoding="utf-8")
    header = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: deep}\nspec:"
    alone = timed([*cli, "check", str(others[0])])
    for levels, style in ((30_000, "flow"), (30_000, "block"), (10_000, "flow")):
        path = temp / f"deep-{levels}-{style}.yaml"
        if style == "flow":
            path.write_text(f"{header} {'[' * levels}{']' * levels}\n", encoding="utf-8")
        else:  # compact nested sequences: "- - - ... x", one level per two bytes
            path.write_text(f"{header}\n  {'- ' * levels}x\n", encoding="utf-8")
        seconds = timed([*cli, "check", str(path)])
        for jobs in ("1", "2"):
            out = subprocess.run([*cli, "check", str(path), *map(str, others), "-j", jobs],
                                 capture_output=True, text=True, check=False, timeout=600)
            refused = "Y104" in out.stdout + out.stderr
            ok = out.returncode in (1, 2) and refused and "Traceback" not in out.stderr
            print(f"  {levels:,} levels ({style}, {path.stat().st_size // 1024} KB) with 39 "
                  f"other files, -j{jobs}: exit {out.returncode}, "
                  f"{'Y104' if refused else 'no Y104'}")
            results.append((f"{levels:,} levels {style} -j{jobs} refused (Y104), no crash",
                            float(ok), "== 1", ok))
        print(f"  check of the {levels:,}-level file alone: {seconds:.2f}s; of one ordinary "
              f"legacy file: {alone:.2f}s")
        results.append((f"check {levels:,} levels {style} / check of a small job",
                        seconds / alone, "<= 2", seconds / alone <= 2))
    return results


# ---------------------------------------------------------------------------- scale


def scale_goals(args: argparse.Namespace, temp: Path, cli: list[str]) -> list[Result]:
    big_files = 100_000
    base = temp / "tree"
    if not base.is_dir():
        make_tree(base, args.files, args.legacy_share)
    started = time.perf_counter()
    large = temp / "large"
    make_tree(large, big_files, args.legacy_share)
    print(f"  scale: built a {big_files:,}-file tree in {time.perf_counter() - started:.0f}s")
    no_cache = ["--no-cache"] if cache_supported(cli) else []
    runs = {}
    for name, folder, count in (("base", base, args.files), ("large", large, big_files)):
        best = (float("inf"), float("inf"))
        for _ in range(2):
            rss, seconds = peak_rss_mb([*cli, "check", str(folder), "-q", "-j", "1", *no_cache])
            best = (min(best[0], rss), min(best[1], seconds))
        runs[name] = (best[0], best[1], count)
        print(f"  cold check -j1 of {count:,} files: {best[1]:.1f}s "
              f"({best[1] / count * 1e6:.0f} us/file), peak RSS {best[0]:.0f} MiB")
    rss_ratio = runs["large"][0] / runs["base"][0]
    per_file = (runs["large"][1] / big_files) / (runs["base"][1] / args.files)
    return [(f"scale: peak RSS {big_files:,} / {args.files:,} files", rss_ratio, "<= 1.5",
             rss_ratio <= 1.5),
            (f"scale: time per file {big_files:,} / {args.files:,} files", per_file, "<= 1.5",
             per_file <= 1.5)]


SECTIONS: dict[str, Callable[[argparse.Namespace, Path, list[str]], list[Result]]] = {
    "tree": tree_goals, "startup": startup_goals, "linear": linear_goals, "deep": deep_goals,
    "scale": scale_goals}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--legacy-share", type=float, default=0.05)
    parser.add_argument("--repeat", type=int, default=5, help="runs per compared command")
    parser.add_argument("--scale", action="store_true",
                        help="also the 100,000-file tree (takes several minutes)")
    parser.add_argument("--only", help="comma-separated sections: " + ",".join(SECTIONS))
    args = parser.parse_args()
    wanted = args.only.split(",") if args.only else \
        [name for name in SECTIONS if name != "scale" or args.scale]
    unknown = set(wanted) - SECTIONS.keys()
    if unknown:
        parser.error(f"unknown sections {sorted(unknown)}")
    cli = [sys.executable, "-m", "migrator"]
    import compileall

    # byte-code as an installed wheel has it (PYTHONDONTWRITEBYTECODE would otherwise make
    # every CLI run compile the package anew)
    compileall.compile_dir(str(ROOT / "migrator"), quiet=1)
    results: list[Result] = []
    with tempfile.TemporaryDirectory() as name:
        temp = Path(name)
        os.environ["TRAINJOB_MIGRATE_CACHE_DIR"] = str(temp / "cache")
        os.environ.pop("TRAINJOB_MIGRATE_NO_CACHE", None)
        for section in SECTIONS:
            if section in wanted:
                load = " ".join(f"{x:.2f}" for x in os.getloadavg())
                print(f"[{section}] (load average {load})", flush=True)
                results += SECTIONS[section](args, temp, cli)
    print()
    width = max(len(name) for name, *_ in results)
    for name, ratio, goal, ok in results:
        bound = "ceiling" if goal.startswith(">=") else "floor"
        floor = f"  ({bound} {FLOORS[name]:.2f})" if name in FLOORS else ""
        print(f"{name:<{width}}  {ratio:8.2f}  goal {goal:<7} {'met' if ok else 'MISSED'}"
              f"{floor}")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if all(ok for *_, ok in results) else 1


if __name__ == "__main__":
    assert resource  # POSIX only (peak memory)
    sys.exit(main())
