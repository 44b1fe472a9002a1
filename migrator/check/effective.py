"""CHECK: effective pods: what Trainer will run, rendered offline, against the legacy pods.

``render`` builds the pod template of each replicated job the way Trainer does: the runtime's
template, then the ``trainer`` fields on the trainer job's ``node`` container (2.2 replaces
``resources``, 2.3 merges them per key; on MPI runtimes env and resources reach the ``node``
job only with ``runLauncherAsNode``), the ML policy's injected env and port, the MPI policy's
SSH and hostfile volumes, then the runtime patches (maps merge, named lists merge by name,
tolerations and other lists replace) and JobSet's restart-policy default.
``legacy_pods`` gives the pod of every legacy role as its operator created it: the role's
template, main container renamed to ``node``, plus what the operator added implicitly
(mappings/common/legacy-operators.yaml: env, ports, the MPI worker command, volumes; the
replica restart policy). ``compare`` lists every difference with deepdiff, grouped into
categories a reviewer reads, and ``attribute`` says which finding of the document names each
one: by path (the legacy field the difference comes from), or, for what the operators and
Trainer's plugins add implicitly (the runtime contract), by a contract finding.
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING, Any

from migrator import paths
from migrator.check import operators, quantity
from migrator.knowledge.specs import MappingSpec, TargetSpec
from migrator.load import yamlio
from migrator.results import Finding, FrozenValue, Value, _set, replaced

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
    from dataclasses import field
else:
    from migrator.results import field, fields_only

NAMED_LISTS = ("containers", "initContainers", "volumes", "imagePullSecrets", "schedulingGates",
               "env", "volumeMounts", "ports")
CATEGORIES = (("image", "image"), ("command", "command"), ("args", "command"),
              ("env", "env"), ("resources", "resources"), ("volumeMounts", "volumes and mounts"),
              ("volumes", "volumes and mounts"), ("nodeSelector", "scheduling"),
              ("affinity", "scheduling"), ("tolerations", "scheduling"),
              ("priorityClassName", "scheduling"), ("schedulerName", "scheduling"),
              ("schedulingGates", "scheduling"), ("ports", "ports"),
              ("containers", "containers"), ("initContainers", "containers"),
              ("restartPolicy", "restart policy"), (EXIT_CODES := "x-exitCodes",
                                                    "restart policy"))
TRAINER_PORT = 29500
MPI_SSH_VOLUME, MPI_HOSTFILE_VOLUME, MPI_HOSTFILE_DIR = "mpi-ssh-auth", "mpi-hostfile", "/etc/mpi"
DEFAULT_SSH_PATH = "/root/.ssh"
# Placeholders of the targets' injectedEnv → the tokens both sides share (same meaning).
TOKENS = {"<trainjob>-node-0-0.<trainjob>": "<rank-0 host>", "<completion index>": "<rank>"}
# Findings that name the runtime contract: what the legacy operators and Trainer's plugins add
# implicitly. A difference in such an addition is named by a finding of its group (env and
# ports: the kinds' contract notes; the MPI worker command; the MPI volumes); every other
# difference must be named by a finding at its legacy field's path.
CONTRACT_CODES = {
    "env": frozenset({"F509", "F510", "F511", "F515", "F516", "F517", "F527", "F528", "F529",
                      "F532"}),
    "command": frozenset({"F524", "F525"}),
    "volumes": frozenset({"F516", "F526"}),
}
PERMANENT_EXIT_CODES = "exit codes 1-127 fail the job"
EMPTY_IS_UNSET = ("resources", "limits", "requests")
# Pod fields a conversion may fill from job-level legacy fields (the transforms say so).
POD_FIELDS_FROM_JOB = {"priorityClassName": "spec.runPolicy.schedulingPolicy.priorityClass"}


@fields_only
class Difference(FrozenValue):
    """One behavioural difference between the legacy pod and the TrainJob's effective pod
    (a frozen value written by hand: see migrator/results.py)."""

    FIELDS = ("job", "category", "path", "before", "after", "implicit", "named_by")
    job: str
    category: str
    path: str
    before: Any
    after: Any
    implicit: str = ""  # the contract group of what an operator or a plugin added by itself
    named_by: tuple[str, ...] = ()  # the codes of the findings that name it

    def __init__(self, job: str, category: str, path: str, before: Any, after: Any,
                 implicit: str = "", named_by: tuple[str, ...] = ()) -> None:
        _set(self, "job", job)
        _set(self, "category", category)
        _set(self, "path", path)
        _set(self, "before", before)
        _set(self, "after", after)
        _set(self, "implicit", implicit)
        _set(self, "named_by", named_by)

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


@fields_only
class Source(FrozenValue):
    """Where a legacy pod came from: the role's path and its main container's name."""

    FIELDS = ("job", "role", "path", "main", "unsupported")
    job: str
    role: str
    path: str  # rendered path of the replica spec, e.g. spec.pytorchReplicaSpecs.Worker
    main: str | None
    unsupported: str | None = None  # the code reporting a role that has no equivalent

    def __init__(self, job: str, role: str, path: str, main: str | None,
                 unsupported: str | None = None) -> None:
        _set(self, "job", job)
        _set(self, "role", role)
        _set(self, "path", path)
        _set(self, "main", main)
        _set(self, "unsupported", unsupported)


@fields_only
class Pods(Value):
    """Pod templates (per replicated job, or per legacy role), with their pod counts (a
    mutable value written by hand: see migrator/results.py)."""

    FIELDS = ("templates", "counts", "notes", "sources", "implicit")
    templates: dict[str, dict[str, Any]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    sources: dict[str, Source] = field(default_factory=dict)  # legacy: key -> its role
    implicit: dict[str, dict[str, str]] = field(default_factory=dict)  # key -> path -> group

    def __init__(self, templates: dict[str, dict[str, Any]] | None = None,
                 counts: dict[str, int] | None = None, notes: list[str] | None = None,
                 sources: dict[str, Source] | None = None,
                 implicit: dict[str, dict[str, str]] | None = None) -> None:
        # each: a new empty dict or list when not given
        self.templates = {} if templates is None else templates
        self.counts = {} if counts is None else counts
        self.notes = [] if notes is None else notes
        self.sources = {} if sources is None else sources
        self.implicit = {} if implicit is None else implicit

    def mark(self, key: str, path: str, group: str = "env") -> None:
        self.implicit.setdefault(key, {})[path] = group


def runtime_pods(runtime: Any) -> dict[str, dict[str, Any]]:
    """Pod templates (metadata + spec) of a runtime document's replicated jobs; the Job's
    exit-code failure policy is kept beside the pod spec as ``x-exitCodes``."""
    pods = {}
    for job in paths.get(runtime, ("spec", "template", "spec", "replicatedJobs")) or []:
        if isinstance(job, dict) and isinstance(job.get("name"), str):
            template = copy.deepcopy(paths.get(job, ("template", "spec", "template")) or {})
            if _fails_on_exit_codes(paths.get(job, ("template", "spec", "podFailurePolicy"))):
                template.setdefault("spec", {})[EXIT_CODES] = PERMANENT_EXIT_CODES
            pods[job["name"]] = template
    return pods


def _fails_on_exit_codes(policy: Any) -> bool:
    for rule in (policy or {}).get("rules") or [] if isinstance(policy, dict) else []:
        codes = paths.get(rule, ("onExitCodes", "values")) if isinstance(rule, dict) else None
        if rule.get("action") == "FailJob" and isinstance(codes, list) and \
                set(codes) >= set(range(1, 128)):
            return True
    return False


def default_runtime(target: TargetSpec, name: str) -> dict[str, dict[str, Any]] | None:
    """Pod templates of a default runtime of ``target``, when the catalog describes them."""
    for runtime in target.default_runtimes:
        if runtime.name == name and runtime.pods:
            return {job: {"spec": copy.deepcopy(spec)} for job, spec in runtime.pods.items()}
    return None


# --- the Trainer side ----------------------------------------------------------------------


def render(trainjob: Any, pods: dict[str, dict[str, Any]], policy: str,
           target: TargetSpec, *, launcher_as_node: bool = False,
           ssh_path: str | None = None, slots: int | None = None) -> Pods:
    """The effective pod template of each replicated job for ``trainjob`` on ``target``."""
    out = Pods(templates=copy.deepcopy(pods))
    spec = trainjob.get("spec") or {}
    trainer = spec.get("trainer") or {}
    policy_spec = target.policies.get(policy)
    trainer_job = policy_spec.trainer_job if policy_spec else "node"
    mpi = policy == "mpi"
    env_jobs = (trainer_job, "node") if mpi and launcher_as_node else (trainer_job,)
    nodes = int(trainer.get("numNodes") or 1)
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
                _resources(node, trainer["resourcesPerNode"], target.resources_merged_per_key)
        if job == trainer_job and policy_spec is not None and "trainer" in spec:
            values = _plugin_values(trainer, nodes, slots)
            injected = [{"name": k, "value": _token(v, values)}
                        for k, v in policy_spec.injected_env.items()]
            _upsert_env(node, injected)
            for item in injected:
                out.mark(job, f"spec.containers.node.env.{item['name']}")
            if policy in ("torch", "jax", "xgboost"):
                ports = node.setdefault("ports", [])
                if not any(isinstance(p, dict) and p.get("containerPort") == TRAINER_PORT
                           for p in ports):
                    ports.append({"containerPort": TRAINER_PORT})
                out.mark(job, f"spec.containers.node.ports.{TRAINER_PORT}")
        if mpi and job in ("launcher", "node"):
            _mpi_volumes(out, job, template, node, ssh_path or DEFAULT_SSH_PATH)
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
    if mpi:
        out.counts = {"launcher": 1, "node": max(nodes - 1, 1) if launcher_as_node else nodes}
    else:
        out.counts = {job: nodes if job == trainer_job else 1 for job in out.templates}
    return out


def _plugin_values(trainer: Any, nodes: int, slots: int | None) -> dict[str, str]:
    nproc = trainer.get("numProcPerNode")
    return {"<numNodes>": str(nodes), "<numProcPerNode or auto>": str(nproc or "auto"),
            "<numProcPerNode>": str(nproc or slots or 1), "<numNodes x GPUs>": str(nodes)}


def _token(value: str, values: dict[str, str]) -> str:
    for placeholder, token in {**TOKENS, **values}.items():
        value = value.replace(placeholder, token)
    return value


def _mpi_volumes(out: Pods, job: str, template: dict[str, Any], node: dict[str, Any],
                 ssh_path: str) -> None:
    """The MPI policy's SSH key Secret (both jobs) and hostfile ConfigMap (launcher)."""
    volumes = [(MPI_SSH_VOLUME, ssh_path)]
    if job == "launcher":
        volumes.append((MPI_HOSTFILE_VOLUME, MPI_HOSTFILE_DIR))
    pod_volumes = template.setdefault("spec", {}).setdefault("volumes", [])
    mounts = node.setdefault("volumeMounts", [])
    for name, mount_path in volumes:
        if not any(isinstance(v, dict) and v.get("name") == name for v in pod_volumes):
            pod_volumes.append({"name": name, "x-source": "Trainer's MPI policy"})
        if not any(isinstance(m, dict) and m.get("name") == name for m in mounts):
            mounts.append({"name": name, "mountPath": mount_path})
        out.mark(job, f"spec.volumes.{name}", "volumes")
        out.mark(job, f"spec.containers.node.volumeMounts.{name}@{mount_path}", "volumes")


