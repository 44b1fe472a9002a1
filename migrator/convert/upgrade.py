"""CONVERT: upgrade Trainer manifests along the API ladder to the 2.2 shape, in place.

Inputs: ``kubeflow.org/v2alpha1`` / ``trainer.kubeflow.org/v2alpha1`` prototypes and
``trainer.kubeflow.org/v1alpha1`` TrainJobs and runtimes written for Trainer 2.0/2.1. The loaded
document is edited (a clone), so comments and key order survive; every field is recorded on the
ledger as kept, moved or reported.
"""

from __future__ import annotations

from typing import Any

from migrator import paths
from migrator.check import quantity
from migrator.convert.ledger import Ledger
from migrator.convert.rules.transforms import gpu_count
from migrator.load import yamlio
from migrator.paths import FieldPath

PROTOTYPE_GROUP = "kubeflow.org"
DEFAULT_CONTROLLERS = ("kubeflow.org/trainjob-controller",)
NODE = "node"
PROTOTYPE_JOBS = {"trainer-node": NODE}
PROTOTYPE_CONTAINERS = {"trainer": NODE}
INITIALIZER_CONTAINERS = {"dataset-initializer": "dataset", "model-initializer": "model"}
ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
PHASE_LABEL = "training.kubeflow.org/phase"
FRAMEWORK_LABEL = "trainer.kubeflow.org/framework"
TRAINJOB_SPEC_FIELDS = ("runtimeRef", "initializer", "trainer", "suspend", "managedBy",
                        "runtimePatches", "activeDeadlineSeconds")
PATCH_POD_FIELDS = ("serviceAccountName", "nodeSelector", "affinity", "tolerations", "volumes",
                    "initContainers", "containers", "schedulingGates", "imagePullSecrets")
CONTAINER_PATCH_FIELDS = ("name", "env", "volumeMounts", "securityContext")
NAMED_LISTS = ("volumes", "imagePullSecrets", "schedulingGates")


def upgrade_trainjob(root: Any, ledger: Ledger, manager: str, api_version: str) -> Any:
    """The 2.2-shaped TrainJob for a prototype or pre-2.2 TrainJob ``root``; ``api_version``
    is the target's (mappings/targets/)."""
    doc = yamlio.clone(root)
    _api_version(doc, ledger, api_version)
    ledger.default(("kind",))
    ledger.default(("metadata",))
    if "status" in doc:
        del doc["status"]
        ledger.report("M106", ("status",), "status was dropped")
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        ledger.report("K103", ("spec",), "spec is missing or not a mapping")
        return doc
    patch = _Patch()
    for key in list(spec):
        path = ("spec", str(key))
        value = spec[key]
        if key == "runtimeRef":
            _runtime_ref(spec, ledger, api_version.rpartition("/")[0])
        elif key in ("labels", "annotations"):
            del spec[key]
            if value:
                patch.jobset[str(key)] = value
                ledger.mapped(path, f"spec.runtimePatches[manager={manager}].trainingRuntimeSpec."
                              f"template.metadata.{key}")
                ledger.report("T701", path, f"spec.{key} moved to the JobSet metadata of a "
                              "runtime patch", consume=False)
            else:
                ledger.default(path)
        elif key in ("podSpecOverrides", "podTemplateOverrides"):
            del spec[key]
            _overrides(value, path, spec, patch, ledger, flat=key == "podSpecOverrides")
        elif key == "datasetConfig":
            del spec[key]
            _initializer(spec, "dataset", value)
            ledger.mapped(path, "spec.initializer.dataset")
        elif key == "modelConfig":
            del spec[key]
            _model_config(spec, value, path, ledger)
        elif key == "managedBy" and value in DEFAULT_CONTROLLERS:
            del spec[key]
            ledger.report("R209", path, f"managedBy {value!r} named the prototype controller; "
                          "the TrainJob uses Trainer's default controller")
        elif key == "trainer":
            _trainer(spec, ledger)
        elif key in TRAINJOB_SPEC_FIELDS:
            ledger.default(path)
        else:
            del spec[key]
            ledger.report("U901", path, f"spec.{key} is not a TrainJob field and was dropped")
    if not patch.empty():
        patches = spec.get("runtimePatches")
        if not isinstance(patches, list):
            patches = spec["runtimePatches"] = yamlio.new_seq()
        patches.append(patch.build(manager))
    ledger.close()
    return doc


