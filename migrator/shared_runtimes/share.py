"""BATCH (shared runtimes): split one job's companion TrainingRuntime into its shape (a
ClusterTrainingRuntime other jobs can share) and what the job sets itself (moved into its
TrainJob: ``trainer.*`` and one ``runtimePatches`` entry).

Plain dicts in, plain dicts out; nothing here reads a file but the rules
(``mappings/shared-runtimes.yaml`` and the target's ``patchablePodFields``). A value moves only
where Trainer gives the TrainJob's value the same effect the runtime's had (the upstream rules
are the ones ``migrator/simulate`` transcribes, cited per field below); what cannot move stays
in the shape, which may then split variants, never behaviour.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from migrator.results import FrozenValue

NODE = "node"
TRAINER = "trainer"
NAME_LIMIT = 63  # metadata.name of a ClusterTrainingRuntime (the target's limits.name)
HASH_LENGTH = 8


class Rules(FrozenValue):
    """``mappings/shared-runtimes.yaml`` with the target's patchable pod fields."""

    FIELDS = ("pod_fields", "container_fields", "metadata_fields", "frameworks", "mpi_names",
              "hash_annotation", "ancestor_label", "framework_label", "created_by",
              "api_version", "cluster_kind", "version", "resources_replaced", "env_owned")
    pod_fields: tuple[str, ...]
    container_fields: tuple[str, ...]
    metadata_fields: tuple[str, ...]
    frameworks: tuple[tuple[str, str], ...]
    mpi_names: tuple[tuple[str, str], ...]
    hash_annotation: str
    ancestor_label: str
    framework_label: str
    created_by: tuple[str, str]
    api_version: str
    cluster_kind: str
    version: str
    resources_replaced: bool
    env_owned: tuple[str, ...]

    def __init__(self, **values: Any) -> None:
        for name in self.FIELDS:
            object.__setattr__(self, name, values[name])


@functools.lru_cache(maxsize=8)
def rules(target: str) -> Rules:
    """The rules for Trainer ``target`` ("2.2", "2.3")."""
    from ruamel.yaml import YAML

    from migrator.knowledge import catalog
    from migrator.settings import mappings_dir

    data = YAML(typ="safe", pure=True).load(
        (mappings_dir() / "shared-runtimes.yaml").read_text(encoding="utf-8"))
    loaded = catalog.load()
    spec = loaded.target(target)
    created = loaded.integrations.created_by
    return Rules(pod_fields=tuple(spec.patchable_pod_fields),
                 container_fields=tuple(data["patchContainerFields"]),
                 metadata_fields=tuple(data["patchMetadataFields"]),
                 frameworks=tuple(sorted(data["frameworks"].items())),
                 mpi_names=tuple(sorted(data["mpiImplementations"].items())),
                 hash_annotation=str(data["hashAnnotation"]),
                 ancestor_label=loaded.upgrade.labels.ancestor,
                 framework_label=loaded.upgrade.labels.framework,
                 created_by=(created.label, created.value),
                 api_version=spec.api_version,
                 cluster_kind=loaded.kinds.runtime_kinds[0],
                 version=spec.version,
                 resources_replaced=not spec.resources_merged_per_key,
                 env_owned=tuple(data["envOwnedContainers"]))


class Split(FrozenValue):
    """One job split: its TrainJob (referencing ``name``), the shared runtime, what the job
    sets itself (``sets``: readable field paths), and the runtime's content hash."""

    FIELDS = ("trainjob", "runtime", "name", "digest", "sets")
    trainjob: dict[str, Any]
    runtime: dict[str, Any]
    name: str
    digest: str
    sets: tuple[str, ...]

    def __init__(self, trainjob: dict[str, Any], runtime: dict[str, Any], name: str,
                 digest: str, sets: tuple[str, ...]) -> None:
        object.__setattr__(self, "trainjob", trainjob)
        object.__setattr__(self, "runtime", runtime)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "digest", digest)
        object.__setattr__(self, "sets", sets)


