"""CONVERT (rules): the runtime contract: what the legacy operator gave a container that Trainer
does not.

Runs on the draft's trainer fields after mapping: drops env the runtime reserves, re-adds env
the legacy operator injected, rewrites references to the old container name, and scans the
command for things that no longer exist (MASTER_ADDR, <job>-master-0, port 23456, plain
``python train.py`` launches).
"""

from __future__ import annotations

import contextvars
import re
import shlex
from typing import Any

from migrator import paths
from migrator.check import effective, operators, quantity
from migrator.convert.draft import Draft
from migrator.convert.ledger import Ledger
from migrator.convert.model import Container
from migrator.convert.rules import mapping
from migrator.convert.rules.context import RuleContext
from migrator.convert.rules.transforms import gpu_count
from migrator.knowledge import catalog
from migrator.knowledge.specs import MappingSpec, RuntimeSpec
from migrator.load import yamlio
from migrator.paths import FieldPath

ID = "contract"
TORCHRUN = re.compile(r"\btorchrun\b|torch\.distributed\.(?:run|launch)\b")
TOPOLOGY_FLAGS = re.compile(r"--(?:nnodes|nproc[-_]per[-_]node|master[-_]addr|master[-_]port|"
                            r"rdzv[-_]endpoint|node[-_]rank)\b")
QUOTED_ENV = "C411"
NPROC_TRANSFORM = "torch-nproc-per-node"
LAUNCH_ENV = frozenset({"MASTER_ADDR", "WORLD_SIZE", "RANK"})  # what F506 says is not set
TF_CONFIG = "TF_CONFIG"
OTHER_CONTAINER_READS, OTHER_CONTAINER_ENTRYPOINT = "C412", "C413"
SELECTOR_STALE, SELECTOR_NEVER = "P313", "P314"
LEGACY_NAMES = "C416"
NPROC_FLAG = re.compile(r"--nproc[-_]per[-_]node\b")
# Env a legacy operator adds only when the container has none of that name: the container's own
# is what ran (kubeflow/trainer@v1.9.2 pkg/controller.v1/mpi/mpijob_controller.go:1110-1127,
# hasIntelMPIBootstrapValues), so it is never "overridden".
ADDED_WHEN_ABSENT = frozenset({"I_MPI_HYDRA_BOOTSTRAP", "I_MPI_HYDRA_BOOTSTRAP_EXEC"})
# the stand-ins of every template action (set by the template stage while it converts a
# template's worlds): resources holding one are known only once the template is rendered
TEMPLATE_ACTION: contextvars.ContextVar[re.Pattern[str] | None] = \
    contextvars.ContextVar("template_action", default=None)
ACCELERATOR = re.compile(r"neuron|habana|gaudi|google\.com/tpu|/mig-", re.IGNORECASE)


def apply(ctx: RuleContext, draft: Draft) -> None:
    legacy = _legacy_env(ctx)
    dropped = apply_contract(ctx.main, draft, ctx.ledger, ctx.spec, ctx.runtime, legacy)
    _drop_from_companion(ctx, draft, dropped)
    _cpu_processes(ctx, draft)
    _other_containers(ctx, draft, legacy)
    _legacy_selectors(ctx)


def _legacy_env(ctx: RuleContext) -> dict[str, set[str]]:
    """The env the legacy operator set in this job, by where: ``main`` (the trainer's main
    container), ``all`` (every container), ``carried`` (set literally by a companion runtime
    too), ``primary`` (the main container of the role whose container became the trainer's).
    From mappings/common/legacy-operators.yaml and the job's facts."""
    found: dict[str, set[str]] = {"main": set(), "all": set(), "carried": set(),
                                  "primary": set()}
    operator = operators.load().get(ctx.spec.id)
    if operator is None:
        return found
    facts = effective.job_facts(ctx.job.root, ctx.spec)
    for replica in ctx.job.replicas:
        additions = operator.role(replica.role)
        for item in additions.env if additions is not None else []:
            if facts.holds(item.when):
                found["main"].add(item.name)
                if tuple(ctx.main.path[:len(replica.path)]) == tuple(replica.path):
                    found["primary"].add(item.name)
                if additions is not None and additions.containers == "all":
                    found["all"].add(item.name)
                if item.carry:
                    found["carried"].add(item.name)
    return found


