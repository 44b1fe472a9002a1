"""The Trainer side's outcome: how the JobSet, its Jobs and the kubelet react to pod events.

Expectations come from JobSet's controllers and tests (kubernetes-sigs/jobset at the tag Trainer's
go.mod names) and the batch/v1 Job API (k8s.io/api), never from this project's converter.
"""

from __future__ import annotations

from typing import Any

import pytest

from migrator.simulate.model import Event, Scenario
from migrator.simulate.trainer import default_runtime, outcome

VERSIONS = ("2.2", "2.3")


def _torch(version: str, nodes: int = 2, **job_spec: Any) -> tuple[dict[str, Any],
                                                                   dict[str, Any]]:
    runtime = dict(default_runtime("torch-distributed", version) or {})
    template = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]
    template["spec"].update(job_spec)
    trainjob = {"metadata": {"name": "t"}, "spec": {"trainer": {"numNodes": nodes}}}
    return trainjob, runtime


def _pod_spec(runtime: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"][
        "spec"]["template"]["spec"]
    return spec


def _play(version: str, trainjob: dict[str, Any], runtime: dict[str, Any],
          *events: Event) -> Any:
    return outcome(trainjob, runtime, version, Scenario("s", tuple(events)))


@pytest.mark.parametrize("version", VERSIONS)
def test_every_node_exiting_zero_completes(version: str) -> None:
    # jobset success_policy.go numJobsExpectedToSucceed (operator All, default from the webhook)
    trainjob, runtime = _torch(version)
    result = _play(version, trainjob, runtime, Event("node-0", "exit", 0), Event("node-1", "exit"))
    assert result.phase == "Succeeded"
    assert [s.reaction for s in result.steps] == ["kept", "kept"]
    assert [s.phase for s in result.steps] == ["Running", "Succeeded"]
    assert result.finished_at == (1, 0)


@pytest.mark.parametrize("version", VERSIONS)
def test_rank_zero_alone_does_not_complete_an_indexed_job(version: str) -> None:
    # k8s.io/api batch/v1 types.go: an Indexed Job completes when every index has succeeded
    trainjob, runtime = _torch(version, nodes=3)
    result = _play(version, trainjob, runtime, Event("node-0", "exit", 0))
    assert result.phase == "Running"
    assert result.finished_at is None


@pytest.mark.parametrize("version", VERSIONS)
def test_onfailure_restarts_in_place_until_backoff_limit(version: str) -> None:
    # JobSet's webhook defaults restartPolicy OnFailure; backoffLimit defaults to 6; container
    # restarts count; the failed Job fails a JobSet without a failure policy
    trainjob, runtime = _torch(version)
    result = _play(version, trainjob, runtime, Event("node-1", "exit", 1, times=10))
    assert [s.reaction for s in result.steps] == ["restarted"] * 5 + ["kept"]
    assert result.phase == "Failed"
    assert result.finished_at == (0, 5)
    assert "BackoffLimitExceeded" in result.why


@pytest.mark.parametrize("version", VERSIONS)
def test_backoff_limit_zero_fails_at_the_first_restart(version: str) -> None:
    trainjob, runtime = _torch(version, backoffLimit=0)
    result = _play(version, trainjob, runtime, Event("node-0", "exit", 137, times=3))
    assert len(result.steps) == 1
    assert result.phase == "Failed"


@pytest.mark.parametrize("version", VERSIONS)
def test_never_recreates_pods_until_more_failed_than_the_limit(version: str) -> None:
    trainjob, runtime = _torch(version, backoffLimit=2)
    _pod_spec(runtime)["restartPolicy"] = "Never"
    result = _play(version, trainjob, runtime, Event("node-0", "exit", 1, times=5))
    assert [s.reaction for s in result.steps] == ["recreated", "recreated", "kept"]
    assert result.phase == "Failed"


