"""SIMULATE: how a JobSet of batch/v1 Jobs reacts to pod events (the Trainer side's outcome).

``play`` walks a scenario over a Trainer ``World``: each occurrence of an event reaches one pod
(by identity), and the kubelet, the Job controller and the JobSet controller react:

- a container exiting 0 finishes its pod (``kept``): the Job completes once every completion
  index has succeeded (Indexed Jobs), and the JobSet completes once its success policy holds
  (``All``: every replica of every targeted replicated job; ``Any``: one; no targets: all jobs);
- a non-zero exit under ``restartPolicy: OnFailure`` (the JobSet default) restarts the container
  in place (``restarted``); the Job fails once the restarts of its running pods reach
  ``backoffLimit`` (default 6; 0 fails at the first);
- a non-zero exit under ``restartPolicy: Never`` fails the pod: ``podFailurePolicy`` rules
  (first match: ``FailJob``, ``FailIndex``, ``Ignore``, ``Count``) or the default count; the Job
  fails when more pods failed than ``backoffLimit`` (or an index exceeds
  ``backoffLimitPerIndex``), else a new pod replaces it (``recreated``);
- an eviction deletes the pod with the ``DisruptionTarget`` condition: a new pod replaces it
  (``recreated``) and it counts as a failed pod unless an ``onPodConditions`` rule says
  otherwise;
- a failed Job runs the JobSet failure policy: none fails the JobSet; rules (first match on the
  Job failure reason and replicated job) ``FailJobSet``, ``RestartJobSet`` (counted against
  ``maxRestarts``, default 0), ``RestartJobSetAndIgnoreMaxRestarts``; a restart recreates every
  Job and pod (``recreated``).

Replicated jobs another job ``dependsOn`` with status ``Complete`` (initializers) are taken to
have completed before the first event, unless the scenario addresses their pods. Time
(``activeDeadlineSeconds``, back-off delays) is not modelled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from migrator.simulate.model import Citation, Event, Outcome, Phase, Pod, Scenario, Step, World
from migrator.simulate.trainer_sources import cite
from migrator.simulate.trainer_values import integer, mapping, seq, strings, text

Reaction = Literal["restarted", "recreated", "kept"]
NEVER_FITS = 2**31 - 1


@dataclass
class _Job:
    """One batch/v1 Job of the JobSet (a replica of a replicated job) and its counters."""

    rjob: str
    index: int
    name: str
    completions: int
    backoff_limit: int
    per_index_limit: int | None
    max_failed_indexes: int | None
    restart_policy: str
    failure_rules: list[Mapping[str, Any]]
    success_rules: list[Mapping[str, Any]] = field(default_factory=list)
    succeeded: set[int] = field(default_factory=set)
    failed_indexes: set[int] = field(default_factory=set)
    index_failures: dict[int, int] = field(default_factory=dict)
    restarts: dict[int, int] = field(default_factory=dict)
    failed_pods: int = 0
    status: str = "Active"  # Active, Complete, Failed
    reason: str = ""

    def reset(self) -> None:
        self.succeeded.clear()
        self.failed_indexes.clear()
        self.index_failures.clear()
        self.restarts.clear()
        self.failed_pods = 0
        self.status = "Active"
        self.reason = ""


@dataclass
class _Play:
    version: str
    world: World
    jobs: dict[tuple[str, int], _Job]
    replicas: dict[str, int]
    success: Mapping[str, Any]
    failure: Mapping[str, Any] | None
    phase: Phase = "Running"
    restarts: int = 0
    counted_restarts: int = 0
    citations: list[Citation] = field(default_factory=list)

    def cite(self, *keys: str) -> list[Citation]:
        found = [c for c in (cite(key, self.version) for key in keys) if c is not None]
        for item in found:
            if item not in self.citations:
                self.citations.append(item)
        return found


def play(world: World, scenario: Scenario, version: str) -> Outcome:
    """The outcome of ``scenario`` on the job ``world`` (a Trainer-side world) describes."""
    extras = mapping(world.extras)
    if extras.get("created") is not True:
        why = text(extras.get("why")) or "the controller creates nothing"
        none = tuple(Step(event=e, occurrence=o, reaction="kept", phase="Running",
                          why=f"no pod: {why}")
                     for e, event in enumerate(scenario.events) for o in range(event.times))
        return Outcome(scenario=scenario.name, phase="Running", steps=none,
                       why=f"no JobSet is created: {why}", citations=world.citations)
    jobset = mapping(extras.get("jobset"))
    state = _Play(version=version, world=world, jobs={}, replicas={},
                  success=mapping(jobset.get("successPolicy")),
                  failure=jobset.get("failurePolicy")
                  if isinstance(jobset.get("failurePolicy"), Mapping) else None)
    for info in seq(extras.get("jobs")):
        info = mapping(info)
        name = str(info.get("name"))
        replicas = integer(info.get("replicas")) or 0
        state.replicas[name] = replicas
        rules = seq(mapping(info.get("podFailurePolicy")).get("rules"))
        for index in range(replicas):
            state.jobs[(name, index)] = _Job(
                rjob=name, index=index, name=f"{jobset.get('name')}-{name}-{index}",
                completions=integer(info.get("completions")) or 1,
                backoff_limit=_int(info.get("backoffLimit"), 6),
                per_index_limit=integer(info.get("backoffLimitPerIndex")),
                max_failed_indexes=integer(info.get("maxFailedIndexes")),
                restart_policy=text(info.get("restartPolicy")) or "OnFailure",
                failure_rules=[mapping(rule) for rule in rules],
                success_rules=[mapping(rule) for rule in
                               seq(mapping(info.get("successPolicy")).get("rules"))])
    if jobset.get("suspend") is True:
        cites = state.cite("js_suspend", "builder_suspend")
        return Outcome(scenario=scenario.name, phase="Suspended", steps=(),
                       why="the TrainJob is suspended: the JobSet's Jobs create no pods",
                       citations=tuple(cites))
    _complete_dependencies(state, extras, scenario)
    steps: list[Step] = []
    for number, event in enumerate(scenario.events):
        for occurrence in range(max(event.times, 0)):
            step = _react(state, number, occurrence, event)
            steps.append(step)
            if state.phase in ("Succeeded", "Failed"):
                return Outcome(scenario=scenario.name, phase=state.phase, steps=tuple(steps),
                               why=step.why, citations=tuple(sorted(state.citations)))
    return Outcome(scenario=scenario.name, phase=state.phase, steps=tuple(steps),
                   why=_running_why(state), citations=tuple(sorted(state.citations)))


def _int(value: Any, default: int) -> int:
    found = integer(value)
    return default if found is None else found


def _complete_dependencies(state: _Play, extras: Mapping[str, Any], scenario: Scenario) -> None:
    found = [_locate(state, event.identity) for event in scenario.events]
    addressed = {where[0] for where in found if where is not None}
    needed = {text(mapping(item).get("name"))
              for info in seq(extras.get("jobs"))
              for item in seq(mapping(info).get("dependsOn"))
              if mapping(item).get("status") == "Complete"}
    for (name, _index), job in state.jobs.items():
        if name in needed and name not in addressed:
            job.succeeded = set(range(job.completions))
            job.status = "Complete"
            state.cite("js_depends_on")


def _locate(state: _Play, identity: str) -> tuple[str, int, int] | None:
    """(replicated job, job index, completion index) of the pod of that identity."""
    pod: Pod | None = state.world.pod(identity)
    if pod is None:
        return None
    label = text(mapping(pod.labels).get("jobset.sigs.k8s.io/job-index"))
    if label is None or not label.isdigit():
        return None
    job_index = int(label)
    key = (pod.group, job_index)
    job = state.jobs.get(key)
    if job is None:
        return None
    return pod.group, job_index, pod.index - job_index * job.completions


def _react(state: _Play, number: int, occurrence: int, event: Event) -> Step:
    where = _locate(state, event.identity)
    if where is None:
        return Step(number, occurrence, "kept", state.phase,
                    f"the Trainer side creates no pod {event.identity}")
    rjob, job_index, index = where
    job = state.jobs[(rjob, job_index)]
    if job.status != "Active" or index in job.succeeded or index in job.failed_indexes:
        return Step(number, occurrence, "kept", state.phase,
                    f"{event.identity} has already finished (its Job is {job.status})")
    if event.action == "exit" and event.code == 0:
        return _succeed(state, number, occurrence, event, job, index)
    if event.action == "exit":
        if job.restart_policy == "OnFailure":
            return _restart_in_place(state, number, occurrence, event, job, index)
        return _pod_failed(state, number, occurrence, event, job, index, evicted=False)
    return _pod_failed(state, number, occurrence, event, job, index, evicted=True)


def _succeed(state: _Play, number: int, occurrence: int, event: Event, job: _Job,
             index: int) -> Step:
    job.succeeded.add(index)
    job.restarts.pop(index, None)
    cites = state.cite("k_indexed_complete")
    why = f"{event.identity} exited 0: its pod succeeded and stays finished"
    met = _success_rule_met(job)
    if met is not None:
        job.status = "Complete"
        cites += state.cite("k_success_policy")
        return _after_complete(state, number, occurrence, job,
                               f"{why}; Job {job.name}'s successPolicy rule {met} is met: the "
                               "Job completes and its other pods are removed", cites)
    if len(job.succeeded) + len(job.failed_indexes) < job.completions:
        return Step(number, occurrence, "kept", state.phase,
                    f"{why}; Job {job.name} waits for "
                    f"{job.completions - len(job.succeeded)} more completion indexes", tuple(cites))
    if job.failed_indexes:
        return _job_failed(state, number, occurrence, job, "FailedIndexes", "kept", why, cites)
    job.status = "Complete"
    return _after_complete(state, number, occurrence, job, why, cites)


def _success_rule_met(job: _Job) -> str | None:
    """The first rule of the Job's ``successPolicy`` its succeeded indexes meet (None: none)."""
    for number, rule in enumerate(job.success_rules):
        indexes = _index_set(rule.get("succeededIndexes"))
        count = integer(rule.get("succeededCount"))
        if indexes is None and count is None:
            continue
        within = job.succeeded if indexes is None else job.succeeded & indexes
        if indexes is not None and count is None and not indexes <= job.succeeded:
            continue  # succeededIndexes alone: every one of them
        if count is not None and len(within) < count:
            continue
        return str(number)
    return None