def apply_contract(main: Container, draft: Draft, ledger: Ledger, spec: MappingSpec,
                   runtime: RuntimeSpec, legacy: dict[str, set[str]]) -> set[str]:
    """Adjust ``draft.trainer`` for the target runtime and report contract changes; the names
    of the env dropped because the legacy operator overrode them (C417)."""
    dropped = _env(main, draft, ledger, spec, runtime,
                   legacy.get("primary", set()) - ADDED_WHEN_ABSENT)
    _launcher(main, draft, ledger, spec, legacy["main"])
    _legacy_references(main, draft, ledger, spec, _provided(draft, spec, legacy))
    _accelerators(main, draft, ledger)
    return dropped


def _drop_from_companion(ctx: RuleContext, draft: Draft, names: set[str]) -> None:
    """The env C417 dropped from trainer.env, dropped from the companion template of the same
    container too (the template keeps the container's own env; Trainer merges trainer.env over
    it, so a value left there would still reach the process)."""
    if not names or draft.companion is None:
        return
    for replica in ctx.job.replicas:
        if tuple(ctx.main.path[:len(replica.path)]) != tuple(replica.path):
            continue
        template = draft.companion.templates.get(replica.job)
        spec = template.get("spec") if isinstance(template, dict) else None
        containers = spec.get("containers") if isinstance(spec, dict) else None
        if not isinstance(containers, list) or ctx.main.index >= len(containers):
            return
        env = containers[ctx.main.index].get("env")
        if isinstance(env, list):
            for index in reversed(range(len(env))):
                if isinstance(env[index], dict) and env[index].get("name") in names:
                    del env[index]
            if not env:
                del containers[ctx.main.index]["env"]
        return


def _env(main: Container, draft: Draft, ledger: Ledger, spec: MappingSpec,
         runtime: RuntimeSpec, overridden: set[str]) -> set[str]:
    dropped: set[str] = set()
    env = draft.trainer.get("env")
    source = main.node.get("env") or []
    index_of = _SourceIndex(source)
    if env is not None:
        for index in reversed(range(len(env))):
            item = env[index]
            name = item.get("name") if isinstance(item, dict) else None
            if isinstance(name, str) and name in overridden and name not in spec.injected_env \
                    and name not in runtime.reserved_env:
                del env[index]
                dropped.add(name)
                origin = index_of(name)
                where = (*main.path, "env", origin) if origin is not None else main.path
                ledger.report("C417", where, f"env {name} was dropped: the legacy operator "
                              "appended its own after it, so the container never saw this "
                              "value", consume=False)
            elif name in runtime.reserved_env:
                del env[index]
                origin = index_of(name)
                where = (*main.path, "env", origin) if origin is not None else main.path
                ledger.report("C405", where, f"env {name} is set by Trainer and was dropped",
                              consume=False)
            elif isinstance(item, dict):
                for key in [k for k, v in item.items() if v is None and k != "name"]:
                    # `value:` left empty (a chart's unset value) is unset, as a companion
                    # runtime's env has it (companion.drop_nulls); the CRD's string rejects null
                    del item[key]
                origin = index_of(name)
                _rewrite_refs(item, main, draft, ledger, origin)
                if string_env([item]) and origin is not None:
                    report_quoted_env(ledger, (*main.path, "env", origin, "value"))
    for name, value in spec.injected_env.items():
        if env is None:
            env = yamlio.new_seq()
            draft.set_trainer("env", env)
        own = [index for index, e in enumerate(env)
               if isinstance(e, dict) and e.get("name") == name]
        if not own:
            env.append(yamlio.new_map([("name", name), ("value", yamlio.quoted(value))]))
            ledger.report("C407", main.path, f"{name}={value} added to trainer.env (the legacy "
                          "operator injected it)", consume=False)
            continue
        # The operator APPENDED its value after the container's own (e.g. kubeflow/trainer@v1.9.2
        # pkg/controller.v1/pytorch/envvar.go:55-59), and the kubelet gives a container the last
        # variable of a name: the process saw the operator's value. Keep it, at the user's place.
        first = env[own[0]]
        if first.get("value") != value or "valueFrom" in first or len(own) > 1:
            for index in reversed(own[1:]):
                del env[index]
            first.pop("valueFrom", None)
            first["value"] = yamlio.quoted(value)
            origin = index_of(name)
            where = (*main.path, "env", origin) if origin is not None else main.path
            ledger.report("C407", where, f"{name} is {value} in trainer.env: the legacy operator "
                          "appended its own value after the container's, and the last variable "
                          "of a name is the one the process sees", consume=False)
    if env is not None and not env:
        del draft.trainer["env"]
    return dropped


