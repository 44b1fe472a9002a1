"""CONVERT (rules): role merge: all TrainJob nodes share one pod template, so other roles must
match it.

One rule, in every mode (builtin or companion runtime): Trainer runs every node, rank 0
included, from one template, the primary role's (the role with the most pods). Every other
role is compared with it field by field. Two merges lose nothing for either role: differing
resources take the per-key maximum (P307), differing pod labels/annotations are merged,
primary wins (P308). A container env list that holds the same variables in another order, none
referring to another and no name repeated, sets the same environment: the primary's order is
used (P316; migrator/check/envorder.py cites the kubelet). Any other difference in a pod or
container field, or a sidecar that only one role has, is an error (P306) at the path of the
role whose pods would change, and so are
resources that template actions write differently (the maximum is known only once rendered); a
differing replica restartPolicy is a warning (P311): every node restarts like the primary.
"""

from __future__ import annotations

from typing import Any

from migrator import paths
from migrator.check import envorder, quantity
from migrator.convert.draft import Draft
from migrator.convert.ledger import Ledger
from migrator.convert.model import Container, Replica
from migrator.convert.rules.contract import templated
from migrator.load import yamlio
from migrator.paths import FieldPath

IGNORED_POD_FIELDS = ("restartPolicy",)


def merge_role(primary: Replica, primary_main: Container, other: Replica, other_main: Container,
               draft: Draft, ledger: Ledger) -> None:
    """Account for every field of ``other``'s template against the primary's."""
    _merge_metadata(primary, other, draft, ledger)
    pod, other_pod = primary.template.spec.node, other.template.spec.node
    for field in _keys(pod, other_pod):
        path = (*other.template.spec.path, field)
        if field == "containers":
            _merge_containers(primary, primary_main, other, other_main, draft, ledger)
        elif same(pod.get(field), other_pod.get(field)):
            ledger.default(path)
        elif field in IGNORED_POD_FIELDS:
            ledger.report("P309", path, f"{other.role} pod restartPolicy is overridden by the "
                          "replica restartPolicy and was dropped")
        else:
            _mismatch(primary, other, f"spec.{field}", path, ledger)
    for field in other.template.node:
        if field in ("metadata", "spec"):
            continue
        path = (*other.template.path, str(field))
        mine = primary.template.node.get(field)
        if same(mine, other.template.node[field]):
            ledger.default(path)  # the primary's copy is accounted for where it is
        else:
            ledger.report("U901", path, f"{paths.render(path)} is not known to any mapping "
                          "rule and was not carried over")


def _merge_metadata(primary: Replica, other: Replica, draft: Draft, ledger: Ledger) -> None:
    meta = other.template.metadata
    primary_meta = primary.template.metadata.node if primary.template.metadata else {}
    theirs = meta.node if meta is not None else {}
    for field in ("labels", "annotations"):
        for key in (primary_meta.get(field) or {}):
            if str(key) not in {str(k) for k in (theirs.get(field) or {})}:
                ledger.report("P308", (*other.template.path, "metadata", field, str(key)),
                              f"{primary.role} pod {field[:-1]} {key!r} is not on the "
                              f"{other.role} template; it now applies to every node",
                              consume=False)
    if meta is None:
        return
    for field, value in meta.node.items():
        path = (*meta.path, str(field))
        if field not in ("labels", "annotations"):
            if same(primary_meta.get(field), value):
                ledger.default(path)  # reported (if at all) on the primary's copy
            else:
                ledger.report("P310", path, f"{other.role} pod template metadata.{field} "
                              "cannot be carried by a runtime patch")
            continue
        patch = draft.job(other.job)
        merged = patch.labels if field == "labels" else patch.annotations
        for key, item in (value or {}).items():
            if str(key) not in merged:
                merged[str(key)] = item
                ledger.report("P308", (*path, str(key)),
                              f"{other.role} pod {field[:-1]} {key!r} is not on the "
                              f"{primary.role} template; it now applies to every node")
            elif merged[str(key)] != item:
                ledger.report("P308", (*path, str(key)),
                              f"{other.role} pod {field[:-1]} {key!r}={item!r} differs from "
                              f"{primary.role}'s; {primary.role}'s value is used")
            else:
                ledger.default((*path, str(key)))
        ledger.default(path)


