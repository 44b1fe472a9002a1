"""CHECK: check a Trainer object against the target API before it is written.

Three layers, each with its own finding code:
- V601 limits and V602 schema: the strict models of ``apimodels`` (the same rules as the
  generated JSON Schema in ``schemas/``);
- V603 admission rules the CRD schema cannot express (the Trainer webhook's checks);
- V604 runtime resolution: patched replicated jobs and containers must exist in the runtime
  the TrainJob references, when the tool knows that runtime (a default runtime of the target,
  a companion runtime, or one passed with ``--runtimes``).
"""

from __future__ import annotations

import contextvars
import functools
import re
from collections.abc import Callable
from typing import Any

from migrator import paths
from migrator.check import podschema
from migrator.knowledge import apichecks, catalog, shapes
from migrator.knowledge.runtimeindex import Index, RuntimeInfo
from migrator.knowledge.specs import CodeDoc, TargetSpec
from migrator.results import Finding, Severity
from migrator.settings import TARGETS

LIMIT, SCHEMA, ADMISSION, RESOLUTION = "V601", "V602", "V603", "V604"
OUTPUT_CODES = (LIMIT, SCHEMA, ADMISSION, RESOLUTION)  # never written, even with --allow-lossy
LIMIT_ERRORS = {"too_long", "string_too_long", "greater_than_equal", "less_than_equal",
                "greater_than", "less_than", "too_short", "string_too_short"}
NAME_RE = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
MANAGER_RE = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)+[a-z]{2,}/[A-Za-z0-9._-]+$")
ENV_OWNED_CONTAINERS = ("node", "dataset-initializer", "model-initializer")
MAX_NAME = 63
# the stand-ins of template actions (set by migrator.template while it converts a template with
# its actions set aside as words): a typed field holding one has a value known only when the
# template is rendered, so it is not judged as a string here (the rendered job is judged)
UNKNOWN_VALUE: contextvars.ContextVar[re.Pattern[str] | None] = \
    contextvars.ContextVar("unknown_value", default=None)


def check(doc: Any, target: TargetSpec, codes: dict[str, CodeDoc],
          runtimes: Index | None = None, *, embedded: bool = False,
          resolve: bool = False, policy: str | None = None) -> list[Finding]:
    """Findings for ``doc`` (plain data: a TrainJob or a runtime) on ``target``.

    ``embedded`` objects (Katib trial specs) may lack metadata; a standalone one needs a name.
    With ``resolve`` a runtimeRef that is not in ``runtimes`` is a finding; ``policy`` is the
    ML policy the job needs (a referenced runtime with another one is a finding).
    """
    kind = doc.get("kind") if isinstance(doc, dict) else None
    model = model_for(target.version, str(kind))
    problems: list[tuple[str, str, str]] = []
    if model is None:  # fail closed: never "valid" for what the tool cannot check
        problems.append((SCHEMA, "kind", f"the tool has no model of a Trainer {target.version} "
                         f"{kind}, so it cannot be validated"))
        return _findings(problems, codes)
    for error_type, loc, msg, _ in model(doc):
        where = paths.render(loc)
        code = LIMIT if error_type in LIMIT_ERRORS else SCHEMA
        last = str(loc[-1]) if loc else str(kind)
        if error_type == "extra_forbidden":
            message = (f"unknown field {last!r}: the Trainer {target.version} {kind} API has "
                       "no such field")
        else:
            message = f"{last}: {msg[0].lower()}{msg[1:]}"
        problems.append((code, where, message))
    meta = doc.get("metadata")
    if not embedded and not (isinstance(meta, dict) and (meta.get("name") or
                                                         meta.get("generateName"))):
        problems.append((SCHEMA, "metadata.name", f"a {kind} needs metadata.name"))
    if kind == target.kind:
        problems += _trainjob_rules(doc, target, runtimes or {})
        problems += _resolution(doc, runtimes or {}, resolve, policy)
        problems += _patch_objects(doc, target.version)
    else:
        problems += _runtime_rules(doc)
        problems += _runtime_templates(doc, target.version)
    findings = _findings(_known_values(doc, problems), codes)
    if any(f.code == LIMIT for f in findings):
        findings = _accepted_later(findings, doc, target.version, str(kind))
    return findings