def report_quoted_env(ledger: Ledger, path: FieldPath) -> None:
    """C411 once per source env value that was written as a string."""
    rendered = ledger.render(path)
    if not any(f.code == QUOTED_ENV and f.path == rendered for f in ledger.findings):
        ledger.report(QUOTED_ENV, path, f"env value {paths.get(ledger.root, path)!r} is not a "
                      "string; it was written quoted", consume=False)


def string_env(env: Any) -> list[int]:
    """Quote every env ``value`` that is not a string (the API server rejects numbers and
    booleans there); the positions of the quoted items."""
    quoted = []
    for position, item in enumerate(env if isinstance(env, list) else []):
        value = item.get("value") if isinstance(item, dict) else None
        if isinstance(value, bool | int | float):
            item["value"] = yamlio.quoted(str(value).lower() if isinstance(value, bool)
                                          else str(value))
            quoted.append(position)
    return quoted


class _SourceIndex:
    """The position of the first legacy env entry with a given name (built once: linear)."""

    def __init__(self, source: Any) -> None:
        self._source = source
        self._first: dict[Any, int] = {}
        for index, item in enumerate(source):
            name = item.get("name") if isinstance(item, dict) else None
            if isinstance(name, str | int | float | bool):
                self._first.setdefault(name, index)

    def __call__(self, name: Any) -> int | None:
        if isinstance(name, str | int | float | bool):
            return self._first.get(name)
        for index, item in enumerate(self._source):  # an unhashable name: hostile input only
            if isinstance(item, dict) and item.get("name") == name:
                return index
        return None


def _rewrite_refs(item: Any, main: Container, draft: Draft, ledger: Ledger,
                  origin: int | None) -> None:
    value_from = item.get("valueFrom")
    if not isinstance(value_from, dict):
        return
    ref = value_from.get("resourceFieldRef")
    if isinstance(ref, dict) and ref.get("containerName") == main.name:
        ref["containerName"] = draft.patch_container
    field_ref = value_from.get("fieldRef")
    path = field_ref.get("fieldPath") if isinstance(field_ref, dict) else None
    if isinstance(path, str) and origin is not None and \
            catalog.load().kinds.legacy_label_prefix in path:
        ledger.report("C409", (*main.path, "env", origin, "valueFrom", "fieldRef", "fieldPath"),
                      f"env {item.get('name')} reads {path}, which TrainJob pods do not have",
                      consume=False)


def _launcher(main: Container, draft: Draft, ledger: Ledger, spec: MappingSpec,
              legacy_env: set[str]) -> None:
    if spec.launcher.check != "torchrun":
        return
    command = _words(draft.trainer.get("command"))
    args = _words(draft.trainer.get("args"))
    text = " ".join(command + args)
    where = (*main.path, "command") if "command" in main.node else main.path
    if not legacy_env & LAUNCH_ENV and not TORCHRUN.search(text):
        pass  # no Master: the legacy operator set none of them either (nothing lost)
    elif not command and not TORCHRUN.search(text):
        # No command: the image's entrypoint runs (with the args, if any), and the tool cannot
        # see whether it launches torchrun; an args list naming torchrun is taken as the launch.
        given = "it runs the image's entrypoint with these args" if args else \
            "it runs the image's entrypoint"
        ledger.report("F506", where, f"the container has no command ({given}), so the tool "
                      "cannot tell whether it starts torchrun; Trainer sets PET_* variables for "
                      "torchrun, not MASTER_ADDR/WORLD_SIZE/RANK", consume=False)
    elif not TORCHRUN.search(text):
        ledger.report("F506", where, "the command does not start torchrun; Trainer sets PET_* "
                      "variables for torchrun, not MASTER_ADDR/WORLD_SIZE/RANK", consume=False)
    elif TOPOLOGY_FLAGS.search(text):
        flags = sorted(set(TOPOLOGY_FLAGS.findall(text)))
        ledger.report("F507", where, f"torchrun flags {', '.join(flags)} override the topology "
                      "Trainer provides", consume=False)


