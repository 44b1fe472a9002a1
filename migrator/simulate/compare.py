"""SIMULATE: pair the legacy and the Trainer world and list every difference in pods and outcomes.

Nothing here knows a framework or a controller: both worlds are compared as data, after one
normalisation that both sides share by construction. A pod's own addresses differ between the
controllers (``job-master-0`` against ``job-node-0-0.job``), so every host name and service name
of a world is replaced, wherever it appears in that world's pod specs, by the identity of the
pod it reaches (``<host:node-0>``). A legacy ``MASTER_ADDR`` that named the master and a Trainer
``PET_MASTER_ADDR`` that names node 0 then read the same; a hard-coded ``job-worker-0`` carried
into the TrainJob stays literal on the Trainer side (nothing answers to it there) and is a
difference.

Labels are not compared as such (each controller adds its own); what they are for is: every
label selector in a pod spec (affinity, anti-affinity, topology spread) is evaluated against the
world's own pods, and the identities it matches are compared. A pod count, a container, an env
variable, a port, a command, a resource, a scheduling field, a restart policy, a selector's
reach, and each scenario's outcome that differ are each one ``Difference``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from migrator.check import quantity
from migrator.simulate.model import Event, Outcome, Scenario, World

# The named lists of a pod spec: compared item by item by name, not by position.
NAMED_LISTS = frozenset({"containers", "initContainers", "volumes", "env", "volumeMounts",
                         "ports", "imagePullSecrets", "schedulingGates", "resourceClaims"})
# Addresses: compared through the normalisation (every address reads as the identity it
# reaches), not as fields (Trainer's JobSet writes them into the pod spec, the legacy operators
# give a pod its name and a headless service instead).
ADDRESS_FIELDS = frozenset({"hostname", "subdomain"})
# Where label selectors stand in a pod spec (path segments; ``*`` is any list item).
SELECTOR_PATHS = (
    ("affinity", "podAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "*",
     "labelSelector"),
    ("affinity", "podAffinity", "preferredDuringSchedulingIgnoredDuringExecution", "*",
     "podAffinityTerm", "labelSelector"),
    ("affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "*",
     "labelSelector"),
    ("affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution", "*",
     "podAffinityTerm", "labelSelector"),
    ("topologySpreadConstraints", "*", "labelSelector"),
)
ASPECTS = {"containers": "containers", "initContainers": "init containers", "env": "env",
           "envFrom": "env", "ports": "ports", "command": "command", "args": "command",
           "image": "image", "resources": "resources", "volumes": "volumes",
           "volumeMounts": "volumes", "restartPolicy": "restart policy",
           "schedulerName": "scheduling", "priorityClassName": "scheduling",
           "nodeSelector": "scheduling", "tolerations": "scheduling",
           "affinity": "scheduling", "topologySpreadConstraints": "scheduling",
           "hostNetwork": "network", "dnsPolicy": "network", "workingDir": "command"}


@dataclass(frozen=True)
class Difference:
    """One way the pods or the outcome differ: ``identity`` is the pod (``""`` for the job),
    ``aspect`` a reviewer's category (env, ports, scheduling, pods, outcome, ...), ``path`` where
    inside the pod spec (``containers[node].env[MASTER_ADDR].value``) or the scenario's name."""

    identity: str
    aspect: str
    path: str
    legacy: Any
    trainer: Any

    def __str__(self) -> str:
        where = f"{self.identity}: " if self.identity else ""
        return f"{where}{self.path}: {_short(self.legacy)} -> {_short(self.trainer)}"


def with_config_maps(world: World, maps: Mapping[str, Mapping[str, Any]]) -> World:
    """``world`` with the data of every ConfigMap of ``maps`` (by name) a pod mounts written
    into that volume (``configMap.data``): what a container reads from the file is compared
    like its env, the world's addresses normalised (a legacy host name listed in the file reads
    as the pod it reached; carried into the TrainJob, it stays literal)."""
    if not maps:
        return world

    def volume(item: Any) -> Any:
        source = item.get("configMap") if isinstance(item, Mapping) else None
        if not isinstance(source, Mapping) or str(source.get("name")) not in maps:
            return item
        return {**item, "configMap": {**source, "data": dict(maps[str(source.get("name"))])}}

    pods = tuple(replace(pod, spec={**pod.spec, "volumes": [
        volume(item) for item in pod.spec.get("volumes") or []]})
        if pod.spec.get("volumes") else pod for pod in world.pods)
    return replace(world, pods=pods)