@pytest.mark.parametrize("version", VERSIONS)
def test_pod_failure_policy_rules_in_order(version: str) -> None:
    rules = [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
             {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}},
             {"action": "Ignore", "onExitCodes": {"containerName": "node", "operator": "NotIn",
                                                  "values": [1]}}]
    trainjob, runtime = _torch(version, backoffLimit=0, podFailurePolicy={"rules": rules})
    _pod_spec(runtime)["restartPolicy"] = "Never"
    evicted = _play(version, trainjob, runtime, Event("node-0", "evict", times=3))
    assert [s.reaction for s in evicted.steps] == ["recreated"] * 3
    assert evicted.phase == "Running"
    ignored = _play(version, trainjob, runtime, Event("node-0", "exit", 3, times=2))
    assert [s.reaction for s in ignored.steps] == ["recreated"] * 2
    failed = _play(version, trainjob, runtime, Event("node-1", "exit", 42))
    assert failed.phase == "Failed"
    assert "PodFailurePolicy" in failed.why
    counted = _play(version, trainjob, runtime, Event("node-1", "exit", 1))
    assert counted.phase == "Failed"
    assert "BackoffLimitExceeded" in counted.why


@pytest.mark.parametrize("version", VERSIONS)
def test_evictions_count_against_backoff_limit_by_default(version: str) -> None:
    trainjob, runtime = _torch(version, backoffLimit=1)
    result = _play(version, trainjob, runtime, Event("node-0", "evict", times=3))
    assert [s.reaction for s in result.steps] == ["recreated", "kept"]
    assert result.phase == "Failed"


@pytest.mark.parametrize("version", VERSIONS)
def test_eviction_resets_the_pods_restart_count(version: str) -> None:
    # only running pods' container restarts count under OnFailure: a replaced pod starts at 0
    trainjob, runtime = _torch(version, backoffLimit=3)
    result = _play(version, trainjob, runtime, Event("node-0", "exit", 1, times=2),
                   Event("node-0", "evict"), Event("node-0", "exit", 1, times=2))
    assert [s.reaction for s in result.steps] == ["restarted"] * 2 + ["recreated"] + [
        "restarted"] * 2
    assert result.phase == "Running"


@pytest.mark.parametrize("version", VERSIONS)
def test_backoff_limit_per_index_fails_the_index_not_the_job(version: str) -> None:
    trainjob, runtime = _torch(version, nodes=2, backoffLimitPerIndex=1)
    _pod_spec(runtime)["restartPolicy"] = "Never"
    result = _play(version, trainjob, runtime, Event("node-0", "exit", 1, times=2),
                   Event("node-1", "exit", 0))
    assert [s.reaction for s in result.steps] == ["recreated", "kept", "kept"]
    assert result.phase == "Failed"
    assert "FailedIndexes" in result.why


def _with_failure_policy(version: str, policy: dict[str, Any]) -> tuple[dict[str, Any],
                                                                        dict[str, Any]]:
    trainjob, runtime = _torch(version, backoffLimit=0)
    runtime["spec"]["template"]["spec"]["failurePolicy"] = policy
    return trainjob, runtime


@pytest.mark.parametrize("version", VERSIONS)
def test_restart_jobset_until_max_restarts(version: str) -> None:
    # jobset failure_policy_test.go "RestartJobSet when restarts < maxRestarts increments restarts
    # count and counts towards max"; no rule matches: the default action RestartJobSet
    trainjob, runtime = _with_failure_policy(version, {"maxRestarts": 2})
    result = _play(version, trainjob, runtime, Event("node-1", "exit", 1, times=5))
    assert [s.reaction for s in result.steps] == ["recreated", "recreated", "kept"]
    assert result.phase == "Failed"
    assert "maxRestarts 2" in result.why