def upgrade_runtime(root: Any, ledger: Ledger, api_version: str, *, prototype: bool) -> Any:
    """The 2.2-shaped runtime for a prototype (an API kinds.yaml lists under ``prototypes``)
    or pre-2.2 (Cluster)TrainingRuntime ``root``; ``api_version`` is the target's."""
    doc = yamlio.clone(root)
    _api_version(doc, ledger, api_version)
    ledger.default(("kind",))
    ledger.default(("metadata",))
    torch = paths.get(doc, ("spec", "mlPolicy", "torch"))
    if isinstance(torch, dict):
        for key, code in (("numProcPerNode", "T704"), ("elasticPolicy", "T705")):
            if key in torch:
                value = torch.pop(key)
                path = ("spec", "mlPolicy", "torch", key)
                if key == "numProcPerNode" and value == "auto":
                    ledger.report("T703", path, "mlPolicy.torch.numProcPerNode auto was removed "
                                  "(auto is Trainer 2.2's default)")
                else:
                    ledger.report(code, path, _runtime_message(key, value))
    if prototype:
        _prototype_runtime(doc, ledger)
    ledger.default(("spec",))
    ledger.close()
    return doc


def _runtime_message(key: str, value: Any) -> str:
    if key == "numProcPerNode":
        extra = (f"; set trainer.numProcPerNode: {value} on the TrainJobs that use this runtime"
                 if isinstance(value, int) or str(value).isdigit() else "")
        return f"mlPolicy.torch.numProcPerNode {value!r} was removed in Trainer 2.2{extra}"
    return "mlPolicy.torch.elasticPolicy was removed in Trainer 2.2 (elastic training has no API)"


def _api_version(doc: Any, ledger: Ledger, api_version: str) -> None:
    if doc.get("apiVersion") != api_version:
        old = doc.get("apiVersion")
        doc["apiVersion"] = api_version
        ledger.mapped(("apiVersion",), "apiVersion")
        ledger.report("T708", ("apiVersion",), f"apiVersion {old} is now {api_version}",
                      consume=False)
    else:
        ledger.default(("apiVersion",))


def _runtime_ref(spec: Any, ledger: Ledger, group: str) -> None:
    ref = spec["runtimeRef"]
    if isinstance(ref, dict) and ref.get("apiGroup") == PROTOTYPE_GROUP:
        ref["apiGroup"] = group
        ledger.mapped(("spec", "runtimeRef", "apiGroup"), "spec.runtimeRef.apiGroup")
    ledger.default(("spec", "runtimeRef"))


def _trainer(spec: Any, ledger: Ledger) -> None:
    trainer = spec["trainer"]
    ledger.default(("spec", "trainer"))
    if not isinstance(trainer, dict) or "numProcPerNode" not in trainer:
        return
    value = trainer["numProcPerNode"]
    path: FieldPath = ("spec", "trainer", "numProcPerNode")
    if isinstance(value, int) and not isinstance(value, bool):
        return
    text = str(value).strip()
    resources = trainer.get("resourcesPerNode")
    if text.isdigit() and int(text) > 0:
        trainer["numProcPerNode"] = int(text)
        ledger.report("T703", path, f"numProcPerNode {value!r} is now the integer {text}")
    elif text == "auto" or (text == "gpu" and gpu_count(resources) is not None):
        del trainer["numProcPerNode"]
        ledger.report("T703", path, f"numProcPerNode {value!r} was removed (Trainer 2.2 derives "
                      "it from the GPUs, else the CPUs, of resourcesPerNode)")
    elif text == "gpu":
        del trainer["numProcPerNode"]
        ledger.report("F504", path, "numProcPerNode gpu, but resourcesPerNode names no *gpu* "
                      "resource: Trainer will start one process per CPU")
    elif text == "cpu":
        _nproc_cpu(trainer, resources, path, ledger)
    else:
        ledger.report("K103", path, f"numProcPerNode {value!r} is not auto, cpu, gpu or a "
                      "positive number")


