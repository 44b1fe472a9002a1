"""CONVERT: apply a kind's mapping to a legacy document → Draft, with findings on the ledger.

The document is parsed into a ``LegacyJob``, its runtime resolved, and the rules of
``migrator.convert.rules.RULES`` run on a fresh ``Draft`` in order.
"""

from __future__ import annotations

from typing import Any

from migrator.check import effective, runtimefiles
from migrator.convert import hints, model
from migrator.convert.draft import Companion, Draft, YamlMap
from migrator.convert.ledger import Ledger
from migrator.convert.model import LegacyJob
from migrator.convert.rules import RULES, RuleContext
from migrator.knowledge import runtimes
from migrator.knowledge.specs import MappingSpec, PodRules, RuntimeSpec, TargetSpec
from migrator.settings import ConvertOptions

POD_FIELD = "P301"  # a pod-template field only a runtime can set


def convert(root: Any, spec: MappingSpec, pod_rules: PodRules, target: TargetSpec,
            options: ConvertOptions, ledger: Ledger, *, embedded: bool = False) -> Draft | None:
    """Map one legacy document; None when it is too invalid to map (see the ledger).

    ``embedded`` jobs (inside a Katib Experiment or an AppWrapper) may lack a name.
    """
    ledger.default(("apiVersion",))
    ledger.default(("kind",))
    if "status" in root:
        ledger.report("M106", ("status",), "status was dropped")
    job = model.parse(root, spec, ledger)
    if job is None:
        return None
    runtime = _runtime(job, spec, target, options, ledger)
    draft = _new_draft(runtime)
    draft.runtime_pods, draft.runtime_doc = _runtime_pods(runtime, options)
    ctx = RuleContext(job, spec, pod_rules, target, options, ledger, runtime, embedded)
    for rule in RULES:
        rule.apply(ctx, draft)
    ledger.close()
    if not runtime.companion and options.runtime_for(spec.framework) is not None:
        fix = ledger.codes[POD_FIELD].fix  # it says to name a runtime: the user did
        ledger.findings[:] = [hints.for_runtime(f, fix, runtime.name, runtime.kind)
                              if f.code == POD_FIELD else f for f in ledger.findings]
    return draft


def _runtime(job: LegacyJob, spec: MappingSpec, target: TargetSpec, options: ConvertOptions,
             ledger: Ledger) -> RuntimeSpec:
    resolution = runtimes.resolve(spec.framework, target, options, job.name)
    if resolution.problem is not None:
        code, message = resolution.problem
        ledger.report(code, ("kind",), message, consume=False)
    if resolution.runtime is not None:
        return resolution.runtime
    policy = target.policies[target.frameworks[spec.framework].policy]
    return RuntimeSpec(name="", kind=runtimes.cluster_kind(), policy="plain",
                       trainer_job=policy.trainer_job, container="node", jobs=policy.jobs,
                       reserved_env=policy.reserved_env)


def _runtime_pods(runtime: RuntimeSpec,
                  options: ConvertOptions) -> tuple[dict[str, YamlMap], YamlMap | None]:
    """The referenced runtime's pod templates and document, when given with --runtimes."""
    if runtime.companion or not options.runtime_files:
        return {}, None
    info = runtimefiles.from_files(options.runtime_files).get((runtime.kind, runtime.name))
    if info is None or info.doc is None:
        return {}, None
    return effective.runtime_pods(info.doc), info.doc


def _new_draft(runtime: RuntimeSpec) -> Draft:
    draft = Draft(runtime_name=runtime.name, runtime_kind=runtime.kind,
                  patch_job=runtime.trainer_job, patch_container=runtime.container,
                  job_order=tuple(j.name for j in runtime.jobs), runtime=runtime)
    if runtime.companion:
        draft.companion = Companion(name=runtime.name, policy=runtime.policy,
                                    kind=runtime.kind)
    return draft

