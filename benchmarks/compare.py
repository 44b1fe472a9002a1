#!/usr/bin/env python3
"""Benchmark: two versions of the CLI compared on one tree, interleaved (same load for both).

    python benchmarks/compare.py OLD_DIR NEW_DIR [--files 5000] [--repeat 5] [--cold 2]

OLD_DIR and NEW_DIR are checkouts of the project (e.g. ``git archive <commit> | tar -x -C
DIR``); each runs as ``python -m migrator`` from its own folder with a results cache of its
own. Printed: best wall time of the warm check of the unchanged tree, of the warm check after
10 legacy files changed, of a hook-style check of one ordinary file and of the cold check
(results forgotten, catalog cached), as ratios to ``grep -rlE`` and ``python -c "import
yaml"`` measured in the same loop, with the load average.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # the benchmark's tree


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cold", type=int, default=2, help="cold runs per version")
    args = parser.parse_args()
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as name:
        temp = Path(name)
        tree, one = temp / "tree", temp / "one.yaml"
        edited = bench.make_tree(tree, args.files, 0.05)[1:11]
        one.write_text(bench.ORDINARY[0].format(i=1), encoding="utf-8")
        sides = {"old": args.old.resolve(), "new": args.new.resolve()}

        def run(side: str, *command: str, forget: bool = False) -> float:
            cache = temp / f"cache-{side}"
            if forget:
                for entry in cache.glob("results-*"):
                    entry.unlink()
            env = {**os.environ, "TRAINJOB_MIGRATE_CACHE_DIR": str(cache)}
            env.pop("TRAINJOB_MIGRATE_NO_CACHE", None)
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "migrator", *command], cwd=sides[side],
                           env=env, capture_output=True, check=False)
            return time.perf_counter() - started

        def keep(key: str, seconds: float) -> None:
            best[key] = min(best.get(key, float("inf")), seconds)

        for side in sides:  # fill the catalog and results caches
            run(side, "check", str(tree), "-q")
            run(side, "check", str(one))
        time.sleep(2.2)  # files written just now are not recorded ("racily clean")
        for side in sides:
            run(side, "check", str(tree), "-q")
        grep = ["grep", "-rlE", f"kind: *({bench.KINDS})", str(tree)]
        edits = [0]

        def edit() -> None:  # before each "10 changed" run: what the last run saw changes
            edits[0] += 1
            for path in edited:
                with path.open("a", encoding="utf-8") as out:
                    out.write(f"# edit {edits[0]}\n")

        for _ in range(args.repeat):
            started = time.perf_counter()
            subprocess.run(grep, capture_output=True, check=False)
            keep("grep", time.perf_counter() - started)
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import yaml"], capture_output=True,
                           check=False)
            keep("import yaml", time.perf_counter() - started)
            for side in sides:
                keep(f"{side} warm check", run(side, "check", str(tree), "-q"))
                keep(f"{side} hook check", run(side, "check", str(one)))
        # after the unchanged runs: a file edited less than 2 s before a run is processed again
        # and not recorded, so runs right after the edits would not be unchanged ones
        for _ in range(args.repeat):
            for side in sides:
                edit()
                keep(f"{side} 10 changed", run(side, "check", str(tree), "-q"))
        for _ in range(args.cold):
            for side in sides:
                keep(f"{side} cold check", run(side, "check", str(tree), "-q", forget=True))
                run(side, "check", str(tree), "-q")
    grep_s, yaml_s = best.pop("grep"), best.pop("import yaml")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average {load}; grep -rlE {grep_s:.3f}s; python -c 'import yaml' {yaml_s:.3f}s")
    for key, seconds in sorted(best.items()):
        print(f"  {key:16} {seconds:7.3f}s  {seconds / grep_s:6.1f}x grep  "
              f"{seconds / yaml_s:5.2f}x import yaml")
    return 0


if __name__ == "__main__":
    sys.exit(main())
