"""Issue 17 packaging: the wheel carries py.typed and the report schema (loadable from the
package), the sdist carries what its own tests need (schemas/, fixtures/, mappings/, docs/)."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.goldens import ROOT


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir",
                           str(out), str(ROOT)], capture_output=True, text=True, timeout=600,
                          check=False)
    if proc.returncode != 0 and "No module named build" in proc.stderr:
        pytest.skip("the build package is not installed")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def test_wheel_has_types_and_the_report_schema(dist: Path) -> None:
    [wheel] = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert "migrator/py.typed" in names
        assert "migrator/report/report.schema.json" in names
        packaged = json.loads(archive.read("migrator/report/report.schema.json"))
    assert packaged == json.loads((ROOT / "schemas" / "report.schema.json").read_text())


def test_sdist_has_what_its_tests_need(dist: Path) -> None:
    [sdist] = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in ("schemas/report.schema.json", "tests/reports/helpers.py",
                   "fixtures/pytorchjob/minimal.in.yaml", "mappings/codes.yaml",
                   "docs/codes.md", "migrator/py.typed", "pyproject.toml"):
        assert needed in names, needed


def test_report_schema_loads_from_the_package() -> None:
    from migrator.report import jsonreport

    schema = jsonreport.schema()
    assert schema == json.loads((ROOT / "schemas" / "report.schema.json").read_text())