def _accepted_later(findings: list[Finding], doc: Any, version: str,
                    kind: str) -> list[Finding]:
    """The limit findings of ``doc`` on Trainer ``version``, each saying so when a later
    release (``settings.TARGETS``) accepts the value: the one case where ``--target`` is the
    fix (never offered when the run already targets the newest release)."""
    rejected: dict[str, set[str]] = {}  # a later release -> the paths its model rejects
    for newer in TARGETS:
        model = model_for(newer, kind) if _release(newer) > _release(version) else None
        if model is not None:
            rejected[newer] = {paths.render(loc) for _, loc, _, _ in model(doc)}
    out = []
    for finding in findings:
        accepting = next((v for v, paths_of in rejected.items()
                          if finding.path not in paths_of), None)
        if finding.code == LIMIT and accepting is not None:
            finding = Finding(finding.code, finding.severity, finding.path, finding.message,
                              f"{finding.hint} Trainer {accepting} accepts this value: if your "
                              f"cluster runs it, convert with --target {accepting}.",
                              finding.line, finding.column)
        out.append(finding)
    return out


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def _known_values(doc: Any, problems: list[tuple[str, str, str]]
                  ) -> list[tuple[str, str, str]]:
    """``problems`` without the type errors of values that stand for a template action."""
    unknown = UNKNOWN_VALUE.get()
    if unknown is None:
        return problems
    kept = []
    for code, where, message in problems:
        value = paths.get(doc, paths.parse_rendered(where)) if code in (LIMIT, SCHEMA) else None
        if isinstance(value, str) and unknown.fullmatch(value) \
                and not message.startswith("unknown field"):
            continue
        kept.append((code, where, message))
    return kept


Model = Callable[[Any], list[shapes.Error]]  # a document → its errors, as pydantic has them


def model_for(version: str, kind: str) -> Model | None:
    """The strict model of ``kind`` in Trainer ``version`` (``apimodels``), or None when there
    is none: a function of a document to the errors pydantic would report. The models run
    as compiled programs (cached: no pydantic); pydantic itself judges what they cannot."""
    programs = apichecks.programs()
    if version not in programs.versions():
        return _pydantic_model(version, kind)
    if not programs.has(version, kind):
        return None
    checker = programs.checker(version, kind)
    if checker is None:  # a damaged program
        return _pydantic_model(version, kind)
    return functools.partial(_errors, checker, version, kind)


def _errors(checker: shapes.Checker, version: str, kind: str, doc: Any) -> list[shapes.Error]:
    found = checker.errors(doc)
    if found is None:
        model = _pydantic_model(version, kind)
        return model(doc) if model is not None else []
    return found


def _pydantic_model(version: str, kind: str) -> Model | None:
    from migrator.knowledge import apimodels

    model = apimodels.model_for(version, kind)
    if model is None:
        return None

    def errors(doc: Any) -> list[shapes.Error]:
        from pydantic import ValidationError

        try:
            model.model_validate(doc)
        except ValidationError as exc:
            return [(e["type"], tuple(e["loc"]), e["msg"], e.get("input"))
                    for e in exc.errors()]
        return []
    return errors


# V604 findings that are not about a runtime patch's names (the code's fix): their own fix
UNKNOWN_RUNTIME, OTHER_POLICY = "is not among the known runtimes", "ML policy; this job needs"
RESOLUTION_HINTS = {
    UNKNOWN_RUNTIME: "Check the runtimeRef's name against the runtimes of your cluster; when "
    "the runtime is defined in a file this run was not given, add that file (--runtimes is "
    "repeatable).",
    OTHER_POLICY: "Reference a runtime that runs the ML policy this job needs instead (name "
    "it with --runtime or in the config file's runtimes:).",
}


def _findings(problems: list[tuple[str, str, str]], codes: dict[str, CodeDoc]) -> list[Finding]:
    return [Finding(code, Severity(codes[code].severity), path, message, _hint(code, message,
                                                                               codes))
            for code, path, message in problems]


