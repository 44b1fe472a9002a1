"""CONVERT: apply a kind's mapping to a legacy document → Draft, with findings on the ledger."""

from __future__ import annotations

from typing import Any

from migrator import paths
from migrator.check import effective
from migrator.convert import model
from migrator.convert.draft import Companion, Draft
from migrator.convert.ledger import Ledger
from migrator.convert.model import Container, LegacyJob, Replica
from migrator.convert.rules import companion, launch, mpioperator, podtemplate, roles
from migrator.convert.rules.contract import apply_contract, report_quoted_env
from migrator.convert.rules.frameworks import TRANSFORMS
from migrator.convert.rules.metadata import check_pod_names, convert_metadata
from migrator.convert.rules.transforms import Call, gpu_count
from migrator.knowledge import runtimeindex, runtimes
from migrator.knowledge.specs import MappingSpec, PodRules, RuntimeSpec, TargetSpec
from migrator.settings import ConvertOptions

MPI_LAUNCHER_FEEDS = frozenset({"image", "command", "args"})


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
    draft = _new_draft(runtime, spec, job)
    draft.runtime_pods, draft.runtime_doc = _runtime_pods(runtime, options)
    convert_metadata(job.metadata.node, draft, ledger, target.limits.name,
                     require_name=not embedded)
    num_nodes = _replicas(job, spec, draft, ledger)
    trainer_main = _templates(job, spec, pod_rules, target, runtime, draft, ledger)
    main_name = _main_name(job, spec)
    mpioperator.adapt(job, spec, draft, ledger, {
        r.role: podtemplate.main_container(r, main_name, ledger, report=False)
        for r in job.replicas})
    _rules(job, spec, draft, ledger, target)
    if spec.num_nodes == "mpi":
        num_nodes = _mpi_nodes(job, draft, ledger)
    apply_contract(trainer_main, draft, ledger, spec, runtime)
    _version_hazards(spec, target, draft, ledger, trainer_main)
    launch.adapt(trainer_main, draft, ledger, spec, runtime, num_nodes)
    for note in spec.notes:
        ledger.report(note.code, ("kind",), note.message, consume=False)
    check_pod_names(draft, ledger, num_nodes, target.limits.name)
    draft.num_nodes = num_nodes
    ledger.close()
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
    return RuntimeSpec(name="", kind=runtimes.CLUSTER_KIND, policy="plain",
                       trainer_job=policy.trainer_job, container="node", jobs=policy.jobs,
                       reserved_env=policy.reserved_env)


def _runtime_pods(runtime: RuntimeSpec, options: ConvertOptions) -> tuple[dict[str, Any], Any]:
    """The referenced runtime's pod templates and document, when given with --runtimes."""
    if runtime.companion or not options.runtime_files:
        return {}, None
    info = runtimeindex.from_files(options.runtime_files).get((runtime.kind, runtime.name))
    if info is None or info.doc is None:
        return {}, None
    return effective.runtime_pods(info.doc), info.doc


def _version_hazards(spec: MappingSpec, target: TargetSpec, draft: Draft, ledger: Ledger,
                     main: Container) -> None:
    """Documented Trainer behaviour a migrated job can hit (R216, F528)."""
    resources = draft.trainer.get("resourcesPerNode")
    pods = draft.runtime_pods or (effective.default_runtime(target, draft.runtime_name) or {}
                                  if draft.companion is None else {})
    node = next((c for c in paths.get(pods.get(draft.patch_job), ("spec", "containers")) or []
                 if isinstance(c, dict) and c.get("name") == draft.patch_container), None)
    theirs = node.get("resources") if isinstance(node, dict) else None
    if isinstance(resources, dict) and isinstance(theirs, dict):
        lost = sorted({f"{section}.{key}" for section in ("limits", "requests")
                       for key in (theirs.get(section) or {})
                       if key not in (resources.get(section) or {})})
        if lost:
            effect = ("are dropped: on Trainer 2.2 resourcesPerNode replaces the runtime's "
                      "resources" if target.version == "2.2" else
                      "are kept: on Trainer 2.3 resourcesPerNode is merged per key")
            ledger.report("R216", (*main.path, "resources"), f"runtime {draft.runtime_name}'s "
                          f"node resources {', '.join(lost)} {effect}", consume=False)
    if spec.framework == "mpi" and draft.companion is None and draft.trainer.get("env"):
        ledger.report("F528", (*main.path, "env"), "trainer.env reaches the launcher's node "
                      "container (and the node job's only with runLauncherAsNode: true; "
                      "kubeflow/trainer#3427); processes mpirun starts on the workers see it "
                      "only when exported with `mpirun -x NAME`", consume=False)


def _new_draft(runtime: RuntimeSpec, spec: MappingSpec, job: LegacyJob) -> Draft:
    draft = Draft(runtime_name=runtime.name, runtime_kind=runtime.kind,
                  patch_job=runtime.trainer_job, patch_container=runtime.container,
                  job_order=tuple(j.name for j in runtime.jobs), runtime=runtime)
    if runtime.companion:
        draft.companion = Companion(name=runtime.name, policy=runtime.policy)
    return draft


