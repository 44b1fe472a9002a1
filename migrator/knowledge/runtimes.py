"""KNOWLEDGE: runtime resolution: which runtime a converted TrainJob references, and what it looks
like.

The target's catalog (mappings/targets/*.yaml) says which ML policy each legacy framework
uses, which runtime the release ships for it, and what that policy's replicated jobs are.
User settings (``--runtime``, the config file's ``runtimes`` table, ``--companion-runtimes``)
choose among them; a runtime name the target does not ship for that policy is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from migrator.knowledge import catalog
from migrator.knowledge.specs import RuntimeSpec, TargetSpec
from migrator.results import FrozenValue
from migrator.settings import ConvertOptions

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only

COMPANION_SUFFIX = "-legacy"


def cluster_kind() -> str:
    """The cluster-scoped runtime kind (mappings/kinds.yaml ``runtimeKinds``): a runtimeRef's
    default kind, the kind of the runtimes a target ships."""
    return catalog.load().kinds.cluster_runtime_kind


@fields_only
class Resolution(FrozenValue):
    """The runtime to reference, or why there is none (``problem`` is a finding code+text)."""

    FIELDS = ("runtime", "problem")
    runtime: RuntimeSpec | None
    problem: tuple[str, str] | None = None

    def __init__(self, runtime: RuntimeSpec | None,
                 problem: tuple[str, str] | None = None) -> None:
        object.__setattr__(self, "runtime", runtime)
        object.__setattr__(self, "problem", problem)


def companion_name(job_name: str | None, max_name: int) -> str:
    """Name of the companion TrainingRuntime generated for the job ``job_name`` (at most
    ``max_name`` characters: the target's name limit)."""
    base = (job_name or "trainjob")[: max_name - len(COMPANION_SUFFIX)].rstrip("-")
    return f"{base}{COMPANION_SUFFIX}"


def resolve(framework: str, target: TargetSpec, options: ConvertOptions,
            job_name: str | None) -> Resolution:
    """The runtime a job of ``framework`` references on ``target`` under ``options``."""
    entry = target.frameworks[framework]
    policy = target.policies[entry.policy]
    trainer_job = policy.trainer_job
    container = next(j.containers[0] for j in policy.jobs if j.name == trainer_job)

    def spec(name: str, kind: str, companion: bool = False) -> RuntimeSpec:
        return RuntimeSpec(name=name, kind=kind, policy=entry.policy, trainer_job=trainer_job,
                           container=container, jobs=policy.jobs,
                           reserved_env=policy.reserved_env, companion=companion)

    if options.companion_runtimes:
        return Resolution(spec(companion_name(job_name, target.limits.name),
                               catalog.load().kinds.namespaced_runtime_kind, companion=True))
    configured = options.runtime_for(framework)
    if configured is not None:
        name, kind = configured
        problem = _refused(name, kind, entry.policy, target)
        return Resolution(None if problem else spec(name, kind), problem)
    if entry.runtime is None:
        return Resolution(None, ("K105", f"{entry.why}; convert with --companion-runtimes, or "
                                 f"name your own runtime for {framework!r} in the config file"))
    return Resolution(spec(entry.runtime, options.runtime_kind or cluster_kind()))


def _refused(name: str, kind: str, policy: str, target: TargetSpec) -> tuple[str, str] | None:
    if kind != cluster_kind():
        return None
    if name in target.retired_runtimes:
        return ("K106", f"{kind} {name!r} is not shipped by Trainer "
                f"{target.version} (it was removed from the default runtimes)")
    shipped = {runtime.name: runtime.policy for runtime in target.default_runtimes}
    if name in shipped and shipped[name] != policy:
        return ("K106", f"{kind} {name!r} runs the {shipped[name]} ML policy, "
                f"not {policy}")
    return None
