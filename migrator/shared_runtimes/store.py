"""BATCH (shared runtimes), the folder: read the runtimes already in ``--shared-runtimes DIR``
(an input too), collect the runtimes a run's jobs use, and write DIR at the end of the run:
one ``<name>.yaml`` per runtime, ``index.json`` and ``README.md`` (which jobs use which
runtime, what each job sets itself, and why variants of one shape exist).

Writes go through ``migrator.atomic`` (a link at a name is replaced, never written through);
a runtime file whose content no longer matches the hash it was written with (edited by
someone) is never rewritten. Idempotent: the same jobs over the same folder write the same
bytes, so a second run changes nothing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from migrator.results import FileResult, Finding, Severity
from migrator.shared_runtimes import CARRIED

INDEX = "index.json"
README = "README.md"
MAX_BYTES = 1024 * 1024  # a runtime file larger than this is not read
INDEX_VERSION = 1
NAME = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")  # a Kubernetes object name


class Known:
    """The runtimes of the folder at the start of the run: by content hash and by name."""

    def __init__(self, by_digest: dict[str, str], by_name: dict[str, str],
                 edited: dict[str, str], unreadable: list[str]) -> None:
        self.by_digest = by_digest  # content hash -> name (unedited and edited alike)
        self.by_name = by_name  # name -> its content hash now
        self.edited = edited  # name -> the hash it was written with, when the content differs
        self.unreadable = unreadable

    def name_for(self, split: Any) -> tuple[str, str | None]:
        """The name ``split``'s runtime gets, and the edited runtime that took its name."""
        if split.digest in self.by_digest:
            return self.by_digest[split.digest], None
        name: str = split.name
        if name in self.by_name:  # the name of a runtime someone edited since: a new variant
            longer = hashlib.sha256(f"{split.digest}:{name}".encode()).hexdigest()[:8]
            return f"{name[:63 - 9]}-{longer}", name
        return name, None


@functools.lru_cache(maxsize=4)
def existing(folder: str, kind: str) -> Known:
    """What ``folder`` holds now (read once per process; empty when it does not exist)."""
    from migrator.shared_runtimes.share import content_hash

    by_digest: dict[str, str] = {}
    by_name: dict[str, str] = {}
    edited: dict[str, str] = {}
    unreadable: list[str] = []
    for name, node in _runtime_files(Path(folder), unreadable):
        if not isinstance(node, dict) or node.get("kind") != kind:
            unreadable.append(name)
            continue
        meta: dict[str, Any] = node["metadata"] if isinstance(node.get("metadata"), dict) \
            else {}
        runtime_name = meta.get("name")
        if not isinstance(runtime_name, str) or f"{runtime_name}.yaml" != name \
                or not NAME.fullmatch(runtime_name):  # (names go into README commands)
            unreadable.append(name)
            continue
        labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
        digest = content_hash({"apiVersion": node.get("apiVersion"), "kind": kind,
                               "metadata": {"labels": labels}, "spec": node.get("spec")})
        written: dict[str, Any] = meta["annotations"] if isinstance(meta.get("annotations"),
                                                                    dict) else {}
        recorded = next((str(v) for k, v in written.items() if k.endswith("/shape-hash")), None)
        by_name[runtime_name] = digest
        by_digest.setdefault(digest, runtime_name)
        if recorded is not None and recorded != digest:
            edited[runtime_name] = recorded
    return Known(by_digest, by_name, edited, sorted(unreadable))


def _runtime_files(folder: Path, unreadable: list[str]) -> Iterable[tuple[str, Any]]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        names = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return
    reader = YAML(typ="safe", pure=True)
    for name in names:
        if not name.endswith(".yaml"):
            continue
        path = folder / name
        try:
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
                unreadable.append(name)
                continue
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as handle:
                node = reader.load(handle.read(MAX_BYTES + 1).decode("utf-8"))
        except (OSError, UnicodeError, YAMLError, ValueError, RecursionError):
            unreadable.append(name)
            continue
        yield name, node