def _replicas(job: LegacyJob, spec: MappingSpec, draft: Draft, ledger: Ledger) -> int:
    total = sum(replica.replicas for replica in job.replicas)
    draft.set_trainer("numNodes", total)
    for replica in job.replicas:
        path = (*replica.path, "replicas")
        if spec.num_nodes == "mpi":
            ledger.default(path)
        elif replica.replicas_given:
            ledger.mapped(path, "spec.trainer.numNodes")
        else:
            ledger.mappings.append((paths.render(path) + " (default "
                                    f"{replica.replicas})", "spec.trainer.numNodes"))
        _restart_policy(replica, spec, draft, ledger)
    return total


def restart_policy_of(replica: Replica, spec: MappingSpec) -> str:
    """The restart policy the legacy operator used for ``replica`` (given or defaulted)."""
    if replica.restart_policy is not None:
        return replica.restart_policy
    return spec.replica_specs.role_restart_policies.get(
        replica.role, spec.replica_specs.default_restart_policy)


def _restart_policy(replica: Replica, spec: MappingSpec, draft: Draft, ledger: Ledger) -> None:
    path = (*replica.path, "restartPolicy")
    value = restart_policy_of(replica, spec)
    given = replica.restart_policy is not None
    if value not in spec.replica_specs.restart_policies:
        ledger.report("R212", path, f"restartPolicy {value!r} is not one of "
                      f"{', '.join(spec.replica_specs.restart_policies)}")
    elif value == "OnFailure" and draft.companion is None and given:
        ledger.report("R214", path, f"{replica.role} restartPolicy OnFailure was dropped: "
                      "JobSet gives the pods the same restart policy")
    elif value == "OnFailure":
        ledger.default(path)
    elif draft.companion is not None and value == "Never":
        target = (f"TrainingRuntime/{draft.companion.name}: spec.template.spec.replicatedJobs"
                  f"[name={replica.job}].template.spec.template.spec.restartPolicy")
        if given:
            ledger.mapped(path, target)
        else:
            ledger.mappings.append((paths.render(path) + " (default Never)", target))
    elif value == "ExitCode" and draft.companion is not None:
        companion.exit_code_policy(draft.companion, replica.job, draft.patch_container)
        ledger.report("R213", path, f"{replica.role} restartPolicy ExitCode is carried by "
                      f"companion runtime {draft.companion.name} as restartPolicy Never and a "
                      "podFailurePolicy (exit codes 1-127 fail the job, others are retried "
                      "within backoffLimit)", consume=given)
    elif value == "ExitCode":
        ledger.report("R211", path, f"{replica.role} restartPolicy ExitCode cannot be expressed",
                      consume=given)
    else:
        default = "" if given else " (the legacy default)"
        ledger.report("R210", path, f"{replica.role} restartPolicy {value}{default} becomes "
                      "OnFailure (the runtime's pod restart policy)", consume=given)


def _templates(job: LegacyJob, spec: MappingSpec, pod_rules: PodRules, target: TargetSpec,
               runtime: RuntimeSpec, draft: Draft, ledger: Ledger) -> Container:
    """Convert each replicated job's template; returns the trainer's main container."""
    by_job: dict[str, list[Replica]] = {}
    for replica in job.replicas:
        by_job.setdefault(replica.job, []).append(replica)
    main_name = _main_name(job, spec)
    trainer_main: Container | None = None
    launcher_resources: Any = None
    for job_name in [j.name for j in runtime.jobs if j.name in by_job]:
        replicas = by_job[job_name]
        primary = _primary(replicas, spec)
        main = podtemplate.main_container(primary, main_name, ledger, report=True)
        feeds = _feeds(primary, spec, draft)
        if draft.companion is not None:
            quoted = companion.add_template(draft.companion, primary, main, runtime.container,
                                            runtime.reserved_env, restart_policy_of(primary, spec))
            for relative in quoted:
                report_quoted_env(ledger, (*primary.template.path, *relative))
        podtemplate.convert_template(primary, main, draft, ledger, pod_rules, target, feeds)
        for other in replicas:
            if other is not primary:
                other_main = podtemplate.main_container(other, main_name, ledger, report=False)
                roles.merge_role(primary, main, other, other_main, draft, ledger)
                roles.merge_restart_policy(primary, restart_policy_of(primary, spec), other,
                                           restart_policy_of(other, spec),
                                           draft.companion is not None, ledger)
        if spec.trainer_role is None or primary.role == spec.trainer_role:
            trainer_main = main
            launcher_resources = main.node.get("resources")
        elif spec.resources_role == primary.role and draft.companion is None:
            _shared_resources(primary, launcher_resources, draft, ledger)
    if trainer_main is None:
        raise ValueError(f"{spec.id}: no replica feeds spec.trainer")
    return trainer_main


