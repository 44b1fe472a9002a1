"""CONVERT: one document through the pipeline: detect → parse → map → emit → validate."""

from __future__ import annotations

from typing import Any

from migrator import waivers
from migrator.check import crdschema, runtimefiles, validate
from migrator.convert import argo, embedded, emit, engine, snippets, status, upgrade
from migrator.convert.classify import classify
from migrator.convert.ledger import Ledger
from migrator.convert.rules import companion
from migrator.knowledge import runtimeindex
from migrator.knowledge.catalog import Catalog
from migrator.load import detect, yamlio
from migrator.load.stream import Chunk
from migrator.results import DocumentResult, Finding, Severity, replaced
from migrator.settings import ConvertOptions

RAISE_INTERNAL_ERRORS = False  # set by the CLI's --debug


def process(chunk: Chunk, index: int, catalog: Catalog, options: ConvertOptions,
            render: bool = True) -> DocumentResult:
    """Convert one document when it is a legacy job; never raises, even on a bug.

    With ``render`` false (``check``) the outcome is computed but no YAML is written: a
    converted document keeps its original text.
    """
    try:
        inline, problems = waivers.inline(chunk.head + chunk.body,
                                          chunk.line - chunk.head.count("\n"))
        if not inline and not problems:
            return _process(chunk, index, catalog, options, render)
        # waivers written in this document apply to it alone
        result = _process(chunk, index, catalog,
                          replaced(options, allow=(*options.allow, *inline)), render)
        if result.reportable:
            result.findings.extend((*problems, *waivers.unused_inline(result.findings, inline)))
        return result
    except Exception as exc:
        if RAISE_INTERNAL_ERRORS:
            raise
        finding = _finding(catalog, "Y105", "", f"internal error: {type(exc).__name__}: {exc}",
                           chunk.line, None)
        return DocumentResult(index, chunk.line, "failed", chunk.text, findings=[finding])


def _process(chunk: Chunk, index: int, catalog: Catalog, options: ConvertOptions,
             render: bool) -> DocumentResult:
    unchanged = DocumentResult(index, chunk.line, "unchanged", chunk.text, reportable=False)
    if not chunk.has_content or not detect.is_candidate(chunk.body):
        return unchanged
    language = detect.template_syntax(chunk.body)
    if language is not None and detect.mentions_training_kind(chunk.body) \
            and not argo.is_workflow(chunk.body):  # Argo's {{...}} are its parameters
        return _skipped(chunk, index, catalog, "Y103",
                        f"the document is a {language}; render it before converting (or use "
                        "--helm for a chart)", {"kind": detect.training_kind(chunk.body)})
    try:
        root = yamlio.load(chunk.body)
    except yamlio.DocumentError as exc:
        if not detect.mentions_training_kind(chunk.body):
            return unchanged
        line = exc.line + chunk.line - 1 if exc.line is not None else chunk.line
        finding = _finding(catalog, exc.code, "", str(exc), line, exc.column)
        return DocumentResult(index, chunk.line, "failed", chunk.text, findings=[finding],
                              source={"kind": detect.training_kind(chunk.body)})
    if not isinstance(root, dict):
        return unchanged
    return _classified(root, chunk, index, catalog, options, unchanged, render)


def _classified(root: Any, chunk: Chunk, index: int, catalog: Catalog, options: ConvertOptions,
                unchanged: DocumentResult, render: bool) -> DocumentResult:
    found = classify(root, chunk.body, catalog.legacy, catalog.kinds)
    source = _identity(root)
    api, kind = source.get("apiVersion"), source.get("kind")
    if found.verdict == "convert" and found.mapping is not None:
        return _convert(root, chunk, index, catalog, options, found.mapping, source, render)
    if found.verdict in ("pre-v22", "prototype"):
        return _upgrade(root, chunk, index, catalog, options, source, render,
                        prototype=found.verdict == "prototype")
    if found.verdict == "embedded":
        embedding = embedded.spec_for(root, catalog)
        if embedding is not None:
            return _embedded(root, chunk, index, catalog, options, source, embedding, render)
    messages = {
        "pending": ("K102", f"{kind} ({api}) is not converted by this release yet"),
        "old-api": ("K101", f"{kind} with apiVersion {api} is not a supported API version"
                    + _old_api_reason(catalog, root, api, kind)),
        "retired": ("K110", f"{kind} ({api}) is a kind of a retired Kubeflow operator: Trainer "
                    "has no runtime for its framework, and it is not converted"),
        "embedded": ("K104", f"{kind} embeds a legacy {found.detail}, which this release does "
                     "not convert"),
    }
    if found.verdict in messages:
        code, message = messages[found.verdict]
        return _skipped(chunk, index, catalog, code, message, source)
    if found.verdict in ("current", "embeds-current"):
        unchanged.source, unchanged.reportable = source, True
    # a legacy job written out in a string value (a script's heredoc, a test snapshot)
    return snippets.text_jobs(root, chunk.line, index, chunk.text, source) or unchanged