def split(trainjob: Mapping[str, Any], runtime: Mapping[str, Any], rule: Rules,
          legacy_kind: str | None, manager: str, *, as_written: bool = False) -> Split | str:
    """``trainjob`` with its companion ``runtime`` as a TrainJob on a shared runtime, or why
    the job keeps its companion (a sentence). ``as_written``: image pull policies stay as the
    companion has them (the shape of earlier versions, reused when a folder holds it)."""
    job = copy.deepcopy(dict(trainjob))
    shape = copy.deepcopy(dict(runtime))
    spec = job.get("spec")
    shape_spec = shape.get("spec")
    if not isinstance(spec, dict) or not isinstance(shape_spec, dict):
        return "the TrainJob or its runtime has no spec"
    if spec.get("runtimePatches"):
        return "the TrainJob already has runtimePatches"
    jobs = _get(shape_spec, "template", "spec", "replicatedJobs")
    if not isinstance(jobs, list) or not all(isinstance(j, dict) and isinstance(
            j.get("name"), str) for j in jobs):
        return "the runtime has no list of named replicated jobs"
    policy = shape_spec.get("mlPolicy")
    policy = policy if isinstance(policy, dict) else {}
    sets: list[str] = []
    trainer = spec.get("trainer")
    if isinstance(trainer, dict):
        _move_trainer(trainer, policy, jobs, rule, sets)
    if not as_written:
        _drop_default_pull_policies(jobs, trainer if isinstance(trainer, dict) else {}, rule)
    patch_jobs = [entry for entry in (_job_patch(item, rule) for item in jobs) if entry]
    patch_template: dict[str, Any] = {}
    metadata = _pop_metadata(_get(shape_spec, "template"), rule)
    if metadata:
        patch_template["metadata"] = metadata
        sets.append("runtimePatches: JobSet " + "/".join(sorted(metadata)))
    if patch_jobs:
        patch_template["spec"] = {"replicatedJobs": patch_jobs}
        sets.extend(f"runtimePatches: {entry['name']}: " + ", ".join(_described(entry))
                    for entry in patch_jobs)
    _prune(shape_spec)
    kind_name = _framework(legacy_kind, policy, rule)
    labels = {key: value for key, value in
              (_get(shape, "metadata", "labels") or {}).items()
              if key in (rule.framework_label, rule.created_by[0])}
    body = {"apiVersion": rule.api_version, "kind": rule.cluster_kind,
            "metadata": {"labels": labels}, "spec": shape_spec}
    digest = content_hash(body)
    name = runtime_name(kind_name, [str(item["name"]) for item in jobs], digest)
    body["metadata"] = {"name": name, "labels": labels,
                        "annotations": {rule.hash_annotation: digest}}
    ref = spec.get("runtimeRef")
    ref = dict(ref) if isinstance(ref, dict) else {}
    ref.update({"name": name, "kind": rule.cluster_kind})
    spec["runtimeRef"] = ref
    if patch_template:
        spec["runtimePatches"] = [{"manager": manager,
                                   "trainingRuntimeSpec": {"template": patch_template}}]
    return Split(job, body, name, digest, tuple(sets))


def _move_trainer(trainer: dict[str, Any], policy: dict[str, Any], jobs: list[Any],
                  rule: Rules, sets: list[str]) -> None:
    """The trainer-step's node container values into ``spec.trainer`` (Trainer's JobSet
    builder and ML plugins apply the TrainJob's over the runtime's: v2.2.0
    pkg/runtime/framework/plugins/jobset/builder.go:113 ``Trainer``; torch/torch.go:95-103,
    mpi/mpi.go, plainml/plainml.go)."""
    mpi = policy.get("mpi")
    as_node = isinstance(mpi, dict) and mpi.get("runLauncherAsNode") is True
    step = next((item for item in jobs if _get(item, "template", "metadata", "labels",
                                               rule.ancestor_label) == TRAINER), None)
    node = None if step is None else _container(step, NODE)
    if node is not None:
        for key in ("image", "command", "args"):
            if key in node:
                value = node.pop(key)
                if key not in trainer:
                    trainer[key] = value
        if not as_node:  # (with runLauncherAsNode the worker job gets these too)
            env = node.get("env")
            if isinstance(env, list) and env and _order_free(env, trainer.get("env")):
                # a runtime patch may not set the node container's env (v2.2.0
                # pkg/runtime/framework/plugins/jobset/jobset.go:158): trainer.env does; the
                # MPI plugin's variables then come first, which no value refers to ($(...))
                trainer["env"] = _upsert(node.pop("env"), trainer.get("env"))
            _move_resources(trainer, node, jobs, rule)
    sets.extend(f"trainer.{key}" for key in ("image", "command", "args", "env",
                                             "resourcesPerNode") if key in trainer)
    if policy.get("numNodes") is not None and not isinstance(mpi, dict):
        # torch, JAX, XGBoost and plain ML size the trainer step from trainer.numNodes
        trainer.setdefault("numNodes", policy["numNodes"])
        policy["numNodes"] = 1
    if isinstance(mpi, dict):
        slots = mpi.get("numProcPerNode")
        if "numProcPerNode" in trainer:  # mpi.go: the TrainJob's value wins
            mpi["numProcPerNode"] = 1
        elif isinstance(slots, int) and slots != 1:  # (1: slots follow the GPUs)
            trainer["numProcPerNode"] = slots
            mpi["numProcPerNode"] = 1
    sets.extend(f"trainer.{key}" for key in ("numNodes", "numProcPerNode") if key in trainer)


