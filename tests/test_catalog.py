"""The data in mappings/: loads, is consistent, and every code is documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from migrator.convert.engine import TRANSFORMS
from migrator.knowledge import catalog
from tests.goldens import ROOT


def test_catalog_loads_and_targets_exist() -> None:
    loaded = catalog.load()
    assert set(loaded.targets) == {"2.2", "2.3"}
    assert ("kubeflow.org/v1", "PyTorchJob") in loaded.legacy


def test_every_transform_named_in_mappings_exists() -> None:
    for spec in catalog.load().legacy.values():
        for rule in spec.rules:
            if rule.op == "transform":
                assert rule.fn in TRANSFORMS, rule.fn


def test_every_framework_has_a_runtime_in_every_target() -> None:
    loaded = catalog.load()
    for spec in loaded.legacy.values():
        for target in loaded.targets.values():
            assert spec.framework in target.frameworks
            policy = target.policies[target.frameworks[spec.framework].policy]
            assert policy.trainer_job in [job.name for job in policy.jobs]
            assert {role.job for role in spec.replica_specs.roles.values()} <= \
                {job.name for job in policy.jobs}


def test_every_code_used_in_code_is_documented() -> None:
    codes = catalog.load().codes
    used = set()
    for path in (ROOT / "migrator").glob("*.py"):
        used |= set(re.findall(r"\"([A-Z][0-9]{3})\"", path.read_text()))
    used |= catalog.used_codes(catalog.load())
    assert used - codes.keys() == set()
    for code in codes:
        assert re.fullmatch(r"[A-Z][0-9]{3}", code)


def test_every_code_is_in_the_readme_table() -> None:
    readme = (ROOT / "README.md").read_text()
    for code, doc in catalog.load().codes.items():
        assert f"| {code} | {doc.name} | {doc.severity} |" in readme, code


def test_mappings_ship_in_the_wheel_config() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert '"mappings" = "migrator/_mappings"' in text
    assert catalog.mappings_dir().name in ("mappings", "_mappings")
    assert Path(catalog.mappings_dir(), "codes.yaml").is_file()


def _ancestor(job: dict) -> str | None:  # type: ignore[type-arg]
    labels = (job["template"].get("metadata") or {}).get("labels") or {}
    return labels.get("trainer.kubeflow.org/trainjob-ancestor-step")


def _containers(job: dict) -> tuple[str, ...]:  # type: ignore[type-arg]
    return tuple(c["name"] for c in job["template"]["spec"]["template"]["spec"]["containers"])


@pytest.mark.parametrize("version", ["2.2", "2.3"])
def test_default_runtime_catalog_matches_upstream(version: str, shared: Path) -> None:
    from ruamel.yaml import YAML

    upstream, upstream_jobs, upstream_pods = {}, {}, {}
    for path in sorted((shared / "runtimes" / f"trainer-v{version}.0").glob("*.yaml")):
        for doc in YAML(typ="safe", pure=True).load_all(path.read_text()):
            policy = [k for k in doc["spec"]["mlPolicy"] if k != "numNodes"]
            upstream[doc["metadata"]["name"]] = policy[0] if policy else "plain"
            upstream_pods[doc["metadata"]["name"]] = {
                job["name"]: job["template"]["spec"]["template"]["spec"]
                for job in doc["spec"]["template"]["spec"]["replicatedJobs"]}
            upstream_jobs[doc["metadata"]["name"]] = {
                (job["name"], _ancestor(job), _containers(job))
                for job in doc["spec"]["template"]["spec"]["replicatedJobs"]}
    target = catalog.load().target(version)
    assert {r.name: r.policy for r in target.default_runtimes} == upstream
    for runtime in target.default_runtimes:
        jobs = runtime.jobs or target.policies[runtime.policy].jobs
        mine = {(job.name, job.ancestor, tuple(job.containers)) for job in jobs}
        assert mine == upstream_jobs[runtime.name], runtime.name
        if runtime.pods:
            assert runtime.pods == upstream_pods[runtime.name], runtime.name
    for runtime in target.default_runtimes:
        jobs = {job.name for job in target.policies[runtime.policy].jobs}
        assert target.policies[runtime.policy].trainer_job in jobs
