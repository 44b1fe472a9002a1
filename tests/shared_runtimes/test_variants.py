"""The catalog's floor: two variants of one shape never differ in a field the split always
moves into the TrainJob (a pod field a runtime patch sets, a container patch field, the
trainer's image, command and args, pod and job labels and annotations), and every field they
differ in has a reason (``share.why_apart``) that the catalog's README states. Over the corpus
(the CI sample; all of it with ``TRAINJOB_FULL_CORPUS=1``) and generated jobs, both targets."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from migrator.knowledge import catalog
from migrator.shared_runtimes import share, store
from tests import corpus, goldens
from tests.fidelity.test_oracle import EXAMPLES, KINDS, jobs
from tests.shared_runtimes.helpers import MANAGER, companions

_JOB = re.compile(r"^spec\.template\.spec\.replicatedJobs\[([^\]]+)\]")
_POD = ".template.spec.template.spec."
_CONTAINER = re.compile(r"\.(containers|initContainers)\[([^\]]+)\]\.([^.\[]+)")


def _always_moved(path: str, body: dict[str, Any], rule: share.Rules) -> bool:
    """Whether ``path`` is a field the split moves out of every shape (so no variant can
    differ there): read from the rules, not from ``share``'s code."""
    job = _JOB.match(path)
    if job is None:
        return path.startswith("spec.template.metadata.")
    rest = path[job.end():]
    for meta in (".template.metadata.", ".template.spec.template.metadata."):
        if rest.startswith(meta):
            return rule.ancestor_label not in rest and rest[len(meta):].split(".")[0] in (
                "labels", "annotations")
    if not rest.startswith(_POD):
        return False
    field = rest[len(_POD):].split(".")[0].split("[")[0]
    container = _CONTAINER.match(rest[len(_POD) - 1:])
    if container is None:
        return field in rule.pod_fields
    _, name, key = container.groups()
    if key in rule.container_fields and not (key == "env" and name in rule.env_owned):
        return True
    jobs = body["spec"]["template"]["spec"]["replicatedJobs"]
    step = next(item for item in jobs if item["name"] == job.group(1))
    ancestor = step["template"].get("metadata", {}).get("labels", {}).get(rule.ancestor_label)
    return (ancestor == "trainer" and container.group(1) == "containers" and name == "node"
            and key in ("image", "command", "args"))


def _problems(texts: list[str], target: str) -> tuple[list[str], dict[str, Any]]:
    rule = share.rules(target)
    bodies: dict[str, dict[str, Any]] = {}
    for text in texts:
        for job, runtime, kind in companions(text, target):
            split = share.split(job, runtime, rule, kind, MANAGER)
            if not isinstance(split, str):
                bodies.setdefault(split.name, split.runtime)
    reasons = share.variant_reasons()
    label = catalog.load().upgrade.labels.ancestor
    problems = []
    groups = itertools.groupby(sorted(bodies), key=lambda name: name.rsplit("-", 1)[0])
    for _, names in groups:
        for left, right in itertools.combinations(list(names), 2):
            paths = store._differences(bodies[left]["spec"], bodies[right]["spec"], "spec")
            if not paths:
                problems.append(f"{left} and {right} differ in no spec field")
            for path in sorted(paths):
                if _always_moved(path, bodies[left], rule):
                    problems.append(f"{left} and {right} differ in {path}, which moves")
                if share.why_apart(path, bodies[left], label) not in reasons:
                    problems.append(f"{path}: no reason")
    return problems, bodies


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_corpus_variants_differ_only_where_no_trainjob_can(shared: Path, target: str) -> None:
    texts = [path.read_text(encoding="utf-8", errors="replace")
             for path in corpus.sample(corpus.legacy_files(shared)) if path.is_file()]
    problems, bodies = _problems(texts, target)
    assert bodies
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(database=None, max_examples=EXAMPLES, deadline=None)
@given(data=st.data())
def test_generated_variants_differ_only_where_no_trainjob_can(kind: str,
                                                              data: st.DataObject) -> None:
    texts = [data.draw(jobs(kind), label=f"job {i}") for i in range(3)]
    target = data.draw(st.sampled_from(goldens.TARGETS), label="target")
    problems, _ = _problems(texts, target)
    assert not problems, "\n".join([*texts, *problems])


def test_the_floor_check_sees_a_field_left_behind() -> None:
    """A shape that kept a node selector (a patchable pod field) is caught."""
    rule = share.rules("2.2")
    body = {"spec": {"template": {"spec": {"replicatedJobs": [{"name": "node", "template": {
        "metadata": {"labels": {rule.ancestor_label: "trainer"}}, "spec": {}}}]}}}}
    assert _always_moved("spec.template.spec.replicatedJobs[node].template.spec.template.spec"
                         ".nodeSelector.pool", body, rule)
    assert _always_moved("spec.template.spec.replicatedJobs[node].template.spec.template.spec"
                         ".containers[node].image", body, rule)
    assert _always_moved("spec.template.spec.replicatedJobs[node].template.spec.template.spec"
                         ".containers[side].env", body, rule)
    assert not _always_moved("spec.template.spec.replicatedJobs[node].template.spec.template."
                             "spec.containers[node].env", body, rule)
    assert not _always_moved("spec.template.spec.replicatedJobs[node].template.spec.template."
                             "spec.containers[node].ports", body, rule)
    assert not _always_moved("spec.template.spec.replicatedJobs[node].template.spec."
                             "backoffLimit", body, rule)


def test_the_readme_says_why(tmp_path: Path) -> None:
    """Two variants told apart by a Job field: the index and README give the reason."""
    index: dict[str, Any] = {"torch-node-aaaaaaaa": {"jobs": {}}, "torch-node-bbbbbbbb": {
        "jobs": {}}}
    rule = share.rules("2.2")

    def body(limit: int) -> dict[str, Any]:
        return {"spec": {"template": {"spec": {"replicatedJobs": [{"name": "node", "template": {
            "metadata": {"labels": {rule.ancestor_label: "trainer"}},
            "spec": {"backoffLimit": limit, "template": {"spec": {"containers": [
                {"name": "node", "ports": [{"containerPort": limit}]}]}}}}}]}}}}

    store._explain_variants(index, {"torch-node-aaaaaaaa": body(0),
                                    "torch-node-bbbbbbbb": body(3)})
    why = index["torch-node-aaaaaaaa"]["whyApart"]
    assert sorted(why) == ["job", "trainerContainer"]
    assert why["job"] == ["spec.template.spec.replicatedJobs[node].template.spec.backoffLimit"]
    text = store.readme({"runtimes": index, "variantReasons": share.variant_reasons()})
    assert "JobSpecPatch" in text
    assert "`replicatedJobs[node].backoffLimit`" in text
