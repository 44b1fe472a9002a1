"""Issue 12 item 9: inputs that are not plain files, endless standard input, other encodings.

Only regular files are read (a FIFO or device met in a walk or named on the command line is
one clear Y102 line, never a hang); standard input obeys ``--max-file-size`` like a file;
UTF-32 (with a byte-order mark) is read and written back as UTF-32, and text that decodes to
NUL characters is refused instead of being silently "0 converted".
"""

from __future__ import annotations

import codecs
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.support import JOB, converted, env, run, said


def test_fifo_in_a_walked_folder_does_not_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "foo.yaml")
    (tmp_path / "job.yaml").write_text(JOB)
    proc = run(["check", "."], cwd=tmp_path, timeout=30)
    assert proc.returncode == 2, said(proc)
    assert "foo.yaml: error Y102" in said(proc)
    assert "not a regular file" in said(proc)
    assert "job.yaml" in said(proc)  # the rest of the batch was checked
    assert "Traceback" not in said(proc)


def test_fifo_does_not_hang_validate(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "foo.yaml")  # validate looks for runtimes in every file first
    (tmp_path / "job.yaml").write_text(JOB)
    proc = run(["validate", "."], cwd=tmp_path, timeout=30)
    assert proc.returncode == 2, said(proc)
    assert "foo.yaml: error Y102" in said(proc)


def test_fifo_named_on_the_command_line_does_not_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "foo.yaml")
    proc = run(["convert", "foo.yaml", "-o", "out"], cwd=tmp_path, timeout=30)
    assert proc.returncode == 2
    assert "foo.yaml: error Y102" in said(proc)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_device_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    proc = run(["check", "zero.yaml"], cwd=tmp_path, timeout=30, memory_limit=2 << 30)
    assert proc.returncode == 2
    assert "zero.yaml: error Y102" in said(proc)
    assert "character device" in said(proc)
    assert "Traceback" not in said(proc)
    walked = run(["check", "."], cwd=tmp_path, timeout=30, memory_limit=2 << 30)
    assert walked.returncode == 0, said(walked)  # a walk follows no link out of its folder


def test_standard_input_obeys_the_size_cap(tmp_path: Path) -> None:
    text = JOB + "# padding\n" * 1000
    proc = run(["check", "--max-file-size", "2000", "-"], cwd=tmp_path,
               input_bytes=text.encode())
    assert proc.returncode == 2, said(proc)
    assert "-: error Y102" in said(proc)
    assert "2000-byte cap" in said(proc)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_endless_standard_input_is_one_line_not_a_memory_error(tmp_path: Path) -> None:
    with open("/dev/zero", "rb") as zero:
        proc = run(["check", "-"], cwd=tmp_path, stdin=zero, timeout=120,
                   memory_limit=2 << 30)
    assert proc.returncode == 2, said(proc)[-2000:]
    assert "MemoryError" not in said(proc)
    assert "Traceback" not in said(proc)
    assert "cap" in said(proc)


@pytest.mark.parametrize("encoding", ["utf-32-le", "utf-32-be"])
def test_utf32_with_a_bom_is_converted_and_kept(tmp_path: Path, encoding: str) -> None:
    bom = codecs.BOM_UTF32_LE if encoding.endswith("le") else codecs.BOM_UTF32_BE
    path = tmp_path / "job.yaml"
    path.write_bytes(bom + JOB.encode(encoding))
    proc = run(["check", "job.yaml"], cwd=tmp_path)
    assert proc.returncode == 1, said(proc)
    assert "PyTorchJob" in said(proc)
    assert run(["convert", "--in-place", "job.yaml"], cwd=tmp_path).returncode == 0
    data = path.read_bytes()
    assert data.startswith(bom)
    assert data[len(bom):].decode(encoding) == converted()


@pytest.mark.parametrize("data", [
    codecs.BOM_UTF16_LE + "kind: PyTorchJob\x00\n".encode("utf-16-le"),
    codecs.BOM_UTF8 + b"kind: PyTorchJob\x00\n",
])
def test_text_with_nul_characters_is_refused(tmp_path: Path, data: bytes) -> None:
    (tmp_path / "odd.yaml").write_bytes(data)
    proc = run(["check", "odd.yaml"], cwd=tmp_path)
    assert proc.returncode == 2, said(proc)
    assert "odd.yaml: error Y102" in said(proc)


def test_a_pipe_on_standard_input_still_works(tmp_path: Path) -> None:
    out = run(["convert", "-"], cwd=tmp_path, input_bytes=JOB.encode())
    assert out.returncode == 0, out.stderr
    assert out.stdout == converted()


def test_closed_standard_input_is_one_line(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "migrator", "check", "-"], cwd=tmp_path,
                          env=env(), capture_output=True, text=True, timeout=60, check=False,
                          preexec_fn=lambda: os.close(0))
    assert proc.returncode == 2, proc.stderr
    assert "standard input is closed" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
