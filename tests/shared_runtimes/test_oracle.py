"""The oracle of shared runtimes: for every job, Trainer (simulated from upstream source,
``migrator/simulate``) builds the same pods and the same outcomes from the TrainJob on its
shared ClusterTrainingRuntime as from the companion TrainJob on its own runtime — over the
corpus (a fixed sample in CI, all with ``TRAINJOB_FULL_CORPUS=1``) and generated jobs of every
kind, on both targets; and every object is valid for the target's upstream CRD."""

from __future__ import annotations

import copy
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from migrator.shared_runtimes import share
from tests import corpus, goldens
from tests.fidelity.test_oracle import EXAMPLES, KINDS, jobs
from tests.shared_runtimes.helpers import MANAGER, companions, differences
from tests.test_corpus import CRD_FILES


def _check(text: str, target: str, where: str) -> list[str]:
    problems = []
    for job, runtime, kind in companions(text, target):
        split = share.split(job, runtime, share.rules(target), kind, MANAGER)
        if isinstance(split, str):
            problems.append(f"{where} [{target}] not split: {split}")
            continue
        problems += [f"{where} [{target}] {d}" for d in differences(job, runtime, split, target)]
    return problems


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_corpus_jobs_run_alike_on_shared_runtimes(shared: Path, target: str) -> None:
    problems: list[str] = []
    checked = 0
    for path in corpus.sample(corpus.legacy_files(shared)):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            checked += len(companions(text, target))
            problems += _check(text, target, str(path.relative_to(shared)))
    assert checked > 0
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(database=None, max_examples=EXAMPLES, deadline=None)
@given(data=st.data())
def test_generated_jobs_run_alike_on_shared_runtimes(kind: str, data: st.DataObject) -> None:
    text = data.draw(jobs(kind), label="job")
    target = data.draw(st.sampled_from(goldens.TARGETS), label="target")
    problems = _check(text, target, kind)
    assert not problems, "\n".join([text, *problems])


def test_the_oracle_sees_a_lost_value() -> None:
    """Dropping what a job sets itself (its runtime patch) is caught: the oracle can fail."""
    text = (goldens.FIXTURES / "tfjob").glob("*.in.yaml")
    problems = []
    for case in sorted(text):
        for job, runtime, kind in companions(case.read_text(encoding="utf-8"), "2.2"):
            split = share.split(job, runtime, share.rules("2.2"), kind, MANAGER)
            assert not isinstance(split, str)
            broken = copy.deepcopy(split.trainjob)
            broken["spec"].pop("runtimePatches", None)
            broken["spec"]["trainer"].pop("image", None)
            problems += differences(job, runtime, share.Split(
                broken, split.runtime, split.name, split.digest, split.sets), "2.2")
    assert problems


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_shared_objects_are_crd_valid(shared: Path, crdcheck: ModuleType, target: str) -> None:
    validators = {kind: crdcheck.load_crd(shared / "crds" / f"trainer-v{target}.0" / name)
                  for kind, name in CRD_FILES.items()}
    problems = []
    checked = 0
    for path in corpus.sample(corpus.legacy_files(shared)):
        if not path.is_file():
            continue
        for job, runtime, kind in companions(path.read_text(encoding="utf-8",
                                                            errors="replace"), target):
            split = share.split(job, runtime, share.rules(target), kind, MANAGER)
            assert not isinstance(split, str)
            assert len(split.name) <= 63
            for obj in (split.trainjob, split.runtime):
                checked += 1
                found = crdcheck.problems(obj, obj["kind"], *validators[obj["kind"]][1:])
                problems += [f"{path.name} {obj['kind']}: {p}" for p in found]
    assert checked > 0
    assert not problems, "\n".join(problems[:20])
