"""CONVERT: legacy jobs embedded in other objects (Katib Experiment trial specs and trial-template
ConfigMaps, AppWrapper components, v1 Lists such as cluster dumps, Argo resource templates).

Each embedded job is converted by the same engine (without a companion runtime: there is no
place for a second object) and replaced in place; the embedding object keeps its comments and
everything else. Katib's trial template is adjusted to the TrainJob (primary container name,
success and failure conditions, primary pod labels). The items of a List (a cluster dump) are
decided one by one: an item an error blocks stays as it was (or is left out:
``ConvertOptions.converted_only``), the others convert.
"""

from __future__ import annotations

from typing import Any

from migrator import paths, waivers
from migrator.check import validate
from migrator.convert import argo, emit, engine, hints, status
from migrator.convert.ledger import Ledger
from migrator.knowledge import runtimeindex
from migrator.knowledge.catalog import Catalog
from migrator.knowledge.specs import EmbeddingSpec
from migrator.load import detect, masking, yamlio
from migrator.paths import FieldPath
from migrator.results import Finding, Severity, replaced
from migrator.settings import ConvertOptions

CONVERTED = "E801"
KATIB_CONFIG = "E803"
LEGACY_SUCCESS = '#(type=="Succeeded")#'
TRAINJOB_SUCCESS = '#(type=="Complete")#'
DEFAULT_SUCCESS = 'status.conditions.#(type=="Complete")#|#(status=="True")#'
DEFAULT_FAILURE = 'status.conditions.#(type=="Failed")#|#(status=="True")#'
# a converted job kept as text is not dumped when nothing reads the text (see ``convert``);
# False: always dumped (tests compare the two)
SKIP_UNREAD_TEXT = True
PRIMARY_POD_LABELS = (("jobset.sigs.k8s.io/replicatedjob-name", "node"),
                      ("jobset.sigs.k8s.io/job-index", "0"),
                      ("batch.kubernetes.io/job-completion-index", "0"))


# why an AppWrapper cannot wrap a TrainJob (project-codeflare/appwrapper v1.2.1): it infers pod
# sets only for the kinds it knows (utils.InferPodSets), and a declared podSet's path must lead
# to a v1.PodSpecTemplate in the component (webhook check 4, utils.GetPodTemplateSpec)
POD_SETS_MESSAGE = ("AppWrapper cannot hold a TrainJob: it infers pod sets only for the kinds it "
                    "knows (a TrainJob is not one), and a declared podSet's path must lead to a "
                    "v1.PodSpecTemplate in the component, which a TrainJob does not have (its "
                    "pods come from the runtime; a runtime patch has neither the node's image "
                    "nor its resources, which are in trainer.resourcesPerNode), so Kueue would "
                    "not count the pods' resources; queue the TrainJob with Kueue directly "
                    "(label kueue.x-k8s.io/queue-name, Kueue's TrainJob integration) instead of "
                    "wrapping it")

def spec_for(root: Any, catalog: Catalog) -> EmbeddingSpec | None:
    """The embedding rules for ``root``'s kind, if its jobs are converted in place."""
    api, kind = str(root.get("apiVersion", "")), root.get("kind")
    for spec in catalog.kinds.embeddings:
        if spec.kind == kind and api.split("/")[0] == spec.api_group:
            return spec
    return None


def writable(findings: list[Finding], options: ConvertOptions) -> bool:
    """Whether a conversion with ``findings`` is written: error findings block it unless a
    waiver accepts each (marked in place) or --allow-lossy; an invalid result always does."""
    waivers.mark(findings, options.allow, never=validate.OUTPUT_CODES)
    errors = waivers.blocking(findings)
    if any(f.code in validate.OUTPUT_CODES for f in errors):
        return False
    return not errors or options.allow_lossy


def held(finding: Finding, prefixes: set[str]) -> bool:
    """Whether ``finding`` is about a List item left unconverted (one of ``prefixes``)."""
    return finding.path.split(".", 1)[0] in prefixes


