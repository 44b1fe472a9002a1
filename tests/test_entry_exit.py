"""The process entry (``migrator.__main__.entry``: the ``trainjob-migrate`` script, ``python -m
migrator``) ends the process as soon as the run's output is written, without the
interpreter's teardown (the time saved): the exit code and every line are those of a
normal exit, and exit handlers still run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.goldens import FIXTURES, ROOT

DRIVER = """
import atexit, sys
marker, function = sys.argv[1], sys.argv[2]
class Cycle:
    def __del__(self, open=open):  # (builtins may be gone by then)
        open(marker + ".teardown", "w").close()
def handler():
    open(marker + ".atexit", "w").close()
    cycle = Cycle()
    cycle.itself = cycle  # garbage from now on: the collector of the teardown finds it
atexit.register(handler)
import migrator.__main__ as entry
sys.argv = ["trainjob-migrate", *sys.argv[3:]]
getattr(entry, function)()
"""


def _run(tmp_path: Path, *argv: str, function: str = "entry"
         ) -> tuple[subprocess.CompletedProcess[str], Path]:
    marker = tmp_path / function
    proc = subprocess.run([sys.executable, "-c", DRIVER, str(marker), function, *argv],
                          capture_output=True, text=True, check=False, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT),
                               "TRAINJOB_MIGRATE_CACHE_DIR": str(tmp_path / "cache")})
    return proc, marker


@pytest.mark.parametrize("argv", [
    ["check", str(FIXTURES / "pytorchjob" / "full.in.yaml")],  # legacy found: 1
    ["check", str(FIXTURES / "pytorchjob" / "full.v2.2.out.yaml")],  # nothing to do: 0
    ["check", "--target", "9.9", "x.yaml"],  # a usage error: 2
    ["convert", str(FIXTURES / "pytorchjob" / "full.in.yaml")],  # click's path, to stdout
])
def test_the_entry_ends_as_a_normal_exit_would_without_the_teardown(
        tmp_path: Path, argv: list[str]) -> None:
    fast, marker = _run(tmp_path, *argv)
    normal, normal_marker = _run(tmp_path, *argv, function="run")
    assert (fast.returncode, fast.stdout, fast.stderr) == \
        (normal.returncode, normal.stdout, _timeless(normal.stderr, fast.stderr))
    assert fast.stdout or fast.stderr
    assert Path(f"{marker}.atexit").exists()
    assert Path(f"{normal_marker}.atexit").exists()
    assert Path(f"{normal_marker}.teardown").exists()  # ``run`` returns into the interpreter
    assert not Path(f"{marker}.teardown").exists()  # ``entry`` ends the process at once


def _timeless(normal: str, fast: str) -> str:
    """``normal``, its summary's timing taken from ``fast`` (runs differ in it)."""
    import re

    timing = re.compile(r"\(\d+\.\d+s\)$", re.M)
    found = timing.search(fast)
    return timing.sub(found.group(0), normal) if found else normal


FALLBACK = """
import sys, threading, time
import migrator.__main__ as entry
case = sys.argv[1]
code = 1
if case == "thread":
    threading.Thread(target=time.sleep, args=(0.5,)).start()
elif case == "tracer":
    sys.settrace(lambda *args: None)
elif case == "text":
    code = "a message, not a number"
elif case == "large":
    code = 300
elif case == "enum":  # the click-free path's usage error: an IntEnum, ends at once
    from migrator.errors import ExitCode
    code = ExitCode.USAGE
elif case == "flush":
    class Full:
        def write(self, text): return len(text)
        def flush(self): raise OSError(28, "No space left on device")
    sys.stdout = Full()
entry._end_now(code)
sys.stderr.write("returned\\n")
"""


@pytest.mark.parametrize("case", ["thread", "tracer", "text", "large", "flush", "warnings"])
def test_the_end_is_left_to_the_interpreter_when_it_has_more_to_do(case: str) -> None:
    """Another thread running, a tracer, an exit code that is not a small integer, a stream
    that cannot be flushed, warning options: ``_end_now`` returns (the interpreter ends the
    process as it always has: it waits for the thread, reports the message or the failed
    flush, warns of what is left open)."""
    options = ["-W", "always::ResourceWarning"] if case == "warnings" else []
    proc = subprocess.run([sys.executable, *options, "-c", FALLBACK, case],
                          capture_output=True, text=True, check=False, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "returned" in proc.stderr, (proc.returncode, proc.stderr)


@pytest.mark.parametrize(("case", "code"), [("none", 1), ("enum", 2)])
def test_the_end_is_at_once_otherwise(case: str, code: int) -> None:
    proc = subprocess.run([sys.executable, "-c", FALLBACK, case], capture_output=True,
                          text=True, check=False, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (proc.returncode, proc.stderr) == (code, "")
