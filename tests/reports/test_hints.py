"""Issue 31: fix texts name options that exist, and never tell the user to pass an option the
command line gave (or one that cannot apply to the finding)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click
import pytest

from migrator.batch import runner, writer
from migrator.check import validate
from migrator.cli import main
from migrator.convert import hints
from migrator.convert.rules import contract, podtemplate
from migrator.knowledge import catalog
from migrator.results import Finding, Severity
from tests.goldens import FIXTURES
from tests.reports.helpers import cli

ROOT = Path(__file__).resolve().parents[2]
FIXES = {code: doc.fix for code, doc in catalog.load().codes.items()}  # mappings/codes.yaml
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
EMBEDDED = [FIXTURES / "argo" / "cron-kueue.in.yaml",
            FIXTURES / "argo" / "train-then-clean-up.in.yaml",
            FIXTURES / "argo" / "workflow-template.in.yaml",
            FIXTURES / "embedded" / "list.in.yaml"]
RUNTIMES = ROOT.parent / "shared" / "runtimes" / "trainer-v2.2.0"


def _flags() -> set[str]:
    """Every long option of every command of the CLI."""
    ctx = click.Context(main)
    found: set[str] = set()
    for name in main.list_commands(ctx):
        command = main.get_command(ctx, name)
        assert command is not None
        for param in command.params:
            if isinstance(param, click.Option):
                found.update(o for o in (*param.opts, *param.secondary_opts)
                             if o.startswith("--"))
    return found


def _named(text: str) -> set[str]:
    """The options a fix text names (outside `code spans`, which quote other tools)."""
    return set(FLAG.findall(re.sub(r"`[^`]*`", "", text)))


def _report(tmp_path: Path, *args: str | Path) -> list[tuple[str, dict[str, Any]]]:
    report = tmp_path / "r.json"
    run = cli("check", *args, "--report", report)
    assert run.returncode in (0, 1), run.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    return [(doc["file"], finding) for doc in data["documents"] for finding in doc["findings"]]


def _fixes_in_code() -> list[str]:
    return [*podtemplate.FIELD_HINTS.values(), *writer.HINTS.values(), runner.WRITE_FAILED_HINT,
            runner.SHARED_OUTPUT_HINT, hints.NOT_HERE, *contract.LEGACY_ENV_FIXES.values(),
            *validate.RESOLUTION_HINTS.values()]


def test_every_option_a_fix_names_exists() -> None:
    flags = _flags()
    assert {"--companion-runtimes", "--runtime", "--runtimes", "--target"} <= flags
    texts = {f"{code} fix": fix for code, fix in FIXES.items()}
    texts.update({f"hint {n}": text for n, text in enumerate(_fixes_in_code())})
    named = {where: _named(text) for where, text in texts.items()}
    assert any(named.values())
    unknown = {where: sorted(found - flags) for where, found in named.items() if found - flags}
    assert unknown == {}


def test_every_option_a_run_hints_at_exists(tmp_path: Path) -> None:
    """The hints of a whole run over the fixtures (fix texts as the converter fits them)."""
    flags = _flags()
    findings = _report(tmp_path, FIXTURES)
    assert len(findings) > 100
    unknown = {(f["code"], flag) for _, f in findings for flag in _named(f["hint"]) - flags}
    assert unknown == set()


# --- --companion-runtimes: never offered where it cannot apply ----------------------------

ADVISES_COMPANION = re.compile(r"(?i)(\b(use|with|pass)\s+--companion-runtimes\b)|"
                               r"\(--companion-runtimes does\)|(nothing to do with "
                               r"--companion-runtimes)")


OFFERING = {**{code: fix for code, fix in FIXES.items() if "--companion-runtimes" in fix},
            **{f"C410 {framework}": fix for framework, fix in contract.LEGACY_ENV_FIXES.items()
               if "--companion-runtimes" in fix}}


@pytest.mark.parametrize("code", sorted(OFFERING))
def test_every_fix_offering_companion_runtimes_has_an_alternative(code: str) -> None:
    """Each fix that offers --companion-runtimes says what else to do, and that alternative
    is what a job embedded in another object (which gets no companion runtime) is told."""
    fix = OFFERING[code]
    assert ADVISES_COMPANION.search(fix), fix
    finding = hints.for_embedded(Finding(code[:4], Severity.WARNING, "spec", "m", fix))
    assert not ADVISES_COMPANION.search(finding.hint), finding.hint
    assert finding.hint.endswith(hints.NOT_HERE)
    alternative = finding.hint[:-len(hints.NOT_HERE)].strip()
    assert alternative[:1].isupper()
    assert alternative.endswith(".")
    assert "--companion-runtimes" not in alternative
    assert len(alternative) > 20
    assert alternative.rstrip(".").lower() in fix.lower()  # the fix's own words


@pytest.mark.parametrize("given", [["--companion-runtimes"], []])
def test_embedded_jobs_are_not_told_to_use_companion_runtimes(tmp_path: Path,
                                                              given: list[str]) -> None:
    findings = _report(tmp_path, *EMBEDDED, *given)
    offered = [(file, f["code"], f["hint"]) for file, f in findings
               if ADVISES_COMPANION.search(f["hint"])]
    assert offered == []
    told = [f for _, f in findings if hints.NOT_HERE in f["hint"]]
    assert {f["code"] for f in told} >= {"R214", "F531"}


def test_standalone_jobs_are_still_offered_companion_runtimes(tmp_path: Path) -> None:
    findings = _report(tmp_path, FIXTURES / "pytorchjob" / "full.in.yaml")
    assert any(f["hint"].startswith("Use --companion-runtimes") for _, f in findings)


# --- --runtime: a job that names its runtime is told to set the field there ---------------

def test_pod_fields_of_a_named_runtime_are_set_in_that_runtime(tmp_path: Path) -> None:
    full = FIXTURES / "pytorchjob" / "full.in.yaml"
    named = [f for _, f in _report(tmp_path, full, "--runtime", "my-torch") if f["code"] == "P301"]
    assert named
    for finding in named:
        assert "--runtime" not in finding["hint"], finding["hint"]
        assert "my-torch" in finding["hint"]
    (tmp_path / "r.json").unlink()
    plain = [f for _, f in _report(tmp_path, full) if f["code"] == "P301"]
    assert plain
    assert all(f["hint"] == FIXES["P301"] for f in plain)


# --- --target: offered only when a later release accepts the value -----------------------

def _long_command(tmp_path: Path) -> Path:
    text = (FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text(encoding="utf-8")
    long = tmp_path / "long.yaml"
    long.write_text(text.replace('"/app/train.py"', '"' + "x" * 70000 + '"'), encoding="utf-8")
    return long


def test_a_limit_trainer_2_3_raises_offers_target_2_3(tmp_path: Path) -> None:
    limits = [f for _, f in _report(tmp_path, _long_command(tmp_path), "--target", "2.2")
              if f["code"] == "V601"]
    assert limits
    assert all("--target 2.3" in f["hint"] for f in limits)


@pytest.mark.parametrize("target", ["2.2", "2.3"])
def test_a_limit_no_release_raises_never_offers_target(tmp_path: Path, target: str) -> None:
    """numNodes below its minimum is refused by every release: no --target to offer (and a
    run that gives --target 2.3 is never told to use it)."""
    intel = FIXTURES / "mpijob-v2beta1" / "intel.in.yaml"
    limits = [f for _, f in _report(tmp_path, intel, "--companion-runtimes", "--target", target)
              if f["code"] == "V601"]
    assert limits
    assert all("--target" not in f["hint"] for f in limits)


def test_target_2_3_is_never_offered_to_a_run_for_2_3(tmp_path: Path) -> None:
    findings = _report(tmp_path, FIXTURES, _long_command(tmp_path), "--target", "2.3")
    assert [f["code"] for _, f in findings if "--target 2.3" in f["hint"]] == []


# --- --runtimes: an unknown runtimeRef is not answered with "pass --runtimes" -------------

@pytest.mark.skipif(not RUNTIMES.is_dir(), reason="shared runtimes are not available")
def test_unknown_runtime_with_runtimes_given(tmp_path: Path) -> None:
    minimal = FIXTURES / "pytorchjob" / "minimal.in.yaml"
    findings = [f for _, f in _report(tmp_path, minimal, "--runtime", "not-there",
                                      "--runtimes", RUNTIMES) if f["code"] == "V604"]
    assert findings
    for finding in findings:
        assert "not-there" in finding["message"]
        assert "runtimeRef" in finding["hint"]
        assert not re.search(r"(?i)pass (your|the) runtimes? with --runtimes", finding["hint"])


# --- C410: the fix names what Trainer sets for the job's framework --------------------------

@pytest.mark.parametrize(("job", "names", "not_named"), [
    ("jaxjob/full.in.yaml", "JAX_COORDINATOR_ADDRESS", "PET_"),
    ("pytorchjob/legacy-contract.in.yaml", "PET_MASTER_ADDR", "JAX_"),
    ("mpijob-v2beta1/full.in.yaml", "mpirun", "PET_"),
])
def test_legacy_env_fix_fits_the_framework(tmp_path: Path, job: str, names: str,
                                           not_named: str) -> None:
    found = [f for _, f in _report(tmp_path, FIXTURES / job) if f["code"] == "C410"]
    assert found
    for finding in found:
        assert names in finding["hint"], finding["hint"]
        assert not_named not in finding["hint"], finding["hint"]


def test_a_run_with_companion_runtimes_is_never_told_to_use_it(
        tmp_path: Path) -> None:
    findings = _report(tmp_path, FIXTURES, "--companion-runtimes")
    offered = [(file, f["code"]) for file, f in findings if ADVISES_COMPANION.search(f["hint"])
               and f["code"] != "F524"]  # (F524: "nothing to do with --companion-runtimes")
    assert offered == []
