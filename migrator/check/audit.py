"""CHECK: ``trainjob-migrate validate``: check existing Trainer manifests against a target release.

Every TrainJob, TrainingRuntime and ClusterTrainingRuntime (hand-written ones too) is checked
with the same validator the converter applies to its own output (strict API models, admission
rules, runtime resolution, ``--crd``). A document that names Trainer's group but is not YAML
is an error (Y101), unless it is a template. Other documents are ignored and nothing is
written.
"""

from __future__ import annotations

from time import perf_counter
from typing import TYPE_CHECKING, Any

from migrator.check import crdschema, runtimefiles, validate
from migrator.knowledge import runtimeindex
from migrator.knowledge.catalog import Catalog
from migrator.load import stream, yamlio
from migrator.results import (
    DocumentResult,
    Finding,
    FrozenValue,
    Severity,
    Status,
    TextResult,
    _set,
)
from migrator.settings import ConvertOptions

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only


@fields_only
class TrainerObjects(FrozenValue):
    """Which documents are Trainer objects, from mappings/kinds.yaml (``current`` and
    ``prototypes``): any apiVersion of a current kind's group, or a prototype's exact one.
    (A frozen value written by hand: see migrator/results.py.)"""

    FIELDS = ("kinds", "groups", "prototypes")
    kinds: frozenset[str]
    groups: tuple[str, ...]  # "trainer.kubeflow.org/"
    prototypes: frozenset[str]  # "kubeflow.org/v2alpha1", ...

    def __init__(self, kinds: frozenset[str], groups: tuple[str, ...],
                 prototypes: frozenset[str]) -> None:
        _set(self, "kinds", kinds)
        _set(self, "groups", groups)
        _set(self, "prototypes", prototypes)

    @classmethod
    def of(cls, catalog: Catalog) -> TrainerObjects:
        current, prototypes = catalog.kinds.current, catalog.kinds.prototypes
        groups = dict.fromkeys(item.api_version.rpartition("/")[0] + "/" for item in current)
        return cls(frozenset(item.kind for item in (*current, *prototypes)), tuple(groups),
                   frozenset(item.api_version for item in prototypes))

    def mentioned(self, text: str) -> bool:
        """Cheap prefilter: the text names a Trainer group or a prototype apiVersion."""
        return any(marker in text for marker in (*self.groups, *self.prototypes))

    def matches(self, api: str, kind: object) -> bool:
        return isinstance(kind, str) and kind in self.kinds and (
            api.startswith(self.groups) or api in self.prototypes)


def validate_text(text: str, catalog: Catalog, options: ConvertOptions) -> TextResult:
    """The validation outcome of every Trainer object in a YAML stream (text unchanged)."""
    target = catalog.target(options.target)
    known = runtimefiles.known(target, options.runtime_files, options.local_runtime_files)
    trainer = TrainerObjects.of(catalog)
    results = []
    for index, chunk in enumerate(stream.split(text)):
        started = perf_counter()
        result = DocumentResult(index, chunk.line, "unchanged", chunk.text, reportable=False)
        if chunk.has_content and trainer.mentioned(chunk.body):
            result = _validate(chunk, index, catalog, options, known, trainer) or result
        result.seconds = perf_counter() - started  # (the JUnit report's time for it)
        results.append(result)
    return TextResult(text, results)


def _validate(chunk: stream.Chunk, index: int, catalog: Catalog, options: ConvertOptions,
              known: runtimeindex.Index, trainer: TrainerObjects) -> DocumentResult | None:
    try:
        root = yamlio.load(chunk.body)
    except yamlio.DocumentError as exc:  # it names Trainer's group: a cluster refuses it too
        from migrator.load import detect

        if detect.template_syntax(chunk.body) is not None:
            return None  # a template (render it first): not a manifest a cluster is given
        code = catalog.codes[exc.code]
        line = exc.line + chunk.line - 1 if exc.line is not None else chunk.line
        finding = Finding(exc.code, Severity(code.severity), "", str(exc), code.fix, line,
                          exc.column)
        return DocumentResult(index, chunk.line, "failed", chunk.text, findings=[finding],
                              source={"kind": detect.training_kind(chunk.body)})
    if not isinstance(root, dict):
        return None
    api = str(root.get("apiVersion", ""))
    if not trainer.matches(api, root.get("kind")):
        return None
    target = catalog.target(options.target)
    plain = yamlio.plain(root)
    findings = validate.check(plain, target, catalog.codes, known,
                              resolve=bool(options.runtime_files))
    findings += crdschema.check(plain, options.crds, catalog.codes)
    located = [yamlio.located(f, root, chunk.line - 1) for f in findings]
    meta: dict[str, Any] = root["metadata"] if isinstance(root.get("metadata"), dict) else {}
    source = {"apiVersion": api, "kind": root.get("kind"), "name": meta.get("name"),
              "namespace": meta.get("namespace")}
    status: Status = "failed" if any(f.severity is Severity.ERROR for f in located) \
        else "unchanged"
    return DocumentResult(index, chunk.line, status, chunk.text, source=source,
                          findings=located)
