"""CONVERT: a plain YAML stream (no template routing): every document through the converter.

``convert_text`` (convert/text.py) routes templated streams to ``template/`` first; the
template stage converts each rendered variant with ``convert_plain``, so the two never import
each other in a circle.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from time import perf_counter
from typing import Any

from migrator.load import detect, stream
from migrator.results import DocumentResult, Finding, Severity, TextResult
from migrator.settings import ConvertOptions

LEGACY_NAMES = "C416"


def convert_plain(text: str, options: ConvertOptions, render: bool = True) -> TextResult:
    """Convert every legacy document of ``text``; other documents stay byte-identical."""
    if not detect.is_candidate(text):
        return TextResult(text)
    chunks = stream.split(text)
    if not any(chunk.has_content and detect.is_candidate(chunk.body) for chunk in chunks):
        return TextResult(text)
    from migrator.convert import document
    from migrator.knowledge import catalog

    loaded = catalog.load()
    results = []
    for index, chunk in enumerate(chunks):
        started = perf_counter()
        result = document.process(chunk, index, loaded, options, render)
        result.seconds = perf_counter() - started  # (the JUnit report's time for it)
        results.append(result)
    if any("ConfigMap" in chunk.body for chunk in chunks):
        code = loaded.codes[LEGACY_NAMES]
        _config_map_names(chunks, results, Severity(code.severity), code.fix)
    return TextResult("".join(r.text for r in results), results)


def _config_map_names(chunks: list[stream.Chunk], results: list[DocumentResult],
                      severity: Severity, hint: str) -> None:
    """C416 at a converted job's volume that mounts a ConfigMap of the same stream naming the
    legacy pods' host names: ``<job>-<replica type>-<index>``, each a headless service of the
    legacy operator (kubeflow/trainer@v1.9.2 pkg/controller.v1/common/pod.go:414,
    common/service.go:243), and mpi-operator's ``<job>-launcher``; TrainJob pods answer to none
    of them, so the file the container reads names hosts that do not exist."""
    from migrator.load.configmaps import ConfigMaps

    maps = ConfigMaps(chunks)
    if not maps:
        return
    for chunk, result in zip(chunks, results, strict=True):
        if result.status != "converted":
            continue
        job = _plain(chunk.body)
        meta = job.get("metadata") if isinstance(job, Mapping) else None
        namespace = str(meta.get("namespace") or "") if isinstance(meta, Mapping) else ""
        for path, volume, names in _mounted_names(job, maps.seen_from(namespace)):
            result.findings.append(Finding(
                LEGACY_NAMES, severity, path, f"ConfigMap {volume!r} names "
                f"{', '.join(names)}, the legacy pods' host names, which TrainJob pods do not "
                "have", hint, chunk.line))


def _plain(body: str) -> Any:
    """The document as plain data (None when it does not parse: it names nothing)."""
    from ruamel.yaml.error import YAMLError

    from migrator.load import yamlio

    try:
        return yamlio.plain(yamlio.load(body))
    except (ValueError, yamlio.DocumentError, YAMLError, RecursionError):
        return None


def _mounted_names(job: Any, maps: Mapping[str, Mapping[str, Any]]
                   ) -> list[tuple[str, str, list[str]]]:
    """(volume path, ConfigMap name, legacy host names it holds) for each role's volume."""
    spec = job.get("spec") if isinstance(job, Mapping) else None
    meta = job.get("metadata") if isinstance(job, Mapping) else None
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if not isinstance(spec, Mapping) or not isinstance(name, str):
        return []
    out = []
    for field, replicas in spec.items():
        if not (isinstance(field, str) and field.endswith("ReplicaSpecs")
                and isinstance(replicas, Mapping)):
            continue
        hosts = {f"{name}-{str(role).lower()}-N": re.compile(
            rf"(?<![A-Za-z0-9.-]){re.escape(f'{name}-{str(role).lower()}-')}[0-9]")
            for role in replicas}
        hosts[f"{name}-launcher"] = re.compile(
            rf"(?<![A-Za-z0-9.-]){re.escape(name)}-launcher(?![A-Za-z0-9-])")
        for role, replica in replicas.items():
            template = replica.get("template") if isinstance(replica, Mapping) else None
            pod = template.get("spec") if isinstance(template, Mapping) else None
            volumes = pod.get("volumes") if isinstance(pod, Mapping) else None
            for volume in volumes if isinstance(volumes, list) else []:
                source = volume.get("configMap") if isinstance(volume, Mapping) else None
                found = maps.get(str(source.get("name"))) if isinstance(source, Mapping) \
                    else None
                data = "\n".join(str(v) for v in found.values()) if found is not None else None
                if source is None or data is None:
                    continue
                named = [host for host, pattern in hosts.items() if pattern.search(data)]
                if named:
                    out.append((f"spec.{field}.{role}.template.spec.volumes"
                                f"[name={volume.get('name')}]", str(source.get("name")), named))
    return out