def _index_set(value: Any) -> set[int] | None:
    """``"0,3-5"`` as {0, 3, 4, 5}; None when absent or malformed (the rule is not used)."""
    if not isinstance(value, str) or not value:
        return None
    out: set[int] = set()
    for part in value.split(","):
        first, _, last = part.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            return None
        low, high = int(first), int(last or first)
        if high < low or high - low > 100_000:
            return None
        out.update(range(low, high + 1))
    return out


def _after_complete(state: _Play, number: int, occurrence: int, job: _Job, why: str,
                    cites: list[Citation]) -> Step:
    targets = strings(state.success.get("targetReplicatedJobs")) or []
    operator = text(state.success.get("operator")) or "All"
    matching = sum(1 for other in state.jobs.values()
                   if other.status == "Complete" and (not targets or other.rjob in targets))
    if operator == "Any":
        expected = 1
        cites += state.cite("js_success_any")
    else:
        expected = sum(count for name, count in state.replicas.items()
                       if not targets or name in targets)
        cites += state.cite("js_success_all")
    cites += state.cite("js_success_check", "js_success_targets")
    target_text = f"targets {targets}" if targets else "every replicated job"
    if matching >= expected:
        state.phase = "Succeeded"
        cites += state.cite("js_finished_delete")
        return Step(number, occurrence, "kept", "Succeeded",
                    f"{why}; Job {job.name} completed and the JobSet success "
                    f"policy ({operator}, {target_text}) holds: the JobSet completes and its "
                    f"active Jobs are deleted", tuple(cites))
    return Step(number, occurrence, "kept", state.phase,
                f"{why}; Job {job.name} completed; the success policy ({operator}, "
                f"{target_text}) needs {expected} completed Jobs, {matching} so far",
                tuple(cites))


