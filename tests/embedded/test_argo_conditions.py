"""Argo resource conditions: legacy status tests become TrainJob terminal conditions."""

from __future__ import annotations

import pytest

from migrator.convert import argo


def test_the_argo_example_success_condition() -> None:
    # argoproj/argo-workflows examples/k8s-resource-log-selector.yaml
    rewrite = argo.rewrite_success("status.replicaStatuses.Worker.succeeded = 2",
                                   suspended_first=False)
    assert rewrite.changed
    assert rewrite.expression == "status.conditions.0.type == Complete"


def test_a_suspended_first_trainjob_has_its_terminal_condition_second() -> None:
    rewrite = argo.rewrite_success("status.replicaStatuses.Master.succeeded > 0",
                                   suspended_first=True)
    assert rewrite.expression == "status.conditions.1.type == Complete"


def test_failure_tests_both_positions() -> None:
    rewrite = argo.rewrite_failure("status.replicaStatuses.Worker.failed > 0")
    assert rewrite.expression == ("status.conditions.0.type == Failed, "
                                  "status.conditions.1.type == Failed")


def test_other_requirements_are_kept() -> None:
    rewrite = argo.rewrite_success(
        "metadata.name == {{inputs.parameters.name}},status.replicaStatuses.Worker.succeeded>0",
        suspended_first=False)
    assert rewrite.expression == ("status.conditions.0.type == Complete, "
                                  "metadata.name == {{inputs.parameters.name}}")


def test_legacy_conditions_by_type() -> None:
    assert argo.rewrite_success("status.conditions.1.type == Succeeded",
                                suspended_first=False).changed
    assert argo.rewrite_failure("status.conditions.2.type = Failed").changed


@pytest.mark.parametrize("expression", [
    "status.completionTime",
    "status.replicaStatuses.Worker.active > 1",
    "status.replicaStatuses.Worker.failed > 0",  # a failure test as a success condition
    "status.replicaStatuses.Worker.succeeded > -1",  # holds before anything succeeded
    "spec.runPolicy.suspend == false",
])
def test_untranslatable_success_conditions_are_left_and_reported(expression: str) -> None:
    rewrite = argo.rewrite_success(expression, suspended_first=False)
    assert not rewrite.changed
    assert rewrite.expression == expression
    assert rewrite.untranslated


def test_a_condition_without_legacy_status_is_left_alone() -> None:
    rewrite = argo.rewrite_success("metadata.name == x", suspended_first=False)
    assert (rewrite.changed, rewrite.untranslated) == (False, ())


def test_parse_every_operator() -> None:
    parsed = argo.parse("a, !b, c == 1, d != x, e in (1, 2), f notin (z), g > 3, h < 4")
    assert parsed is not None
    assert [r.operator for r in parsed] == ["exists", "!", "==", "!=", "in", "notin", ">", "<"]
    assert argo.parse("a ==") is not None  # empty value is allowed by the selector grammar
    assert argo.parse("a b c") is None


def test_rewritten_keys_are_label_selector_qualified_names() -> None:
    import re

    name = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
    for index in (0, 1):
        key = argo.terminal("Complete", index).key
        assert name.fullmatch(key)
        assert len(key) <= 63
