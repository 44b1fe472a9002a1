"""A hook-style run reads a pyproject.toml only when it can name the tool (issue 18.2): a
file without the name is passed over without tomllib; every spelling of the table is read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from migrator import config
from tests.goldens import ROOT

SPELLINGS = [
    '[tool.trainjob-migrate]\ntarget = "2.3"\n',
    '[tool."trainjob-migrate"]\ntarget = "2.3"\n',
    '[tool]\ntrainjob-migrate.target = "2.3"\n',
    '[tool]\ntrainjob-migrate = { target = "2.3" }\n',
    "[ tool . 'trainjob-migrate' ]\ntarget = \"2.3\"\n",
    '[tool."trainjob\\u002dmigrate"]\ntarget = "2.3"\n',  # the name only through an escape
    '[tool."\\u0074rainjob-migrate"]\ntarget = "2.3"\n',
    '[tool.trainjob-migrate.runtimes]\ntorch = "x"\n[tool.trainjob-migrate]\ntarget = "2.3"\n',
    '[ "tool" ]\n"trainjob-migrate".target = "2.3"\n',
    "[\t'tool'\t]\r\ntrainjob-migrate = {target = '2.3'}\r\n",
]
# at the top of the file (before [project]): dotted keys and inline tables
TOP_SPELLINGS = [
    'tool.trainjob-migrate.target = "2.3"\n',
    '"tool" . "trainjob-migrate".target = "2.3"\n',
    'tool = { trainjob-migrate = { target = "2.3" } }\n',
    "tool={'trainjob-migrate'={target='2.3'}}\n",
]


@pytest.mark.parametrize("text", SPELLINGS)
def test_every_spelling_of_the_table_is_read(tmp_path: Path, text: str) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n' + text,
                                             encoding="utf-8")
    found = config.search(tmp_path).path
    assert found == tmp_path / "pyproject.toml"
    assert config.load(found).target == "2.3"


@pytest.mark.parametrize("text", TOP_SPELLINGS)
def test_every_top_level_spelling_of_the_table_is_read(tmp_path: Path, text: str) -> None:
    (tmp_path / "pyproject.toml").write_text(text + '[project]\nname = "x"\n',
                                             encoding="utf-8")
    found = config.search(tmp_path).path
    assert found == tmp_path / "pyproject.toml"
    assert config.load(found).target == "2.3"


def test_a_broken_pyproject_naming_the_table_is_still_ours(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.trainjob-migrate\ntarget = \n",
                                             encoding="utf-8")
    assert config.search(tmp_path).path == tmp_path / "pyproject.toml"


@pytest.mark.parametrize("text", [
    '[project]\nname = "x"\n[tool.ruff]\nline-length = 100\n[tool.other]\nkey = "a"\n',
    # the name as a script, a dependency and a key of another tool's table: not the table
    '[project]\nname = "trainjob-migrate-plugins"\ndependencies = ["trainjob-migrate>=0.1"]\n'
    '[project.scripts]\ntrainjob-migrate = "x:main"\n[tool.other]\ntrainjob-migrate = "a"\n',
])
def test_a_pyproject_without_the_table_is_passed_over_without_tomllib(tmp_path: Path,
                                                                       text: str) -> None:
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    probe = ("import sys\nfrom pathlib import Path\nfrom migrator import config\n"
             f"assert config.search(Path({str(tmp_path)!r})).path is None\n"
             "print('tomllib' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=False, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout.strip().splitlines()[-1:] == ["False"], proc.stdout + proc.stderr
    assert config.search(tmp_path).path is None