def _merge_containers(primary: Replica, primary_main: Container, other: Replica,
                      other_main: Container, draft: Draft, ledger: Ledger) -> None:
    for field in _keys(primary_main.node, other_main.node):
        path = (*other_main.path, field)
        mine, theirs = primary_main.node.get(field), other_main.node.get(field)
        if field == "name" or same(mine, theirs):
            ledger.default(path)
        elif field == "ports":
            ledger.report("C403", path, f"{other.role} container ports were dropped (Trainer "
                          "opens its own port)")
        elif field == "resources":
            _merge_resources(primary, other, theirs, path, draft, ledger)
        elif field == "env" and _env_reordered(primary, other, mine, theirs, path, ledger):
            pass
        else:
            _mismatch(primary, other, f"container {field}", path, ledger)
    sidecars = {c.name: c for c in primary.template.containers if c.index != primary_main.index}
    theirs_names = set()
    for container in other.template.containers:
        if container.index == other_main.index:
            continue
        theirs_names.add(container.name)
        twin = sidecars.get(container.name)
        if twin is not None and (same(twin.node, container.node) or _sidecar_reordered(
                primary, other, twin, container, ledger)):
            ledger.default(container.path)
        else:
            what = "differs from" if twin is not None else "is not on"
            _mismatch(primary, other, f"sidecar container {container.name!r} (it {what} the "
                      f"{primary.role} template)", container.path, ledger)
    for name in sidecars:
        if name not in theirs_names:
            _mismatch(primary, other, f"sidecar container {name!r} (only the {primary.role} "
                      f"template has it; {other.role} pods would run it too)",
                      (*other.template.spec.path, "containers"), ledger, consume=False)


# Resources whose absent limit means no limit (a container may use all the node has); an absent
# extended resource (nvidia.com/gpu, hugepages-*) means none.
UNBOUNDED = frozenset({"cpu", "memory", "ephemeral-storage"})


def _merge_resources(primary: Replica, other: Replica, theirs: Any, path: FieldPath,
                     draft: Draft, ledger: Ledger) -> None:
    """Every node gets, per resource, the larger of the two roles' values: requests as the API
    server defaults them (a limit without a request requests the limit: the ResourceRequirements
    doc of k8s.io/api core/v1 types.go), and for cpu, memory and ephemeral-storage a limit only
    when both roles had one (a role without a limit was unbounded, the larger "value": writing
    the other role's limit would cap it, and could leave a request above its limit, which the
    API server refuses for the pod)."""
    mine = draft.trainer.get("resourcesPerNode")
    mine = mine if isinstance(mine, dict) else {}
    theirs = theirs if isinstance(theirs, dict) else {}
    explicit: set[str] = set()
    for side in (mine, theirs):
        given = side.get("requests")
        explicit.update(str(k) for k in (given if isinstance(given, dict) else {}))
    (my_requests, my_limits), (their_requests, their_limits) = _effective(mine), _effective(theirs)
    # (a key that is itself a template's placeholder, a fragment `toYaml .Values.x`, holds
    # entries known only once rendered: nothing is known to be larger)
    decided = sorted({str(key) for a, b in ((my_requests, their_requests),
                                            (my_limits, their_limits))
                      for key in set(a) | set(b)
                      if (key in a and key in b and str(a[key]) != str(b[key])
                          and (templated(a[key]) or templated(b[key])))
                      or (templated(key) and (key in a) != (key in b))})
    if decided:  # (while a template converts: its values are known once it is rendered)
        _mismatch(primary, other, f"resources {', '.join(decided)}, which the template's values "
                  "decide: which role's is larger is known only once rendered, and "
                  + UNDECIDED, path, ledger)
        return
    requests = _larger(my_requests, their_requests, set(my_requests) | set(their_requests))
    limit_keys = {k for k in set(my_limits) | set(their_limits)
                  if k not in UNBOUNDED or (k in my_limits and k in their_limits)}
    limits = _larger(my_limits, their_limits, limit_keys)
    for key in [k for k in requests if k not in explicit and k in limits
                and _same_quantity(requests[k], limits[k])]:
        del requests[key]  # the API server defaults it from the limit again
    merged = draft.trainer.get("resourcesPerNode")
    if not isinstance(merged, dict):
        merged = yamlio.new_map()
    for section, values in (("requests", requests), ("limits", limits)):
        current = merged.get(section)
        if not values:
            merged.pop(section, None)
            continue
        if not isinstance(current, dict):
            current = merged[section] = yamlio.new_map()
        for key in [k for k in current if str(k) not in values]:
            del current[key]
        for key, value in values.items():
            if current.get(key) != value:
                current[key] = value
    quantity.as_api_values(merged)
    draft.trainer["resourcesPerNode"] = merged
    ledger.report("P307", path, f"{other.role} and {primary.role} request different resources; "
                  "every node gets the per-resource maximum (no limit where a role had none)")


