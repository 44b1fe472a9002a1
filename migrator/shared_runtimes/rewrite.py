"""BATCH (shared runtimes), one file: replace each converted job's companion TrainingRuntime
by a reference to its shared ClusterTrainingRuntime (``share.split``).

Runs where the file was converted (a worker process with ``-j``): the shared runtime's name
comes from its content and the folder as it was when the run started (``store.existing``),
so no worker needs another's results. The runtime itself travels back to the main process
on the document's ``output`` under ``CARRIED`` (taken off there by ``store.Collector`` before
any report sees it), which writes the folder once, at the end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from migrator.results import DocumentResult, Finding, Severity, TextResult
from migrator.settings import ConvertOptions
from migrator.shared_runtimes import CARRIED


def rewrite(result: TextResult, options: ConvertOptions, folder: str) -> TextResult:
    """``result`` with every companion runtime it can share replaced (documents edited in
    place); files whose text is not the plain join of their documents are left alone."""
    candidates = [doc for doc in result.documents if doc.status == "converted"
                  and isinstance(doc.output, dict) and isinstance(doc.output.get("runtime"), dict)]
    if not candidates:
        return result
    from migrator.knowledge import catalog

    codes = catalog.load().codes
    if result.text != "".join(doc.text for doc in result.documents):
        for doc in candidates:  # a templated file, a page or a script: kept whole
            doc.findings.append(_finding(codes, "S102", doc, "its file is not a plain YAML "
                                         "stream (a template, a page or a script), so its "
                                         "companion runtime stays next to the TrainJob"))
        return result
    for doc in candidates:
        _rewrite_document(doc, options, folder, codes)
    return TextResult("".join(doc.text for doc in result.documents), result.documents)


def _rewrite_document(doc: DocumentResult, options: ConvertOptions, folder: str,
                      codes: dict[str, Any]) -> None:
    from migrator.load import stream, yamlio
    from migrator.shared_runtimes import share, store

    assert isinstance(doc.output, dict)
    wanted = doc.output["runtime"].get("name")
    chunks = stream.split(doc.text)
    loaded: list[Any] = []
    for chunk in chunks:
        try:
            loaded.append(yamlio.load(chunk.body) if chunk.has_content else None)
        except yamlio.DocumentError:
            loaded.append(None)
    runtimes = [i for i, node in enumerate(loaded) if isinstance(node, dict)
                and node.get("kind") == doc.output["runtime"].get("kind")
                and isinstance(node.get("metadata"), dict)
                and node["metadata"].get("name") == wanted]
    jobs = [i for i, node in enumerate(loaded) if isinstance(node, dict)
            and node.get("kind") == doc.output.get("kind")]
    if len(runtimes) != 1 or len(jobs) != 1 or "{{" in doc.text:
        doc.findings.append(_finding(codes, "S102", doc, "the converted document does not hold "
                                     "exactly one plain companion runtime and TrainJob"))
        return
    runtime_at, job_at = runtimes[0], jobs[0]
    rule = share.rules(options.target)
    split = share.split(yamlio.plain(loaded[job_at]), yamlio.plain(loaded[runtime_at]), rule,
                        doc.source.get("kind"), options.manager)
    if isinstance(split, str):
        doc.findings.append(_finding(codes, "S102", doc, split))
        return
    known = store.existing(folder, rule.cluster_kind)
    if split.digest not in known.by_digest:
        # a folder written before pull policies equal to the default were dropped may hold
        # this job's shape as written: equally exact (the policy is the default), so reused
        written = share.split(yamlio.plain(loaded[job_at]), yamlio.plain(loaded[runtime_at]),
                              rule, doc.source.get("kind"), options.manager, as_written=True)
        if not isinstance(written, str) and written.digest in known.by_digest:
            split = written
    name, edited = known.name_for(split)
    if edited:
        doc.findings.append(_finding(codes, "S103", doc, f"{edited} in {Path(folder).name} was "
                                     f"edited after it was written; this job uses a new variant, "
                                     f"{name}"))
    problems = _invalid(split, name, options)
    if problems:
        doc.findings.append(_finding(codes, "S102", doc, "the TrainJob on a shared runtime "
                                     f"would not be valid: {problems}"))
        return
    node = loaded[job_at]
    _apply(node, split.trainjob, name)
    chunk = chunks[job_at]
    body = yamlio.dump(node, yamlio.detect_indent(chunk.body))
    kept = [c.text for i, c in enumerate(chunks) if i not in (runtime_at, job_at)]
    first = chunks[min(runtime_at, job_at)]
    last = chunks[max(runtime_at, job_at)]
    doc.text = first.head + body + last.tail + "".join(kept)
    body_runtime = dict(split.runtime)
    body_runtime["metadata"] = {**split.runtime["metadata"], "name": name}
    doc.output = {**doc.output, "runtime": {"kind": rule.cluster_kind, "name": name},
                  CARRIED: {"runtime": body_runtime, "digest": split.digest,
                            "sets": list(split.sets)}}
    sets = "; ".join(split.sets) or "nothing but its name"
    doc.findings.append(_finding(codes, "S101", doc, f"uses {rule.cluster_kind} {name}; the "
                                 f"TrainJob sets: {sets}"))


def _apply(node: Any, job: dict[str, Any], name: str) -> None:
    """Carry ``job``'s runtimeRef, trainer fields and runtimePatches into the round-trip
    TrainJob ``node`` (its comments and key order kept)."""
    from migrator.load import yamlio

    spec = node["spec"]
    ref = spec["runtimeRef"]
    ref["name"] = name
    ref["kind"] = job["spec"]["runtimeRef"]["kind"]
    trainer = job["spec"].get("trainer")
    if isinstance(trainer, dict):
        target = spec.get("trainer")
        for key, value in trainer.items():
            if yamlio.plain(target.get(key)) != value:
                target[key] = yamlio.from_plain(value)
    if "runtimePatches" in job["spec"]:
        spec["runtimePatches"] = yamlio.from_plain(job["spec"]["runtimePatches"])


def _invalid(split: Any, name: str, options: ConvertOptions) -> str:
    from migrator.check import crdschema, validate
    from migrator.knowledge import catalog

    loaded = catalog.load()
    job = split.trainjob
    job["spec"]["runtimeRef"]["name"] = name
    findings = validate.check(job, loaded.target(options.target), loaded.codes)
    findings += crdschema.check(job, options.crds, loaded.codes)
    errors = [f"{f.code} {f.message}" for f in findings if f.severity is Severity.ERROR]
    return "; ".join(errors[:2])


def _finding(codes: dict[str, Any], code: str, doc: DocumentResult, message: str) -> Finding:
    entry = codes[code]
    return Finding(code, Severity(entry.severity), "", message, entry.fix, doc.line, None)