class Collector:
    """The main process's side: takes the runtimes off the results as they come and writes
    the folder once at the end."""

    def __init__(self, folder: Path, kind: str) -> None:
        existing.cache_clear()  # a run reads the folder as it is when the run starts
        self.folder = folder
        self.kind = kind
        self.runtimes: dict[str, dict[str, Any]] = {}
        self.jobs: dict[str, dict[str, list[str]]] = {}  # runtime -> job -> what it sets

    def take(self, file: FileResult) -> None:
        """Take the carried runtimes off ``file``'s documents (reports never see them)."""
        for doc in file.result.documents if file.result is not None else ():
            carried = doc.output.pop(CARRIED, None) if isinstance(doc.output, dict) else None
            if not isinstance(carried, dict) or doc.output is None:
                continue
            runtime = carried["runtime"]
            name = runtime["metadata"]["name"]
            self.runtimes.setdefault(name, runtime)
            job = f"{file.relative or file.name}: {doc.output.get('name')}"
            self.jobs.setdefault(name, {})[job] = list(carried["sets"])

    def write(self) -> tuple[list[str], list[Finding]]:
        """Write the folder; the names of the runtimes written new, and findings for files
        it could not use (S104). Raises OSError when the folder cannot be written."""
        from migrator import atomic
        from migrator.load import yamlio

        known = existing(str(self.folder), self.kind)
        self.folder.mkdir(parents=True, exist_ok=True)
        handle = atomic.open_folder(self.folder)
        added: list[str] = []
        try:
            for name in sorted(self.runtimes):
                if name in known.by_name:
                    continue  # the same content (its name says so), or edited: never rewritten
                text = yamlio.dump(yamlio.from_plain(self.runtimes[name]),
                                   yamlio.Indent(2, 4, 2))
                atomic.replace_at(handle, f"{name}.yaml", text.encode("utf-8"), mode=None,
                                  owner=None, durable=True)
                added.append(name)
            index = self._index(known)
            data = json.dumps(index, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
            _write_if_changed(handle, self.folder / INDEX, INDEX, data)
            _write_if_changed(handle, self.folder / README, README, readme(index))
        finally:
            os.close(handle)
        findings = [Finding("S104", Severity.WARNING, "", f"{self.folder / name}: not a "
                            f"{self.kind} written by this tool; ignored", "")
                    for name in known.unreadable]
        return added, findings

    def _index(self, known: Known) -> dict[str, Any]:
        previous = _previous_index(self.folder / INDEX)
        runtimes: dict[str, Any] = {}
        names = set(known.by_name) | set(self.runtimes)
        for name in sorted(names):
            old = previous.get(name, {}) if isinstance(previous.get(name), dict) else {}
            jobs = dict(old.get("jobs", {})) if isinstance(old.get("jobs"), dict) else {}
            jobs.update(self.jobs.get(name, {}))
            runtime = self.runtimes.get(name)
            entry: dict[str, Any] = {"jobs": dict(sorted(jobs.items())),
                                     "edited": name in known.edited}
            entry["shape"] = _shape(runtime) if runtime is not None else old.get("shape", "")
            runtimes[name] = entry
        _explain_variants(runtimes, self.runtimes)
        used = sorted({key for entry in runtimes.values() for key in entry.get("whyApart", {})})
        reasons = variant_reasons()
        return {"version": INDEX_VERSION, "runtimeKind": self.kind, "runtimes": runtimes,
                "variantReasons": {key: reasons[key] for key in used}}

    def summary(self, added: list[str]) -> list[str]:
        """The terminal lines: the catalog, runtime by runtime."""
        lines = [f"shared runtimes in {self.folder}: {len(self.runtimes)} used by "
                 f"{sum(len(j) for j in self.jobs.values())} jobs, {len(added)} new"]
        for name in sorted(self.runtimes):
            jobs = self.jobs.get(name, {})
            mark = "new" if name in added else "kept"
            lines.append(f"  {name} ({mark}): {len(jobs)} job{'s' if len(jobs) != 1 else ''}")
        return lines


def _write_if_changed(handle: int, path: Path, name: str, data: str) -> None:
    from migrator import atomic

    try:
        if not path.is_symlink() and path.read_text(encoding="utf-8") == data:
            return
    except (OSError, UnicodeError):
        pass
    atomic.replace_at(handle, name, data.encode("utf-8"), mode=None, owner=None, durable=True)


def _previous_index(path: Path) -> dict[str, Any]:
    try:
        if path.is_symlink() or path.stat().st_size > 64 * MAX_BYTES:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, ValueError):
        return {}
    found = data.get("runtimes") if isinstance(data, dict) else None
    return found if isinstance(found, dict) else {}


def _shape(runtime: dict[str, Any]) -> str:
    spec = runtime.get("spec") or {}
    policy = sorted(k for k in (spec.get("mlPolicy") or {}) if k != "numNodes") or ["plain"]
    jobs = [str(j.get("name")) for j in
            ((spec.get("template") or {}).get("spec") or {}).get("replicatedJobs") or []]
    return f"{'/'.join(policy)} policy, jobs: {', '.join(jobs)}"


def variant_reasons() -> dict[str, str]:
    from migrator.shared_runtimes.share import variant_reasons as reasons

    return reasons()


