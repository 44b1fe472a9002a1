"""Shared-runtime test helpers: a job converted with its companion runtime, split, and both
versions simulated by the Trainer simulator (the oracle)."""

from __future__ import annotations

import json
from typing import Any

from ruamel.yaml import YAML

from migrator.convert.text import convert_text
from migrator.shared_runtimes import share
from migrator.simulate import compare, trainer

YAML_SAFE = YAML(typ="safe", pure=True)
MANAGER = "kubeflow.org/trainjob-migrator"


def companions(text: str, target: str) -> list[tuple[dict[str, Any], dict[str, Any], str]]:
    """(TrainJob, companion runtime, legacy kind) of every plain converted job of ``text``."""
    out = []
    for doc in convert_text(text, target=target, companion_runtimes=True).documents:
        if doc.status != "converted" or not doc.output or "runtime" not in doc.output:
            continue
        try:
            objects = [o for o in YAML_SAFE.load_all(doc.text) if isinstance(o, dict)]
        except Exception:  # a template: kept whole by the rewrite (S102)
            continue
        runtimes = [o for o in objects if o.get("kind") == "TrainingRuntime"]
        jobs = [o for o in objects if o.get("kind") == "TrainJob"]
        if len(runtimes) == 1 and len(jobs) == 1:
            out.append((jobs[0], runtimes[0], str(doc.source.get("kind"))))
    return out


def _env_sorted(spec: dict[str, Any]) -> dict[str, Any]:
    spec = json.loads(json.dumps(spec, default=str))
    for item in spec.get("containers", []) + spec.get("initContainers", []):
        if isinstance(item.get("env"), list):
            item["env"] = sorted(item["env"], key=lambda e: str(e.get("name")))
    return spec


def differences(job: dict[str, Any], runtime: dict[str, Any], split: share.Split,
                target: str) -> list[str]:
    """Every difference between the job on its companion runtime and on its shared one: the
    simulator's comparison of pods and of every scenario's outcome, and an exact comparison of
    pods (identity, host name, labels, spec; env by name: see ``share._order_free``) and of
    the JobSet, its Jobs and PodGroup."""
    before = trainer.world(job, runtime, target)
    after = trainer.world(split.trainjob, split.runtime, target)
    out = [str(d) for d in compare.pods(before, after)]
    for scenario in compare.scenarios(before):
        out += [str(d) for d in compare.outcomes(
            trainer.outcome(job, runtime, target, scenario),
            trainer.outcome(split.trainjob, split.runtime, target, scenario))]

    def exact(world: Any) -> Any:
        return ([(p.identity, p.hostname, p.labels, _env_sorted(p.spec)) for p in world.pods],
                {k: v for k, v in world.extras.items() if k != "notes"})

    if exact(before) != exact(after):
        out.append(f"exact worlds differ:\n{exact(before)}\n{exact(after)}")
    return out