def _old_api_reason(catalog: Catalog, root: Any, api: Any, kind: Any) -> str:
    """Why an old API version is not converted (mappings/kinds.yaml oldApis), or ""."""
    for old in catalog.kinds.old_apis:
        if (old.api_version, old.kind) == (api, kind):
            from migrator.template.codec import LINE_TOKEN, STR_TOKEN

            spec = root.get("spec") if isinstance(root, dict) else None
            # (a template's action standing for keys is no field the job sets)
            extra = sorted(str(k) for k in spec if str(k) not in old.fields
                           and not LINE_TOKEN.search(str(k)) and not STR_TOKEN.search(str(k))) \
                if isinstance(spec, dict) and old.fields else []
            forked = (f"; this job also sets {', '.join(extra)}, which {api} never had (a "
                      "fork's fields, whose meaning the upstream API does not state)"
                      if extra else "")
            return f": {old.reason}{forked}"
    return ""


def _convert(root: Any, chunk: Chunk, index: int, catalog: Catalog, options: ConvertOptions,
             mapping: Any, source: dict[str, Any], render: bool) -> DocumentResult:
    target = catalog.target(options.target)
    ledger = Ledger(root, catalog.codes, line_offset=chunk.line - 1)
    draft = engine.convert(root, mapping, catalog.pod, target, options, ledger)
    live = status.finding(root, chunk.line - 1)  # a job from a cluster dump
    if live is not None:
        ledger.findings.append(live)
    result = DocumentResult(index, chunk.line, "failed", chunk.text, source=source,
                            mappings=ledger.mappings, findings=ledger.findings,
                            values=ledger.values)
    if draft is None:
        if {f.code for f in result.findings if f.severity is Severity.ERROR} <= {"Y103"}:
            result.status = "skipped"
        return result
    if not draft.runtime_name:
        return result
    _elastic_size(root, draft, options, result.findings)
    doc = emit.build(draft, target, options.manager)
    known = _known_runtimes(catalog, options)
    runtime_doc = None
    if draft.companion is not None and draft.runtime is not None:
        runtime_doc = companion.build(draft, draft.runtime, target, draft.num_nodes)
        plain_runtime = yamlio.plain(runtime_doc)
        known[(catalog.kinds.namespaced_runtime_kind, draft.companion.name)] = \
            runtimeindex.describe(plain_runtime, "companion runtime")
        result.findings.extend(validate.check(plain_runtime, target, catalog.codes))
        result.findings.extend(crdschema.check(plain_runtime, options.crds, catalog.codes))
    # metadata keeps its paths from source to output: an output problem at a path whose
    # source value was already reported as an error (M101 for a bad name) is not repeated
    blocked = {f.path for f in result.findings
               if f.severity is Severity.ERROR and f.path.startswith("metadata.")}
    policy = target.frameworks[mapping.framework].policy
    plain_doc = yamlio.plain(doc)
    result.findings.extend(f for f in validate.check(plain_doc, target, catalog.codes, known,
                                                     resolve=bool(options.runtime_files),
                                                     policy=policy)
                           if f.path not in blocked)
    result.findings.extend(crdschema.check(plain_doc, options.crds, catalog.codes))
    result.output = {"apiVersion": target.api_version, "kind": target.kind,
                     "name": _text(draft.name if draft.name is not None else draft.generate_name)}
    if draft.companion is not None:
        result.output["runtime"] = {"kind": catalog.kinds.namespaced_runtime_kind,
                                    "name": _text(draft.companion.name)}
    if not _writable(result.findings, options):
        return result
    if not render:
        result.status = "converted"
        return result
    indent = yamlio.detect_indent(chunk.body)
    body = yamlio.dump(doc, indent)
    if runtime_doc is not None:
        body = yamlio.dump(runtime_doc, indent) + "---\n" + body
    result.status, result.text = "converted", chunk.head + body + chunk.tail
    return result


def _embedded(root: Any, chunk: Chunk, index: int, catalog: Catalog, options: ConvertOptions,
              source: dict[str, Any], embedding: Any, render: bool) -> DocumentResult:
    doc, findings, mappings, converted, blocked = embedded.convert(
        root, embedding, catalog, options, chunk.line - 1, render)
    result = DocumentResult(index, chunk.line, "failed", chunk.text, source=source,
                            mappings=mappings, findings=findings)
    if not converted:
        return result if findings else _skipped(
            chunk, index, catalog, "K104", f"{source.get('kind')} embeds a legacy job this "
            "release cannot convert here", source)
    if blocked:  # a List whose other items convert: the ones left are reported, not blocking
        waivers.mark(findings, options.allow, never=validate.OUTPUT_CODES)
        return _finish(result, doc, chunk, options, render,
                       [f for f in findings if not embedded.held(f, blocked)])
    return _finish(result, doc, chunk, options, render)