def _restart_in_place(state: _Play, number: int, occurrence: int, event: Event, job: _Job,
                      index: int) -> Step:
    job.restarts[index] = job.restarts.get(index, 0) + 1
    total = sum(job.restarts.values())
    cites = state.cite("js_restart_policy", "k_onfailure", "k_backoff", "k_backoff_field")
    why = (f"{event.identity} exited {event.code} under restartPolicy OnFailure: the kubelet "
           f"restarts the container in place ({total} restarts in Job {job.name}, "
           f"backoffLimit {job.backoff_limit})")
    limit = job.backoff_limit
    if (limit == 0 and total > 0) or (limit > 0 and total >= limit):
        return _job_failed(state, number, occurrence, job, "BackoffLimitExceeded", "restarted",
                           why, cites)
    return Step(number, occurrence, "restarted", state.phase, why, tuple(cites))


def _matching_rule(job: _Job, event: Event, state: _Play,
                   pod: Pod | None) -> tuple[int, str] | None:
    """The first podFailurePolicy rule matching the failure: (rule index, action)."""
    main = _main_container(pod)
    for number, rule in enumerate(job.failure_rules):
        action = text(rule.get("action")) or ""
        exit_codes = rule.get("onExitCodes")
        conditions = seq(rule.get("onPodConditions"))
        if isinstance(exit_codes, Mapping) and event.action != "evict":
            name = text(exit_codes.get("containerName"))
            values = [v for v in seq(exit_codes.get("values")) if integer(v) is not None]
            operator = text(exit_codes.get("operator"))
            if name is not None and name != main:
                continue
            if (operator == "In" and event.code in values) or (
                    operator == "NotIn" and event.code not in values):
                return number, action
        elif conditions and event.action == "evict":
            for pattern in conditions:
                status = text(mapping(pattern).get("status")) or "True"
                if mapping(pattern).get("type") == "DisruptionTarget" and status == "True":
                    state.cite("k_disruption", "k_pfp_conditions")
                    return number, action
    return None


