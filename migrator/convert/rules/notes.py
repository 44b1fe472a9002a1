"""CONVERT (rules): the notes a mapping file attaches to its kind, reported on every job whose
conversion they describe."""

from __future__ import annotations

from collections.abc import Callable

from migrator.convert.draft import Draft
from migrator.convert.rules.context import RuleContext

ID = "kind-notes"


def _pods_replaced(draft: Draft) -> bool:
    """Whether Trainer replaces a failed or evicted pod of some replicated Job (F535, F536).

    The XGBoost and v1 MPI controllers failed the job at a failed pod of a replica whose
    restartPolicy was not ExitCode (kubeflow/trainer@v1.9.2
    pkg/controller.v1/xgboost/xgboostjob_controller.go:389-395,
    pkg/controller.v1/mpi/mpijob_controller.go:600-601). A Job replaces a failed pod while
    its failures stay within backoffLimit (the Job API, k8s.io/api batch/v1 types.go); a
    companion runtime writes backoffLimit 0 for a replica with restartPolicy Never
    (``companion.retry_limit``), so when every Job of the companion has it, the first failed
    or evicted pod fails the TrainJob as it failed the legacy job: nothing to report. A
    built-in runtime's Jobs keep their own limit (default 6): pods are replaced."""
    companion = draft.companion
    if companion is None or not companion.templates:
        return True
    return any(companion.job_fields.get(job, {}).get("backoffLimit") != 0
               for job in companion.templates)


# Notes that hold only for some conversions of their kind: the note is reported when the
# predicate says the conversion shows what it describes.
CONDITIONS: dict[str, Callable[[Draft], bool]] = {"F535": _pods_replaced, "F536": _pods_replaced}


def apply(ctx: RuleContext, draft: Draft) -> None:
    for note in ctx.spec.notes:
        shown = CONDITIONS.get(note.code)
        if shown is None or shown(draft):
            ctx.ledger.report(note.code, ("kind",), note.message, consume=False)