@pytest.mark.parametrize("version", VERSIONS)
def test_a_restart_recreates_every_job(version: str) -> None:
    trainjob, runtime = _with_failure_policy(version, {"maxRestarts": 1})
    result = _play(version, trainjob, runtime, Event("node-0", "exit", 0),
                   Event("node-1", "exit", 1), Event("node-1", "exit", 0))
    # node-0's success is lost with the restart: node-1 alone does not complete the Job
    assert [s.reaction for s in result.steps] == ["kept", "recreated", "kept"]
    assert result.phase == "Running"


@pytest.mark.parametrize("version", VERSIONS)
def test_failure_policy_rules_match_reason_and_job(version: str) -> None:
    # jobset failure_policy_test.go "a job has failed and the failure policy rule matches the
    # parent replicatedJob and matches the job failure reason" / "... does not match the job
    # failure reason"
    fail = {"action": "FailJobSet", "onJobFailureReasons": ["BackoffLimitExceeded"],
            "targetReplicatedJobs": ["node"]}
    trainjob, runtime = _with_failure_policy(version, {"maxRestarts": 5, "rules": [fail]})
    matched = _play(version, trainjob, runtime, Event("node-0", "exit", 1))
    assert matched.phase == "Failed"
    assert "FailJobSet" in matched.why
    fail["onJobFailureReasons"] = ["PodFailurePolicy"]
    trainjob, runtime = _with_failure_policy(version, {"maxRestarts": 5, "rules": [fail]})
    unmatched = _play(version, trainjob, runtime, Event("node-0", "exit", 1))
    assert unmatched.phase == "Running"
    assert unmatched.steps[0].reaction == "recreated"


@pytest.mark.parametrize("version", VERSIONS)
def test_ignore_max_restarts(version: str) -> None:
    rule = {"action": "RestartJobSetAndIgnoreMaxRestarts"}
    trainjob, runtime = _with_failure_policy(version, {"maxRestarts": 0, "rules": [rule]})
    result = _play(version, trainjob, runtime, Event("node-0", "exit", 1, times=4))
    assert [s.reaction for s in result.steps] == ["recreated"] * 4
    assert result.phase == "Running"


@pytest.mark.parametrize("version", VERSIONS)
def test_mpi_launcher_success_completes_the_jobset(version: str) -> None:
    # the shipped MPI runtimes' successPolicy targets the launcher only
    runtime = default_runtime("deepspeed-distributed", version)
    assert runtime is not None
    trainjob = {"metadata": {"name": "m"}, "spec": {"trainer": {"numNodes": 3}}}
    result = outcome(trainjob, runtime, version, Scenario("launcher", (
        Event("node-0", "exit", 1), Event("launcher-0", "exit", 0))))
    assert [s.reaction for s in result.steps] == ["restarted", "kept"]
    assert result.phase == "Succeeded"
    assert "targets ['launcher']" in result.why


@pytest.mark.parametrize("version", VERSIONS)
def test_success_policy_any(version: str) -> None:
    trainjob, runtime = _torch(version, nodes=1)
    runtime["spec"]["template"]["spec"]["successPolicy"] = {"operator": "Any"}
    runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["replicas"] = 1
    result = _play(version, trainjob, runtime, Event("node-0", "exit", 0))
    assert result.phase == "Succeeded"


@pytest.mark.parametrize("version", VERSIONS)
def test_initializers_complete_before_the_trainer(version: str) -> None:
    runtime = default_runtime("torch-distributed-with-cache", version)
    assert runtime is not None
    result = outcome({"metadata": {"name": "c"}, "spec": {"trainer": {}}}, runtime, version,
                     Scenario("train", (Event("node-0", "exit", 0),)))
    assert result.phase == "Succeeded"


