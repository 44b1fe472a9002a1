"""CONVERT: upgrade Trainer manifests along the API ladder to the 2.2 shape, in place.

Inputs: the prototypes mappings/kinds.yaml lists and TrainJobs and runtimes written for Trainer
2.0/2.1 (its ``preV22Markers``). What happens to each field is mappings/upgrade.yaml; this
module carries out its operations. The loaded document is edited (a clone), so comments and
key order survive; every field is recorded on the ledger as kept, moved or reported.
"""

from __future__ import annotations

from typing import Any

from migrator import paths
from migrator.check import quantity
from migrator.convert import emit
from migrator.convert.ledger import Ledger
from migrator.convert.rules.transforms import gpu_count
from migrator.knowledge import catalog
from migrator.knowledge.specs import TargetSpec, UpgradeSpec
from migrator.load import yamlio
from migrator.paths import FieldPath


def _data() -> UpgradeSpec:
    """mappings/upgrade.yaml (the catalog is loaded once per process)."""
    return catalog.load().upgrade


def upgrade_trainjob(root: Any, ledger: Ledger, manager: str, target: TargetSpec) -> Any:
    """The 2.2-shaped TrainJob for a prototype or pre-2.2 TrainJob ``root``, for ``target``
    (mappings/targets/: its apiVersion, and the pod fields its runtime patches carry)."""
    api_version = target.api_version
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
    data = _data()
    patch = _Patch()
    for key in list(spec):
        path = ("spec", str(key))
        value = spec[key]
        rule = data.train_job_spec.get(str(key))
        op = rule.op if rule is not None else None
        if op == "runtime-ref":
            _runtime_ref(spec, str(key), ledger, api_version.rpartition("/")[0], data)
        elif op == "jobset-metadata":
            del spec[key]
            if value:
                patch.jobset[str(key)] = value
                ledger.mapped(path, f"spec.runtimePatches[manager={manager}].trainingRuntimeSpec."
                              f"template.metadata.{key}")
                ledger.report("T701", path, f"spec.{key} moved to the JobSet metadata of a "
                              "runtime patch", consume=False)
            else:
                ledger.default(path)
        elif op in ("overrides", "flat-overrides"):
            del spec[key]
            _overrides(value, path, spec, patch, ledger, data, _pod_fields(target),
                       flat=op == "flat-overrides")
        elif op == "initializer" and rule is not None and rule.to is not None:
            del spec[key]
            _initializer(spec, rule.to, value)
            ledger.mapped(path, f"spec.initializer.{rule.to}")
        elif op == "model-config":
            del spec[key]
            _model_config(spec, value, path, ledger)
        elif op == "managed-by" and value in data.default_controllers:
            del spec[key]
            ledger.report("R209", path, f"managedBy {value!r} named the prototype controller; "
                          "the TrainJob uses Trainer's default controller")
        elif op == "trainer":
            _trainer(spec, str(key), ledger, data.version)
        elif op is not None:
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
    data = _data()
    for removed in data.removed_runtime_fields:
        *parent, key = removed.path.split(".")
        holder = paths.get(doc, tuple(parent))
        if isinstance(holder, dict) and key in holder:
            value = holder.pop(key)
            path = (*parent, key)
            name = ".".join([*parent[1:], key])  # without the leading spec.
            if key == "numProcPerNode" and value == "auto":
                ledger.report("T703", path, f"{name} auto was removed (auto is Trainer "
                              f"{data.version}'s default)")
            else:
                ledger.report(removed.code, path,
                              _runtime_message(name, key, value, data.version, removed.why))
    if prototype:
        _prototype_runtime(doc, ledger, data)
    ledger.default(("spec",))
    ledger.close()
    return doc


def _runtime_message(name: str, key: str, value: Any, version: str, why: str | None) -> str:
    if key == "numProcPerNode":
        extra = (f"; set trainer.numProcPerNode: {value} on the TrainJobs that use this runtime"
                 if isinstance(value, int) or str(value).isdigit() else "")
        return f"{name} {value!r} was removed in Trainer {version}{extra}"
    return f"{name} was removed in Trainer {version}" + (f" ({why})" if why else "")