def convert(root: Any, spec: EmbeddingSpec, catalog: Catalog, options: ConvertOptions,
            line_offset: int, render: bool = True
            ) -> tuple[Any, list[Finding], list[tuple[str, str]], int, set[str]]:
    """Convert every embedded legacy job of ``root``; returns (document, findings, mappings,
    number of jobs converted, the List items left unconverted: their path prefixes).

    Without ``render`` (``check``: the document is not written, only its apiVersion and kind
    are read) a job kept as YAML text (a ConfigMap's data) is not dumped to text: the
    document then holds the converted job itself there. An Argo manifest still is: its text
    is checked for its parameters and read for its conditions.
    """
    doc = yamlio.clone(root)
    findings: list[Finding] = []
    mappings: list[tuple[str, str]] = []
    converted = 0
    options = replaced(options, companion_runtimes=False)
    target = catalog.target(options.target)
    workflow = spec.api_group == detect.ARGO_GROUP
    each = spec.kind == "List"  # a List's items are decided one by one
    blocked: set[str] = set()
    dropped: list[int] = []  # the List items left out (converted_only)
    for path in _expand(root, spec.paths, strings=spec.strings):
        start = len(findings)
        # an Argo manifest's {{...}} parameters are hidden while the job is converted
        masked = masking.mask(str(paths.get(root, path)), masking.ARGO_PARAMETER) \
            if workflow else None
        job, offset = _job_at(root, path, line_offset, masked.text if masked else None)
        key = (job.get("apiVersion"), job.get("kind")) if isinstance(job, dict) else None
        mapping = catalog.legacy.get(key) if key is not None else None  # type: ignore[arg-type]
        if mapping is None:
            continue
        prefix = paths.render(path)
        if masked is not None:
            reference = argo.reference_only(paths.get(root, path[:-1]), job, masked.text,
                                            catalog.target(options.target).api_version)
            if reference is not None:  # a delete/get step names the job, nothing more
                restored = masked.restore(reference)
                if restored is not None:
                    _put(doc, path, _literal(restored))
                    converted += 1
                    findings.append(_finding(catalog, CONVERTED, prefix, "the step now names "
                                             "the TrainJob", line_offset, root, path))
                    continue
        live = status.finding(job, offset, prefix)  # a job from a cluster dump
        if live is not None:
            findings.append(live)
        ledger = Ledger(job, catalog.codes, line_offset=offset)
        draft = engine.convert(job, mapping, catalog.pod, target, options, ledger, embedded=True)
        findings += [_prefixed(_no_companion(hints.for_embedded(f)), prefix)
                     for f in ledger.findings]
        mappings += [(f"{prefix}.{src}", f"{prefix} (TrainJob) {dst}")
                     for src, dst in ledger.mappings]
        if draft is None or not draft.runtime_name:
            if each:
                blocked.add(prefix)
                dropped.append(path[-1])  # type: ignore[arg-type]  # items[*]: a list index
            continue
        trainjob = emit.build(draft, target, options.manager)
        findings += [_prefixed(f, prefix) for f in
                     validate.check(yamlio.plain(trainjob), target, catalog.codes,
                                    runtimeindex.defaults(target), embedded=True)]
        if each:
            own = findings[start:]
            keep = writable(own, options)
            findings[start:] = own  # (marked waived)
            if not keep:
                blocked.add(prefix)
                dropped.append(path[-1])  # type: ignore[arg-type]  # items[*]: a list index
                continue
        value = trainjob
        if isinstance(paths.get(root, path), str) and (render or masked is not None
                                                        or not SKIP_UNREAD_TEXT):
            value = _as_string(trainjob)
        if masked is not None:
            restored = masked.restore(str(value))
            if restored is None:
                findings.append(_finding(catalog, "E805", prefix, "the converted manifest "
                                         "would lose an Argo parameter; convert it by hand",
                                         line_offset, root, path))
                continue
            value = _literal(restored.rstrip("\n") + ("\n" if masked.text.endswith("\n")
                                                       else ""))  # keeps its chomping
            findings += argo.rewrite_conditions(paths.get(doc, path[:-1]),
                                                paths.render(path[:-1]), restored, line_offset)
        _put(doc, path, value)
        converted += 1
        findings.append(_finding(catalog, CONVERTED, prefix, f"the embedded {mapping.source.kind} "
                                 "was converted to a TrainJob in place", line_offset, root, path))
        if spec.katib:
            findings += _katib(doc, root, catalog, str(job.get("kind")), draft.patch_container,
                               line_offset)
        if spec.pod_sets_code is not None:
            findings.append(_finding(catalog, spec.pod_sets_code, prefix, POD_SETS_MESSAGE,
                                     line_offset, root, path))
    if options.converted_only and converted:
        items = doc.get("items")
        for index in reversed(dropped):
            del items[index]
    return doc, findings, mappings, converted, blocked


def _expand(root: Any, patterns: list[str], *, strings: bool = False) -> list[FieldPath]:
    """Paths matching ``patterns``: ``[*]`` walks a list, ``*`` every key of a mapping."""
    found: list[FieldPath] = []
    wanted = (dict, str) if strings else (dict,)
    for pattern in patterns:
        partial: list[FieldPath] = [()]
        for part in pattern.split("."):
            step: list[FieldPath] = []
            name, star = (part[:-3], True) if part.endswith("[*]") else (part, False)
            for base in partial:
                if part == "*":
                    node = paths.get(root, base)
                    step += [(*base, str(k)) for k in node] if isinstance(node, dict) else []
                elif not star:
                    step.append((*base, name))
                else:
                    items = paths.get(root, (*base, name))
                    if isinstance(items, list):
                        step += [(*base, name, i) for i in range(len(items))]
            partial = step
        found += [p for p in partial if isinstance(paths.get(root, p), wanted)]
    return found


