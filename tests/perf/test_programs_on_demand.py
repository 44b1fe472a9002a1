"""The compiled Trainer model programs are loaded one at a time, when a document of that
version and kind is first checked; a damaged program is judged by pydantic instead."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from migrator.knowledge import apichecks, apimodels

ROOT = Path(__file__).resolve().parents[2]
_CODE = ("import sys; from migrator import convert_text; "
         "from migrator.knowledge import apichecks; "
         "r = convert_text(sys.stdin.read()); "
         "print(sorted(f.code + f.message for d in r.documents for f in d.findings)); "
         "print(len(apichecks.programs()._checkers), file=sys.stderr)")


def _run(job: str, cache: Path) -> tuple[str, str]:
    env = {**os.environ, "TRAINJOB_MIGRATE_CACHE_DIR": str(cache)}
    env.pop("TRAINJOB_MIGRATE_NO_CACHE", None)
    done = subprocess.run([sys.executable, "-c", _CODE], input=job, env=env, check=True,
                          capture_output=True, text=True, timeout=300)
    return done.stdout, done.stderr


def test_a_conversion_loads_only_the_programs_it_checks_with(tmp_path: Path) -> None:
    job = (ROOT / "fixtures" / "pytorchjob" / "full.in.yaml").read_text()
    _run(job, tmp_path / "cache")  # builds the entry
    _, loaded = _run(job, tmp_path / "cache")
    entry = json.loads(next((tmp_path / "cache").glob("shapes-api-*.json")).read_text())
    assert int(loaded.strip().splitlines()[-1]) == 1 < len(entry["models"])


def test_a_damaged_program_is_judged_by_pydantic(tmp_path: Path) -> None:
    """An entry whose layout is right but whose programs are not (only a damaged cache holds
    one): the same findings, no traceback."""
    job = (ROOT / "fixtures" / "pytorchjob" / "full.in.yaml").read_text().replace(
        "replicas: 1", "replicas: -1", 1)
    first, _ = _run(job, tmp_path / "cache")
    path = next((tmp_path / "cache").glob("shapes-api-*.json"))
    entry = json.loads(path.read_text())
    entry["models"] = {name: ["model", "M", "allow", [], ["exec", []]] for name in
                       entry["models"]}
    path.write_text(json.dumps(entry))
    again, errors = _run(job, tmp_path / "cache")
    assert again == first
    assert "Traceback" not in errors


def test_the_sources_of_a_damaged_entry_are_the_models_own() -> None:
    programs = apichecks.Programs({"m": ["model", "M", "allow", [], ["exec", []]]},
                                {"2.2": {"TrainJob": "m"}})
    assert programs.sources == tuple(apimodels.ml_policy_sources())
    assert programs.has("2.2", "TrainJob")
    assert not programs.has("2.2", "TrainingRuntime")
    assert programs.checker("2.2", "TrainJob") is None  # damaged: pydantic judges


def test_every_program_of_the_entry_loads() -> None:
    programs = apichecks.programs()
    for version in programs.versions():
        for kind in ("TrainJob", "TrainingRuntime", "ClusterTrainingRuntime"):
            if programs.has(version, kind):
                assert programs.checker(version, kind) is not None, (version, kind)
    assert programs.sources == tuple(apimodels.ml_policy_sources())