def pods(legacy: World, trainer: World) -> list[Difference]:
    """Every difference between the pods the two worlds create, paired by identity."""
    left, right = _normalised(legacy), _normalised(trainer)
    out: list[Difference] = []
    for identity in sorted(set(left) | set(right), key=_identity_order):
        before, after = left.get(identity), right.get(identity)
        if before is None or after is None:
            out.append(Difference(identity, "pods", "pod", before is not None, after is not None))
            continue
        main_before, main_after = _main_names(before, after)
        out.extend(Difference(identity, _aspect(path), path, a, b)
                   for path, a, b in _diff(_paired(before, main_before, main_after),
                                           _paired(after, main_after, main_after), ""))
    out.extend(_selector_reach(legacy, trainer))
    return out


def outcomes(legacy: Outcome, trainer: Outcome) -> list[Difference]:
    """How the same scenario ends differently: the phase, when the job finished, and what the
    controllers did at each occurrence of each event until then."""
    name = legacy.scenario
    out: list[Difference] = []
    if legacy.phase != trainer.phase:
        out.append(Difference("", "outcome", f"{name}: phase", legacy.phase, trainer.phase))
    if legacy.finished_at != trainer.finished_at:
        out.append(Difference("", "outcome", f"{name}: finished at (event, occurrence)",
                              legacy.finished_at, trainer.finished_at))
    left = {(s.event, s.occurrence): s.reaction for s in legacy.steps}
    right = {(s.event, s.occurrence): s.reaction for s in trainer.steps}
    out.extend(Difference("", "outcome", f"{name}: event {key[0]} occurrence {key[1]}",
                          left[key], right[key])
               for key in sorted(set(left) & set(right)) if left[key] != right[key])
    return out


def scenarios(world: World) -> list[Scenario]:
    """The lifecycle scenarios every job is put through, addressed by the identities of
    ``world`` (the legacy one): the rank-0 node finishes first; everyone succeeds; the last
    node fails once, and more often than any default retry limit; the rank-0 node is OOM-killed
    three times; the rank-0 node is evicted; the launcher fails, and is evicted (MPI)."""
    identities = [pod.identity for pod in world.pods]
    nodes = sorted((i for i in identities if i.startswith("node-")), key=_identity_order)
    launchers = sorted(i for i in identities if i.startswith("launcher-"))
    others = sorted((i for i in identities if i not in nodes and i not in launchers
                     and not i.startswith("init:")), key=_identity_order)
    first = nodes[0] if nodes else (others[0] if others else None)
    last = nodes[-1] if nodes else (others[-1] if others else None)
    out: list[Scenario] = []
    if first is not None:
        out.append(Scenario("rank 0 finishes first", (Event(first, "exit", 0),)))
    everyone = [*nodes[1:], *others, *nodes[:1], *launchers]
    if everyone:
        out.append(Scenario("every pod succeeds",
                            tuple(Event(identity, "exit", 0) for identity in everyone)))
    if last is not None:
        out.append(Scenario("a node fails once", (Event(last, "exit", 1),)))
        out.append(Scenario("a node fails 8 times", (Event(last, "exit", 1, times=8),)))
    if first is not None:
        out.append(Scenario("rank 0 is OOM-killed 3 times", (Event(first, "exit", 137, 3),)))
        out.append(Scenario("rank 0 is evicted", (Event(first, "evict"),)))
    if launchers:
        out.append(Scenario("the launcher fails", (Event(launchers[0], "exit", 1),)))
        out.append(Scenario("the launcher is evicted", (Event(launchers[0], "evict"),)))
    return out


# --- normalisation -------------------------------------------------------------------------