# --- the legacy side -----------------------------------------------------------------------


def legacy_pods(root: Any, spec: MappingSpec) -> Pods:
    """The pod of every legacy role as its operator created it, main container named node."""
    out = Pods()
    holder_path = paths.parse(spec.replica_specs.path)
    replicas = _replicas(root, spec)
    facts = job_facts(root, spec)
    operator = operators.load().get(spec.id)
    main_name = spec.main_container.name
    if spec.main_container.name_field:
        main_name = paths.get(root, paths.parse(spec.main_container.name_field))
    by_job: dict[str, list[str]] = {}
    for role, key, replica in replicas:
        job = spec.replica_specs.roles[role].job
        label = f"{job} ({role})"
        by_job.setdefault(job, []).append(label)
        template = {k: _copy(v) for k, v in (replica.get("template") or {}).items()
                    if k in ("metadata", "spec")}
        containers = paths.get(template, ("spec", "containers")) or []
        main = next((c for c in containers if isinstance(c, dict) and c.get("name") == main_name),
                    containers[0] if containers and isinstance(containers[0], dict) else None)
        original = main.get("name") if isinstance(main, dict) else None
        if isinstance(main, dict):
            _operator_additions(out, label, role, template, main, operator, facts, spec)
            note = f"container {original!r} is now 'node'"
            if original != "node" and note not in out.notes:
                out.notes.append(note)
            main["name"] = "node"
        policy = replica.get("restartPolicy") or spec.replica_specs.role_restart_policies.get(
            role, spec.replica_specs.default_restart_policy)
        pod_spec = template.setdefault("spec", {})
        pod_spec["restartPolicy"] = "Never" if policy == "ExitCode" else policy
        for pod_field, job_field in POD_FIELDS_FROM_JOB.items():
            value = paths.get(root, paths.parse(job_field))
            if value is not None and pod_field not in pod_spec:
                pod_spec[pod_field] = value  # the operator's gang scheduling set it on pods
        if policy == "ExitCode":
            pod_spec[EXIT_CODES] = PERMANENT_EXIT_CODES
        out.templates[label] = template
        out.sources[label] = Source(job, role, paths.render((*holder_path, key)),
                                    str(original) if original is not None else None,
                                    spec.replica_specs.roles[role].unsupported)
        default = spec.replica_specs.roles[role].default_replicas
        count = replica.get("replicas", default)
        out.counts[job] = out.counts.get(job, 0) + (count if isinstance(count, int) else 0)
    return out


