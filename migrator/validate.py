"""STAGE 5: check a generated TrainJob against the target's limits before it is written.

The name rule is checked where the name is mapped (metadata.py, M101).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from migrator import paths
from migrator.findings import Finding, Severity
from migrator.specs import CodeDoc, TargetSpec

LIMIT = "V601"
POD = ("spec", "runtimePatches", 0, "trainingRuntimeSpec", "template", "spec", "replicatedJobs",
       0, "template", "spec", "template", "spec")


def check(doc: Any, target: TargetSpec, codes: dict[str, CodeDoc]) -> list[Finding]:
    """Findings for every limit of ``target`` that ``doc`` (plain data) exceeds."""
    hint = codes[LIMIT].fix
    return [Finding(LIMIT, Severity.ERROR, path, message, hint)
            for path, message in _problems(doc, target)]


def _problems(doc: Any, target: TargetSpec) -> Iterator[tuple[str, str]]:
    limits = target.limits
    image = paths.get(doc, ("spec", "trainer", "image"))
    if isinstance(image, str) and len(image) > limits.image:
        yield "spec.trainer.image", f"image is longer than {limits.image} characters"
    for field in ("command", "args"):
        items = paths.get(doc, ("spec", "trainer", field)) or []
        if len(items) > limits.command_items:
            yield f"spec.trainer.{field}", f"more than {limits.command_items} items"
        for index, item in enumerate(items):
            if len(str(item)) > limits.command_item_length:
                yield (f"spec.trainer.{field}[{index}]",
                       f"item is longer than {limits.command_item_length} characters")
    sized = (
        (("spec", "trainer", "env"), limits.env_items),
        (("spec", "runtimePatches"), limits.runtime_patches),
        ((*POD, "volumes"), limits.volumes),
        ((*POD, "tolerations"), limits.tolerations),
        ((*POD, "imagePullSecrets"), limits.image_pull_secrets),
        ((*POD, "schedulingGates"), limits.scheduling_gates),
        ((*POD, "containers", 0, "volumeMounts"), limits.volume_mounts),
    )
    for path, limit in sized:
        value = paths.get(doc, path)
        if isinstance(value, list) and len(value) > limit:
            yield paths.render(path), f"{len(value)} items; the limit is {limit}"
