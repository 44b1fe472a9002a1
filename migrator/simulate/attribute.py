"""SIMULATE: which findings of a converted document name each simulated difference.

A difference is named when a finding of the document speaks of it:

- by **path**, for what the job itself wrote: the difference's place in a pod is taken back to
  the legacy field it came from (``node-1``'s ``containers[node].env[X]`` is
  ``spec.pytorchReplicaSpecs.Worker.template.spec.containers[name=pytorch].env[name=X]``), and
  a finding at that field, above it or below it names it (``effective.PathIndex``);
- by **contract**, for what a controller added on its own (the legacy operator's env, ports,
  volumes and commands; Trainer's plugins'): a finding of the contract group of the difference's
  aspect (``CONTRACT``: the codes that say "this kind's runtime contract changed");
- by **outcome**, for what happens to the job (``OUTCOME``): the findings that speak of pod
  counts, retries and success rules.

What no finding names is the simulator's verdict on the converter: a silent behaviour change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from migrator.check import effective
from migrator.results import Finding
from migrator.simulate.compare import Difference
from migrator.simulate.model import World

# Aspect -> the codes that name what a controller adds to pods of that aspect by itself.
CONTRACT: dict[str, frozenset[str]] = {
    "env": effective.CONTRACT_CODES["env"] | {"F505", "F506", "F511", "F523", "F530", "F532",
                                              "C409", "C410", "C412", "C413", "C416"},
    "ports": effective.CONTRACT_CODES["env"] | {"F511", "F523", "P312"},
    "command": effective.CONTRACT_CODES["command"] | {"F511", "C410", "C412", "C416"},
    "volumes": effective.CONTRACT_CODES["volumes"] | {"F533"},
    "pod spec": effective.CONTRACT_CODES["volumes"] | {"F533"},
    "scheduling": frozenset({"R205", "R217"}),
    "init containers": frozenset({"F516", "F527"}),
    "network": frozenset({"P312", "P315"}),
}
# Outcome and pod-count differences -> the codes that speak of them (wherever they stand).
OUTCOME: dict[str, frozenset[str]] = {
    "pods": frozenset({"F523", "R208", "R218"}),
    "outcome": frozenset({"R204", "R210", "R214", "P311", "F513", "F501", "F531", "F534",
                          "F535", "F536"}),
    "selectors": frozenset({"C409", "P306", "P308", "P313", "P314"}),
}
# Aspects where the TrainJob gives every node one value although the roles differed: the finding
# that says so (at one role's field) names every node's difference.
ROLE_MERGES = {"restart policy": frozenset({"P311"}), "resources": frozenset({"P307"})}
# Findings that say the pods are the same although the job is written otherwise: they name no
# difference (P316: a role's env in another order that sets the same environment, see
# migrator/check/envorder.py; the simulator compares env by name, so the order is none either).
SAME_PODS = frozenset({"P316"})
# Outcome differences are also named by a finding at a field that decides outcomes.
OUTCOME_FIELDS = (".restartPolicy", "runPolicy.backoffLimit", "spec.successPolicy",
                  "spec.elasticPolicy", "runPolicy.managedBy")
_STEP = re.compile(r"(\w+)\[([^\]]*)\]|(\w+)")


def attribute(differences: Iterable[Difference], findings: list[Finding],
              job: Mapping[str, Any], legacy: World) -> list[tuple[Difference, tuple[str, ...]]]:
    """Each difference with the sorted codes of the findings that name it."""
    findings = [finding for finding in findings if finding.code not in SAME_PODS]
    index = effective.PathIndex(findings)
    codes = {finding.code for finding in findings}
    roles = _roles(job, legacy)
    out = []
    every_role = set(roles.values())
    differences = list(differences)
    # a role dropped or added changes when the job ends: what names the pods names that too
    roles_named = {code for difference in differences if difference.aspect == "pods"
                   and difference.identity in roles
                   for code in index.naming(roles[difference.identity][0])}
    for difference in differences:
        named: set[str] = set()
        if difference.aspect in OUTCOME:
            named |= codes & OUTCOME[difference.aspect]
        # one value for every node, the roles' values differed: the finding at one role says so
        named |= codes & ROLE_MERGES.get(difference.aspect, frozenset())
        if difference.aspect == "outcome":
            named |= {f.code for f in findings if f.path.endswith(OUTCOME_FIELDS)}
            named |= roles_named
        role = roles.get(difference.identity)
        if role is not None and difference.aspect == "pods":
            named |= index.naming(role[0])  # a finding at the role names its pods
        if role is not None and difference.aspect not in OUTCOME:
            path, main = role
            source = _source(path, main, difference.path)
            named |= index.naming(source)
            for one, other in ((".args", ".command"), (".command", ".args")):
                if source.endswith(one):  # command and args are one launch line
                    named |= index.naming(source.removesuffix(one) + other)
            if not _written(job, source):
                named |= codes & CONTRACT.get(difference.aspect, frozenset())
            # a finding at another role's field names the loss for every role that had the
            # same value there (the converter reports a shared value once, at the primary role)
            for other, other_main in every_role - {role}:
                twin = _source(other, other_main, difference.path)
                if _value(job, twin) == _value(job, source) is not _ABSENT:
                    named |= index.naming(twin)
        out.append((difference, tuple(sorted(named))))
    return out


def _roles(job: Mapping[str, Any], world: World) -> dict[str, tuple[str, str]]:
    """identity -> (the legacy replica's path, its main container's name as written)."""
    spec = job.get("spec")
    if not isinstance(spec, Mapping):
        return {}
    out: dict[str, tuple[str, str]] = {}
    for field, replicas in spec.items():
        if not (isinstance(field, str) and field.endswith("ReplicaSpecs")
                and isinstance(replicas, Mapping)):
            continue
        by_group = {str(name).lower(): str(name) for name in replicas}
        for pod in world.pods:
            name = by_group.get(pod.group)
            if name is None:
                continue
            template = replicas[name].get("template") if isinstance(replicas[name], Mapping) \
                else None
            containers = ((template or {}).get("spec") or {}).get("containers") \
                if isinstance(template, Mapping) else None
            first = containers[0].get("name") if isinstance(containers, list) and containers \
                and isinstance(containers[0], Mapping) else ""
            out[pod.identity] = (f"spec.{field}.{name}", str(first or ""))
    return out


def _source(role: str, main: str, path: str) -> str:
    """``containers[node].env[X].value`` -> ``<role>.template.spec.containers[name=M].env[name=X]
    .value`` (M: the role's main container as written); restart policies are the replica's."""
    if path == "restartPolicy":
        return f"{role}.restartPolicy"
    steps = []
    for match in _STEP.finditer(path):
        listed, key, plain = match.groups()
        if plain is not None:
            steps.append(f".{plain}")
        else:
            name = main if listed == "containers" and key == "node" and main else key
            steps.append(f".{listed}[name={name}]")
    return f"{role}.template.spec" + "".join(steps)


_ABSENT: Any = object()


def _written(job: Mapping[str, Any], source: str) -> bool:
    """Whether the legacy object itself holds a value at ``source`` (else a controller added
    it, or Trainer did)."""
    return _value(job, source) is not _ABSENT


def _value(job: Mapping[str, Any], source: str) -> Any:
    """The legacy object's value at ``source`` (``_ABSENT`` when it holds none)."""
    node: Any = job
    for match in _STEP.finditer(source):
        listed, key, plain = match.groups()
        if plain is not None:
            if not isinstance(node, Mapping) or plain not in node:
                return _ABSENT
            node = node[plain]
            continue
        if not isinstance(node, Mapping) or not isinstance(node.get(listed), list):
            return _ABSENT
        wanted = key.removeprefix("name=")
        node = next((item for item in node[listed] if isinstance(item, Mapping)
                     and str(item.get("name", item.get("containerPort"))) == wanted), None)
        if node is None:
            return _ABSENT
    return node