def _normalised(world: World) -> dict[str, dict[str, Any]]:
    """identity -> the pod's spec with every address of the world replaced by its identity."""
    names: dict[str, str] = {}
    for pod in world.pods:
        for name in (pod.hostname, *pod.services):
            if name:
                names[name] = f"<host:{pod.identity}>"
                short = name.split(".", 1)[0]
                names.setdefault(short, f"<host:{pod.identity}>")
    pattern = _addresses(names)
    return {pod.identity: _replace({key: value for key, value in _plain(pod.spec).items()
                                    if key not in ADDRESS_FIELDS}, pattern, names)
            for pod in world.pods}


def _addresses(names: Mapping[str, str]) -> re.Pattern[str] | None:
    """One pattern for every address, longest first, bounded by characters a DNS name lacks
    (a FQDN's ``.svc.cluster.local`` tail goes with it)."""
    if not names:
        return None
    alternatives = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9.-])({alternatives})((?:\.[A-Za-z0-9-]+)*)(?![A-Za-z0-9-])")


def _replace(node: Any, pattern: re.Pattern[str] | None, names: Mapping[str, str]) -> Any:
    if pattern is None:
        return node
    if isinstance(node, str):
        return pattern.sub(lambda match: names[match.group(1)], node)
    if isinstance(node, dict):
        return {key: _replace(value, pattern, names) for key, value in node.items()}
    if isinstance(node, list):
        return [_replace(value, pattern, names) for value in node]
    return node


def _plain(node: Any) -> Any:
    """A deep copy as dicts and lists (specs may hold mappings and tuples)."""
    if isinstance(node, Mapping):
        return {str(key): _plain(value) for key, value in node.items()}
    if isinstance(node, (list, tuple)):
        return [_plain(value) for value in node]
    return node


def _main_names(before: Mapping[str, Any], after: Mapping[str, Any]) -> tuple[str, str]:
    """The containers that run the training process on each side: when the two pods share no
    container name, their first containers (an operator's framework container is first by
    every kind's convention, and Trainer's is ``node``)."""
    left = [c.get("name") for c in before.get("containers") or [] if isinstance(c, dict)]
    right = [c.get("name") for c in after.get("containers") or [] if isinstance(c, dict)]
    if not left or not right or set(left) & set(right):
        return ("", "")
    return (str(left[0]), str(right[0]))


def _paired(spec: dict[str, Any], main: str, name: str) -> dict[str, Any]:
    """``spec`` with its main container renamed to the other side's main container name (and
    every ``containerName`` reference to it: a resourceFieldRef follows its container)."""
    if not main or main == name:
        return spec
    renamed = _renamed(spec, main, name)
    containers = [dict(c, name=name) if isinstance(c, dict) and c.get("name") == main else c
                  for c in renamed.get("containers") or []]
    return {**renamed, "containers": containers}


def _renamed(node: Any, old: str, new: str) -> Any:
    if isinstance(node, dict):
        return {key: new if key == "containerName" and value == old else
                _renamed(value, old, new) for key, value in node.items()}
    if isinstance(node, list):
        return [_renamed(value, old, new) for value in node]
    return node


# --- structural diff -----------------------------------------------------------------------

