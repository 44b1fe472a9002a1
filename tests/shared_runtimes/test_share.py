"""``share``'s naming and determinism on their own."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from migrator.shared_runtimes import share
from tests import goldens
from tests.shared_runtimes.helpers import MANAGER, companions

DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


@settings(database=None)
@given(framework=st.text(max_size=80), jobs=st.lists(st.text(max_size=80), max_size=6),
       digest=st.text(alphabet="0123456789abcdef", min_size=8, max_size=8))
def test_runtime_names_are_dns_labels_within_63(framework: str, jobs: list[str],
                                                 digest: str) -> None:
    name = share.runtime_name(framework, jobs, digest)
    assert len(name) <= 63
    assert DNS_LABEL.match(name), name
    assert name.endswith(f"-{digest}")


def test_names_read_framework_and_jobs_first() -> None:
    assert share.runtime_name("openmpi", ["launcher", "node"], "0123abcd") == \
        "openmpi-launcher-node-0123abcd"
    assert share.runtime_name("", ["../../etc"], "0123abcd") == "etc-0123abcd"


def test_the_split_is_deterministic_and_names_follow_content() -> None:
    text = (goldens.FIXTURES / "mpijob-v2beta1" / "pi.in.yaml").read_text(encoding="utf-8")
    ((job, runtime, kind),) = companions(text, "2.3")
    first = share.split(job, runtime, share.rules("2.3"), kind, MANAGER)
    second = share.split(job, runtime, share.rules("2.3"), kind, MANAGER)
    assert first == second
    assert not isinstance(first, str)
    renamed = {**job, "metadata": {**job["metadata"], "name": "other"}}
    third = share.split(renamed, runtime, share.rules("2.3"), kind, MANAGER)
    assert not isinstance(third, str)
    assert third.name == first.name  # the job's own name is not part of the shape
    changed = {**runtime, "spec": {**runtime["spec"], "podGroupPolicy": {"coscheduling": {}}}}
    fourth = share.split(job, changed, share.rules("2.3"), kind, MANAGER)
    assert not isinstance(fourth, str)
    assert fourth.name != first.name


def test_a_trainjob_with_runtime_patches_keeps_its_companion() -> None:
    text = (goldens.FIXTURES / "mpijob-v2beta1" / "pi.in.yaml").read_text(encoding="utf-8")
    ((job, runtime, kind),) = companions(text, "2.2")
    patched = {**job, "spec": {**job["spec"], "runtimePatches": [{"manager": "a.io/x"}]}}
    assert share.split(patched, runtime, share.rules("2.2"), kind, MANAGER) == \
        "the TrainJob already has runtimePatches"