def _effective(resources: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(requests, limits) as the API server defaults them: a limit without a request of that
    resource requests the limit."""
    def section(name: str) -> dict[str, Any]:
        values = resources.get(name) if isinstance(resources, dict) else None
        return {str(k): v for k, v in values.items()} if isinstance(values, dict) else {}
    requests, limits = section("requests"), section("limits")
    for key, value in limits.items():
        requests.setdefault(key, value)
    return requests, limits


def _larger(first: dict[str, Any], second: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    """Per key of ``keys``, the larger value, in the order the roles write them (the first
    role's keys, then the other's: never a set's order, which changes from run to run)."""
    out = {}
    for key in (k for k in dict.fromkeys([*first, *second]) if k in keys):
        a, b = first.get(key), second.get(key)
        out[key] = b if a is None or (b is not None and _bigger(b, a)) else a
    return out


def _same_quantity(first: Any, second: Any) -> bool:
    a, b = quantity.parse(first), quantity.parse(second)
    return a is not None and a == b


def _bigger(value: Any, current: Any) -> bool:
    new, old = quantity.parse(value), quantity.parse(current)
    return new is not None and old is not None and new > old


def _env_reordered(primary: Replica, other: Replica, mine: Any, theirs: Any, path: FieldPath,
                   ledger: Ledger) -> bool:
    """Whether ``theirs`` sets the environment ``mine`` sets, in another order that changes
    nothing (reported, P316: every node gets the primary's order)."""
    moved = envorder.reordered(yamlio.plain(mine), yamlio.plain(theirs))
    if moved is None:
        return False
    ledger.report("P316", path, f"{other.role} container env lists the same variables as "
                  f"{primary.role}'s in another order ({', '.join(moved)} moved); every node "
                  f"uses {primary.role}'s order, which sets the same environment: no value refers "
                  "to a variable of the list ($(NAME)) and no name repeats (the kubelet expands "
                  "$(NAME) with the variables defined before it, the last of a name wins)")
    return True


def _sidecar_reordered(primary: Replica, other: Replica, mine: Container, theirs: Container,
                       ledger: Ledger) -> bool:
    """Whether sidecar ``theirs`` is ``mine`` but for an env order that changes nothing."""
    return same({**mine.node, "env": None}, {**theirs.node, "env": None}) and _env_reordered(
        primary, other, mine.node.get("env"), theirs.node.get("env"), (*theirs.path, "env"),
        ledger)


# (while a template converts: no output stands for the rendered job's maximum, even with
# --allow-lossy, which takes the primary role's value; the template stage reads this)
UNDECIDED = "the template cannot take the maximum"


def _mismatch(primary: Replica, other: Replica, what: str, path: FieldPath,
              ledger: Ledger, *, consume: bool = True) -> None:
    ledger.report("P306", path, f"{other.role} and {primary.role} templates differ in {what}; "
                  "all TrainJob nodes share one template", consume=consume)


def merge_restart_policy(primary: Replica, primary_policy: str, other: Replica,
                         other_policy: str, companion: bool, ledger: Ledger) -> None:
    """A role whose restart policy differs from the primary's runs with the primary's."""
    if primary_policy == other_policy:
        return
    carried = ""
    if companion and primary_policy == "ExitCode":
        carried = (" (restartPolicy Never and the podFailurePolicy that fails the job on exit "
                   "codes 1-127)")
    elif companion and primary_policy in ("Never", "OnFailure"):
        carried = f" (restartPolicy {primary_policy})"
    ledger.report("P311", (*other.path, "restartPolicy"), f"{other.role} restartPolicy "
                  f"{other_policy} differs from {primary.role}'s {primary_policy}; every node, "
                  f"rank 0 included, uses {primary.role}'s{carried}", consume=False)


def _keys(first: Any, second: Any) -> list[str]:
    keys = [str(k) for k in first]
    return keys + [str(k) for k in second if str(k) not in keys]


def same(first: Any, second: Any) -> bool:
    """Equal as plain data (comments and styles ignored)."""
    return bool(yamlio.plain(first) == yamlio.plain(second))