def _cpu_processes(ctx: RuleContext, draft: Draft) -> None:
    """torchrun's process count on a node without a GPU: the node's CPUs then, the
    container's now.

    Legacy: nprocPerNode defaults to auto (kubeflow/trainer@v1.9.2
    pkg/apis/kubeflow.org/v1/pytorch_defaults.go:23,68-71), passed as PET_NPROC_PER_NODE
    (pkg/controller.v1/pytorch/envvar.go:99-102); torchrun's auto (without CUDA) and cpu start
    os.cpu_count() processes, the node's CPUs. Trainer turns auto without a GPU into
    max(1, the CPU request, else limit) (kubeflow/trainer@v2.2.0
    pkg/runtime/framework/plugins/torch/torch.go:110-114,184-196; v2.3.0 :133-134,228-).
    """
    if ctx.spec.launcher.check != "torchrun" or "numProcPerNode" in draft.trainer:
        return
    text = " ".join(_words(draft.trainer.get("command")) + _words(draft.trainer.get("args")))
    resources = draft.trainer.get("resourcesPerNode")
    if not TORCHRUN.search(text) or NPROC_FLAG.search(text) or gpu_count(resources) is not None:
        return  # F506 covers other launches, F507 the flag; with a GPU auto counts GPUs on both
    source = mapping.source_of(ctx.job.root, ctx.spec, NPROC_TRANSFORM)
    mode = str(source[1]).strip() if source is not None else "auto"
    if mode not in ("auto", "cpu"):
        return  # a number is kept; gpu is F504
    # the count follows the resources: a finding at them when the container has any
    field = "resources" if "resources" in ctx.main.node else "command"
    where = source[0] if source is not None else (*ctx.main.path, field)
    given = f"nprocPerNode {mode}" if source is not None else "the default nprocPerNode auto"
    legacy = (f"with {given}, torchrun started one process per CPU of the node "
              "(os.cpu_count()) in each pod")
    if field == "resources" and templated(ctx.main.node["resources"], numbers=False):
        # a template's value, judged once rendered (the template stage guards on it)
        ctx.ledger.report("F537", (*ctx.main.path, field), f"{legacy}; on Trainer the count "
                          "follows the resources the values give: their GPUs, else their CPUs, "
                          "else 1", consume=False)
        return
    cpu = _cpu_resource(resources)
    count = quantity.ceil_count(cpu) if cpu is not None else None
    if count:
        ledger_code, now = "F505", f"Trainer starts {count} (the container's CPU resources)"
    else:
        ledger_code, now = "F530", "Trainer starts 1 (the container states no CPU resources)"
    ctx.ledger.report(ledger_code, where, f"{legacy}; {now}: the world size, the global batch "
                      "size and the data sharding change unless the node has exactly that many "
                      "CPUs", consume=False)


def templated(value: Any, numbers: bool = True) -> bool:
    """Whether ``value`` holds a template action's stand-in (while a template converts); without
    ``numbers``, a stand-in for a number (all digits) does not count."""
    pattern = TEMPLATE_ACTION.get()
    return pattern is not None and any(numbers or not found.group(0).isdigit()
                                       for found in pattern.finditer(repr(value)))


def _cpu_resource(resources: Any) -> Any:
    """The CPU count Trainer reads: the request, else the limit (torch.go getNumCPUPerNode)."""
    if not isinstance(resources, dict):
        return None
    for section in ("requests", "limits"):
        values = resources.get(section)
        if isinstance(values, dict) and values.get("cpu") not in (None, 0, "0"):
            return values["cpu"]
    return None


def _provided(draft: Draft, spec: MappingSpec, legacy: dict[str, set[str]]) -> set[str]:
    """Legacy env a companion runtime sets again (statically, by the TF_CONFIG wrapper, or
    literally in its templates): references to it still resolve."""
    if draft.companion is None:
        return set()
    wrapped = {TF_CONFIG} if spec.launcher.wrap == "tf-config" else set()
    return {*spec.companion_env, *wrapped, *legacy["carried"]}


# C410's fix for each framework: what Trainer sets instead of the legacy operator's env
LEGACY_ENV_FIXES = {
    "torch": "Launch with torchrun (it reads Trainer's PET_* variables), or read "
             "PET_MASTER_ADDR, PET_MASTER_PORT and PET_NODE_RANK instead.",
    "jax": "Read Trainer's JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES and JAX_PROCESS_ID "
           "instead (jax.distributed.initialize() without arguments reads them).",
    "xgboost": "Read Trainer's DMLC_* variables instead (DMLC_TRACKER_URI, DMLC_TRACKER_PORT, "
               "DMLC_TASK_ID; see F509), or set the variable in a runtime's node container.",
    "mpi": "Use --companion-runtimes (its pods set what mpi-operator set literally), or set the "
           "variable in your runtime's containers, or stop reading it: Trainer's MPI runtime "
           "starts the workers from the launcher's mpirun over SSH.",
    "tensorflow": "Use --companion-runtimes (its command wrapper builds TF_CONFIG in each pod), "
                  "or build TF_CONFIG in the command yourself.",
    "paddle": "Use --companion-runtimes (it sets the PADDLE_* env again), or set the variables "
              "in trainer.env or your runtime's node container.",
}