def _move_resources(trainer: dict[str, Any], node: dict[str, Any], jobs: list[Any],
                    rule: Rules) -> None:
    resources = node.get("resources")
    if resources is None:
        return
    given = trainer.get("resourcesPerNode")
    if given == resources:
        del node["resources"]
    elif given is None and _first_with_resources(jobs, rule) is node:
        # the plugins count GPUs and CPUs from resourcesPerNode, else from this container
        # (v2.2.0 pkg/runtime/runtime.go:236 ExtractResourcePerNodeFromRuntime: the first node
        # container of a job named node or of the trainer step that has resources)
        trainer["resourcesPerNode"] = node.pop("resources")
    elif isinstance(given, dict) and rule.resources_replaced and (
            given.get("limits") is not None or given.get("requests") is not None):
        del node["resources"]  # v2.2 replaces the node's resources with the TrainJob's


# Kubernetes defaults a container's imagePullPolicy from its image when the field is empty:
# Always for the tag "latest", IfNotPresent otherwise, and a reference with neither tag nor
# digest reads as "latest" (kubernetes/kubernetes pkg/apis/core/v1/defaults.go:82-93
# SetDefaults_Container at 023f88a3; pkg/util/parsers/parsers.go ParseImageName; the field's
# own doc, kubernetes/api v0.34.0 core/v1/types.go:3065). A reference that does not parse
# leaves the tag empty (IfNotPresent): only the references below, a subset of the grammar of
# github.com/distribution/reference that always parses, are read here; any other image keeps
# its explicit policy.
_DOMAIN = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::[0-9]+)?"
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_REFERENCE = re.compile(rf"(?P<name>(?:{_DOMAIN}/)?{_COMPONENT}(?:/{_COMPONENT})*)"
                        r"(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?", re.ASCII)
_IDENTIFIER = re.compile(r"[a-f0-9]{64}", re.ASCII)  # refused as a name by the parser
NAME_TOTAL_LENGTH_MAX = 255  # distribution/reference NameTotalLengthMax


def default_pull_policy(image: Any) -> str | None:
    """The imagePullPolicy Kubernetes gives a container of ``image`` that states none, or None
    when this cannot be told for sure (not a plain ``[domain/]path[:tag]`` reference)."""
    if not isinstance(image, str) or _IDENTIFIER.fullmatch(image):
        return None
    match = _REFERENCE.fullmatch(image)
    if match is None or len(match.group("name")) > NAME_TOTAL_LENGTH_MAX:
        return None
    return "Always" if match.group("tag") in (None, "latest") else "IfNotPresent"


def _drop_default_pull_policies(jobs: list[Any], trainer: dict[str, Any], rule: Rules) -> None:
    """Drop from the shape every imagePullPolicy that equals the one Kubernetes defaults from
    the image the container runs (the API server defaults the Jobs' and pods' templates, so
    the pods are the same; a JobSet's template, a custom resource, keeps what it was given).
    The trainer step's node container runs ``trainer.image`` when the TrainJob sets it (v2.2.0
    and v2.3.0 pkg/runtime/framework/plugins/jobset/builder.go:120-131), every other
    container its own image. Explicit and default policies then read as one shape."""
    trainer_image = trainer.get("image")
    for job in jobs:
        ancestor = _get(job, "template", "metadata", "labels", rule.ancestor_label) == TRAINER
        spec = _get(job, "template", "spec", "template", "spec")
        if not isinstance(spec, dict):
            continue
        for kind in ("initContainers", "containers"):
            for item in spec.get(kind) or []:
                if not isinstance(item, dict) or "imagePullPolicy" not in item:
                    continue
                image = item.get("image")
                if ancestor and kind == "containers" and item.get("name") == NODE \
                        and trainer_image is not None:
                    image = trainer_image
                if item["imagePullPolicy"] == default_pull_policy(image):
                    del item["imagePullPolicy"]


