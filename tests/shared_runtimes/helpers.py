"""Shared-runtime test helpers: a job converted with its companion runtime, split, and both
versions simulated by the Trainer simulator (the oracle)."""

from __future__ import annotations

import dataclasses
import json
import re
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


# The tests' own reading of Kubernetes' imagePullPolicy default (kubernetes/kubernetes
# pkg/apis/core/v1/defaults.go:82-93 SetDefaults_Container: "latest" or no tag -> Always, any
# other tag -> IfNotPresent), written apart from ``share.default_pull_policy`` and for fewer
# references (lower-case ``[host[:port]/]path[:tag]``, no digest): a policy the split drops for
# an image read differently here shows as a difference.
_WORD = r"[a-z0-9]+(?:[._-][a-z0-9]+)*"
_PLAIN_IMAGE = re.compile(rf"(?:[a-z0-9]+(?:[.-][a-z0-9]+)*(?::\d+)?/)?(?:{_WORD}/)*{_WORD}"
                          r"(?::(?P<tag>\w[\w.-]{0,127}))?", re.ASCII)


def api_defaulted(spec: Any) -> Any:
    """A pod spec as the API server stores it, as far as image pull policies go."""
    spec = json.loads(json.dumps(spec, default=str))
    for kind in ("containers", "initContainers"):
        for item in spec.get(kind) or []:
            if not isinstance(item, dict) or item.get("imagePullPolicy") is not None:
                continue
            image = item.get("image")
            if not isinstance(image, str) or len(image) > 200 \
                    or re.fullmatch("[a-f0-9]{64}", image):
                continue
            match = _PLAIN_IMAGE.fullmatch(image)
            if match is not None:
                item["imagePullPolicy"] = "Always" if match.group("tag") in (None, "latest") \
                    else "IfNotPresent"
    return spec


def _defaulted(world: Any) -> Any:
    return dataclasses.replace(world, pods=tuple(
        dataclasses.replace(pod, spec=api_defaulted(pod.spec)) for pod in world.pods))


def differences(job: dict[str, Any], runtime: dict[str, Any], split: share.Split,
                target: str) -> list[str]:
    """Every difference between the job on its companion runtime and on its shared one: the
    simulator's comparison of pods and of every scenario's outcome, and an exact comparison of
    pods (identity, host name, labels, spec; env by name: see ``share._order_free``) and of
    the JobSet, its Jobs and PodGroup. Pods are compared as the API server stores them
    (``api_defaulted``): the split drops an explicit imagePullPolicy equal to the default."""
    before = _defaulted(trainer.world(job, runtime, target))
    after = _defaulted(trainer.world(split.trainjob, split.runtime, target))
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