def _upgrade(root: Any, chunk: Chunk, index: int, catalog: Catalog, options: ConvertOptions,
             source: dict[str, Any], render: bool, *, prototype: bool) -> DocumentResult:
    target = catalog.target(options.target)
    ledger = Ledger(root, catalog.codes, line_offset=chunk.line - 1)
    if root.get("kind") == target.kind:
        doc = upgrade.upgrade_trainjob(root, ledger, options.manager, target)
    else:
        doc = upgrade.upgrade_runtime(root, ledger, target.api_version, prototype=prototype)
    plain_doc = yamlio.plain(doc)
    checked = validate.check(plain_doc, target, catalog.codes, _known_runtimes(catalog, options),
                             resolve=bool(options.runtime_files))
    checked += crdschema.check(plain_doc, options.crds, catalog.codes)
    # an upgrade edits the document in place: a finding's path names the same source field
    ledger.findings.extend(yamlio.located(f, root, chunk.line - 1, exact=True)
                           for f in checked)
    result = DocumentResult(index, chunk.line, "failed", chunk.text, source=source,
                            mappings=ledger.mappings, findings=ledger.findings)
    return _finish(result, doc, chunk, options, render)


def _finish(result: DocumentResult, doc: Any, chunk: Chunk, options: ConvertOptions,
            render: bool, deciding: list[Finding] | None = None) -> DocumentResult:
    """Write ``doc`` (an object edited in place) back into the stream unless its findings
    (or ``deciding``, those that decide) block it."""
    result.output = {"apiVersion": _text(doc.get("apiVersion")), "kind": _text(doc.get("kind")),
                     "name": result.source.get("name")}
    if not _writable(result.findings if deciding is None else deciding, options):
        return result
    result.status = "converted"
    if render:
        result.text = chunk.head + yamlio.dump(doc, yamlio.detect_indent(chunk.body)) + chunk.tail
    return result


_writable = embedded.writable


def _elastic_size(root: Any, draft: Any, options: ConvertOptions,
                  findings: list[Finding]) -> None:
    """An elastic job (F501) accepted by a waiver runs with the size the waiver names; its
    F501 finding says the node count chosen."""
    waiver = waivers.chosen(options.allow, waivers.ELASTIC)
    if waiver is None:
        return
    for place, finding in enumerate(findings):
        if finding.code != waivers.ELASTIC:
            continue
        size = waivers.elastic_size(root, waiver.choice)
        if size is not None:
            draft.set_trainer("numNodes", size[0])
            draft.num_nodes = size[0]
        chosen = f"{size[1]} {size[0]}" if size is not None else \
            f"the replica count {draft.num_nodes}"
        if waiver.choice != "replicas" and size is None:
            chosen += f" (no {waiver.choice}Replicas to choose)"
        findings[place] = replaced(finding, message=f"{finding.message}; numNodes: {chosen}, "
                                   f"as chosen by {waiver.spec}")


def _known_runtimes(catalog: Catalog, options: ConvertOptions) -> runtimeindex.Index:
    return runtimefiles.known(catalog.target(options.target), options.runtime_files,
                              options.local_runtime_files)


def _skipped(chunk: Chunk, index: int, catalog: Catalog, code: str, message: str,
             source: dict[str, Any] | None = None) -> DocumentResult:
    finding = _finding(catalog, code, "", message, chunk.line, None)
    return DocumentResult(index, chunk.line, "skipped", chunk.text, source=source or {},
                          findings=[finding])


def _finding(catalog: Catalog, code: str, path: str, message: str, line: int | None,
             column: int | None) -> Finding:
    doc = catalog.codes[code]
    return Finding(code, Severity(doc.severity), path, message, doc.fix, line, column)


def _identity(root: Any) -> dict[str, Any]:
    meta = root.get("metadata") if isinstance(root.get("metadata"), dict) else {}
    return {key: _text(value) for key, value in (
        ("apiVersion", root.get("apiVersion")), ("kind", root.get("kind")),
        ("name", meta.get("name") or meta.get("generateName")),
        ("namespace", meta.get("namespace")))}


def _text(value: Any) -> str | None:
    """A plain ``str`` (results travel between processes without ruamel's string types)."""
    return str(value) if isinstance(value, str) else None
