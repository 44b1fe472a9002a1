"""CONVERT (rules): transforms for framework-specific legacy fields (MPI, TensorFlow, PaddlePaddle).

Registered in the same ``TRANSFORMS`` table as the run-policy transforms; mapping files name
them with ``op: transform, fn: <name>``.
"""

from __future__ import annotations

from typing import Any

from migrator import paths
from migrator.convert.rules.transforms import (
    TRANSFORMS,
    Call,
    elastic_policy,
    is_scaling,
    transform,
)

__all__ = ["TRANSFORMS"]  # the full registry: run-policy and framework transforms

OPENMPI = "OpenMPI"
MPI_IMPLEMENTATIONS = ("OpenMPI", "Intel", "MPICH")
WAIT_FOR_WORKERS = "WaitForWorkersReady"


def _int(value: Any, low: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


@transform("mpi-slots")
def mpi_slots(call: Call) -> None:
    if not _int(call.value, 1):
        call.ledger.report("K103", call.path, f"slotsPerWorker {call.value!r} is not a "
                           "positive integer")
        return
    call.draft.set_trainer("numProcPerNode", call.value)
    call.ledger.mapped(call.path, "spec.trainer.numProcPerNode")


@transform("mpi-ssh-path")
def mpi_ssh_path(call: Call) -> None:
    companion = call.draft.companion
    if not isinstance(call.value, str) or not call.value.startswith("/"):
        call.ledger.report("K103", call.path, f"sshAuthMountPath {call.value!r} is not an "
                           "absolute path")
    elif companion is not None:
        companion.policy_fields["sshAuthMountPath"] = call.value
        call.ledger.mapped(call.path, f"{companion.ref}: "
                           "spec.mlPolicy.mpi.sshAuthMountPath")
    elif _runtime_ssh_path(call.draft.runtime_doc) == call.value:
        call.ledger.default(call.path)  # the runtime (from --runtimes) mounts the keys there
    else:
        runtime = (f"runtime {call.draft.runtime_name}" if call.draft.runtime_name
                   else "the MPI runtime the TrainJob will reference")
        call.ledger.report("F521", call.path, f"sshAuthMountPath {call.value} must match the "
                           f"mlPolicy.mpi.sshAuthMountPath of {runtime}")


def _runtime_ssh_path(runtime_doc: Any) -> Any:
    mpi = paths.get(runtime_doc, ("spec", "mlPolicy", "mpi")) if isinstance(runtime_doc, dict) \
        else None
    return mpi.get("sshAuthMountPath", "/root/.ssh") if isinstance(mpi, dict) else None


@transform("mpi-implementation")
def mpi_implementation(call: Call) -> None:
    if call.value == OPENMPI:
        call.ledger.default(call.path)
    elif call.value in MPI_IMPLEMENTATIONS:
        call.ledger.report("F517", call.path, f"mpiImplementation {call.value} is not supported "
                           "by Trainer's MPI policy (OpenMPI only)")
    else:
        call.ledger.report("K103", call.path, f"mpiImplementation {call.value!r} is not one of "
                           f"{', '.join(MPI_IMPLEMENTATIONS)}")


@transform("mpi-launcher-creation")
def mpi_launcher_creation(call: Call) -> None:
    if call.value == "AtStartup":
        call.ledger.default(call.path)
    elif call.value == WAIT_FOR_WORKERS:
        _wait_for_workers(call)
    else:
        call.ledger.report("K103", call.path, f"launcherCreationPolicy {call.value!r} is not "
                           "AtStartup or WaitForWorkersReady")


@transform("mpi-wait-for-workers")
def mpi_wait_for_workers(call: Call) -> None:
    if call.value is True:
        _wait_for_workers(call)
    else:
        call.ledger.default(call.path)


def _wait_for_workers(call: Call) -> None:
    companion = call.draft.companion
    if companion is not None:
        companion.depends_on["launcher"] = [("node", "Ready")]
        call.ledger.mapped(call.path, f"{companion.ref}: spec.template.spec."
                           "replicatedJobs[name=launcher].dependsOn")
    elif not call.target.mpi_launcher_waits_for_workers:
        call.ledger.report("F520", call.path, "the launcher waited for ready workers; Trainer "
                           f"{call.target.release}'s MPI runtimes start launcher and workers "
                           "together")
    else:
        call.ledger.default(call.path)


@transform("tf-success-policy")
def tf_success_policy(call: Call) -> None:
    if call.value in ("", None, "AllWorkers"):
        call.ledger.mapped(call.path, "(read by the success rule: the node Job's "
                           "successPolicy, or F531)")
    else:
        call.ledger.report("K103", call.path, f"successPolicy {call.value!r} is not \"\" or "
                           "AllWorkers")


@transform("tf-dynamic-worker")
def tf_dynamic_worker(call: Call) -> None:
    if call.value is False or call.value is None:
        call.ledger.default(call.path)
    else:
        call.ledger.report("F513", call.path, "enableDynamicWorker has no equivalent: the "
                           "generated TF_CONFIG lists every worker")


@transform("paddle-elastic-policy")
def paddle_elastic_policy(call: Call) -> None:
    policy = elastic_policy(call)
    if policy is None:
        return
    code = "F501" if is_scaling(policy) else "F502"
    call.ledger.report(code, call.path, "elastic PaddlePaddle training is not available in "
                       "Trainer 2.2/2.3; the job runs with a fixed node count "
                       f"(dropped: {', '.join(str(k) for k in policy)})")