def _nproc_cpu(trainer: Any, resources: Any, path: FieldPath, ledger: Ledger) -> None:
    if gpu_count(resources) is None:
        del trainer["numProcPerNode"]
        ledger.report("T703", path, "numProcPerNode 'cpu' was removed (without GPUs Trainer "
                      "starts one process per CPU of resourcesPerNode)")
        return
    cpu = None
    for section in ("requests", "limits"):
        values = resources.get(section) if isinstance(resources, dict) else None
        if isinstance(values, dict) and "cpu" in values:
            cpu = values["cpu"]
            break
    count = quantity.ceil_count(cpu) if cpu is not None else None
    if count is None:
        del trainer["numProcPerNode"]
        ledger.report("F505", path, "numProcPerNode cpu with a GPU resource but no CPU "
                      "resource: Trainer will start one process per GPU")
        return
    trainer["numProcPerNode"] = count
    ledger.report("F505", path, f"numProcPerNode cpu became {count} (the container's CPU "
                  "resources, not the host's CPU count)")


def _initializer(spec: Any, which: str, value: Any) -> None:
    initializer = spec.get("initializer")
    if not isinstance(initializer, dict):
        initializer = spec["initializer"] = yamlio.new_map()
    initializer[which] = value


def _model_config(spec: Any, value: Any, path: FieldPath, ledger: Ledger) -> None:
    if not isinstance(value, dict):
        ledger.report("K103", path, "modelConfig must be a mapping")
        return
    for key, item in value.items():
        sub = (*path, str(key))
        if key == "input":
            _initializer(spec, "model", item)
            ledger.mapped(sub, "spec.initializer.model")
        elif key == "output":
            ledger.report("T706", sub, "modelConfig.output (the model exporter) never shipped "
                          "and has no TrainJob field")
        else:
            ledger.report("U901", sub, f"modelConfig.{key} is not a known field and was dropped")
    ledger.default(path)


class _Patch:
    """The runtime patch the overrides and JobSet metadata fold into."""

    def __init__(self) -> None:
        self.jobset: dict[str, Any] = {}
        self.jobs: dict[str, Any] = {}

    def empty(self) -> bool:
        return not self.jobset and not self.jobs

    def pod(self, job: str) -> Any:
        if job not in self.jobs:
            self.jobs[job] = yamlio.new_map()
        return self.jobs[job]

    def build(self, manager: str) -> Any:
        template = yamlio.new_map()
        if self.jobset:
            template["metadata"] = yamlio.new_map(list(self.jobset.items()))
        if self.jobs:
            jobs = yamlio.new_seq()
            for name, pod in self.jobs.items():
                job_template = yamlio.new_map([("spec", yamlio.new_map([("template", pod)]))])
                jobs.append(yamlio.new_map([("name", name), ("template", job_template)]))
            template["spec"] = yamlio.new_map([("replicatedJobs", jobs)])
        return yamlio.new_map([("manager", manager), ("trainingRuntimeSpec",
                                                      yamlio.new_map([("template", template)]))])


def _overrides(value: Any, path: FieldPath, spec: Any, patch: _Patch, ledger: Ledger, *,
               flat: bool) -> None:
    if not isinstance(value, list):
        ledger.report("K103", path, f"{path[-1]} must be a list")
        return
    for index, override in enumerate(value):
        where = (*path, index)
        if not isinstance(override, dict):
            ledger.report("K103", where, "an override must be a mapping")
            continue
        targets = [str(t["name"]) for t in override.get("targetJobs") or []
                   if isinstance(t, dict) and isinstance(t.get("name"), str)]
        ledger.default((*where, "targetJobs"))
        if not targets:
            ledger.report("K103", where, "the override names no targetJobs")
            continue
        fields = override if flat else override.get("spec") or {}
        base = where if flat else (*where, "spec")
        _api_moves(fields, base, spec, ledger)
        for position, job in enumerate(targets):
            _override_job(_job_name(job, fields), override, fields, base, where, spec, patch,
                          ledger, flat=flat, first=position == 0)
        ledger.default(where)
    count = f"{len(value)} entr{'y' if len(value) == 1 else 'ies'}"
    ledger.report("T702", path, f"{path[-1]} ({count}) folded into one runtimePatches entry")


def _job_name(job: str, fields: Any) -> str:
    if job == "initializer":  # prototype: one Job held both initializer containers
        names = [c.get("name") for c in fields.get("containers") or [] if isinstance(c, dict)]
        return "model-initializer" if "model-initializer" in names else "dataset-initializer"
    return PROTOTYPE_JOBS.get(job, job)


