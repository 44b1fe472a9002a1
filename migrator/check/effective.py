"""CHECK: what conversions read of runtimes and legacy jobs, and where findings point.

``runtime_pods`` and ``default_runtime`` give the pod templates of a runtime's replicated jobs
(a ``--runtimes`` file, or a default runtime the catalog describes) for the rules that compare
a job with the runtime it lands on; ``job_facts`` what the legacy operator's additions depend
on (mappings/common/legacy-operators.yaml); ``PathIndex`` which findings name a field of the
legacy job, for the simulator's verdict (``simulate/attribute.py``). What the pods and outcomes
of both sides are is the simulator's (``migrator/simulate``).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from migrator import paths
from migrator.check import operators
from migrator.knowledge.specs import MappingSpec, TargetSpec
from migrator.results import Finding

DEFAULT_SSH_PATH = "/root/.ssh"


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


def runtime_pods(runtime: Any) -> dict[str, dict[str, Any]]:
    """Pod templates (metadata + spec) of a runtime document's replicated jobs."""
    pods = {}
    for job in paths.get(runtime, ("spec", "template", "spec", "replicatedJobs")) or []:
        if isinstance(job, dict) and isinstance(job.get("name"), str):
            pods[job["name"]] = copy.deepcopy(
                paths.get(job, ("template", "spec", "template")) or {})
    return pods


def default_runtime(target: TargetSpec, name: str) -> dict[str, dict[str, Any]] | None:
    """Pod templates of a default runtime of ``target``, when the catalog describes them."""
    for runtime in target.default_runtimes:
        if runtime.name == name and runtime.pods:
            return {job: {"spec": copy.deepcopy(spec)} for job, spec in runtime.pods.items()}
    return None


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
    v1 = root.get("apiVersion") == "kubeflow.org/v1"
    if as_worker is None and spec.num_nodes == "mpi" and v1:
        # training-operator's v1 MPIJob: a launcher with a GPU was a host (kubeflow/trainer@v1.9.2
        # pkg/controller.v1/mpi/mpijob.go:196); mpi-operator v0.8.0 reads runLauncherAsWorker
        # alone, false when unset, whatever the launcher requests
        launcher: Any = next((r for role, _, r in replicas if role == "Launcher"), {})
        containers = paths.get(launcher, ("template", "spec", "containers")) or [{}]
        resources = containers[0].get("resources") if isinstance(containers[0], dict) else None
        as_worker = any("gpu" in str(k).lower() for section in ("limits", "requests")
                        for k in ((resources or {}).get(section) or {}))
    facts.conditions.add("launcherIsWorker" if as_worker else "launcherNotWorker")
    return facts


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