def _job_patch(job: dict[str, Any], rule: Rules) -> dict[str, Any]:
    """Move what a runtime patch can set for ``job`` out of it; the patch entry (or {})."""
    template = _get(job, "template")
    pod = _get(template, "spec", "template")
    spec = _get(pod, "spec")
    pod_patch: dict[str, Any] = {}
    if isinstance(spec, dict):
        for key in rule.pod_fields:
            if key in spec:
                pod_patch[key] = spec.pop(key)
        for kind in ("initContainers", "containers"):
            entries = []
            for item in spec.get(kind) or []:
                if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                    continue
                moved = {key: item.pop(key) for key in rule.container_fields if key in item
                         and not (key == "env" and item["name"] in rule.env_owned)}
                if moved:
                    entries.append({"name": item["name"], **moved})
            if entries:
                pod_patch[kind] = entries
    pod_meta = _pop_metadata(pod, rule)
    job_meta = _pop_metadata(template, rule, keep=rule.ancestor_label)
    out: dict[str, Any] = {}
    if job_meta:
        out["metadata"] = job_meta
    inner: dict[str, Any] = {}
    if pod_meta:
        inner["metadata"] = pod_meta
    if pod_patch:
        inner["spec"] = pod_patch
    if inner:
        out["spec"] = {"template": inner}
    return {"name": job["name"], "template": out} if out else {}


def _pop_metadata(node: Any, rule: Rules, keep: str | None = None) -> dict[str, Any]:
    meta = node.get("metadata") if isinstance(node, dict) else None
    if not isinstance(meta, dict):
        return {}
    moved: dict[str, Any] = {}
    for key in rule.metadata_fields:
        values = meta.get(key)
        if not isinstance(values, dict):
            continue
        taken = {k: v for k, v in values.items() if k != keep}
        if taken:
            moved[key] = taken
            kept = {k: v for k, v in values.items() if k == keep}
            if kept:
                meta[key] = kept
            else:
                del meta[key]
    return moved


def _described(entry: dict[str, Any]) -> list[str]:
    template = entry["template"]
    out = []
    if "metadata" in template:
        out.append("job " + "/".join(sorted(template["metadata"])))
    pod = _get(template, "spec", "template") or {}
    if "metadata" in pod:
        out.append("pod " + "/".join(sorted(pod["metadata"])))
    for key, value in (pod.get("spec") or {}).items():
        if key in ("containers", "initContainers"):
            out += [f"{key}[{item['name']}].{field}" for item in value
                    for field in item if field != "name"]
        else:
            out.append(key)
    return out


def _prune(node: Any) -> None:
    """Remove the mappings the moves left empty (metadata: {}, spec: {} ...)."""
    if isinstance(node, dict):
        for key in list(node):
            _prune(node[key])
            if node[key] == {} and key in ("metadata", "labels", "annotations"):
                del node[key]
    elif isinstance(node, list):
        for item in node:
            _prune(item)


def _first_with_resources(jobs: list[Any], rule: Rules) -> dict[str, Any] | None:
    for item in jobs:
        if item.get("name") != NODE and _get(item, "template", "metadata", "labels",
                                             rule.ancestor_label) != TRAINER:
            continue
        found = _container(item, NODE)
        if found is not None and isinstance(found.get("resources"), dict):
            return found
    return None


def _upsert(base: list[Any], extra: Any) -> list[Any]:
    """``apply.UpsertEnvVars``: ``extra`` over ``base`` by name, in order."""
    out = list(base)
    for item in extra if isinstance(extra, list) else []:
        name = item.get("name") if isinstance(item, dict) else None
        at = next((i for i, old in enumerate(out)
                   if isinstance(old, dict) and old.get("name") == name), None)
        if at is None:
            out.append(item)
        else:
            out[at] = item
    return out


def _order_free(*lists: Any) -> bool:
    """Whether no variable of ``lists`` refers to another (``$(NAME)``): their order in the
    container then changes nothing."""
    return "$(" not in json.dumps(lists, default=str)