def _override_job(job: str, override: Any, fields: Any, base: FieldPath, where: FieldPath,
                  spec: Any, patch: _Patch, ledger: Ledger, *, flat: bool, first: bool) -> None:
    """Apply one override to job ``job``; moves to the Trainer API happen for the first job."""
    quiet = ledger if first else _Silent(ledger)
    pod = patch.pod(job)
    metadata = None if flat else override.get("metadata")
    if isinstance(metadata, dict) and metadata:
        meta = pod.setdefault("metadata", yamlio.new_map())
        for key in ("labels", "annotations"):
            if isinstance(metadata.get(key), dict):
                meta.setdefault(key, yamlio.new_map()).update(metadata[key])
        ledger.default((*where, "metadata"))
    pod_spec = pod.setdefault("spec", yamlio.new_map())
    for key, item in fields.items():
        path = (*base, str(key))
        if key == "targetJobs":
            continue
        target = f"...replicatedJobs[name={job}].template.spec.template.spec.{key}"
        if key in ("containers", "initContainers"):
            _containers(job, str(key), item, path, pod_spec, spec, quiet)
        elif key in NAMED_LISTS and isinstance(item, list):
            _merge_named(pod_spec.setdefault(key, yamlio.new_seq()), item)
            ledger.mapped(path, target)
        elif key in PATCH_POD_FIELDS:
            pod_spec[key] = yamlio.clone(item)  # later overrides win; tolerations replace
            ledger.mapped(path, target)
        else:
            quiet.report("T707", path, f"override field {key!r} has no runtime-patch "
                         "equivalent and was dropped")
    if not pod_spec:
        del pod["spec"]
    if not pod:
        del patch.jobs[job]


def _api_moves(fields: Any, base: FieldPath, spec: Any, ledger: Ledger) -> None:
    """Env of node/initializer containers and node command/args go to the Trainer API."""
    for index, item in enumerate(fields.get("containers") or []):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        raw = str(item["name"])
        name = PROTOTYPE_CONTAINERS.get(raw, raw)
        where = (*base, "containers", index)
        for key, value in item.items():
            if _moved(name, str(key)):
                if key == "env":
                    _env_to_api(spec, name, value, (*where, "env"), ledger)
                else:
                    _trainer_field(spec, str(key), value, (*where, str(key)), ledger)


def _moved(container: str, key: str) -> bool:
    if key == "env":
        return container == NODE or container in INITIALIZER_CONTAINERS
    return key in ("command", "args") and container == NODE


def _merge_named(merged: Any, items: list[Any]) -> None:
    """Merge list items by ``name`` (a later item replaces an earlier one of the same name)."""
    for item in items:
        name = item.get("name") if isinstance(item, dict) else None
        for index, existing in enumerate(merged):
            if name is not None and isinstance(existing, dict) and existing.get("name") == name:
                merged[index] = yamlio.clone(item)
                break
        else:
            merged.append(yamlio.clone(item))