def _main_container(pod: Pod | None) -> str | None:
    if pod is None:
        return None
    names = [text(mapping(c).get("name")) for c in seq(mapping(pod.spec).get("containers"))]
    return "node" if "node" in names else (names[0] if names else None)


def _pod_failed(state: _Play, number: int, occurrence: int, event: Event, job: _Job,
                index: int, *, evicted: bool) -> Step:
    job.restarts.pop(index, None)
    what = (f"{event.identity} was evicted (DisruptionTarget)" if evicted
            else f"{event.identity} exited {event.code} under restartPolicy Never: the pod fails")
    cites = state.cite("k_disruption") if evicted else state.cite("k_restart_policies")
    rule = None
    if job.restart_policy == "Never" or evicted:
        rule = _matching_rule(job, event, state, state.world.pod(event.identity))
    action = rule[1] if rule is not None else "Count"
    if job.failure_rules:
        cites += state.cite("k_pfp_order")
    if rule is not None:
        what += f"; podFailurePolicy rule {rule[0]} matches ({action})"
        cites += state.cite("k_pfp_exit0")
    if action == "FailJob":
        cites += state.cite("k_pfp_failjob")
        return _job_failed(state, number, occurrence, job, "PodFailurePolicy", "kept", what, cites)
    if action == "Ignore":
        cites += state.cite("k_pfp_ignore")
        return Step(number, occurrence, "recreated", state.phase,
                    f"{what}; not counted against backoffLimit, a new pod replaces it",
                    tuple(cites))
    if action == "FailIndex":
        cites += state.cite("k_pfp_failindex")
        return _index_failed(state, number, occurrence, job, index, what, cites)
    if rule is not None:
        cites += state.cite("k_pfp_count")
    else:
        cites += state.cite("k_pfp_default")
    job.failed_pods += 1
    if job.per_index_limit is not None:
        job.index_failures[index] = job.index_failures.get(index, 0) + 1
        cites += state.cite("k_per_index")
        if job.index_failures[index] > job.per_index_limit:
            return _index_failed(state, number, occurrence, job, index,
                                 f"{what}; index {index} failed "
                                 f"{job.index_failures[index]} times "
                                 f"(backoffLimitPerIndex {job.per_index_limit})", cites)
    cites += state.cite("k_backoff", "k_backoff_field")
    counted = (f"{what}; {job.failed_pods} failed pods in Job {job.name} "
               f"(backoffLimit {job.backoff_limit})")
    if job.failed_pods > job.backoff_limit:
        return _job_failed(state, number, occurrence, job, "BackoffLimitExceeded", "kept",
                           counted, cites)
    return Step(number, occurrence, "recreated", state.phase,
                f"{counted}: a new pod replaces it", tuple(cites))