def _copy(node: Any) -> Any:
    """A plain copy of a loaded subtree: maps and lists copied, keys and scalars kept (the
    round-trip loader's comment and position records are not copied: deep-copying them is
    quadratic in the number of sibling nodes)."""
    if isinstance(node, dict):
        return {key: _copy(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_copy(value) for value in node]
    return node


def _replicas(root: Any, spec: MappingSpec) -> list[tuple[str, str, Any]]:
    """(role, key as written, replica) of every known role of a legacy job."""
    holder = paths.get(root, paths.parse(spec.replica_specs.path)) or {}
    replicas = []
    for key, replica in holder.items() if isinstance(holder, dict) else []:
        role = next((r for r in spec.replica_specs.roles
                     if r == str(key) or (spec.replica_specs.case_insensitive_roles and
                                          r.lower() == str(key).lower())), None)
        if role is not None and isinstance(replica, dict):
            replicas.append((role, str(key), replica))
    return replicas


def job_facts(root: Any, spec: MappingSpec) -> operators.JobFacts:
    """What the legacy operator's additions depend on, for one job."""
    replicas = _replicas(root, spec)
    job_spec = root.get("spec") if isinstance(root.get("spec"), dict) else {}
    counts = {role: r.get("replicas", spec.replica_specs.roles[role].default_replicas)
              for role, _, r in replicas}
    total = sum(c for c in counts.values() if isinstance(c, int))
    nproc = job_spec.get("nprocPerNode")
    world = total * (int(nproc) if isinstance(nproc, str) and nproc.isdigit() else 1)
    facts = operators.JobFacts(values={
        "job": str(paths.get(root, ("metadata", "name")) or ""),
        "ns": str(paths.get(root, ("metadata", "namespace")) or ""),
        "replicas": str(total), "world": str(world), "nproc": str(nproc or ""),
        "slots": str(job_spec.get("slotsPerWorker") or 1),
        "sshPath": str(job_spec.get("sshAuthMountPath") or DEFAULT_SSH_PATH)})
    if "Master" in counts:
        facts.conditions.add("master")
    if nproc is not None:
        facts.conditions.add("nproc")
    if "elasticPolicy" not in job_spec:
        facts.conditions.add("notElastic")
    if total != 1:  # kubeflow/trainer@v1.9.2 pkg/controller.v1/tensorflow/util.go:74-94
        facts.conditions.add("distributed")
    facts.conditions.add(str(job_spec.get("mpiImplementation") or "OpenMPI").lower())
    as_worker = job_spec.get("runLauncherAsWorker")
    if as_worker is None and spec.num_nodes == "mpi":
        launcher: Any = next((r for role, _, r in replicas if role == "Launcher"), {})
        containers = paths.get(launcher, ("template", "spec", "containers")) or [{}]
        resources = containers[0].get("resources") if isinstance(containers[0], dict) else None
        as_worker = any("gpu" in str(k).lower() for section in ("limits", "requests")
                        for k in ((resources or {}).get(section) or {}))
    facts.conditions.add("launcherIsWorker" if as_worker else "launcherNotWorker")
    return facts


def _operator_additions(out: Pods, label: str, role: str, template: dict[str, Any],
                        main: dict[str, Any], operator: operators.Operator | None,
                        facts: operators.JobFacts, spec: MappingSpec) -> None:
    """What the legacy operator added to this role's pods (env, port, command, volumes)."""
    if operator is None:
        return
    additions = operator.role(role)
    if operator.port is not None:
        ports = main.setdefault("ports", [])
        named = [p for p in ports if isinstance(p, dict) and p.get("name") == operator.port.name]
        if not named:
            ports.append({"name": operator.port.name,
                          "containerPort": operator.port.container_port})
            out.mark(label, f"spec.containers.node.ports.{operator.port.name}")
        port = named[0].get("containerPort") if named else operator.port.container_port
        facts.values["port"] = str(port)
    if additions is None:
        return
    command = operators.implicit_command(operator, role, main, facts)
    if command is not None:
        main["command"] = command
        out.mark(label, "spec.containers.node.command", "command")
    containers = [main] if additions.containers == "main" else \
        [c for c in (paths.get(template, ("spec", "containers")) or []) if isinstance(c, dict)]
    for container in containers:
        name = "node" if container is main else container.get("name")
        env = [{"name": item.name, "value": facts.render(item.value)}
               for item in additions.env if facts.holds(item.when)]
        container.setdefault("env", []).extend(env)
        if not container["env"]:
            del container["env"]
        for item in env:
            out.mark(label, f"spec.containers.{name}.env.{item['name']}")
    for volume in additions.volumes:
        mount_path = facts.render(volume.mount_path)
        template.setdefault("spec", {}).setdefault("volumes", []).append(
            {"name": volume.trainer or volume.name, "x-source": "the legacy operator"})
        main.setdefault("volumeMounts", []).append({"name": volume.trainer or volume.name,
                                                    "mountPath": mount_path})
        # the operator's volume compares as Trainer's counterpart (same role, same path); the
        # files Trainer does not write are F526's business
        out.mark(label, f"spec.volumes.{volume.trainer or volume.name}", "volumes")
        out.mark(label, f"spec.containers.node.volumeMounts.{volume.trainer or volume.name}"
                        f"@{mount_path}", "volumes")
    del spec  # the mapping is not needed beyond the role's data


# --- comparison and attribution ------------------------------------------------------------


def compare(legacy: Pods, rendered: Pods) -> list[Difference]:
    """Every difference between each legacy role's pods and its replicated job's pods."""
    from deepdiff import DeepDiff

    differences = []
    pairs = [(key, legacy.sources[key].job if key in legacy.sources else key)
             for key in legacy.templates]
    pairs += [(job, job) for job in rendered.templates
              if not any(job == j for _, j in pairs)]
    for key, job in sorted(pairs):
        before = _normalise(legacy.templates.get(key, {}))
        after = _normalise(rendered.templates.get(job, {}))
        diff = DeepDiff(before, after, view="tree", threshold_to_diff_deeper=0)
        marks = _Marks({**legacy.implicit.get(key, {}), **rendered.implicit.get(job, {})})
        for items in diff.values():
            for item in items:
                path = ".".join(str(p) for p in item.path(output_format="list"))
                t1 = _MISSING if type(item.t1).__name__ == "NotPresent" else item.t1
                t2 = _MISSING if type(item.t2).__name__ == "NotPresent" else item.t2
                implicit = marks.group(path, t1 if t2 is _MISSING else t2)
                differences.append(Difference(key, _category(path), path, t1, t2, implicit))
    differences.extend(Difference(job, "pod count", "replicas", legacy.counts.get(job),
                                  rendered.counts.get(job))
                       for job in sorted(set(legacy.counts) | set(rendered.counts))
                       if legacy.counts.get(job) != rendered.counts.get(job))
    return sorted(differences, key=lambda d: (d.job, d.category, d.path))


class _MarkNode:
    """A step of the marks' trie: the next steps, and the first mark ending here."""

    __slots__ = ("children", "mark")

    def __init__(self) -> None:
        self.children: dict[str, _MarkNode] = {}
        self.mark: tuple[int, str] | None = None  # (order of the mark, its group)


class _Marks:
    """The marked paths of one pod pair in a trie of ``.``-separated steps, so ``group`` walks
    down one path instead of testing every mark (a job with many containers has many)."""

    def __init__(self, marks: dict[str, str]) -> None:
        self.root = _MarkNode()
        for order, (mark, group) in enumerate(marks.items()):
            node = self.root
            for part in mark.split("."):
                child = node.children.get(part)
                if child is None:
                    child = node.children[part] = _MarkNode()
                node = child
            if node.mark is None:
                node.mark = (order, group)

    def group(self, path: str, value: Any) -> str:
        """The contract group when the difference lies in what an operator or a plugin adds:
        at or below a marked path (the first such mark), or a whole map whose every entry is
        marked (of one group)."""
        node: _MarkNode | None = self.root
        first: tuple[int, str] | None = None
        for part in path.split("."):
            node = node.children.get(part) if node is not None else None
            if node is None:
                break
            if node.mark is not None and (first is None or node.mark[0] < first[0]):
                first = node.mark
        if first is not None:
            return first[1]
        if isinstance(value, dict) and value and node is not None and node.children:
            groups = {self.group(f"{path}.{key}", item) for key, item in value.items()}
            return groups.pop() if len(groups) == 1 else ""
        return ""


def attribute(differences: list[Difference], findings: list[Finding],
              legacy: Pods) -> list[Difference]:
    """Each difference with the codes of the findings that name it (by path or contract)."""
    contract = {group: {f.code for f in findings if f.code in codes}
                for group, codes in CONTRACT_CODES.items()}
    normalised = {key: _normalise(template) for key, template in legacy.templates.items()}
    index = PathIndex(findings)
    out = []
    for difference in differences:
        codes = set()
        for source in _source_paths(difference, legacy, normalised):
            codes |= index.naming(source)
        if difference.implicit:
            codes.update(contract[difference.implicit])
        out.append(replaced(difference, named_by=tuple(sorted(codes))))
    return out


def _source_paths(difference: Difference, legacy: Pods,
                  normalised: dict[str, Any]) -> list[str]:
    """The legacy fields a difference comes from: in its own role's template, and in every
    other role of the same job that had the same value there (a finding about the primary
    role's field names the loss for all roles that shared it)."""
    source = legacy.sources.get(difference.job)
    if source is None:  # a job only Trainer runs (e.g. the MPI node job of a launcher-only job)
        return [s.path for s in legacy.sources.values()]
    if difference.path == "replicas":
        return [f"{s.path}.replicas" for s in legacy.sources.values() if s.job == source.job]
    job_level = POD_FIELDS_FROM_JOB.get(difference.path.removeprefix("spec."))
    out = [job_level] if job_level is not None else []
    if source.unsupported:
        out.append(source.path)  # the whole role is dropped, and reported as such
    own = normalised.get(difference.job, {})
    here = _lookup(own, difference.path)
    after = _normalise(difference.after) if difference.after is not _MISSING else _MISSING
    for key, other in legacy.sources.items():
        if other.job != source.job:
            continue
        if key != difference.job:
            # another role's finding names the difference when that role shared the lost value,
            # or when its value is the one every node now gets
            theirs = _lookup(normalised.get(key, {}), difference.path)
            if theirs != here and theirs != after:
                continue
        out += _render_source(other, difference.path)
    return out


def _render_source(source: Source, path: str) -> list[str]:
    """``spec.containers.node.env.X`` → ``<role>.template.spec.containers[name=M].env[name=X]``
    (M: the role's main container as written)."""
    parts = path.split(".")
    if parts[:2] in (["spec", "restartPolicy"], ["spec", EXIT_CODES]):
        return [f"{source.path}.restartPolicy", f"{source.path}.template.spec.restartPolicy"]
    out: list[str] = []
    index = 0
    while index < len(parts):
        part = parts[index]
        if part in NAMED_LISTS and index + 1 < len(parts):
            name = parts[index + 1]
            if part == "volumeMounts":
                name = name.split("@", 1)[0]
            if part in ("containers", "initContainers") and name == "node" and source.main:
                name = source.main
            out.append(f"{part}[name={name}]")
            index += 2
        else:
            out.append(part)
            index += 1
    return [f"{source.path}.template." + ".".join(out).replace(".[", "[")]


_SEPARATOR = re.compile(r"(?=[.\[])")


class _Node:
    """A trie node: the next path steps, the codes at or below it, the codes naming below it."""

    __slots__ = ("ancestor", "below", "children")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.below: set[str] = set()
        self.ancestor: set[str] = set()


class PathIndex:
    """The findings' paths in a trie of path steps (split before each ``.`` and ``[``), so the
    findings that name a source path (``_names``) are found in one walk down the source path:
    linear in the findings' and the sources' path lengths, never findings x differences."""

    def __init__(self, findings: list[Finding]) -> None:
        self.root = _Node()
        self.steps = 0  # trie steps taken (read by the complexity test)
        for finding in findings:
            node = self.root
            for part in _SEPARATOR.split(finding.path):
                self.steps += 1
                child = node.children.get(part)
                if child is None:
                    child = node.children[part] = _Node()
                node = child
                node.below.add(finding.code)  # a finding at or below this path
            if _names_as_ancestor(finding.path):
                node.ancestor.add(finding.code)

    def naming(self, source: str) -> set[str]:
        """The codes of the findings that name ``source`` (as ``_names`` decides)."""
        codes: set[str] = set()
        node = self.root
        parts = _SEPARATOR.split(source)
        for index, part in enumerate(parts):
            self.steps += 1
            child = node.children.get(part)
            if child is None:
                return codes
            node = child
            if index < len(parts) - 1:
                codes |= node.ancestor  # a finding at an ancestor of the source
        return codes | node.below


def _names_as_ancestor(finding: str) -> bool:
    """Whether a finding at ``finding`` names the fields below it (``_names``' second case)."""
    marker = ".template."
    cut = finding.find(marker)
    if cut < 0:
        return finding.endswith((".restartPolicy", ".replicas"))
    rest = finding[cut + len(marker):]
    return rest.count(".") >= 1 or "[" in rest  # e.g. spec.initContainers, metadata.labels


def _lookup(tree: Any, path: str) -> Any:
    node = tree
    for part in path.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def _normalise(template: Any) -> Any:
    """Plain Python values; named lists become maps keyed by name (a reorder is no change);
    ports are keyed by name (or number); resource quantities are compared by value."""
    if isinstance(template, bool | int | float | str):
        return yamlio.scalar(template)
    if isinstance(template, dict):
        out = {}
        for key, value in template.items():
            if key in NAMED_LISTS and isinstance(value, list) and \
                    all(isinstance(v, dict) and _item_key(key, v) is not None for v in value):
                out[key] = {_item_key(key, v): _normalise(v) for v in value}
            elif key in EMPTY_IS_UNSET and isinstance(value, dict) and not _normalise(value):
                continue  # resources: {} or limits: {} requests nothing
            elif key in ("limits", "requests") and isinstance(value, dict):
                out[key] = {str(k): _quantity(v) for k, v in value.items()}
            elif key == "x-source" or value is None:
                continue  # null is unset in Kubernetes
            elif key == "serviceAccount" and "serviceAccountName" not in template:
                out["serviceAccountName"] = _normalise(value)  # the deprecated alias
            else:
                out[key] = _normalise(value)
        return out
    if isinstance(template, list):
        return [_normalise(v) for v in template]
    return template


def _item_key(key: str, item: dict[str, Any]) -> str | None:
    if key == "volumeMounts":
        return f"{item.get('name')}@{item.get('mountPath')}" if "name" in item else None
    if key == "ports":
        name = item.get("name") or item.get("containerPort")
        return str(name) if name is not None else None
    return str(item["name"]) if "name" in item else None


def _quantity(value: Any) -> Any:
    parsed = quantity.parse(value)
    return str(parsed) if parsed is not None else yamlio.scalar(value)


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


def _resources(container: dict[str, Any], resources: Any, merged_per_key: bool) -> None:
    if not merged_per_key or not isinstance(container.get("resources"), dict):
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
