"""CHECK: effective-pod equivalence: what Trainer will run, rendered offline, against the legacy
pods.

``render`` builds the pod template of each replicated job the way Trainer does: the runtime's
template, then the ``trainer`` fields on the trainer job's ``node`` container (2.2 replaces
``resources``, 2.3 merges them per key), the ML policy's injected env, then the runtime
patches (maps merge, named lists merge by name, tolerations and other lists replace).
``legacy_pods`` gives the legacy job's pod per replicated job (its primary role, main
container renamed to ``node``, the legacy operator's injected env added), and ``compare``
lists every difference with deepdiff, grouped into categories a reviewer reads.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from migrator import paths
from migrator.knowledge.specs import MappingSpec, TargetSpec
from migrator.load import yamlio

NAMED_LISTS = ("containers", "initContainers", "volumes", "imagePullSecrets", "schedulingGates",
               "env", "volumeMounts")
CATEGORIES = (("image", "image"), ("command", "command"), ("args", "command"),
              ("env", "env"), ("resources", "resources"), ("volumeMounts", "volumes and mounts"),
              ("volumes", "volumes and mounts"), ("nodeSelector", "scheduling"),
              ("affinity", "scheduling"), ("tolerations", "scheduling"),
              ("priorityClassName", "scheduling"), ("schedulerName", "scheduling"),
              ("schedulingGates", "scheduling"), ("containers", "containers"),
              ("initContainers", "containers"), ("restartPolicy", "restart policy"))


@dataclass(frozen=True)
class Difference:
    """One behavioural difference between the legacy pod and the TrainJob's effective pod."""

    job: str
    category: str
    path: str
    before: Any
    after: Any

    def describe(self) -> str:
        if self.before is _MISSING:
            return f"[{self.job}] {self.category}: {self.path} added: {_short(self.after)}"
        if self.after is _MISSING:
            return f"[{self.job}] {self.category}: {self.path} removed (was {_short(self.before)})"
        return (f"[{self.job}] {self.category}: {self.path} changed: {_short(self.before)} -> "
                f"{_short(self.after)}")


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()