class _Silent:
    """A ledger stand-in for repeated target jobs: consumes, but reports nothing twice."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def report(self, code: str, source: FieldPath, message: str, **_: Any) -> None:
        self.ledger.default(source)

    def mapped(self, source: FieldPath, target: str, **_: Any) -> None:
        self.ledger.default(source)

    def default(self, source: FieldPath) -> None:
        self.ledger.default(source)


def _belongs(name: str, job: str) -> bool:
    """Whether a container override named ``name`` can apply to replicated job ``job``."""
    if name == NODE:
        return job in (NODE, "launcher")
    if name in INITIALIZER_CONTAINERS:
        return job == name
    return True


def _containers(job: str, field: str, items: Any, path: FieldPath, pod_spec: Any, spec: Any,
                ledger: Ledger | _Silent) -> None:
    merged = pod_spec.setdefault(field, yamlio.new_seq())
    for index, item in enumerate(items or []):
        where = (*path, index)
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            ledger.report("K103", where, "a container override needs a name")
            continue
        raw = str(item["name"])
        name = PROTOTYPE_CONTAINERS.get(raw, raw)
        if not _belongs(name, job):
            continue
        patch = next((c for c in merged if c.get("name") == name), None)
        if patch is None:
            patch = yamlio.new_map([("name", name)])
            merged.append(patch)
        for key, value in item.items():
            sub = (*where, str(key))
            if key == "name" or (field == "containers" and _moved(name, str(key))):
                ledger.default(sub)
            elif key in CONTAINER_PATCH_FIELDS:
                patch[key] = yamlio.clone(value)
                ledger.mapped(sub, f"...containers[name={name}].{key}")
            else:
                ledger.report("T707", sub, f"container override field {key!r} has no "
                              "runtime-patch equivalent and was dropped")
        if len(patch) == 1:
            merged.remove(patch)
    if not merged:
        del pod_spec[field]


def _env_to_api(spec: Any, container: str, value: Any, path: FieldPath,
                ledger: Ledger | _Silent) -> None:
    if container == NODE:
        holder = spec.setdefault("trainer", yamlio.new_map())
        target = "spec.trainer.env"
    else:
        which = INITIALIZER_CONTAINERS[container]
        initializer = spec.setdefault("initializer", yamlio.new_map())
        holder = initializer.setdefault(which, yamlio.new_map())
        target = f"spec.initializer.{which}.env"
    env = holder.setdefault("env", yamlio.new_seq())
    names = {e.get("name") for e in env if isinstance(e, dict)}
    for item in value or []:
        if isinstance(item, dict) and item.get("name") not in names:
            env.append(yamlio.clone(item))
    ledger.mapped(path, target)
    reach = (" (on an MPI runtime it reaches the launcher, and the workers only with "
             "runLauncherAsNode: true)" if container == NODE else "")
    ledger.report("T707", path, f"env of container {container!r} cannot be set by a runtime "
                  f"patch; it moved to {target}{reach}", consume=False)


def _trainer_field(spec: Any, key: str, value: Any, path: FieldPath,
                   ledger: Ledger | _Silent) -> None:
    trainer = spec.setdefault("trainer", yamlio.new_map())
    if key in trainer:
        ledger.report("T707", path, f"override {key} conflicts with trainer.{key}, which wins")
        return
    trainer[key] = yamlio.clone(value)
    ledger.mapped(path, f"spec.trainer.{key}")


def _prototype_runtime(doc: Any, ledger: Ledger) -> None:
    labels = paths.get(doc, ("metadata", "labels"))
    policy = paths.get(doc, ("spec", "mlPolicy"))
    if isinstance(labels, dict) and PHASE_LABEL in labels:
        del labels[PHASE_LABEL]
        sources = [k for k in (policy or {}) if k not in ("numNodes",)]
        if sources:
            labels[FRAMEWORK_LABEL] = sources[0]
        ledger.report("T708", ("metadata", "labels", PHASE_LABEL), f"label {PHASE_LABEL} was "
                      f"replaced by {FRAMEWORK_LABEL}", consume=False)
    jobs = paths.get(doc, ("spec", "template", "spec", "replicatedJobs")) or []
    for index, job in enumerate(jobs):
        if not isinstance(job, dict):
            continue
        where = ("spec", "template", "spec", "replicatedJobs", index)
        if job.get("name") == "initializer":
            ledger.report("T709", where, "the prototype's single `initializer` job must be split "
                          "into dataset-initializer and model-initializer jobs by hand")
        elif job.get("name") in PROTOTYPE_JOBS:
            job["name"] = PROTOTYPE_JOBS[job["name"]]
            _ancestor(job)
            ledger.report("T708", (*where, "name"), "replicated job trainer-node is now node "
                          f"(labelled {ANCESTOR_LABEL}: trainer)", consume=False)
        containers = paths.get(job, ("template", "spec", "template", "spec", "containers")) or []
        for container in containers:
            if isinstance(container, dict) and container.get("name") in PROTOTYPE_CONTAINERS:
                container["name"] = PROTOTYPE_CONTAINERS[container["name"]]


def _ancestor(job: Any) -> None:
    template = job.setdefault("template", yamlio.new_map())
    meta = template.get("metadata")
    if not isinstance(meta, dict):
        meta = yamlio.new_map()
        template.insert(0, "metadata", meta)
    labels = meta.setdefault("labels", yamlio.new_map())
    labels[ANCESTOR_LABEL] = "trainer"
