#!/usr/bin/env python3
"""Measure the reports at repository scale: the corpus (../shared/corpus) copied N times.

Prints the number of files and documents, the HTML report's size, its first paint and load
time in headless Chromium (median of 3 fresh loads), its search speed and horizontal overflow
at 1400 and 390 px (tests/reports/search_timing.py), and the Markdown report's length.
Figures for the README/issue 17 and 31 (docs/reports.md).

    python scripts/report_scale.py [--times 20] [--keep DIR] [--word pytorchjob]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.reports.browser import CHROMIUM, Browser  # noqa: E402
from tests.reports.helpers import corpus_copies  # noqa: E402
from tests.reports.search_timing import measure, overflow  # noqa: E402

PAINT = ("(() => { const p = performance.getEntriesByType('paint')"
         ".find(e => e.name === 'first-contentful-paint') || "
         "performance.getEntriesByType('paint')[0]; return p ? p.startTime : null; })()")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--times", type=int, default=20)
    parser.add_argument("--keep", type=Path, help="work folder to keep (default: temporary)")
    parser.add_argument("--word", default="pytorchjob",
                        help="typed into the search box a character at a time, then erased")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="report-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        corpus_copies(ROOT.parent / "shared" / "corpus", work / "corpus", args.times)
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "migrator", "check", "corpus", "-q",
                               "--report", "r.html", "--report", "r.md", "--report", "r.json"],
                              cwd=work, capture_output=True, text=True, check=False,
                              env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        seconds = time.monotonic() - started
        print(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "(no output)")
        summary = json.loads((work / "r.json").read_text())["summary"]
        html = (work / "r.html").stat().st_size
        markdown = len((work / "r.md").read_text(encoding="utf-8"))
        print(f"files: {summary['files']}, documents: {sum(summary['documents'].values())}, "
              f"run: {seconds:.1f}s (exit {proc.returncode})")
        print(f"HTML report: {html:,} bytes ({html / 1024 / 1024:.2f} MiB)")
        print(f"Markdown report: {markdown:,} characters")
        if CHROMIUM is None:
            print("chromium not installed: no paint figures")
            return 0
        paints, loads = [], []
        for _ in range(3):
            with Browser() as browser:
                loads.append(browser.open((work / "r.html").as_uri(), 1400))
                paints.append(float(browser.evaluate(PAINT) or 0.0) / 1000)
        print(f"first contentful paint: {statistics.median(paints):.2f}s, load event: "
              f"{statistics.median(loads):.2f}s (median of 3, headless Chromium, 1400 px)")
        for width in (1400, 390):
            with Browser() as browser:
                browser.open((work / "r.html").as_uri(), width)
                before = overflow(browser)
                typed = measure(browser, args.word)
                print(f"{width} px: search, keystroke to results on screen: median "
                      f"{typed['median']:.1f} ms, worst {typed['max']:.1f} ms over "
                      f"{typed['count']} keystrokes (the filter itself: median "
                      f"{typed['work_median']:.1f} ms); horizontal overflow {before} px, after "
                      f"the search {overflow(browser)} px")
        return 0
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
