"""The project config file and the runtime choices it drives, through real CLI processes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import ruamel.yaml

from migrator import config
from tests.goldens import FIXTURES
from tests.test_cli import run

TFJOB = FIXTURES / "tfjob" / "no-companion.in.yaml"
PYTORCH = FIXTURES / "pytorchjob" / "minimal.in.yaml"


def _project(tmp_path: Path, source: Path) -> Path:
    shutil.copy(source, tmp_path / source.name)
    return tmp_path / source.name


def test_yaml_config_turns_on_companions_and_target(tmp_path: Path) -> None:
    job = _project(tmp_path, TFJOB)
    (tmp_path / ".trainjob-migrate.yaml").write_text("target: '2.3'\ncompanion-runtimes: true\n")
    nested = tmp_path / "sub"
    nested.mkdir()
    proc = run("convert", str(job), cwd=nested)
    assert proc.returncode == 0, proc.stderr
    assert "kind: TrainingRuntime" in proc.stdout
    assert "name: tf-simple-legacy" in proc.stdout
    assert run("convert", str(job), "--no-companion-runtimes", cwd=nested).returncode == 1


def test_pyproject_table_maps_a_framework_to_a_runtime(tmp_path: Path) -> None:
    job = _project(tmp_path, PYTORCH)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.trainjob-migrate]\nruntimes = {torch = {name = "torch-cuda-251", '
        'kind = "TrainingRuntime"}}\n')
    proc = run("convert", str(job), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "name: torch-cuda-251\n    kind: TrainingRuntime" in proc.stdout


def test_cli_runtime_overrides_config(tmp_path: Path) -> None:
    job = _project(tmp_path, PYTORCH)
    (tmp_path / ".trainjob-migrate.yaml").write_text("runtimes:\n  torch: team-torch\n")
    proc = run("convert", str(job), "--runtime", "other-torch", cwd=tmp_path)
    assert "name: other-torch" in proc.stdout


def test_explicit_config_and_shipped_runtime_refusal(tmp_path: Path) -> None:
    job = _project(tmp_path, PYTORCH)
    settings = tmp_path / "migrate.yaml"
    settings.write_text("runtimes:\n  torch: {name: xgboost-distributed}\n")
    proc = run("convert", str(job), "--config", str(settings), cwd=tmp_path)
    assert proc.returncode == 1
    assert "K106" in proc.stderr
    assert "xgboost" in proc.stderr


@pytest.mark.parametrize("text", [
    "targte: '2.2'\n",
    "target: '2.0'\n",
    "runtimes:\n  pytorch: x\n",
    "runtimes:\n  torch: {name: x, kind: Pod}\n",
    "companion-runtimes: yes please\n",
    "- a list\n",
    "key: [unclosed\n",
])
def test_bad_config_is_a_usage_error(tmp_path: Path, text: str) -> None:
    job = _project(tmp_path, PYTORCH)
    (tmp_path / ".trainjob-migrate.yaml").write_text(text)
    proc = run("convert", str(job), cwd=tmp_path)
    assert proc.returncode == 2
    assert ".trainjob-migrate.yaml" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_find_skips_pyproject_without_table(tmp_path: Path) -> None:
    (tmp_path / ".trainjob-migrate.yaml").write_text("target: '2.3'\n")
    inner = tmp_path / "a"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert config.find(inner) == tmp_path / ".trainjob-migrate.yaml"
    assert config.load(tmp_path / ".trainjob-migrate.yaml").target == "2.3"


CONFIG = """\
target: '2.3'
companion-runtimes: true
fail-on: warning
include: ['*.yaml', 'jobs/**/*.yml']
ignore: [{paths: ['legacy/*'], codes: [F501]}]
"""


def test_a_config_read_again_comes_from_the_cache_as_parsed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second read of an unchanged config gives the same settings without a YAML
    parser; a changed text is parsed again; a tampered or foreign entry is not used."""
    monkeypatch.setenv("TRAINJOB_MIGRATE_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / ".trainjob-migrate.yaml"
    path.write_text(CONFIG)
    parsed = config.load(path)
    (entry,) = (tmp_path / "cache").glob("config-*.json")

    def refused(*_: object, **__: object) -> object:
        raise AssertionError("the config was parsed again")
    with monkeypatch.context() as patched:
        patched.setattr(ruamel.yaml, "YAML", refused)
        assert config.load(path) == parsed
    path.write_text(CONFIG.replace("'2.3'", "'2.2'"))  # another text: parsed, not replayed
    assert config.load(path).target == "2.2"
    data = json.loads(entry.read_text())
    data["data"]["target"] = "2.3"  # a wrong value under the right digest is validated again
    data["data"]["bogus"] = 1
    entry.write_text(json.dumps(data))
    with pytest.raises(config.ConfigError, match="bogus: unknown setting"):
        config.load(path)
    data["data"] = {"target": {"no": "plain"}, "x": float("nan")}
    entry.write_text(json.dumps(data))  # not plain JSON data: parsed again
    assert config.load(path).target == "2.2"


def test_a_config_json_cannot_hold_is_parsed_every_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAINJOB_MIGRATE_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / ".trainjob-migrate.yaml"
    path.write_text("target: 2.2\n1: 2020-01-01\n")  # a number key, a date
    for _ in range(2):
        with pytest.raises(config.ConfigError, match="1: unknown setting"):
            config.load(path)
    assert not list((tmp_path / "cache").glob("config-*.json"))
