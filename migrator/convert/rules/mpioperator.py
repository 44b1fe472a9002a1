"""CONVERT (rules): what the legacy MPI operators did implicitly, carried or reported.

mpi-operator starts ``/usr/sbin/sshd -De`` in a worker container without command and args,
and the kubeflow.org/v1 controller ``sleep 365d``; both mount volumes of their own
(``mpi-job-config``, ``ssh-auth``) that Trainer names ``mpi-hostfile`` / ``mpi-ssh-auth`` and
fills with fewer files. The facts are data (mappings/common/legacy-operators.yaml); with a
companion runtime the worker command is carried and the mounts renamed, otherwise reported.
"""

from __future__ import annotations

import re
from typing import Any

from migrator.check import effective, operators
from migrator.convert.draft import Draft
from migrator.convert.ledger import Ledger
from migrator.convert.model import Container, LegacyJob, Replica
from migrator.convert.rules.context import RuleContext
from migrator.convert.rules.podtemplate import main_container
from migrator.knowledge.specs import MappingSpec
from migrator.load import yamlio
from migrator.paths import FieldPath

ID = "mpi-operator"
CARRIED, REPLACED, OPERATOR_FILES, OPERATOR_ENV = "F524", "F525", "F526", "F529"
WORKER_ROLE = "Worker"
LAUNCHER_JOB = "launcher"


def apply(ctx: RuleContext, draft: Draft) -> None:
    mains = {r.role: main_container(r, ctx.main_name, ctx.ledger, report=None)
             for r in ctx.job.replicas}
    adapt(ctx.job, ctx.spec, draft, ctx.ledger, mains)


def adapt(job: LegacyJob, spec: MappingSpec, draft: Draft, ledger: Ledger,
          mains: dict[str, Container]) -> None:
    """Carry or report the operator's implicit worker command, volumes and files.

    ``mains`` is the main container of each role (by role name).
    """
    operator = operators.load().get(spec.id)
    if operator is None:
        return
    facts = effective.job_facts(job.root, spec)
    missing: list[str] = []
    for replica in job.replicas:
        main = mains.get(replica.role)
        if main is not None and replica.role == WORKER_ROLE:
            _worker_command(replica, main, operator, draft, ledger)
        if main is not None:
            missing += _role_env(replica, main, operator, facts, draft, ledger)
        _mounts(replica, operator, draft, ledger)
        _files(replica, operator, ledger)
    if missing:
        ledger.report(OPERATOR_ENV, ("kind",), f"the legacy operator set {', '.join(missing)}, "
                      "which Trainer does not set (--companion-runtimes sets them)",
                      consume=False)


def _role_env(replica: Replica, main: Container, operator: operators.Operator,
              facts: operators.JobFacts, draft: Draft, ledger: Ledger) -> list[str]:
    """Literal operator env Trainer does not set: added to the companion template of the
    role, or returned (as NAME=value) to be reported."""
    additions = operator.role(replica.role)
    items = [i for i in (additions.env if additions else []) if i.carry and facts.holds(i.when)]
    companion = draft.companion
    template = companion.templates.get(replica.job) if companion is not None else None
    node = _container(template, main.index) if template is not None else None
    if not isinstance(node, dict):
        return [f"{i.name}={facts.render(i.value)!r} ({replica.role})" for i in items]
    env = node.get("env")
    if not isinstance(env, list):
        env = yamlio.new_seq()
        _put_where_written(node, "env", env, main.node)
    for item in items:
        value = yamlio.quoted(facts.render(item.value))
        for existing in [e for e in env if isinstance(e, dict) and e.get("name") == item.name]:
            env.remove(existing)  # the operator appended its value last, so it won
        env.append(yamlio.new_map([("name", item.name), ("value", value)]))
        ledger.mappings.append((f"(legacy operator contract) {item.name}",
                                f"{companion.ref if companion else ''}: "
                                f"replicatedJobs[name={replica.job}] container node env"))
    if not env:
        del node["env"]
    return []


def _put_where_written(node: Any, key: str, value: Any, legacy: Any) -> None:
    """Set ``node[key]`` where the legacy container wrote the key (an empty ``env:``, which
    the companion template dropped as null), else last: the same place as when the key held
    entries, so that the container reads the same whether the list was empty or not."""
    written = list(legacy) if isinstance(legacy, dict) else []
    after = set(written[written.index(key) + 1:]) if key in written else set()
    keys = list(node)
    at = next((i for i, k in enumerate(keys) if k in after), len(keys))
    if hasattr(node, "insert") and at < len(keys):
        node.insert(at, key, value)
    else:
        node[key] = value


