"""CHECK: ``trainjob-migrate validate``: check existing Trainer manifests against a target release.

Every TrainJob, TrainingRuntime and ClusterTrainingRuntime (hand-written ones too) is checked
with the same validator the converter applies to its own output (strict API models, admission
rules, runtime resolution, ``--crd``). Other documents are ignored and nothing is written.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from migrator import paths
from migrator.check import crdschema, validate
from migrator.knowledge import runtimeindex
from migrator.knowledge.catalog import Catalog
from migrator.load import stream, yamlio
from migrator.results import DocumentResult, Finding, Severity, Status, TextResult
from migrator.settings import ConvertOptions

GROUP = "trainer.kubeflow.org/"
PROTOTYPE = "kubeflow.org/v2alpha1"
KINDS = ("TrainJob", "TrainingRuntime", "ClusterTrainingRuntime")


def validate_text(text: str, catalog: Catalog, options: ConvertOptions) -> TextResult:
    """The validation outcome of every Trainer object in a YAML stream (text unchanged)."""
    target = catalog.target(options.target)
    known = runtimeindex.known(target, options.runtime_files, options.local_runtime_files)
    results = []
    for index, chunk in enumerate(stream.split(text)):
        result = DocumentResult(index, chunk.line, "unchanged", chunk.text, reportable=False)
        if chunk.has_content and (GROUP in chunk.body or PROTOTYPE in chunk.body):
            result = _validate(chunk, index, catalog, options, known) or result
        results.append(result)
    return TextResult(text, results)


def _validate(chunk: stream.Chunk, index: int, catalog: Catalog, options: ConvertOptions,
              known: runtimeindex.Index) -> DocumentResult | None:
    try:
        root = yamlio.load(chunk.body)
    except yamlio.DocumentError:
        return None  # not YAML: convert/check report it; validate looks at Trainer objects
    if not isinstance(root, dict) or root.get("kind") not in KINDS:
        return None
    api = str(root.get("apiVersion", ""))
    if not (api.startswith(GROUP) or api == PROTOTYPE):
        return None
    target = catalog.target(options.target)
    plain = yamlio.plain(root)
    findings = validate.check(plain, target, catalog.codes, known,
                              resolve=bool(options.runtime_files))
    findings += crdschema.check(plain, options.crds, catalog.codes)
    located = [_locate(f, root, chunk.line - 1) for f in findings]
    meta: dict[str, Any] = root["metadata"] if isinstance(root.get("metadata"), dict) else {}
    source = {"apiVersion": api, "kind": root.get("kind"), "name": meta.get("name"),
              "namespace": meta.get("namespace")}
    status: Status = "failed" if any(f.severity is Severity.ERROR for f in located) \
        else "unchanged"
    return DocumentResult(index, chunk.line, status, chunk.text, source=source,
                          findings=located)


def _locate(finding: Finding, root: Any, line_offset: int) -> Finding:
    path = paths.parse_rendered(finding.path)
    if any(isinstance(p, tuple) for p in path):
        return finding
    line, column = yamlio.locate(root, path, line_offset)
    return replace(finding, line=line, column=column) if line is not None else finding