def _index_failed(state: _Play, number: int, occurrence: int, job: _Job, index: int, why: str,
                  cites: list[Citation]) -> Step:
    job.failed_indexes.add(index)
    if job.max_failed_indexes is not None and len(job.failed_indexes) > job.max_failed_indexes:
        cites += state.cite("k_max_failed_indexes")
        return _job_failed(state, number, occurrence, job, "MaxFailedIndexesExceeded", "kept",
                           f"{why}; index {index} is failed and not restarted", cites)
    if len(job.succeeded) + len(job.failed_indexes) >= job.completions:
        return _job_failed(state, number, occurrence, job, "FailedIndexes", "kept",
                           f"{why}; every index finished, some failed", cites)
    return Step(number, occurrence, "kept", state.phase,
                f"{why}; index {index} is failed and not restarted; the Job can no longer "
                f"complete", tuple(cites))


def _job_failed(state: _Play, number: int, occurrence: int, job: _Job, reason: str,
                reaction: Reaction, why: str, cites: list[Citation]) -> Step:
    job.status = "Failed"
    job.reason = reason
    why = f"{why}; Job {job.name} fails ({reason})"
    cites += state.cite("js_failed_first")
    if state.failure is None:
        state.phase = "Failed"
        cites += state.cite("js_no_failure_policy", "js_finished_delete")
        return Step(number, occurrence, "kept", "Failed",
                    f"{why}; the JobSet has no failure policy: it fails", tuple(cites))
    action, rule_name = _failure_action(state, job)
    cites += state.cite("js_rule_reason", "js_rule_target")
    if rule_name is None:
        cites += state.cite("js_default_action")
    why = f"{why}; JobSet failure policy: {action}" + (
        f" (rule {rule_name})" if rule_name is not None else " (no rule matches: the default)")
    max_restarts = _int(state.failure.get("maxRestarts"), 0)
    if action == "FailJobSet":
        state.phase = "Failed"
        cites += state.cite("js_fail_action", "js_finished_delete")
        return Step(number, occurrence, "kept", "Failed", f"{why}: the JobSet fails",
                    tuple(cites))
    if action == "RestartJobSet" and state.counted_restarts >= max_restarts:
        state.phase = "Failed"
        cites += state.cite("js_max_restarts", "js_max_restarts_type", "js_finished_delete")
        return Step(number, occurrence, "kept", "Failed",
                    f"{why}: {state.counted_restarts} of maxRestarts {max_restarts} restarts "
                    f"used, the JobSet fails", tuple(cites))
    if action in ("RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts"):
        state.restarts += 1
        if action == "RestartJobSet":
            state.counted_restarts += 1
            cites += state.cite("js_max_restarts")
        else:
            cites += state.cite("js_ignore_max")
        cites += state.cite("js_recreate")
        for other in state.jobs.values():
            other.reset()
        return Step(number, occurrence, "recreated", state.phase,
                    f"{why}: every Job and pod is recreated (restart {state.restarts}, "
                    f"{state.counted_restarts} of maxRestarts {max_restarts} counted)",
                    tuple(cites))
    return Step(number, occurrence, reaction, state.phase,
                f"{why}: not modelled (RestartJob needs JobSet's RestartJob feature gate, off "
                f"by default); the failed Job stays", tuple(cites))


def _failure_action(state: _Play, job: _Job) -> tuple[str, str | None]:
    """The action of the first failure-policy rule matching the failed Job (name of the rule),
    else the default RestartJobSet."""
    for number, rule in enumerate(seq(mapping(state.failure).get("rules"))):
        rule = mapping(rule)
        reasons = strings(rule.get("onJobFailureReasons")) or []
        targets = strings(rule.get("targetReplicatedJobs")) or []
        if reasons and job.reason not in reasons:
            continue
        if targets and job.rjob not in targets:
            continue
        if seq(rule.get("onJobFailureMessagePatterns")):
            continue  # the Job's failure message is not modelled: such a rule never matches
        return text(rule.get("action")) or "RestartJobSet", (
            text(rule.get("name")) or f"failurePolicyRule{number}")
    return "RestartJobSet", None


def _running_why(state: _Play) -> str:
    done = sum(1 for job in state.jobs.values() if job.status == "Complete")
    failed = [job.name for job in state.jobs.values() if job.status == "Failed"]
    text_failed = f", failed Jobs kept: {failed}" if failed else ""
    return (f"the scenario ends with the JobSet running ({done} of {len(state.jobs)} Jobs "
            f"complete, {state.restarts} restarts{text_failed}); pods not named keep running")