def _legacy_references(main: Container, draft: Draft, ledger: Ledger, spec: MappingSpec,
                       provided: set[str]) -> None:
    contract = spec.legacy_contract
    texts = _words(draft.trainer.get("command")) + _words(draft.trainer.get("args"))
    env = draft.trainer.get("env") or main.node.get("env") or []
    texts += [str(e.get("value")) for e in env
              if isinstance(e, dict) and e.get("value") is not None]
    blob = "\n".join(texts)
    hits = [f"${name}" for name in contract.env
            if name not in provided and _reads(name, blob)]
    job = draft.name if isinstance(draft.name, str) else None
    names = [f"{job}-{role}-N" for role in (contract.host_roles if job else [])
             if f"{job}-{role}-" in blob]
    names += [str(port) for port in contract.ports if re.search(rf"\b{port}\b", blob)]
    where = (*main.path, "command") if "command" in main.node else main.path
    if hits:  # expands to nothing: an error
        ledger.report("C410", where, f"refers to {', '.join(hits)}, which the legacy operator "
                      "provided and Trainer does not", consume=False,
                      hint=LEGACY_ENV_FIXES.get(spec.framework))
    if names:  # a host name or port of the legacy pods: text the tool cannot read as a launch
        ledger.report(LEGACY_NAMES, where, f"names {', '.join(names)}, the legacy pods' host "
                      "names or port, which TrainJob pods do not have", consume=False)


def _reads(name: str, text: str) -> bool:
    """Whether ``text`` expands env ``name`` ($NAME, ${NAME} or Kubernetes' $(NAME))."""
    return re.search(rf"\$\(?\{{?{name}\b", text) is not None


def _other_containers(ctx: RuleContext, draft: Draft, legacy: dict[str, set[str]]) -> None:
    """Env the legacy operator set in every container, Trainer in the node container only.

    kubeflow/trainer@v1.9.2 pkg/controller.v1/pytorch/envvar.go:49-128 (and the XGBoost, JAX
    and PaddlePaddle operators alike, mappings/common/legacy-operators.yaml ``containers: all``)
    appended its env to each container; Trainer's plugins set theirs in ``node`` only
    (kubeflow/trainer@v2.2.0 pkg/runtime/framework/plugins/torch/torch.go:116-119). Only a
    companion runtime carries other containers.
    """
    names = legacy["all"] - _provided(draft, ctx.spec, legacy) - set(ctx.spec.injected_env)
    if draft.companion is None:
        return
    seen: set[str] = set()
    for replica in ctx.job.replicas:
        spec = replica.template.spec.node
        for kind in ("initContainers", "containers"):
            for index, item in enumerate(spec.get(kind) or []):
                if not isinstance(item, dict) or (kind == "containers" and \
                        index == ctx.main.index) or item.get("name") in seen:
                    continue
                seen.add(str(item.get("name")))
                # The operators append their env to spec.containers only, never to init
                # containers (kubeflow/trainer@v1.9.2 pkg/controller.v1/pytorch/envvar.go:49,
                # xgboost/xgboost.go:72, jax/envvar.go:48): an init container read none of it
                # and loses nothing; only the legacy host names it names matter.
                _other_container(ctx, item, (*replica.template.spec.path, kind, index),
                                 names if kind == "containers" else set())


