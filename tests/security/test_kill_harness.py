"""The kill-test harness (issue 12): signals at random moments never leave a partial file,
a stray temporary file or a destroyed report.

By default (CI) a few iterations: two early signals over a 2,000-file tree and two while
the reports of a small tree are written (a random seed each time; it is printed on failure
and ``TRAINJOB_KILL_SEED`` repeats it). The local profile runs the full series:
``TRAINJOB_KILL_ITERATIONS=100 python -m pytest tests/security/test_kill_harness.py``
(2,000 files, signals anywhere in the run, every fourth one while reports are written).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from tests.security.kill_harness import Tree, _command, series

LOCAL = int(os.environ.get("TRAINJOB_KILL_ITERATIONS", "0"))
SEED = int(os.environ.get("TRAINJOB_KILL_SEED", str(random.SystemRandom().randrange(1 << 30))))


@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
def test_signals_during_a_large_in_place_run(tmp_path: Path) -> None:
    if LOCAL:
        figures = series(tmp_path / "tree", LOCAL, 2000, seed=SEED, report_every=4,
                         max_lines=2000)
    else:
        figures = series(tmp_path / "tree", 2, 2000, seed=SEED, report_every=0, max_lines=60)
    assert figures.failures == [], f"seed {SEED}"
    assert figures.iterations == (LOCAL or 2)


@pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")
def test_signals_while_reports_are_written(tmp_path: Path) -> None:
    figures = series(tmp_path / "tree", 2, 20, seed=SEED, report_every=1, max_lines=20)
    assert figures.failures == [], f"seed {SEED}"
    assert figures.report_phase == 2


def test_the_harness_accepts_only_a_complete_leftover_and_the_next_run_removes_it(
        tmp_path: Path) -> None:
    """What a SIGKILL between naming and renaming leaves (the complete new content under
    ``.NAME.XXXXXXXX.tmp``) passes the inspection only when complete, and only until the
    next run, which must remove it."""
    tree = Tree(tmp_path / "tree", 4)
    tree.prepare_reports(reference=False)
    tree.reset()
    complete = tree.base / "d000" / ".f00000.yaml.0123abcd.tmp"
    complete.write_text(tree.conversions["d000/f00000.yaml"])
    partial = tree.base / "d000" / ".f00002.yaml.89abcdef.tmp"
    partial.write_text(tree.conversions["d000/f00002.yaml"][:40])
    os.utime(complete, (0, 0))
    problems, leftovers = tree.inspect(False, killed=True)
    assert leftovers == [complete]
    assert problems == ["stray file d000/.f00002.yaml.89abcdef.tmp (40 bytes)"]
    partial.unlink()
    assert tree.inspect(False, killed=False)[0] == [
        f"stray file d000/.f00000.yaml.0123abcd.tmp ({complete.stat().st_size} bytes)"]
    assert _command(tree.base, jobs=1, backup=False).returncode == 0
    assert tree.inspect(False, settled=True) == ([], [])
