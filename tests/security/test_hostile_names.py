"""Hostile file and folder names in a walked tree (issue 12): every name the file system
allows — newlines, quotes, dashes, backslashes, spaces, non-ASCII — is found, converted in
place with nothing else created, and untouched files stay byte for byte as they were."""

from __future__ import annotations

import os
import string
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from migrator.cli import main
from tests.security.support import CONFIGMAP, JOB, converted, tree

_NAME = st.text(string.ascii_letters + string.digits + " -_.:;'\"$*?[]{}\\\n\r\tåß😀#!",
                min_size=1, max_size=10).filter(lambda n: n not in (".", "..")
                                                and not n.startswith("."))
_ENTRY = st.tuples(st.lists(_NAME, max_size=2), _NAME, st.booleans(), st.booleans())


@given(entries=st.lists(_ENTRY, min_size=1, max_size=6))
def test_hostile_names_in_place(entries: list[tuple[list[str], str, bool, bool]]) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp, "tree")
        root.mkdir()
        expected: dict[str, bytes | str] = {}
        for folders, name, job, crlf in entries:
            path = root.joinpath(*folders, name + ".yaml")
            if any(p.exists() and not p.is_dir() for p in path.parents) or path.exists():
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            text = JOB if job else CONFIGMAP
            data = (text.replace("\n", "\r\n") if crlf else text).encode()
            path.write_bytes(data)
            after = converted() if job else text
            expected[str(path.relative_to(root))] = \
                (after.replace("\n", "\r\n") if crlf else after).encode()
        for key in list(expected):
            for parent in Path(key).parents:
                if str(parent) != ".":
                    expected[str(parent)] = "<dir>"
        result = CliRunner().invoke(main, ["convert", "--in-place", "-q", "-j", "1",
                                           str(root)])
        assert result.exit_code == 0, result.output
        assert tree(root) == expected
        assert not any(name.startswith(".") for _, _, files in os.walk(root) for name in files)