def _explain_variants(index: dict[str, Any], bodies: dict[str, dict[str, Any]]) -> None:
    """For runtimes of one shape (name without its hash), the fields where each differs from
    the others (``differsFrom``, eight per other runtime), and every such field by why no
    TrainJob can set it per job (``whyApart``: a ``variantReasons`` key -> the fields)."""
    from migrator.knowledge import catalog
    from migrator.shared_runtimes.share import why_apart

    label = catalog.load().upgrade.labels.ancestor
    groups: dict[str, list[str]] = {}
    for name in index:
        groups.setdefault(name.rsplit("-", 1)[0], []).append(name)
    for names in groups.values():
        known = [n for n in names if n in bodies]
        for name in names:
            others = [n for n in known if n != name]
            if name not in bodies or not others:
                index[name]["differsFrom"] = {}
                continue
            paths = {other: sorted(_differences(bodies[name].get("spec"),
                                                bodies[other].get("spec"), "spec"))
                     for other in others}
            index[name]["differsFrom"] = {other: found[:8] for other, found in paths.items()}
            why: dict[str, set[str]] = {}
            for found in paths.values():
                for path in found:
                    why.setdefault(why_apart(path, bodies[name], label), set()).add(path)
            index[name]["whyApart"] = {key: sorted(found) for key, found in sorted(why.items())}


def _differences(a: Any, b: Any, path: str) -> set[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out: set[str] = set()
        for key in set(a) | set(b):
            out |= _differences(a.get(key), b.get(key), f"{path}.{key}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = set()
        for index, (left, right) in enumerate(zip(a, b, strict=True)):
            label = left.get("name") if isinstance(left, dict) and left.get("name") == (
                right.get("name") if isinstance(right, dict) else None) else index
            out |= _differences(left, right, f"{path}[{label}]")
        return out
    return set() if a == b else {path}


def readme(index: dict[str, Any]) -> str:
    """The folder's README.md: what to review and install, which jobs use what."""
    runtimes = index["runtimes"]
    lines = ["# Shared Kubeflow Trainer runtimes", "",
             "Written by `trainjob-migrate convert --shared-runtimes` (do not rename the files: "
             "later runs reuse a runtime by its content and name). Each ClusterTrainingRuntime "
             "holds the shape jobs share; each TrainJob sets its own image, command, env, "
             "resources, node count and pod details (`runtimePatches`). An explicit "
             "`imagePullPolicy` equal to the Kubernetes default for the image is not a "
             "variant. Runtimes of one shape differ where no TrainJob can set a value for one "
             "job on this Trainer version; each says where and why.", "",
             "Review, then install them before the TrainJobs:", "",
             "```bash", "# cluster-scoped objects: needs a cluster administrator",
             "kubectl apply " + " ".join(f"-f {name}.yaml" for name in runtimes), "```",
             "", "| runtime | shape | jobs |", "|---|---|---|"]
    for name, entry in runtimes.items():
        edited = " (edited by hand)" if entry.get("edited") else ""
        lines.append(f"| `{name}`{edited} | {_cell(entry.get('shape', ''))} | "
                     f"{len(entry.get('jobs', {}))} |")
    for name, entry in runtimes.items():
        lines += ["", f"## {_cell(name)}", ""]
        differs = entry.get("differsFrom") or {}
        for other, paths in differs.items():
            lines.append(f"- differs from `{other}` in: "
                         + ", ".join(f"`{_cell(p)}`" for p in paths))
        why = entry.get("whyApart") or {}
        if why:
            lines.append("- why no TrainJob can carry these differences:")
        for key, paths in why.items():
            text = (index.get("variantReasons") or {}).get(key, key)
            shown = ", ".join(f"`{_cell(_short(p))}`" for p in paths[:6])
            more = f" and {len(paths) - 6} more" if len(paths) > 6 else ""
            lines.append(f"  - {shown}{more}: {_cell(text)}")
        for job, sets in entry.get("jobs", {}).items():
            lines.append(f"- {_cell(job)} — sets {_cell(', '.join(sets)) or 'nothing'}")
    return "\n".join(lines) + "\n"


def _short(path: str) -> str:
    """A differing field as a reader names it: ``replicatedJobs[node]...containers[node].image``
    without the template plumbing between."""
    return path.removeprefix("spec.template.spec.") \
        .replace(".template.spec.template.spec.", ".").replace(".template.spec.", ".")


def _cell(text: str) -> str:
    """Text safe in a Markdown table cell or list item (no markup from input names)."""
    return "".join(ch if ch.isprintable() else " " for ch in str(text)) \
        .replace("|", "\\|").replace("`", "'")