def _api_version(doc: Any, ledger: Ledger, api_version: str) -> None:
    if doc.get("apiVersion") != api_version:
        old = doc.get("apiVersion")
        doc["apiVersion"] = api_version
        ledger.mapped(("apiVersion",), "apiVersion")
        ledger.report("T708", ("apiVersion",), f"apiVersion {old} is now {api_version}",
                      consume=False)
    else:
        ledger.default(("apiVersion",))


def _runtime_ref(spec: Any, key: str, ledger: Ledger, group: str, data: UpgradeSpec) -> None:
    ref = spec[key]
    if isinstance(ref, dict) and ref.get("apiGroup") == data.prototype_group:
        ref["apiGroup"] = group
        ledger.mapped(("spec", key, "apiGroup"), f"spec.{key}.apiGroup")
    ledger.default(("spec", key))


def _trainer(spec: Any, key: str, ledger: Ledger, version: str) -> None:
    trainer = spec[key]
    ledger.default(("spec", key))
    if not isinstance(trainer, dict) or "numProcPerNode" not in trainer:
        return
    value = trainer["numProcPerNode"]
    path: FieldPath = ("spec", key, "numProcPerNode")
    if isinstance(value, int) and not isinstance(value, bool):
        return
    text = str(value).strip()
    resources = trainer.get("resourcesPerNode")
    if text.isdigit() and int(text) > 0:
        trainer["numProcPerNode"] = int(text)
        ledger.report("T703", path, f"numProcPerNode {value!r} is now the integer {text}")
    elif text == "auto" or (text == "gpu" and gpu_count(resources) is not None):
        del trainer["numProcPerNode"]
        ledger.report("T703", path, f"numProcPerNode {value!r} was removed (Trainer {version} "
                      "derives it from the GPUs, else the CPUs, of resourcesPerNode)")
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
        metadata = yamlio.new_map(list(self.jobset.items())) if self.jobset else None
        return emit.runtime_patch(manager, metadata, list(self.jobs.items()))


def _pod_fields(target: TargetSpec) -> frozenset[str]:
    """What an override's pod spec may set in a runtime patch: the target's patchable pod
    fields, and its containers and init containers (``patchContainerFields`` of each)."""
    return frozenset((*target.patchable_pod_fields, "containers", "initContainers"))


def _overrides(value: Any, path: FieldPath, spec: Any, patch: _Patch, ledger: Ledger,
               data: UpgradeSpec, pod_fields: frozenset[str], *, flat: bool) -> None:
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
        _api_moves(fields, base, spec, ledger, data)
        for position, job in enumerate(targets):
            _override_job(_job_name(job, fields, data), override, fields, base, where, spec,
                          patch, ledger, data, pod_fields, flat=flat, first=position == 0)
        ledger.default(where)
    count = f"{len(value)} entr{'y' if len(value) == 1 else 'ies'}"
    ledger.report("T702", path, f"{path[-1]} ({count}) folded into one runtimePatches entry")


def _job_name(job: str, fields: Any, data: UpgradeSpec) -> str:
    if job == data.prototype_initializer_job:  # one Job held all initializer containers
        names = [c.get("name") for c in fields.get("containers") or [] if isinstance(c, dict)]
        # the job of the last initializer container the override names, else of the first
        initializers = list(data.initializer_containers)
        return next((n for n in reversed(initializers) if n in names), initializers[0])
    return data.prototype_jobs.get(job, job)


def _override_job(job: str, override: Any, fields: Any, base: FieldPath, where: FieldPath,
                  spec: Any, patch: _Patch, ledger: Ledger, data: UpgradeSpec,
                  pod_fields: frozenset[str], *, flat: bool, first: bool) -> None:
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
            _containers(job, str(key), item, path, pod_spec, spec, quiet, data)
        elif key in data.named_lists and key in pod_fields and isinstance(item, list):
            _merge_named(pod_spec.setdefault(key, yamlio.new_seq()), item)
            ledger.mapped(path, target)
        elif key in pod_fields:
            pod_spec[key] = yamlio.clone(item)  # later overrides win; tolerations replace
            ledger.mapped(path, target)
        else:
            quiet.report("T707", path, f"override field {key!r} has no runtime-patch "
                         "equivalent and was dropped")
    if not pod_spec:
        del pod["spec"]
    if not pod:
        del patch.jobs[job]