def _job_at(root: Any, path: FieldPath, line_offset: int,
            text: str | None = None) -> tuple[Any, int]:
    """The job at ``path`` (or in ``text``, the value at ``path`` as edited) and the line
    offset of its text; a string is parsed as YAML."""
    value = paths.get(root, path) if text is None else text
    if not isinstance(value, str):
        return value, line_offset
    if not detect.is_candidate(value):
        return None, line_offset
    try:
        job = yamlio.load(value)
    except yamlio.DocumentError:
        return None, line_offset
    key = path[-1]
    line, _ = yamlio.position(paths.get(root, path[:-1]), key) \
        if not isinstance(key, tuple) else (None, None)
    return job, line_offset + (line or 0)


def _literal(text: str) -> Any:
    from ruamel.yaml.scalarstring import LiteralScalarString

    return LiteralScalarString(text)


def _as_string(trainjob: Any) -> Any:
    """The TrainJob as a literal block string (ConfigMap data keeps its YAML as text)."""
    from ruamel.yaml.scalarstring import LiteralScalarString

    text = yamlio.dump(trainjob, yamlio.detect_indent(""))
    return LiteralScalarString(text.rstrip("\n"))


def _put(doc: Any, path: FieldPath, value: Any) -> None:
    parent = paths.get(doc, path[:-1])
    old = parent[path[-1]]
    if isinstance(old, dict) and isinstance(value, dict):
        old.clear()
        old.update(value)
    else:
        parent[path[-1]] = value


NO_COMPANION_HERE = "--companion-runtimes does not apply to a job embedded in another " \
    "object (there is no place for a second object)"


def _no_companion(finding: Finding) -> Finding:
    """A K105 finding of an embedded job: --companion-runtimes cannot help it (there is no
    place for the runtime), so the finding says so instead of advising the option (which
    contradicted a command line that gave it)."""
    if finding.code != "K105" or "--companion-runtimes" not in finding.message:
        return finding
    head = finding.message.split("; convert with --companion-runtimes", 1)[0]
    return replaced(finding, message=f"{head}; {NO_COMPANION_HERE}: name your own runtime for "
                    "the framework in the config file, or convert the job as a file of its own "
                    "with --companion-runtimes and paste it back",
                    hint="Name your own runtime for the framework in .trainjob-migrate.yaml "
                    "(runtimes.<framework>); --companion-runtimes cannot apply to an embedded "
                    "job.")


def _prefixed(finding: Finding, prefix: str) -> Finding:
    path = f"{prefix}.{finding.path}" if finding.path else prefix
    return replaced(finding, path=path)


def _finding(catalog: Catalog, code: str, path: str, message: str, offset: int, root: Any,
             where: FieldPath) -> Finding:
    doc = catalog.codes[code]
    key = where[-1]
    line, column = yamlio.position(paths.get(root, where[:-1]), key) \
        if not isinstance(key, tuple) else (None, None)
    return Finding(code, Severity(doc.severity), path, message, doc.fix,
                   line + offset if line is not None else None, column)


def _katib(doc: Any, root: Any, catalog: Catalog, kind: str, container: str,
           offset: int) -> list[Finding]:
    template = paths.get(doc, ("spec", "trialTemplate"))
    if not isinstance(template, dict):
        return []
    changes = []
    if isinstance(template.get("primaryContainerName"), str) and \
            template["primaryContainerName"] != container:
        changes.append(f"primaryContainerName {template['primaryContainerName']} -> {container}")
        template["primaryContainerName"] = container
    success = template.get("successCondition")
    if success is None:  # Katib defaults conditions only for its known kinds
        template["successCondition"] = DEFAULT_SUCCESS
        changes.append("successCondition set to the TrainJob's Complete condition")
    elif isinstance(success, str) and LEGACY_SUCCESS in success:
        template["successCondition"] = success.replace(LEGACY_SUCCESS, TRAINJOB_SUCCESS)
        changes.append("successCondition reads the TrainJob's Complete condition")
    if template.get("failureCondition") is None:
        template["failureCondition"] = DEFAULT_FAILURE
        changes.append("failureCondition set to the TrainJob's Failed condition")
    template["primaryPodLabels"] = yamlio.new_map(list(PRIMARY_POD_LABELS))
    changes.append("primaryPodLabels select the TrainJob's first node pod")
    done = "; ".join(changes) if changes else "no trial template field needed a change"
    where: FieldPath = ("spec", "trialTemplate")
    return [_finding(catalog, KATIB_CONFIG, "spec.trialTemplate", f"{done}. Katib must list "
                     "TrainJob.v1alpha1.trainer.kubeflow.org in its trialResources (katib-config) "
                     f"and the metrics collector must find the {kind}'s metrics in container "
                     f"{container!r}", offset, root, where)]
