"""CONVERT (rules): launch adaptations for runtimes without an ML policy (TensorFlow, PaddlePaddle).

A plain companion runtime injects nothing, so the contract the legacy operator provided is
rebuilt here: TF_CONFIG by a shell wrapper that reads the pod's completion index, PaddlePaddle's
PADDLE_* env statically (mappings/legacy/*.yaml ``companionEnv``).
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable

from migrator.check import operators
from migrator.convert.draft import Draft
from migrator.convert.ledger import Ledger
from migrator.convert.model import Container
from migrator.convert.rules.context import RuleContext
from migrator.knowledge.specs import MappingSpec, RuntimeSpec
from migrator.load import yamlio

ID = "launch"
UNBUILDABLE = "F523"
CONTRACT_ENV = "F515"
TF_CONFIG_CODE, SINGLE_REPLICA = "F511", "F532"
INDEX_ENV = "JOB_COMPLETION_INDEX"
# a node count that stands for a template action (set by the template stage, which reads it
# back): the host list is then one entry whose index is the text this returns for the count,
# and the template writes the entries with a loop over the count (None: a count of its own)
HOST_INDEX: contextvars.ContextVar[Callable[[int], str | None] | None] = \
    contextvars.ContextVar("host_index", default=None)


def apply(ctx: RuleContext, draft: Draft) -> None:
    adapt(ctx.main, draft, ctx.ledger, ctx.spec, ctx.runtime, draft.num_nodes)


def adapt(main: Container, draft: Draft, ledger: Ledger, spec: MappingSpec,
          runtime: RuntimeSpec, num_nodes: int) -> None:
    """Rebuild the legacy launch contract on a companion runtime that has no ML policy."""
    if draft.companion is None and spec.companion_env:
        names = ", ".join(spec.companion_env)
        ledger.report(CONTRACT_ENV, ("kind",), f"Trainer sets none of {names} (no Trainer "
                      "runtime provides them); with --companion-runtimes they are set "
                      "statically in trainer.env", consume=False)
    if draft.companion is None or runtime.policy != "plain":
        return
    name = draft.name if isinstance(draft.name, str) else None
    if name is None and (spec.companion_env or spec.launcher.wrap):
        ledger.report(UNBUILDABLE, ("metadata",), "the job has no fixed metadata.name, so the "
                      "node host names the contract needs are unknown", consume=False)
        return
    assert name is not None
    if spec.companion_env:
        _static_env(main, draft, ledger, spec, name, num_nodes)
    if spec.launcher.wrap == "tf-config" and num_nodes > 1:
        _tf_config(main, draft, ledger, name, num_nodes, legacy_port(main, spec))
    elif spec.launcher.wrap == "tf-config":
        # one replica in all: the legacy operator set no TF_CONFIG (kubeflow/trainer@v1.9.2
        # pkg/controller.v1/tensorflow/util.go:74-94, tfjob_controller.go:561-564)
        ledger.report(SINGLE_REPLICA, ("kind",), "one replica: the legacy operator set no "
                      "TF_CONFIG and none is set now; its port declaration "
                      f"({legacy_port(main, spec)}) is dropped", consume=False)


def legacy_port(main: Container, spec: MappingSpec) -> int:
    """The port the legacy operator used: the main container's port with the operator's port
    name, else its default (kubeflow/trainer@v1.9.2 pkg/controller.v1/tensorflow/util.go:24-37;
    pytorch/envvar.go:155-170 alike)."""
    operator = operators.load().get(spec.id)
    default = operator.port if operator is not None else None
    for port in main.node.get("ports") or []:
        if isinstance(port, dict) and default is not None and port.get("name") == default.name \
                and isinstance(port.get("containerPort"), int):
            return int(port["containerPort"])
    if default is not None:
        return default.container_port
    return spec.launcher.port or 0


def _static_env(main: Container, draft: Draft, ledger: Ledger, spec: MappingSpec, name: str,
                num_nodes: int) -> None:
    env = draft.trainer.get("env")
    if env is None:
        env = yamlio.new_seq()
        draft.set_trainer("env", env)
    present = {item.get("name") for item in env if isinstance(item, dict)}
    for key, template in spec.companion_env.items():
        if key in present:
            continue
        value = template.format(job=name, num_nodes=num_nodes)
        env.append(yamlio.new_map([("name", key), ("value", yamlio.quoted(value))]))
        ledger.mappings.append((f"(legacy operator contract) {key}",
                                f"spec.trainer.env[name={key}]"))
    values = ", ".join(f"{key}={template.format(job=name, num_nodes=num_nodes)}"
                       for key, template in spec.companion_env.items())
    ledger.report(CONTRACT_ENV, ("kind",), f"the legacy operator's env is set statically in "
                  f"trainer.env: {values}", consume=False)


def _tf_config(main: Container, draft: Draft, ledger: Ledger, name: str, num_nodes: int,
               port: int) -> None:
    command = draft.trainer.get("command")
    where = (*main.path, "command") if "command" in main.node else main.path
    if not command:
        ledger.report(UNBUILDABLE, where, "the container has no command (it runs the image's "
                      "entrypoint), so it cannot be wrapped to build TF_CONFIG; set the command "
                      "explicitly", consume=False)
        return
    symbolic = HOST_INDEX.get()
    index_text = symbolic(num_nodes) if symbolic is not None else None
    hosts = [f"{name}-node-0-{index_text}.{name}:{port}"] if index_text is not None else \
        [f"{name}-node-0-{index}.{name}:{port}" for index in range(num_nodes)]
    cluster = json.dumps({"worker": hosts}, separators=(",", ":"))
    script = (f"export TF_CONFIG='{{\"cluster\":{cluster},\"task\":{{\"type\":\"worker\","
              f"\"index\":'\"${{{INDEX_ENV}:?}}\"'}}}}'; exec \"$@\"")
    wrapped = yamlio.new_seq(["/bin/sh", "-c", script, "tf-config", *command])
    draft.set_trainer("command", wrapped)
    workers = "every node" if index_text is not None else f"{num_nodes} worker(s)"
    ledger.report(TF_CONFIG_CODE, where, f"the command is wrapped to export TF_CONFIG for "
                  f"{workers} from the pod's completion index; a Chief becomes "
                  "worker 0 (MultiWorkerMirroredStrategy treats it as the chief)", consume=False)