def _api_moves(fields: Any, base: FieldPath, spec: Any, ledger: Ledger,
               data: UpgradeSpec) -> None:
    """Env of node/initializer containers and node command/args go to the Trainer API."""
    for index, item in enumerate(fields.get("containers") or []):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        raw = str(item["name"])
        name = data.prototype_containers.get(raw, raw)
        where = (*base, "containers", index)
        for key, value in item.items():
            if _moved(name, str(key), data):
                if key == "env":
                    _env_to_api(spec, name, value, (*where, "env"), ledger, data)
                else:
                    _trainer_field(spec, str(key), value, (*where, str(key)), ledger)


def _moved(container: str, key: str, data: UpgradeSpec) -> bool:
    if key == "env":
        return container == data.trainer_container or container in data.initializer_containers
    return key in ("command", "args") and container == data.trainer_container


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


def _belongs(name: str, job: str, data: UpgradeSpec) -> bool:
    """Whether a container override named ``name`` can apply to replicated job ``job``."""
    if name == data.trainer_container:
        return job in data.trainer_jobs
    if name in data.initializer_containers:
        return job == name
    return True


def _containers(job: str, field: str, items: Any, path: FieldPath, pod_spec: Any, spec: Any,
                ledger: Ledger | _Silent, data: UpgradeSpec) -> None:
    merged = pod_spec.setdefault(field, yamlio.new_seq())
    for index, item in enumerate(items or []):
        where = (*path, index)
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            ledger.report("K103", where, "a container override needs a name")
            continue
        raw = str(item["name"])
        name = data.prototype_containers.get(raw, raw)
        if not _belongs(name, job, data):
            continue
        patch = next((c for c in merged if c.get("name") == name), None)
        if patch is None:
            patch = yamlio.new_map([("name", name)])
            merged.append(patch)
        for key, value in item.items():
            sub = (*where, str(key))
            if key == "name" or (field == "containers" and _moved(name, str(key), data)):
                ledger.default(sub)
            elif key in data.patch_container_fields:
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
                ledger: Ledger | _Silent, data: UpgradeSpec) -> None:
    if container == data.trainer_container:
        holder = spec.setdefault("trainer", yamlio.new_map())
        target = "spec.trainer.env"
    else:
        which = data.initializer_containers[container]
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
             "runLauncherAsNode: true)" if container == data.trainer_container else "")
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


def _prototype_runtime(doc: Any, ledger: Ledger, data: UpgradeSpec) -> None:
    labels = paths.get(doc, ("metadata", "labels"))
    policy = paths.get(doc, ("spec", "mlPolicy"))
    phase, framework = data.labels.phase, data.labels.framework
    if isinstance(labels, dict) and phase in labels:
        del labels[phase]
        sources = [k for k in (policy or {}) if k not in ("numNodes",)]
        if sources:
            labels[framework] = sources[0]
        ledger.report("T708", ("metadata", "labels", phase), f"label {phase} was "
                      f"replaced by {framework}", consume=False)
    jobs = paths.get(doc, ("spec", "template", "spec", "replicatedJobs")) or []
    for index, job in enumerate(jobs):
        if not isinstance(job, dict):
            continue
        where = ("spec", "template", "spec", "replicatedJobs", index)
        name = job.get("name")
        if name == data.prototype_initializer_job:
            ledger.report("T709", where, f"the prototype's single `{name}` job must be split "
                          f"into {' and '.join(data.initializer_containers)} jobs by hand")
        elif name in data.prototype_jobs:
            job["name"] = data.prototype_jobs[name]
            _ancestor(job, data.labels.ancestor)
            ledger.report("T708", (*where, "name"), f"replicated job {name} is now "
                          f"{job['name']} (labelled {data.labels.ancestor}: trainer)",
                          consume=False)
        containers = paths.get(job, ("template", "spec", "template", "spec", "containers")) or []
        for container in containers:
            if isinstance(container, dict) and container.get("name") in data.prototype_containers:
                container["name"] = data.prototype_containers[container["name"]]


def _ancestor(job: Any, label: str) -> None:
    template = job.setdefault("template", yamlio.new_map())
    meta = template.get("metadata")
    if not isinstance(meta, dict):
        meta = yamlio.new_map()
        template.insert(0, "metadata", meta)
    labels = meta.setdefault("labels", yamlio.new_map())
    labels[label] = "trainer"
