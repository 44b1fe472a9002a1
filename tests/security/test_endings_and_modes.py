"""Issue 12 item 13: untouched documents keep their exact bytes; outputs keep the input's mode.

In a file that mixes line endings, the documents that are not converted are written back byte
for byte and a converted one takes the line ending of the document it replaces. An empty or
path-like ``--backup`` suffix is a usage error. Backups keep the input's permission bits, and
files in an ``-o`` tree get the input's bits less the umask (as ``cp`` does), never 0600.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from migrator.cli import main
from tests.security.support import CONFIGMAP, JOB, converted, run, said

CRLF, LF = "\r\n", "\n"


def _lines(text: str, newline: str) -> bytes:
    return text.replace("\n", newline).encode()


@pytest.mark.parametrize(("first", "second"), [(LF, CRLF), (CRLF, LF)])
def test_untouched_document_keeps_its_line_endings(tmp_path: Path, first: str,
                                                   second: str) -> None:
    head = _lines(CONFIGMAP, first)
    path = tmp_path / "mixed.yaml"
    path.write_bytes(head + _lines("---\n" + JOB, second))
    proc = run(["convert", "--in-place", "mixed.yaml"], cwd=tmp_path)
    assert proc.returncode == 0, said(proc)
    data = path.read_bytes()
    assert data.startswith(head), data[:200]
    assert data[len(head):] == _lines("---\n" + converted(), second)


_DOC = st.sampled_from([CONFIGMAP, JOB, "# only a comment\n", "kind: Secret\nx: 1\n"])


@given(documents=st.lists(st.tuples(_DOC, st.sampled_from([LF, CRLF])), min_size=1,
                          max_size=5))
def test_every_untouched_document_is_byte_identical(documents: list[tuple[str, str]]) -> None:
    raw = [_lines(("---\n" if i else "") + doc, nl) for i, (doc, nl) in enumerate(documents)]
    with tempfile.TemporaryDirectory() as temp:
        source = Path(temp, "in", "in.yaml")
        source.parent.mkdir()
        source.write_bytes(b"".join(raw))
        result = CliRunner().invoke(main, ["convert", str(source.parent), "-o",
                                           str(Path(temp, "out")), "-q", "-j", "1"])
        assert result.exit_code == 0, result.output
        out = Path(temp, "out", source.name)
        data = out.read_bytes() if out.exists() else source.read_bytes()
    position = 0
    for (doc, newline), piece in zip(documents, raw, strict=True):
        if doc is JOB:
            mark = _lines("kind: TrainJob\n", newline)
            found = data.find(mark, position)
            assert found >= 0, data
            end = data.find(b"---", found)
            body = data[found: end if end >= 0 else len(data)]
            assert (b"\r\n" in body) == (newline == CRLF)
            assert (b"\n" in body.replace(b"\r\n", b"")) == (newline == LF)
            position = found + len(mark)
        else:
            found = data.find(piece, position)
            assert found >= 0, (piece, data)
            position = found + len(piece)


@pytest.mark.parametrize("suffix", ["", "/", "../x", "sub/x"])
def test_backup_suffix_must_be_a_plain_suffix(tmp_path: Path, suffix: str) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    proc = run(["convert", "--in-place", "--backup", suffix, "job.yaml"], cwd=tmp_path)
    assert proc.returncode == 2, said(proc)
    assert "--backup" in said(proc)
    assert (tmp_path / "job.yaml").read_text() == JOB


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o600, 0o755])
def test_backup_and_outputs_keep_the_input_mode(tmp_path: Path, mode: int) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(JOB)
    job.chmod(mode)
    previous = os.umask(0o022)
    try:
        assert run(["convert", "job.yaml", "-o", "out"], cwd=tmp_path).returncode == 0
        assert run(["convert", "--in-place", "--backup", ".bak", "job.yaml"],
                   cwd=tmp_path).returncode == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "out" / "job.yaml").stat().st_mode) == mode & ~0o022
    assert stat.S_IMODE((tmp_path / "job.yaml.bak").stat().st_mode) == mode
    assert stat.S_IMODE(job.stat().st_mode) == mode


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to own files as another user")
def test_in_place_keeps_the_owner(tmp_path: Path) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(JOB)
    os.chown(job, 4242, 4343)
    assert run(["convert", "--in-place", "--backup", ".bak", "job.yaml"],
               cwd=tmp_path).returncode == 0
    for path in (job, tmp_path / "job.yaml.bak"):
        info = path.stat()
        assert (info.st_uid, info.st_gid) == (4242, 4343), path
