"""CONVERT (rules): object metadata: name, namespace, labels and annotations carry over; the rest
is reported."""

from __future__ import annotations

import re
from typing import Any

from migrator.convert.draft import Draft
from migrator.convert.ledger import Ledger
from migrator.convert.rules.context import RuleContext
from migrator.knowledge import catalog
from migrator.load import yamlio

ID = "metadata"
NAME_RE = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
SERVER_FIELDS = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields",
                 "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds")
OWNERSHIP_FIELDS = ("ownerReferences", "finalizers")


def apply(ctx: RuleContext, draft: Draft) -> None:
    convert_metadata(ctx.job.metadata.node, draft, ctx.ledger, ctx.target.limits.name,
                     require_name=not ctx.embedded)


def convert_metadata(metadata: Any, draft: Draft, ledger: Ledger, max_name: int, *,
                     require_name: bool = True) -> None:
    """Fill the draft's metadata from the legacy ``metadata`` map."""
    draft.source_metadata = metadata
    name, generate_name = metadata.get("name"), metadata.get("generateName")
    if name is not None:
        draft.name = name
        ledger.mapped(("metadata", "name"), "metadata.name")
        if len(name) > max_name or not NAME_RE.match(name):
            ledger.report("M101", ("metadata", "name"),
                          f"name {name!r} is not an RFC 1035 label of at most {max_name} "
                          "characters", consume=False)
    elif generate_name is None and require_name:
        ledger.report("K103", ("metadata",), "metadata.name (or generateName) is missing")
    if generate_name is not None:
        draft.generate_name = generate_name
        ledger.mapped(("metadata", "generateName"), "metadata.generateName")
    if "namespace" in metadata:
        draft.namespace = metadata["namespace"]
        ledger.mapped(("metadata", "namespace"), "metadata.namespace")
    if metadata.get("labels"):
        draft.labels = yamlio.clone(metadata["labels"])
        ledger.mapped(("metadata", "labels"), "metadata.labels")
    elif "labels" in metadata:
        ledger.default(("metadata", "labels"))
    _annotations(metadata, draft, ledger)
    for key in SERVER_FIELDS:
        if key in metadata:
            ledger.report("M104", ("metadata", key), f"metadata.{key} belongs to the live "
                          "legacy object and was dropped")
    for key in OWNERSHIP_FIELDS:
        if key in metadata:
            ledger.report("M105", ("metadata", key), f"metadata.{key} was dropped")


def _annotations(metadata: Any, draft: Draft, ledger: Ledger) -> None:
    annotations = metadata.get("annotations")
    if not isinstance(annotations, dict) or not annotations:
        if "annotations" in metadata:
            ledger.default(("metadata", "annotations"))
        return
    integrations = catalog.load().integrations
    last_applied, kueue_labels = integrations.last_applied_annotation, integrations.kueue.all
    kept = yamlio.clone(annotations)
    if last_applied in kept:
        del kept[last_applied]
        ledger.report("M103", ("metadata", "annotations", last_applied),
                      "the last-applied-configuration annotation was dropped")
    for key in annotations:
        if key in kueue_labels:
            _kueue_label(str(key), kept, draft, ledger)
        elif key != last_applied:
            ledger.mapped(("metadata", "annotations", str(key)), f"metadata.annotations.{key}")
    if kept:
        draft.annotations = kept


def _kueue_label(key: str, annotations: Any, draft: Draft, ledger: Ledger) -> None:
    """Kueue reads its queue and priority from labels only: move a misplaced annotation."""
    value = annotations.pop(key)
    path = ("metadata", "annotations", key)
    if draft.labels is None:
        draft.labels = yamlio.new_map()
    current = draft.labels.get(key)
    if current is None:
        draft.labels[key] = value
        ledger.mapped(path, f"metadata.labels.{key}")
        ledger.report("M107", path, f"{key} was an annotation, which Kueue ignores; it is now a "
                      "label", consume=False)
    elif current != value:
        ledger.report("M107", path, f"annotation {key}={value!r} contradicts the label "
                      f"({current!r}); the label is kept, the annotation dropped")
    else:
        ledger.default(path)