def _container(job: Any, name: str) -> dict[str, Any] | None:
    for item in _get(job, "template", "spec", "template", "spec", "containers") or []:
        if isinstance(item, dict) and item.get("name") == name:
            return item
    return None


def _get(node: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def _framework(legacy_kind: str | None, policy: Mapping[str, Any], rule: Rules) -> str:
    frameworks = dict(rule.frameworks)
    name = frameworks.get(legacy_kind or "", "")
    mpi = policy.get("mpi")
    if isinstance(mpi, dict):
        implementation = mpi.get("mpiImplementation")
        name = dict(rule.mpi_names).get(str(implementation), name or "mpi")
    if not name:
        name = next((key for key in ("torch", "jax", "xgboost") if key in policy), "plain")
    return name


@functools.lru_cache(maxsize=1)
def variant_reasons() -> dict[str, str]:
    """``variantReasons`` of ``mappings/shared-runtimes.yaml``: why variants stay apart."""
    from ruamel.yaml import YAML

    from migrator.settings import mappings_dir

    data = YAML(typ="safe", pure=True).load(
        (mappings_dir() / "shared-runtimes.yaml").read_text(encoding="utf-8"))
    return {str(key): " ".join(str(value).split())
            for key, value in data["variantReasons"].items()}


# Fields of the trainer's node container the split moves into trainer.* only where the effect
# is the same (``_move_trainer``): image, command and args always move; env and resources may stay.
TRAINER_KEPT = ("env", "resources")
_STEP = re.compile(r"^spec\.template\.spec\.replicatedJobs\[(?P<job>[^\]]+)\]"
                   r"(?P<rest>.*)$")
_CONTAINER = re.compile(r"^\.template\.spec\.template\.spec\.(?P<kind>containers|initContainers)"
                        r"(?:\[(?P<name>[^\]]+)\](?P<field>\.[^.\[]+)?)?")


def why_apart(path: str, runtime: Mapping[str, Any], ancestor_label: str) -> str:
    """The ``variantReasons`` key for a field (``path`` as the catalog's index spells it:
    ``spec.template.spec.replicatedJobs[node].template.spec.backoffLimit``) in which two
    shared runtimes of one shape differ: where it stands says why no TrainJob can set it."""
    if path.startswith("spec.mlPolicy"):
        return "mlPolicy"
    if path.startswith("spec.podGroupPolicy"):
        return "podGroupPolicy"
    step = _STEP.match(path)
    if step is None:
        return "jobSet"
    rest = step.group("rest")
    if not rest.startswith(".template.spec.template.spec"):
        return "job"  # the job's own fields, its labels, its Job spec
    container = _CONTAINER.match(rest)
    if container is None:
        return "pod"
    if container.group("name") is None or container.group("field") is None \
            or container.group("name").isdigit():  # (an index: the names differ there)
        return "containerList"
    if container.group("kind") == "containers" and container.group("name") == NODE:
        jobs = _get(runtime, "spec", "template", "spec", "replicatedJobs") or []
        job = next((item for item in jobs if isinstance(item, dict)
                    and str(item.get("name")) == step.group("job")), None)
        ancestor = _get(job, "template", "metadata", "labels", ancestor_label)
        if ancestor != TRAINER:
            return "workerNode"
        return "trainerKept" if container.group("field")[1:] in TRAINER_KEPT \
            else "trainerContainer"
    return "container"


def content_hash(body: Mapping[str, Any]) -> str:
    """The hash that names a runtime's content (canonical JSON, sorted keys)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:HASH_LENGTH]


_UNSAFE = re.compile(r"[^a-z0-9-]+")


def runtime_name(framework: str, jobs: list[str], digest: str) -> str:
    """``<framework>-<job names>-<hash>``, a DNS label within ``NAME_LIMIT`` characters."""
    words = [_UNSAFE.sub("-", word.lower()).strip("-") for word in [framework, *jobs]]
    stem = "-".join(word for word in words if word)
    if not stem[:1].isalpha():  # (an RFC 1035 label starts with a letter)
        stem = f"runtime-{stem}".rstrip("-")
    stem = stem[:NAME_LIMIT - HASH_LENGTH - 1].rstrip("-")
    return f"{stem}-{digest}"