def _diff(before: Any, after: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    """(path, before, after) for every leaf that differs; named lists by name."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            child = f"{path}.{key}" if path else key
            if key in NAMED_LISTS and _named(before.get(key)) and _named(after.get(key)):
                yield from _diff_named(before.get(key) or [], after.get(key) or [], child)
            else:
                yield from _diff(before.get(key, _MISSING), after.get(key, _MISSING), child)
    elif before != after and not (_empty(before) and _empty(after)) \
            and not _same_quantity(path, before, after):
        yield (path, None if before is _MISSING else before, None if after is _MISSING else after)


def _diff_named(before: list[Any], after: list[Any], path: str) -> Iterator[tuple[str, Any, Any]]:
    last = path.endswith(".env") or path == "env"
    left, right = _by_name(before, last=last), _by_name(after, last=last)
    for name in sorted(set(left) | set(right)):
        yield from _diff(left.get(name, _MISSING), right.get(name, _MISSING), f"{path}[{name}]")


def _named(items: Any) -> bool:
    return items is None or (isinstance(items, list) and all(
        isinstance(item, dict) and isinstance(item.get("name", item.get("containerPort")),
                                              (str, int)) for item in items))


def _by_name(items: Iterable[Any], *, last: bool = False) -> dict[str, Any]:
    """The items by name. With ``last`` (a container's ``env``), the last item of a name wins:
    the kubelet builds the environment in order, a later variable replacing an earlier one of
    the same name (as ``legacy_common.env_value`` reads it), so an operator's variable appended
    after the user's own of that name is the one the process sees. Elsewhere a name is unique
    (the API server refuses duplicate containers, volumes and port names); the first is kept."""
    out: dict[str, Any] = {}
    for item in items:
        key = str(item.get("name", item.get("containerPort")))
        if last:
            out[key] = item
        else:
            out.setdefault(key, item)
    return out


class _Missing:
    def __repr__(self) -> str:
        return "<absent>"


_MISSING: Any = _Missing()


def _same_quantity(path: str, before: Any, after: Any) -> bool:
    """Resource quantities compare by value (``0.5`` and ``"500m"`` request the same)."""
    if ".resources." not in f".{path}":
        return False
    parsed = quantity.parse(before)
    return parsed is not None and parsed == quantity.parse(after)


def _empty(value: Any) -> bool:
    """Absent, null and empty read the same to the API server."""
    return value is _MISSING or value is None or value in ({}, [], "")


# --- selectors -----------------------------------------------------------------------------

def _selector_reach(legacy: World, trainer: World) -> list[Difference]:
    """For each label selector of each pod, the identities it selects on each side."""
    out: list[Difference] = []
    for pod in legacy.pods:
        other = trainer.pod(pod.identity)
        if other is None:
            continue
        for path, selector in _selectors(pod.spec):
            reached_before = _reach(selector, legacy)
            reached_after = _reach(_at(other.spec, path) or selector, trainer)
            if reached_before != reached_after:
                out.append(Difference(pod.identity, "selectors", ".".join(path) + " (selects)",
                                      sorted(reached_before, key=_identity_order),
                                      sorted(reached_after, key=_identity_order)))
    return out


def _selectors(spec: Mapping[str, Any]) -> Iterator[tuple[tuple[str, ...], Mapping[str, Any]]]:
    for template in SELECTOR_PATHS:
        yield from _walk(spec, template, ())


def _walk(node: Any, rest: tuple[str, ...],
          done: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Mapping[str, Any]]]:
    if not rest:
        if isinstance(node, Mapping):
            yield (done, node)
        return
    head, tail = rest[0], rest[1:]
    if head == "*":
        if isinstance(node, list):
            for index, item in enumerate(node):
                yield from _walk(item, tail, (*done, str(index)))
    elif isinstance(node, Mapping) and head in node:
        yield from _walk(node[head], tail, (*done, head))


def _at(spec: Mapping[str, Any], path: tuple[str, ...]) -> Mapping[str, Any] | None:
    node: Any = spec
    for part in path:
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, Mapping) and part in node:
            node = node[part]
        else:
            return None
    return node if isinstance(node, Mapping) else None


def _reach(selector: Mapping[str, Any], world: World) -> set[str]:
    return {pod.identity for pod in world.pods if matches(selector, pod.labels)}


def matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """A ``LabelSelector`` (matchLabels and matchExpressions) against one pod's labels; an
    empty selector matches every pod, as in the API (a malformed term matches none)."""
    match_labels = selector.get("matchLabels") or {}
    if not isinstance(match_labels, Mapping):
        return False
    if any(labels.get(str(key)) != str(value) for key, value in match_labels.items()):
        return False
    for term in selector.get("matchExpressions") or []:
        if not isinstance(term, Mapping):
            return False
        key, operator = str(term.get("key")), term.get("operator")
        values = {str(v) for v in term.get("values") or []}
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and labels.get(key) in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
        if operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


# --- naming --------------------------------------------------------------------------------

def _aspect(path: str) -> str:
    for part in reversed(re.split(r"[.\[\]]+", path)):
        if part in ASPECTS:
            return ASPECTS[part]
    return "pod spec"


def _identity_order(identity: str) -> tuple[str, int]:
    role, _, index = identity.rpartition("-")
    return (role, int(index)) if index.isdigit() else (identity, -1)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."