def _worker_command(replica: Replica, main: Container, operator: operators.Operator,
                    draft: Draft, ledger: Ledger) -> None:
    implicit = operators.implicit_command(operator, replica.role, main.node,
                                          operators.JobFacts())
    if implicit is None:
        return
    sshd = operators.sshd_command()
    legacy = " ".join(implicit)
    where = main.path
    companion = draft.companion
    if companion is not None and replica.job in companion.templates:
        node = _container(companion.templates[replica.job], main.index)
        if isinstance(node, dict):
            keys = list(node)
            at = keys.index("image") + 1 if "image" in keys else len(keys)
            if hasattr(node, "insert"):
                node.insert(at, "command", yamlio.flow_seq(list(sshd)))
            else:
                node["command"] = yamlio.flow_seq(list(sshd))
        if implicit == sshd:
            ledger.report(CARRIED, where, f"the {replica.role} container has no command; the "
                          f"operator ran `{legacy}`, which companion runtime {companion.name} "
                          "now runs", consume=False)
        else:
            ledger.report(REPLACED, where, f"the {replica.role} container has no command; the "
                          f"legacy operator ran `{legacy}` (workers were reached with kubectl "
                          f"exec); companion runtime {companion.name} runs `{' '.join(sshd)}`, "
                          "as Trainer's launcher reaches workers over SSH", consume=False)
        return
    runtime = draft.runtime_name or "the MPI runtime the TrainJob references"
    code = CARRIED if implicit == sshd else REPLACED
    ledger.report(code, where, f"the {replica.role} container has no command; the legacy "
                  f"operator ran `{legacy}`; on Trainer the workers run what the node job of "
                  f"{runtime} runs, which must start sshd", consume=False)


def _mounts(replica: Replica, operator: operators.Operator, draft: Draft,
            ledger: Ledger) -> None:
    """Rename mounts of the operator's volumes in the companion template, or report them."""
    renamed = operators.renamed_volumes(operator)
    legacy_only = {v.name for a in operator.roles.values() for v in a.volumes if not v.trainer}
    template = (draft.companion.templates.get(replica.job)
                if draft.companion is not None else None)
    for kind in ("containers", "initContainers"):
        for index, container in enumerate(replica.template.spec.node.get(kind) or []):
            mounts = container.get("volumeMounts") if isinstance(container, dict) else None
            for position, mount in enumerate(mounts if isinstance(mounts, list) else []):
                name = mount.get("name") if isinstance(mount, dict) else None
                if name not in renamed and name not in legacy_only:
                    continue
                path: FieldPath = (*replica.template.spec.path, kind, index, "volumeMounts",
                                   position)
                volume = renamed.get(str(name))
                copy = _mount(template, kind, index, position)
                if volume is not None and volume.trainer and _provided(volume, replica.job):
                    if copy is not None:
                        copy["name"] = volume.trainer
                    ledger.report(OPERATOR_FILES, path, f"volume {name!r} of the legacy "
                                  f"operator is {volume.trainer!r} on Trainer"
                                  + (" (renamed)" if copy is not None else ""),
                                  consume=False)
                else:
                    ledger.report(OPERATOR_FILES, path, f"volume {name!r} of the legacy "
                                  f"operator does not exist in Trainer's {replica.job!r} pods"
                                  + ("; the mount was removed" if copy is not None else ""),
                                  consume=False)
                    if copy is not None:
                        copy["x-remove"] = True
    if template is not None:
        _remove_marked(template)


def _provided(volume: operators.Volume, job: str) -> bool:
    """Trainer mounts the hostfile in the launcher only, the SSH keys everywhere."""
    return bool(volume.trainer_files) and (volume.trainer != "mpi-hostfile" or
                                           job == LAUNCHER_JOB)


def _files(replica: Replica, operator: operators.Operator, ledger: Ledger) -> None:
    """References to operator files Trainer does not write (discover_hosts.sh, kubexec.sh)."""
    missing = operators.missing_files(operator)
    if not missing:
        return
    pattern = re.compile("|".join(re.escape(name) for name in sorted(missing)))
    for kind in ("containers", "initContainers"):
        for index, container in enumerate(replica.template.spec.node.get(kind) or []):
            if not isinstance(container, dict):
                continue
            for field in ("command", "args", "env"):
                text = str(yamlio.plain(container.get(field) or ""))
                found = sorted(set(pattern.findall(text)))
                if found:
                    path = (*replica.template.spec.path, kind, index, field)
                    ledger.report(OPERATOR_FILES, path, f"refers to {', '.join(found)}, which "
                                  "the legacy MPI operator wrote and Trainer does not (Trainer "
                                  "writes only /etc/mpi/hostfile, in the launcher)",
                                  consume=False)


def _container(template: Any, index: int) -> Any:
    items = (template.get("spec") or {}).get("containers") if isinstance(template, dict) else None
    return items[index] if isinstance(items, list) and index < len(items) else None


def _mount(template: Any, kind: str, index: int, position: int) -> Any:
    items = (template.get("spec") or {}).get(kind) if isinstance(template, dict) else None
    if not isinstance(items, list) or index >= len(items) or not isinstance(items[index], dict):
        return None
    mounts = items[index].get("volumeMounts")
    return mounts[position] if isinstance(mounts, list) and position < len(mounts) else None


def _remove_marked(template: Any) -> None:
    for kind in ("containers", "initContainers"):
        for container in (template.get("spec") or {}).get(kind) or []:
            mounts = container.get("volumeMounts") if isinstance(container, dict) else None
            if isinstance(mounts, list):
                for position in reversed(range(len(mounts))):
                    if isinstance(mounts[position], dict) and mounts[position].get("x-remove"):
                        del mounts[position]
                if not mounts:
                    del container["volumeMounts"]