def _other_container(ctx: RuleContext, item: dict[str, Any], path: FieldPath,
                     names: set[str]) -> None:
    texts = _words(item.get("command")) + _words(item.get("args")) + [
        str(e.get("value")) for e in item.get("env") or []
        if isinstance(e, dict) and e.get("value") is not None]
    blob = "\n".join(texts)
    read = sorted(name for name in names if _reads(name, blob))
    job = ctx.job.name if isinstance(ctx.job.name, str) else None
    read += [f"{job}-{role}-N" for role in (ctx.spec.legacy_contract.host_roles if job else [])
             if f"{job}-{role}-" in blob]
    contract = sorted(names & set(ctx.spec.legacy_contract.env))  # what programs read
    listed = ", ".join(contract)
    if read:
        ctx.ledger.report(OTHER_CONTAINER_READS, path, f"container {item.get('name')!r} reads "
                          f"{', '.join(read)}, which the legacy operator provided (env in every "
                          "container, its pods' host names) and Trainer does not (its env is "
                          "in the node container only)", consume=False)
    elif contract and not item.get("command") and not item.get("args"):
        ctx.ledger.report(OTHER_CONTAINER_ENTRYPOINT, path, f"container {item.get('name')!r} "
                          f"runs its image's entrypoint; the legacy operator gave it {listed}, "
                          "which Trainer sets only in the node container", consume=False)


def _legacy_selectors(ctx: RuleContext) -> None:
    """Pod (anti-)affinity and topology spread on the legacy operators' pod labels
    (training.kubeflow.org/job-name, replica-type, replica-index, job-role: kubeflow/trainer@
    v1.9.2 pkg/apis/kubeflow.org/v1/common_types.go:25-37), which TrainJob pods do not carry:
    the selectors match nothing. A required podAffinity then never schedules (P314); anything
    else stops spreading or co-locating the pods (P313)."""
    prefix = catalog.load().kinds.legacy_label_prefix
    for replica in ctx.job.replicas:
        spec = replica.template.spec.node
        base = replica.template.spec.path
        for kind in ("podAffinity", "podAntiAffinity"):
            terms = paths.get(spec, ("affinity", kind))
            for mode, items in (terms.items() if isinstance(terms, dict) else []):
                for index, term in enumerate(items if isinstance(items, list) else []):
                    labels = _legacy_keys(term, prefix)
                    if not labels:
                        continue
                    path = (*base, "affinity", kind, str(mode), index)
                    if kind == "podAffinity" and str(mode).startswith("required"):
                        ctx.ledger.report(SELECTOR_NEVER, path, f"required podAffinity on "
                                          f"{', '.join(labels)}: no TrainJob pod has that "
                                          "label, so the pods never schedule", consume=False)
                    else:
                        ctx.ledger.report(SELECTOR_STALE, path, f"{kind} on "
                                          f"{', '.join(labels)} no longer matches the pods "
                                          "(TrainJob pods do not have that label)",
                                          consume=False)
        for index, item in enumerate(spec.get("topologySpreadConstraints") or []):
            labels = _legacy_keys(item, prefix)
            if labels:
                ctx.ledger.report(SELECTOR_STALE, (*base, "topologySpreadConstraints", index),
                                  f"topologySpreadConstraints on {', '.join(labels)} no "
                                  "longer match the pods (TrainJob pods do not have that "
                                  "label)", consume=False)


def _legacy_keys(node: Any, prefix: str) -> list[str]:
    """Label keys with ``prefix`` that a term's selectors name (matchLabels, matchExpressions,
    matchLabelKeys)."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "matchLabels" and isinstance(value, dict):
                found |= {str(k) for k in value if str(k).startswith(prefix)}
            elif key == "matchExpressions" and isinstance(value, list):
                found |= {str(e.get("key")) for e in value if isinstance(e, dict)
                          and str(e.get("key")).startswith(prefix)}
            elif key in ("matchLabelKeys", "mismatchLabelKeys") and isinstance(value, list):
                found |= {str(k) for k in value if str(k).startswith(prefix)}
            else:
                found |= set(_legacy_keys(value, prefix))
    elif isinstance(node, list):
        for value in node:
            found |= set(_legacy_keys(value, prefix))
    return sorted(found)


def _accelerators(main: Container, draft: Draft, ledger: Ledger) -> None:
    resources = draft.trainer.get("resourcesPerNode")
    if "numProcPerNode" in draft.trainer or not isinstance(resources, dict):
        return
    names = {str(key) for section in ("requests", "limits")
             for key in (resources.get(section) or {})}
    odd = sorted(n for n in names if ACCELERATOR.search(n) and "gpu" not in n.lower())
    if odd:
        ledger.report("F508", (*main.path, "resources"), f"{', '.join(odd)} is not counted as a "
                      "GPU; Trainer will start one process per CPU unless nprocPerNode is set",
                      consume=False)


def _words(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    words: list[str] = []
    for item in value:
        text = str(item)
        try:
            words.extend(shlex.split(text) if " " in text else [text])
        except ValueError:
            words.append(text)
    return words