def _hint(code: str, message: str, codes: dict[str, CodeDoc]) -> str:
    if code == RESOLUTION:
        for part, hint in RESOLUTION_HINTS.items():
            if part in message:
                return hint
    return codes[code].fix


def _runtime_templates(doc: Any, version: str) -> list[tuple[str, str, str]]:
    """Every replicated job's Job template, pod template included, checked strictly."""
    jobs = paths.get(doc, ("spec", "template", "spec", "replicatedJobs"))
    problems = []
    for index, job in enumerate(jobs if isinstance(jobs, list) else []):
        if isinstance(job, dict) and isinstance(job.get("template"), dict):
            where = ("spec", "template", "spec", "replicatedJobs", index, "template")
            problems += [(SCHEMA, path, message) for path, message in
                         podschema.check(job["template"], "JobTemplateSpec", where, version)]
    return problems


PATCH_OBJECTS = {"volumes": ["Volume"], "tolerations": ["Toleration"],
                 "imagePullSecrets": ["LocalObjectReference"],
                 "schedulingGates": ["LocalObjectReference"]}


def _patch_objects(doc: Any, version: str) -> list[tuple[str, str, str]]:
    """The Kubernetes objects a runtime patch carries whole (volumes, tolerations, mounts)."""
    problems = []
    patches = paths.get(doc, ("spec", "runtimePatches"))
    for p, patch in enumerate(patches if isinstance(patches, list) else []):
        jobs = paths.get(patch, ("trainingRuntimeSpec", "template", "spec", "replicatedJobs"))
        for j, job in enumerate(jobs if isinstance(jobs, list) else []):
            pod = paths.get(job, ("template", "spec", "template", "spec"))
            if not isinstance(pod, dict):
                continue
            base = ("spec", "runtimePatches", p, "trainingRuntimeSpec", "template", "spec",
                    "replicatedJobs", j, "template", "spec", "template", "spec")
            for field, spec in PATCH_OBJECTS.items():
                if isinstance(pod.get(field), list):
                    problems += podschema.check(pod[field], spec, (*base, field), version)
            for field in ("containers", "initContainers"):
                items = pod.get(field)
                for c, item in enumerate(items if isinstance(items, list) else []):
                    mounts = item.get("volumeMounts") if isinstance(item, dict) else None
                    if isinstance(mounts, list):
                        problems += podschema.check(mounts, ["VolumeMount"],
                                                    (*base, field, c, "volumeMounts"), version)
    return [(SCHEMA, path, message) for path, message in problems]


def _resolution(doc: Any, runtimes: Index, resolve: bool,
                policy: str | None) -> list[tuple[str, str, str]]:
    ref = paths.get(doc, ("spec", "runtimeRef")) or {}
    key = (ref.get("kind") or catalog.load().kinds.cluster_runtime_kind, str(ref.get("name")))
    info = runtimes.get(key)
    if info is None:
        return [(RESOLUTION, "spec.runtimeRef", f"{key[0]} {key[1]!r} {UNKNOWN_RUNTIME} "
                 "(--runtimes, the run's own files, the target's defaults)")] \
            if resolve else []
    if policy is not None and info.policy != policy:
        return [(RESOLUTION, "spec.runtimeRef", f"{key[0]} {key[1]!r} ({info.source}) runs the "
                 f"{info.policy} {OTHER_POLICY} {policy}")]
    return []


def _trainjob_rules(doc: Any, target: TargetSpec,
                    runtimes: Index) -> list[tuple[str, str, str]]:
    problems = []
    name = paths.get(doc, ("metadata", "name"))
    if isinstance(name, str) and (len(name) > MAX_NAME or not NAME_RE.match(name)):
        problems.append((ADMISSION, "metadata.name", f"name {name!r} must be an RFC 1035 label "
                         f"of at most {MAX_NAME} characters"))
    patches = paths.get(doc, ("spec", "runtimePatches")) or []
    managers: list[str] = []
    for index, patch in enumerate(patches if isinstance(patches, list) else []):
        manager = patch.get("manager") if isinstance(patch, dict) else None
        where = f"spec.runtimePatches[{index}]"
        if isinstance(manager, str):
            if manager in managers:
                problems.append((ADMISSION, f"{where}.manager",
                                 f"manager {manager!r} is used by more than one runtime patch"))
            if not MANAGER_RE.match(manager):
                problems.append((ADMISSION, f"{where}.manager", f"manager {manager!r} must be "
                                 "domain-prefixed, e.g. example.com/migrator"))
            managers.append(manager)
        problems += _patch_rules(patch, where, doc, target, runtimes)
    return problems


