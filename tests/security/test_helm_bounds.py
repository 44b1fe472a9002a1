"""Issue 30 item 10: what ``--helm`` reads of the renderer is bounded.

The renderer's output is read as it comes and the renderer stopped past ``--max-file-size``
(reported, naming the cap); the renderer runs under a memory limit.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from tests.security.support import run, said

ENDLESS = """\
import sys
line = b"# padding padding padding padding padding padding padding padding\\n" * 1024
sys.stdout.buffer.write(b"apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: x\\n")
while True:
    sys.stdout.buffer.write(line)
"""

LIMIT = """\
import resource, sys
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
open(sys.argv[0] + ".limit", "w").write(f"{soft} {hard}")
print("apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: x")
"""


def _chart(tmp_path: Path, program: str) -> tuple[Path, Path]:
    tools = tmp_path / "tools"
    tools.mkdir()
    helm = tools / "helm"
    helm.write_text(f"#!{sys.executable}\n{program}")
    helm.chmod(0o755)
    work = tmp_path / "work"
    (work / "chart" / "templates").mkdir(parents=True)
    (work / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (work / "chart" / "templates" / "cm.yaml").write_text("kind: ConfigMap\n")
    return work, helm


def test_endless_helm_output_stops_at_the_size_cap(tmp_path: Path) -> None:
    work, helm = _chart(tmp_path, ENDLESS)
    started = time.monotonic()
    # under 1.5 GiB of address space: reading the output whole ends in MemoryError
    proc = run(["check", "--helm", "--no-cache", "--max-file-size", "2000000", "."], cwd=work,
               extra_env={"PATH": f"{helm.parent}:/usr/bin:/bin"}, timeout=100,
               memory_limit=3 << 29)
    assert time.monotonic() - started < 60
    assert "Traceback" not in said(proc), said(proc)
    assert "printed more than the 2000000-byte cap (--max-file-size)" in said(proc), said(proc)
    assert "Y102" in said(proc), said(proc)
    assert proc.returncode == 2, said(proc)


def test_helm_runs_under_a_memory_limit(tmp_path: Path) -> None:
    work, helm = _chart(tmp_path, LIMIT)
    proc = run(["check", "--helm", "--no-cache", "."], cwd=work,
               extra_env={"PATH": f"{helm.parent}:/usr/bin:/bin"})
    assert proc.returncode == 0, said(proc)
    soft, hard = (int(n) for n in (helm.parent / "helm.limit").read_text().split())
    assert 0 < soft <= 4 << 30
    assert 0 < hard <= 4 << 30


LEAVES_A_PRINTER = """\
import os, signal, sys, time
pid = os.fork()
if pid == 0:  # what helm started: prints once helm has ended, then stays
    # (it names itself before printing: the cap may stop the group before helm could name it)
    with open(sys.argv[0] + ".pid", "w") as out:
        out.write(str(os.getpid()))
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    line = b"# padding padding padding padding padding padding padding padding\\n" * 1024
    try:
        while True:
            sys.stdout.buffer.write(line)
    except OSError:
        while True:
            time.sleep(1)
os._exit(0)
"""


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as status:
            return not any(line.split()[1:2] == ["Z"] for line in status
                           if line.startswith("State:"))
    except FileNotFoundError:
        return False


def test_what_helm_started_is_stopped_with_it(tmp_path: Path) -> None:
    work, helm = _chart(tmp_path, LEAVES_A_PRINTER)
    proc = run(["check", "--helm", "--no-cache", "--max-file-size", "1000000", "."], cwd=work,
               extra_env={"PATH": f"{helm.parent}:/usr/bin:/bin"}, timeout=100)
    assert "printed more than the 1000000-byte cap" in said(proc), said(proc)
    pid = int((helm.parent / "helm.pid").read_text())
    for _ in range(50):
        if not _running(pid):
            break
        time.sleep(0.1)
    try:
        assert not _running(pid), "helm's child still runs"
    finally:
        if _running(pid):
            os.kill(pid, signal.SIGKILL)