@dataclass
class Pods:
    """Pod templates per replicated job, with their pod counts."""

    templates: dict[str, dict[str, Any]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def runtime_pods(runtime: Any) -> dict[str, dict[str, Any]]:
    """Pod templates (metadata + spec) of a runtime document's replicated jobs."""
    pods = {}
    for job in paths.get(runtime, ("spec", "template", "spec", "replicatedJobs")) or []:
        if isinstance(job, dict) and isinstance(job.get("name"), str):
            template = paths.get(job, ("template", "spec", "template"))
            pods[job["name"]] = copy.deepcopy(template or {})
    return pods


def default_runtime(target: TargetSpec, name: str) -> dict[str, dict[str, Any]] | None:
    """Pod templates of a default runtime of ``target``, when the catalog describes them."""
    for runtime in target.default_runtimes:
        if runtime.name == name and runtime.pods:
            return {job: {"spec": copy.deepcopy(spec)} for job, spec in runtime.pods.items()}
    return None


def render(trainjob: Any, pods: dict[str, dict[str, Any]], policy: str,
           target: TargetSpec, *, launcher_as_node: bool = False) -> Pods:
    """The effective pod template of each replicated job for ``trainjob`` on ``target``."""
    out = Pods(templates=copy.deepcopy(pods))
    spec = trainjob.get("spec") or {}
    trainer = spec.get("trainer") or {}
    policy_spec = target.policies.get(policy)
    trainer_job = policy_spec.trainer_job if policy_spec else "node"
    env_jobs = ("launcher", "node") if policy == "mpi" else (trainer_job,)
    for job, template in out.templates.items():
        node = _container(template, "node")
        if node is None:
            continue
        if job == trainer_job:
            for key in ("image", "command", "args"):
                if key in trainer:
                    node[key] = copy.deepcopy(trainer[key])
        if job in env_jobs:
            _upsert_env(node, trainer.get("env") or [])
            if "resourcesPerNode" in trainer:
                _resources(node, trainer["resourcesPerNode"], target.version)
        if job == trainer_job and policy_spec is not None:
            _upsert_env(node, [{"name": k, "value": v} for k, v in
                               policy_spec.injected_env.items()])
    for patch in spec.get("runtimePatches") or []:
        patched = paths.get(patch, ("trainingRuntimeSpec", "template", "spec", "replicatedJobs"))
        for job in patched or []:
            name = job.get("name") if isinstance(job, dict) else None
            pod_patch = paths.get(job, ("template", "spec", "template"))
            if name is None or not isinstance(pod_patch, dict):
                continue
            if name not in out.templates:
                out.notes.append(f"the patch adds replicated job {name!r}, which the runtime "
                                 "does not have")
                out.templates[name] = {}
            _merge(out.templates[name], pod_patch)
    for template in out.templates.values():
        pod_spec = template.setdefault("spec", {})
        pod_spec.setdefault("restartPolicy", "OnFailure")  # JobSet's default for its Jobs
    nodes = int(trainer.get("numNodes") or 1)
    if policy == "mpi":
        out.counts = {"launcher": 1, "node": max(nodes - 1, 1) if launcher_as_node else nodes}
    else:
        out.counts = {job: nodes if job == trainer_job else 1 for job in out.templates}
    return out


def legacy_pods(root: Any, spec: MappingSpec) -> Pods:
    """The legacy job's pod per replicated job (primary role), main container named node."""
    out = Pods()
    holder = paths.get(root, paths.parse(spec.replica_specs.path)) or {}
    by_job: dict[str, list[tuple[str, Any]]] = {}
    for key, replica in holder.items():
        role = next((r for r in spec.replica_specs.roles
                     if r.lower() == str(key).lower()), None)
        if role is None or not isinstance(replica, dict):
            continue
        by_job.setdefault(spec.replica_specs.roles[role].job, []).append((role, replica))
    injected = {**dict.fromkeys(spec.legacy_contract.env, "<set by the legacy operator>"),
                **spec.injected_env}
    main_name = spec.main_container.name
    if spec.main_container.name_field:
        main_name = paths.get(root, paths.parse(spec.main_container.name_field))
    for job, replicas in by_job.items():
        order = spec.replica_specs.template_priority
        replicas.sort(key=lambda item: order.index(item[0]) if item[0] in order else 99)
        role, replica = replicas[0]
        template = copy.deepcopy(replica.get("template") or {})
        containers = paths.get(template, ("spec", "containers")) or []
        main = next((c for c in containers if isinstance(c, dict) and c.get("name") == main_name),
                    containers[0] if containers else None)
        if isinstance(main, dict):
            if main.get("name") != "node":
                out.notes.append(f"container {main.get('name')!r} is now 'node'")
            main["name"] = "node"
            _upsert_env(main, [{"name": k, "value": v} for k, v in injected.items()])
        policy = replica.get("restartPolicy") or spec.replica_specs.role_restart_policies.get(
            role, spec.replica_specs.default_restart_policy)
        if isinstance(template.get("spec"), dict):
            template["spec"]["restartPolicy"] = policy  # the replica's policy won in the operator
        out.templates[job] = template
        defaults = {r: rules.default_replicas for r, rules in spec.replica_specs.roles.items()}
        out.counts[job] = sum(int(r.get("replicas", defaults[name]) or 0)
                              for name, r in replicas if isinstance(r.get("replicas", 0), int))
    return out


def compare(legacy: Pods, rendered: Pods) -> list[Difference]:
    """Every difference between the legacy pods and the effective pods, by job and category."""
    from deepdiff import DeepDiff

    differences = []
    for job in sorted(set(legacy.templates) | set(rendered.templates)):
        before = _normalise(legacy.templates.get(job, {}))
        after = _normalise(rendered.templates.get(job, {}))
        diff = DeepDiff(before, after, view="tree", threshold_to_diff_deeper=0)
        for items in diff.values():
            for item in items:
                path = ".".join(str(p) for p in item.path(output_format="list"))
                t1 = _MISSING if type(item.t1).__name__ == "NotPresent" else item.t1
                t2 = _MISSING if type(item.t2).__name__ == "NotPresent" else item.t2
                differences.append(Difference(job, _category(path), path, t1, t2))
        if legacy.counts.get(job) != rendered.counts.get(job):
            differences.append(Difference(job, "pod count", "replicas", legacy.counts.get(job),
                                          rendered.counts.get(job)))
    return sorted(differences, key=lambda d: (d.job, d.category, d.path))


def _normalise(template: Any) -> Any:
    """Plain Python values; named lists become maps keyed by name (a reorder is no change)."""
    if isinstance(template, bool | int | float | str):
        return yamlio.scalar(template)
    if isinstance(template, dict):
        out = {}
        for key, value in template.items():
            if key in NAMED_LISTS and isinstance(value, list) and \
                    all(isinstance(v, dict) and "name" in v for v in value):
                out[key] = {str(v["name"]) if key != "volumeMounts" else
                            f"{v['name']}@{v.get('mountPath')}": _normalise(v) for v in value}
            else:
                out[key] = _normalise(value)
        return out
    if isinstance(template, list):
        return [_normalise(v) for v in template]
    return template


def _category(path: str) -> str:
    parts = path.split(".")
    for key, category in CATEGORIES:
        if key in parts:
            return category
    return "other"


def _container(template: Any, name: str) -> Any:
    for container in paths.get(template, ("spec", "containers")) or []:
        if isinstance(container, dict) and container.get("name") == name:
            return container
    return None


def _upsert_env(container: dict[str, Any], env: list[Any]) -> None:
    current = container.setdefault("env", [])
    for item in env:
        if not isinstance(item, dict):
            continue
        for index, existing in enumerate(current):
            if isinstance(existing, dict) and existing.get("name") == item.get("name"):
                current[index] = copy.deepcopy(item)
                break
        else:
            current.append(copy.deepcopy(item))
    if not current:
        del container["env"]


def _resources(container: dict[str, Any], resources: Any, version: str) -> None:
    if version == "2.2" or not isinstance(container.get("resources"), dict):
        container["resources"] = copy.deepcopy(resources)
        return
    merged = container["resources"]
    for section, values in (resources or {}).items():
        if isinstance(values, dict) and isinstance(merged.get(section), dict):
            merged[section].update(copy.deepcopy(values))
        else:
            merged[section] = copy.deepcopy(values)


def _merge(base: dict[str, Any], patch: dict[str, Any]) -> None:
    """Strategic-merge-like: maps merge, named lists merge by name, other lists replace."""
    for key, value in patch.items():
        current = base.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            _merge(current, value)
        elif key in NAMED_LISTS and isinstance(value, list) and isinstance(current, list):
            for item in value:
                twin = next((c for c in current if isinstance(c, dict) and isinstance(item, dict)
                             and c.get("name") == item.get("name")), None)
                if twin is None:
                    current.append(copy.deepcopy(item))
                else:
                    _merge(twin, item)
        else:
            base[key] = copy.deepcopy(value)



def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."