def _patch_rules(patch: Any, where: str, doc: Any, target: TargetSpec,
                 runtimes: Index) -> list[tuple[str, str, str]]:
    problems = []
    jobs = paths.get(patch, ("trainingRuntimeSpec", "template", "spec", "replicatedJobs")) or []
    ref = paths.get(doc, ("spec", "runtimeRef")) or {}
    kind = ref.get("kind") or catalog.load().kinds.cluster_runtime_kind
    info: RuntimeInfo | None = runtimes.get((kind, str(ref.get("name"))))
    runtime = info.jobs if info is not None else None
    for j, job in enumerate(jobs if isinstance(jobs, list) else []):
        if not isinstance(job, dict):
            continue
        job_name = job.get("name")
        job_where = f"{where}.trainingRuntimeSpec.template.spec.replicatedJobs[{j}]"
        if runtime is not None and job_name not in runtime:
            effect = ("is added as a new replicated job" if target.runtime_patch_adds_jobs
                      else "is rejected")
            problems.append((RESOLUTION, f"{job_where}.name", f"runtime {ref.get('name')} has no "
                             f"replicated job {job_name!r}; on Trainer {target.version} it "
                             f"{effect}"))
        pod = paths.get(job, ("template", "spec", "template", "spec")) or {}
        for field in ("containers", "initContainers"):
            for c, container in enumerate(pod.get(field) or []):
                if not isinstance(container, dict):
                    continue
                c_name = container.get("name")
                c_where = f"{job_where}.template.spec.template.spec.{field}[{c}]"
                if container.get("env") and c_name in ENV_OWNED_CONTAINERS:
                    problems.append((ADMISSION, f"{c_where}.env", f"env of container {c_name!r} "
                                     "can only be set through spec.trainer / spec.initializer"))
                known = runtime.get(str(job_name)) if runtime is not None else None
                if known is not None and c_name not in known:
                    problems.append((RESOLUTION, f"{c_where}.name", f"runtime {ref.get('name')} "
                                     f"job {job_name!r} has no container {c_name!r}"))
    return problems


def _runtime_rules(doc: Any) -> list[tuple[str, str, str]]:
    problems = []
    policy = paths.get(doc, ("spec", "mlPolicy")) or {}
    jobs = paths.get(doc, ("spec", "template", "spec", "replicatedJobs")) or []
    names = [j.get("name") for j in jobs if isinstance(j, dict)]
    if isinstance(policy, dict) and "mpi" in policy and \
            not {"launcher", "node"} >= {n for n in names if isinstance(n, str)}:
        problems.append((ADMISSION, "spec.template.spec.replicatedJobs", "an MPI runtime's "
                         f"replicated jobs must be named launcher and node, got {names}"))
    for index, job in enumerate(jobs if isinstance(jobs, list) else []):
        if not isinstance(job, dict):
            continue
        ancestor = (paths.get(job, ("template", "metadata", "labels")) or {}).get(
            catalog.load().upgrade.labels.ancestor)
        if ancestor is None:
            continue
        where = f"spec.template.spec.replicatedJobs[{index}]"
        if job.get("replicas", 1) != 1:
            problems.append((ADMISSION, f"{where}.replicas", "a job with an ancestor label must "
                             "have replicas 1"))
        wanted = "node" if ancestor == "trainer" else str(job.get("name"))
        containers = [c.get("name") for c in
                      paths.get(job, ("template", "spec", "template", "spec", "containers")) or []
                      if isinstance(c, dict)]
        if wanted not in containers:
            problems.append((ADMISSION, f"{where}.template.spec.template.spec.containers",
                             f"the {ancestor} job must have a container named {wanted!r}"))
    return problems