@pytest.mark.parametrize("version", VERSIONS)
def test_unknown_pods_finished_pods_and_suspension(version: str) -> None:
    trainjob, runtime = _torch(version, nodes=2)
    result = _play(version, trainjob, runtime, Event("launcher-0", "exit", 0),
                   Event("node-0", "exit", 0), Event("node-0", "exit", 1))
    assert [s.reaction for s in result.steps] == ["kept"] * 3
    assert "creates no pod launcher-0" in result.steps[0].why
    assert "already finished" in result.steps[2].why
    trainjob["spec"]["suspend"] = True
    suspended = _play(version, trainjob, runtime, Event("node-0", "exit", 0))
    assert (suspended.phase, suspended.steps) == ("Suspended", ())


def test_nothing_created_keeps_every_event() -> None:
    trainjob, runtime = _torch("2.3")
    trainjob["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue"
    result = _play("2.3", trainjob, runtime, Event("node-0", "exit", 0, times=2))
    assert [s.reaction for s in result.steps] == ["kept", "kept"]
    assert result.phase == "Running"
    assert "no JobSet" in result.why


@pytest.mark.parametrize("version", VERSIONS)
def test_steps_cite_the_rules_they_apply(version: str) -> None:
    trainjob, runtime = _torch(version)
    result = _play(version, trainjob, runtime, Event("node-0", "exit", 1, times=6))
    last = result.steps[-1]
    paths = {c.path for c in last.citations}
    assert "pkg/controllers/failure_policy.go" in paths
    assert "batch/v1/types.go" in paths
    assert set(last.citations) <= set(result.citations)


@pytest.mark.parametrize("version", VERSIONS)
def test_success_policy_counts_replicas_of_targeted_jobs(version: str) -> None:
    # jobset success_policy_test.go TestNumJobsExpectedToSucceed "some replicated jobs don't
    # match success policy" (v0.12.0:257): targets job-1 (1 replica) and job-3 (3): 4 Jobs
    def job(name: str, replicas: int) -> dict[str, Any]:
        return {"name": name, "replicas": replicas, "template": {"spec": {"template": {
            "spec": {"containers": [{"name": "c", "image": "i"}]}}}}}
    runtime = {"spec": {"template": {"spec": {
        "successPolicy": {"operator": "All", "targetReplicatedJobs": ["job-1", "job-3"]},
        "replicatedJobs": [job("job-1", 1), job("job-2", 2), job("job-3", 3)]}}}}
    done = [Event(identity, "exit", 0) for identity in (
        "init:job-2-0", "init:job-2-1", "init:job-1-0", "init:job-3-0", "init:job-3-1",
        "init:job-3-2")]
    result = outcome({"metadata": {"name": "s"}, "spec": {}}, runtime, version,
                     Scenario("all", tuple(done)))
    assert [s.phase for s in result.steps] == ["Running"] * 5 + ["Succeeded"]
    assert "needs 4 completed Jobs, 3 so far" in result.steps[4].why


def test_a_job_success_policy_completes_the_job_at_its_rule() -> None:
    """k8s.io/api@v0.35.2 batch/v1/types.go:257-299: a rule of succeededIndexes alone needs
    every listed index; with succeededCount, that many of the listed ones; once met, the Job
    completes and its lingering pods are removed (:261)."""
    from migrator.simulate import jobset as js
    from migrator.simulate.jobset import _Job

    def job(**rule: object) -> _Job:
        return _Job(rjob="node", index=0, name="j-node-0", completions=5, backoff_limit=6,
                    per_index_limit=None, max_failed_indexes=None, restart_policy="OnFailure",
                    failure_rules=[], success_rules=[rule])

    first = job(succeededIndexes="0")
    assert js._success_rule_met(first) is None
    first.succeeded = {0}
    assert js._success_rule_met(first) == "0"
    counted = job(succeededIndexes="1-4", succeededCount=3)
    counted.succeeded = {1, 3, 5}
    assert js._success_rule_met(counted) is None
    counted.succeeded = {1, 3, 4}
    assert js._success_rule_met(counted) == "0"
    assert js._index_set("0,3-5") == {0, 3, 4, 5}
    assert js._index_set("5-3") is None
