"""Decoding inputs: encodings, BOMs, newlines, binary files."""

from __future__ import annotations

import codecs
from pathlib import Path

from migrator.batch import discovery
from migrator.load import sources


def test_utf8_bom_and_crlf_round_trip() -> None:
    data = codecs.BOM_UTF8 + b"a: 1\r\nb: 2\r\n"
    decoded = sources.decode("x", data)
    assert isinstance(decoded, sources.SourceText)
    assert decoded.text == "a: 1\nb: 2\n"
    assert decoded.encode(decoded.text) == data


def test_utf16_is_decoded() -> None:
    data = codecs.BOM_UTF16_LE + "kind: A\n".encode("utf-16-le")
    decoded = sources.decode("x", data)
    assert isinstance(decoded, sources.SourceText)
    assert decoded.text == "kind: A\n"
    assert decoded.encode(decoded.text) == data


def test_latin1_and_binary_are_unreadable() -> None:
    latin = sources.decode("x", "name: caf\xe9\n".encode("latin-1"))
    assert isinstance(latin, sources.Unreadable)
    assert "UTF-8" in latin.reason
    binary = sources.decode("x", b"\x00\x01\x02")
    assert isinstance(binary, sources.Unreadable)


def test_discover_walks_yaml_files_sorted(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / ".hidden").mkdir()
    for name in ("b/z.yaml", "a.yml", "c.txt", ".hidden/x.yaml"):
        (tmp_path / name).write_text("a: 1\n")
    found = [rel for _, rel in discovery.discover((str(tmp_path),))]
    assert found == ["a.yml", "b/z.yaml"]


def test_missing_file_is_unreadable(tmp_path: Path) -> None:
    result = sources.read(str(tmp_path / "nope.yaml"))
    assert isinstance(result, sources.Unreadable)
