#!/usr/bin/env python3
"""Measure the shared runtime catalog (``convert --shared-runtimes``) over a corpus, per target.

Runs the CLI of this checkout over the folder (default ../shared/corpus) once per Trainer
target, into a temporary folder, and prints: how many jobs got a companion runtime (S101: on a
shared runtime, S102: kept their companion), how many ClusterTrainingRuntimes the catalog
holds, per framework, and for each runtime its jobs and why it stays apart from the other
variants of its shape (the index's ``whyApart`` keys and fields). Figures for docs/usage.md
"Runtimes for your platform"; nothing here is asserted.

    python scripts/shared_catalog.py [--targets 2.2 2.3] [--corpus DIR] [--keep DIR]
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(corpus: Path, target: str, work: Path) -> dict[str, object]:
    out, folder, report = work / f"out-{target}", work / f"runtimes-{target}", \
        work / f"report-{target}.json"
    subprocess.run([sys.executable, "-m", "migrator", "convert", str(corpus), "-o", str(out),
                    "--shared-runtimes", str(folder), "--target", target, "-j1", "--no-cache",
                    "-q", "--report", str(report)], cwd=ROOT, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    codes = json.loads(report.read_text())["summary"]["codes"]
    index = json.loads((folder / "index.json").read_text())
    return {"shared": codes.get("S101", 0), "kept": codes.get("S102", 0), "index": index}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", nargs="+", default=["2.2", "2.3"])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--keep", type=Path, help="write the runs here instead of a temp dir")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        work = args.keep or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        for target in args.targets:
            found = measure(args.corpus.resolve(), target, work)
            index = found["index"]
            assert isinstance(index, dict)
            runtimes = index["runtimes"]
            frameworks = collections.Counter(name.split("-", 1)[0] for name in runtimes)
            print(f"Trainer {target}: {found['shared']} jobs on {len(runtimes)} shared "
                  f"runtimes ({', '.join(f'{k} {v}' for k, v in sorted(frameworks.items()))}); "
                  f"{found['kept']} jobs keep their companion (S102)")
            for name, entry in runtimes.items():
                why = entry.get("whyApart") or {}
                print(f"  {name}: {len(entry['jobs'])} job(s)")
                for job in entry["jobs"]:
                    print(f"      {job}")
                for key, paths in why.items():
                    print(f"    apart by {key}: " + ", ".join(
                        p.removeprefix("spec.template.spec.") for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
