"""Attack notes 14 and 15: machine output shown on a terminal never carries the input's escape
sequences (clipboard writes, links, screen clears), and the step summary is appended
atomically."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.goldens import FIXTURES, ROOT
from tests.reports.helpers import cli

OSC52 = "\x1b]52;c;cHduZWQ=\x07"
PAGE = f"""# Training {OSC52}

Some prose with a clear-screen \x1b[2J and a link \x1b]8;;http://x\x1b\\\\here\x1b]8;;\x1b\\\\.

```yaml
{(FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text(encoding="utf-8")}```
"""


def _on_a_terminal(*args: str, cwd: Path) -> bytes:
    """Run the CLI with stdout on a pseudo-terminal, as a person at a shell would."""
    primary, secondary = os.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("GITHUB_ACTIONS", None)
    proc = subprocess.Popen([sys.executable, "-m", "migrator", *args], cwd=cwd, env=env,
                            stdout=secondary, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=120)
    os.close(primary)
    return b"".join(chunks)


def test_converted_page_on_a_terminal_shows_escapes_as_text(tmp_path: Path) -> None:
    (tmp_path / "page.md").write_text(PAGE, encoding="utf-8")
    shown = _on_a_terminal("convert", "page.md", cwd=tmp_path)
    assert b"TrainJob" in shown
    assert b"\x1b" not in shown
    assert b"\x07" not in shown
    # redirected to a file, the data stays byte for byte what the page holds
    (tmp_path / "out").mkdir()
    run = cli("convert", "page.md", "-o", "out", cwd=tmp_path)
    assert run.returncode in (0, 1), run.stderr
    assert OSC52 in (tmp_path / "out" / "page.md").read_text(encoding="utf-8")


def test_coloured_diff_escapes_input_but_keeps_its_own_colours(tmp_path: Path) -> None:
    (tmp_path / "page.md").write_text(PAGE, encoding="utf-8")
    shown = _on_a_terminal("diff", "page.md", "--color", "always", cwd=tmp_path)
    assert b"\x1b[32m" in shown  # the tool's own colour
    assert b"\x1b]52" not in shown
    assert b"\x1b[2J" not in shown


def test_step_summary_keeps_earlier_content_and_appends(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n", encoding="utf-8")
    (tmp_path / "job.yaml").write_text(
        (FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text(encoding="utf-8"),
        encoding="utf-8")
    run = cli("check", "job.yaml", cwd=tmp_path, github=True, summary=summary)
    assert run.returncode == 1, run.stderr
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# earlier step\n")
    assert "job.yaml" in text
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_step_summary_on_a_full_disk_is_left_as_it_was(tmp_path: Path) -> None:
    """A summary that cannot be written whole is one line, exit 2, and the file unchanged
    (the disk filling up is played by a file-size limit)."""
    import resource
    import signal

    summary = tmp_path / "summary.md"
    earlier = "# earlier step\n" + "x" * 3000 + "\n"
    summary.write_text(earlier, encoding="utf-8")
    (tmp_path / "job.yaml").write_text(
        (FIXTURES / "pytorchjob" / "full.in.yaml").read_text(encoding="utf-8"),
        encoding="utf-8")
    limit = len(earlier) + 200

    def small_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "GITHUB_ACTIONS": "true",
           "GITHUB_STEP_SUMMARY": str(summary), "TRAINJOB_MIGRATE_NO_CACHE": "1"}
    proc = subprocess.run([sys.executable, "-m", "migrator", "check", "job.yaml"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120, check=False,
                          preexec_fn=small_disk)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert summary.read_text(encoding="utf-8") == earlier
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