def _main_name(job: LegacyJob, spec: MappingSpec) -> str | None:
    if spec.main_container.name_field is not None:
        value = paths.get(job.root, paths.parse(spec.main_container.name_field))
        return value if isinstance(value, str) else None
    return spec.main_container.name


def _feeds(primary: Replica, spec: MappingSpec, draft: Draft) -> frozenset[str]:
    if spec.trainer_role is None:
        return podtemplate.ALL_TRAINER_SLOTS
    if primary.role == spec.trainer_role:
        if draft.companion is not None:
            return MPI_LAUNCHER_FEEDS
        return podtemplate.ALL_TRAINER_SLOTS
    if primary.role == spec.resources_role and draft.companion is None:
        return frozenset({"resourcesPerNode"})
    return frozenset()


def _shared_resources(worker: Replica, launcher_resources: Any, draft: Draft,
                      ledger: Ledger) -> None:
    worker_main = draft.trainer.get("resourcesPerNode")
    if launcher_resources is None or roles.same(launcher_resources, worker_main):
        return
    ledger.report("P307", (*worker.template.spec.path, "containers"), "launcher and worker "
                  "resources differ; resourcesPerNode applies to both, so the launcher gets "
                  f"the {worker.role}'s", consume=False)


def _mpi_nodes(job: LegacyJob, draft: Draft, ledger: Ledger) -> int:
    """numNodes for MPI: workers, plus the launcher when it is also an MPI host."""
    by_role = {replica.role: replica for replica in job.replicas}
    worker = by_role.get("Worker")
    launcher = by_role["Launcher"]
    workers = worker.replicas if worker is not None else 0
    as_worker = job.root.get("spec", {}).get("runLauncherAsWorker")
    if as_worker is None:  # kubeflow.org/v1: a launcher with a GPU was a host
        as_worker = gpu_count(launcher.template.containers[0].node.get("resources")) is not None
    as_node = as_worker is True
    nodes = workers + (1 if as_node else 0)
    draft.set_trainer("numNodes", nodes)
    if "numProcPerNode" not in draft.trainer:
        draft.set_trainer("numProcPerNode", 1)
    where = (*worker.path, "replicas") if worker is not None else launcher.path
    if worker is not None:
        ledger.mapped(where, "spec.trainer.numNodes")
    if workers == 0:
        ledger.report("F518", where, "the MPIJob has no workers (launcher-only MPI); Trainer's "
                      "MPI policy always starts at least one node pod", consume=False)
    if draft.companion is not None:
        draft.companion.policy_fields["runLauncherAsNode"] = as_node
        if "numProcPerNode" in draft.trainer:
            draft.companion.policy_fields["numProcPerNode"] = draft.trainer["numProcPerNode"]
    elif _launcher_as_node(draft.runtime_doc) == as_node:
        ledger.default(where)  # the runtime (from --runtimes) agrees with the legacy job
    elif draft.runtime_name:
        ledger.report("F522", where, f"numNodes {nodes} assumes runtime {draft.runtime_name} "
                      f"sets runLauncherAsNode: {str(as_node).lower()} (with true, node pods = "
                      "numNodes - 1 and the launcher computes too)", consume=False)
    return nodes


def _launcher_as_node(runtime_doc: Any) -> bool | None:
    if not isinstance(runtime_doc, dict):
        return None
    value = paths.get(runtime_doc, ("spec", "mlPolicy", "mpi", "runLauncherAsNode"))
    return bool(value) if value is not None else False


def _primary(replicas: list[Replica], spec: MappingSpec) -> Replica:
    by_role = {replica.role: replica for replica in replicas}
    for role in spec.replica_specs.template_priority:
        if role in by_role:
            return by_role[role]
    return replicas[0]


def _rules(job: LegacyJob, spec: MappingSpec, draft: Draft, ledger: Ledger,
           target: TargetSpec) -> None:
    for rule in spec.rules:
        path = paths.parse(rule.source)
        if not paths.has(job.root, path):
            continue
        value = paths.get(job.root, path)
        if rule.op == "copy" and rule.to is not None:
            setattr(draft, _slot(rule.to), value)
            ledger.mapped(path, f"spec.{rule.to}")
        elif rule.op == "unsupported" and rule.code is not None:
            ledger.report(rule.code, path, f"{rule.source} has no TrainJob equivalent and was "
                          "not carried over")
        elif rule.op == "transform" and rule.fn is not None:
            TRANSFORMS[rule.fn](Call(value, path, draft, ledger, target))
        else:
            ledger.mapped(path, "(read by the converter; no field of its own)")
    for container in ("spec", "spec.runPolicy"):
        node = paths.get(job.root, paths.parse(container))
        if isinstance(node, dict) and not node:
            ledger.default(paths.parse(container))


def _slot(target: str) -> str:
    slots = {"suspend": "suspend", "activeDeadlineSeconds": "active_deadline_seconds",
             "managedBy": "managed_by"}
    if target not in slots:
        raise KeyError(f"mapping rule targets unknown slot {target!r}")
    return slots[target]
