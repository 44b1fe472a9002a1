"""CONVERT stage for Kustomize: a ``kustomization.yaml`` whose patches target a legacy job, and
the patch files it names, rewritten for the TrainJob the base job converts to.

The legacy bases are read from the kustomization's ``resources`` (files, and folders with a
kustomization, a few levels deep, never URLs); each patch is translated by ``kustomize``
(apply to the base, convert both, diff). A patch's target becomes the TrainJob
(group/version/kind; the name is unchanged, so ``namePrefix``/``labels`` keep working).
``images:`` does not reach ``spec.trainer.image`` (kustomize only edits ``containers``),
so an inline ``ImageTagTransformer`` with that field spec is added for each image.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from migrator.convert import kustomize
from migrator.convert import snippets as notes
from migrator.settings import ConvertOptions

if TYPE_CHECKING:
    from migrator.results import Finding, Status, TextResult

NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
TRANSLATED = "E809"
UNTRANSLATABLE = "E810"
GROUP, VERSION, KIND = "trainer.kubeflow.org", "v1alpha1", "TrainJob"
MAX_FILES = 200
_ACTIVE = re.compile(r"^(?:patches|patchesStrategicMerge|patchesJson6902|images)\s*:", re.M)
_SAFE_PATTERN = re.compile(r"[A-Za-z0-9._\-*^$|]*")
_LEGACY_PATCH = re.compile(r"ReplicaSpecs|runPolicy|(?<![\w.])kubeflow\.org/v1\b")
MAX_DEPTH = 4


def is_kustomization(name: str) -> bool:
    return Path(name).name in NAMES


def owner(name: str) -> Path | None:
    """The kustomization in ``name``'s folder that uses ``name`` as a patch file."""
    path = Path(name)
    if path.name in NAMES:
        return None
    found = _patch_names(str(path.parent))
    return found[0] if found is not None and path.name in found[1] else None


@functools.lru_cache(maxsize=256)
def _patch_names(folder: str) -> tuple[Path, frozenset[str]] | None:
    """A folder's kustomization and the patch files it names (read once per folder)."""
    for candidate in NAMES:
        kustomization = Path(folder) / candidate
        if kustomization.is_file():
            if not _mentions(kustomization, "patch"):  # cheap: most have no patch at all
                return kustomization, frozenset()
            root = _load(kustomization)
            if isinstance(root, dict):
                return kustomization, frozenset(_clean(p) for p, _ in _patch_files(root))
    return None


def _clean(entry: str) -> str:
    return str(Path(entry).as_posix()).removeprefix("./")


def _patch_files(root: Any) -> list[tuple[str, Any]]:
    """(file name, the entry naming it) of every patch kept in its own file."""
    found: list[tuple[str, Any]] = [
        (entry["path"], entry) for key in ("patches", "patchesJson6902")
        for entry in _list(root.get(key))
        if isinstance(entry, dict) and isinstance(entry.get("path"), str)]
    found += [(entry, None) for entry in _list(root.get("patchesStrategicMerge"))
              if isinstance(entry, str) and "\n" not in entry and ":" not in entry]
    return found


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(path: Path) -> str | None:
    """A regular file's text (never a FIFO or a device that would block), or None."""
    from migrator.load import sources

    try:
        regular = path.is_file()
    except OSError:
        return None
    read = sources.read(str(path)) if regular else None
    return read.text if isinstance(read, sources.SourceText) else None


def _mentions(path: Path, word: str) -> bool:
    text = _text(path)
    return text is not None and word in text


def _load(path: Path) -> Any:
    from migrator.load import yamlio

    text = _text(path)
    if text is None:
        return None
    try:
        return yamlio.load(text)
    except yamlio.DocumentError:
        return None


@dataclass
class Bases:
    """The legacy jobs a kustomization builds on, as plain objects."""

    jobs: list[dict[str, Any]] = field(default_factory=list)
    files: int = 0


def bases(folder: Path, root: Any, depth: int = 0, found: Bases | None = None) -> Bases:
    """The legacy jobs among ``root``'s resources (read from disk below ``folder``)."""
    from migrator.load import stream, yamlio

    found = found or Bases()
    if depth > MAX_DEPTH or not isinstance(root, dict):
        return found
    for entry in _list(root.get("resources")) + _list(root.get("bases")):
        if not isinstance(entry, str) or "://" in entry or entry.startswith("git@") \
                or found.files >= MAX_FILES:
            continue
        path = folder / entry
        if path.is_dir():
            inner = next((path / n for n in NAMES if (path / n).is_file()), None)
            if inner is not None:
                bases(path, _load(inner), depth + 1, found)
            continue
        found.files += 1
        text = _text(path)
        if text is None or "kubeflow.org" not in text:
            continue
        for chunk in stream.split(text):
            try:
                doc = yamlio.plain(yamlio.load(chunk.body)) if chunk.has_content else None
            except yamlio.DocumentError:
                continue
            if isinstance(doc, dict) and _is_legacy(doc):
                found.jobs.append(doc)
    return found


def _is_legacy(doc: dict[str, Any]) -> bool:
    return doc.get("kind") in kustomize.LEGACY_KINDS and "kubeflow.org" in str(
        doc.get("apiVersion", ""))


def converter(options: ConvertOptions) -> kustomize.Convert:
    """Legacy job (plain) -> its TrainJob (plain), or None when it does not convert."""
    from migrator.convert.text import convert_text
    from migrator.load import stream, yamlio

    cache: dict[str, Any] = {}

    def convert(job: Any) -> Any:
        text = json.dumps(job, sort_keys=True, default=str)
        if text not in cache:
            result = convert_text(text + "\n", options=options)
            trainjob = None
            if result.changed and not result.failed:
                for chunk in stream.split(result.text):
                    doc = yamlio.plain(yamlio.load(chunk.body)) if chunk.has_content else None
                    if isinstance(doc, dict) and doc.get("kind") == KIND:
                        trainjob = json.loads(json.dumps(doc, default=str))  # plain str
            cache[text] = trainjob
        return cache[text]

    return convert


def targets(target: Any, jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The legacy jobs a patch ``target`` selects (kind - None for any legacy kind -, and an
    optional name regex)."""
    if not isinstance(target, dict) or target.get("kind") not in {*kustomize.LEGACY_KINDS,
                                                                    None}:
        return []
    name = target.get("name")
    chosen = [j for j in jobs if target["kind"] in (None, j.get("kind"))]
    if isinstance(name, str):
        chosen = [j for j in chosen if _name_matches(name, (j.get("metadata") or {}).get(
            "name"))]
    return chosen


def _name_matches(pattern: str, name: Any) -> bool:
    """Kustomize matches a target name as a (linear-time, RE2) regex; Python's backtracks,
    so only patterns without groups or repetition other than ``*`` are used as regexes (a
    hostile pattern cannot hang the run), anything else is compared as text."""
    if not isinstance(name, str):
        return False
    if pattern == name or len(pattern) > 253 or not _SAFE_PATTERN.fullmatch(pattern):
        return pattern == name
    try:
        return bool(re.fullmatch(pattern, name))
    except re.error:
        return False


def translate(patch: Any, chosen: list[dict[str, Any]],
              convert: kustomize.Convert) -> kustomize.Translation:
    """One translation that holds for every selected base (JSON 6902 for a list, strategic
    merge for a mapping)."""
    results = []
    for base in chosen:
        if isinstance(patch, list):
            results.append(kustomize.translate_json6902(base, patch, convert))
        elif isinstance(patch, dict):
            results.append(kustomize.translate_strategic(base, patch, convert))
        else:
            return kustomize.Translation(problems=["the patch is neither a list of "
                                                   "operations nor an object"])
    if not results:
        return kustomize.Translation(problems=["no legacy base job matches this patch"])
    problems = [p for r in results for p in r.problems]
    if problems:
        return kustomize.Translation(problems=problems)
    if any((r.ops, r.partial) != (results[0].ops, results[0].partial) for r in results):
        return kustomize.Translation(problems=["the patch translates differently for the "
                                               "jobs it selects"])
    return results[0]


def render(translation: kustomize.Translation, as_json: bool = False) -> str:
    from migrator.load import yamlio

    value = translation.ops if translation.ops is not None else translation.partial
    if as_json:
        return json.dumps(value, indent=2) + "\n"
    return yamlio.dump(yamlio.from_plain(value), yamlio.Indent(2, 2, 0))


@dataclass
class _Run:
    folder: Path
    jobs: list[dict[str, Any]]
    convert: kustomize.Convert
    findings: list[Finding] = field(default_factory=list)
    changed: bool = False


def convert_kustomization(name: str, text: str, options: ConvertOptions | None = None,
                          render_output: bool = True) -> TextResult:
    """Translate the patches of a kustomization whose bases hold legacy jobs."""
    from migrator.load import yamlio
    from migrator.results import DocumentResult, TextResult

    options = options or ConvertOptions()
    if _ACTIVE.search(text) is None:  # no patch and no image: nothing to translate
        return TextResult(text)
    try:
        root = yamlio.load(text)
    except yamlio.DocumentError:
        return TextResult(text)
    if not isinstance(root, dict):
        return TextResult(text)
    folder = Path(name).parent
    run = _Run(folder, bases(folder, root).jobs, converter(options))
    for key in ("patches", "patchesJson6902"):
        for index, entry in enumerate(_list(root.get(key))):
            if isinstance(entry, dict):
                _targeted(run, entry, f"{key}[{index}]")
    merges = _list(root.get("patchesStrategicMerge"))
    for index, entry in enumerate(merges):
        if isinstance(entry, str):
            _strategic(run, merges, index)
    _images(run, root)
    if not run.findings:
        return TextResult(text)
    blocked = any(f.code == UNTRANSLATABLE for f in run.findings) and not options.allow_lossy
    status: Status = "failed" if blocked else "converted" if run.changed else "unchanged"
    out = text
    if status == "converted" and render_output:
        out = yamlio.dump(root, yamlio.detect_indent(text))
    source = {"apiVersion": root.get("apiVersion"), "kind": "Kustomization", "name": None}
    document = DocumentResult(0, 1, status, out, source=source, findings=run.findings,
                              output={"kind": "Kustomization (for the TrainJob)"})
    return TextResult(out, [document])


def _targeted(run: _Run, entry: Any, at: str) -> None:
    from ruamel.yaml.scalarstring import LiteralScalarString

    from migrator.load import yamlio

    target = entry.get("target")
    chosen = targets(target, run.jobs)
    line = notes_line(entry, "target")
    if not chosen:
        if isinstance(target, dict) and target.get("kind") in kustomize.LEGACY_KINDS:
            run.findings.append(notes.finding(
                UNTRANSLATABLE, f"{at}.target", "no legacy base job matches this patch's "
                "target (was the base already converted in place? convert the kustomization "
                "together with its bases, e.g. with -o)", line))
        return
    if isinstance(entry.get("patch"), str):
        try:
            patch = yamlio.plain(yamlio.load(entry["patch"]))
        except yamlio.DocumentError as exc:
            run.findings.append(notes.finding(UNTRANSLATABLE, f"{at}.patch", str(exc), line))
            return
    else:
        patch = _read_patch(run.folder / str(entry.get("path", "")))
    translation = translate(patch, chosen, run.convert)
    if translation.problems:
        run.findings += [notes.finding(UNTRANSLATABLE, f"{at}.patch", _problem(p), line)
                         for p in translation.problems]
        return
    if isinstance(entry.get("patch"), str):
        entry["patch"] = LiteralScalarString(render(translation).rstrip("\n"))
    target["group"], target["version"], target["kind"] = GROUP, VERSION, KIND
    run.changed = True
    run.findings.append(notes.finding(TRANSLATED, at, f"the patch now targets the TrainJob "
                                      f"({_summary(translation)})", line))


def _strategic(run: _Run, merges: list[Any], index: int) -> None:
    from ruamel.yaml.scalarstring import LiteralScalarString

    from migrator.load import yamlio

    entry = merges[index]
    if "\n" not in entry and ":" not in entry:
        return  # a patch file: translated (and reported) when that file is converted
    try:
        patch = yamlio.plain(yamlio.load(entry))
    except yamlio.DocumentError:
        return
    if not isinstance(patch, dict):
        return
    chosen = targets({"kind": patch.get("kind"), "name": (patch.get("metadata") or {}).get(
        "name")}, run.jobs)
    if not chosen:
        return
    at = f"patchesStrategicMerge[{index}]"
    translation = translate(patch, chosen, run.convert)
    if translation.problems:
        run.findings += [notes.finding(UNTRANSLATABLE, at, _problem(p))
                         for p in translation.problems]
        return
    merges[index] = LiteralScalarString(render(translation))
    run.changed = True
    run.findings.append(notes.finding(TRANSLATED, at, "the strategic-merge patch now patches "
                                      f"the TrainJob ({_summary(translation)})"))


def _images(run: _Run, root: Any) -> None:
    from migrator.load import yamlio

    images = _list(root.get("images"))
    if not images or not any(run.convert(job) is not None for job in run.jobs):
        return
    transformers = root.get("transformers")
    if transformers is None:
        transformers = yamlio.new_seq()
        root["transformers"] = transformers
    if not isinstance(transformers, list):
        return
    existing = "\n".join(str(t) for t in transformers)
    for index, image in enumerate(images):
        if not isinstance(image, dict) or not isinstance(image.get("name"), str):
            continue
        name = f"trainjob-image-{index}"
        if name in existing:
            continue
        tag = {k: image[k] for k in ("name", "newName", "newTag", "digest") if k in image}
        config = {"apiVersion": "builtin", "kind": "ImageTagTransformer",
                  "metadata": {"name": name}, "imageTag": tag,
                  "fieldSpecs": [{"path": "spec/trainer/image", "kind": KIND, "group": GROUP}]}
        from ruamel.yaml.scalarstring import LiteralScalarString

        transformers.append(LiteralScalarString(render(kustomize.Translation(
            partial=config)).rstrip("\n")))
        run.changed = True
        run.findings.append(notes.finding(
            TRANSLATED, f"images[{index}]", "kustomize's images: only edits containers; an "
            "ImageTagTransformer for the TrainJob's spec.trainer.image was added",
            notes_line(root, "images")))


def _read_patch(path: Path) -> Any:
    from migrator.load import yamlio

    text = _text(path)
    if text is None:
        return None
    try:
        return yamlio.plain(yamlio.load(text))
    except yamlio.DocumentError:
        return None


def _problem(problem: str) -> str:
    return problem if ": " in problem else f"{problem} has no TrainJob equivalent"


def _summary(translation: kustomize.Translation) -> str:
    if translation.ops is not None:
        return ", ".join(f"{op['op']} {op['path']}" for op in translation.ops) or "no change"
    return "partial TrainJob"


def notes_line(node: Any, key: str) -> int | None:
    from migrator.load import yamlio

    line, _ = yamlio.position(node, key)
    return line


def convert_patch_file(name: str, text: str, options: ConvertOptions | None = None,
                       render_output: bool = True) -> TextResult | None:
    """A patch file named by a sibling kustomization, rewritten for the TrainJob; None when
    ``name`` is not such a file."""
    from migrator.load import yamlio
    from migrator.results import DocumentResult, TextResult

    kustomization = owner(name)
    if kustomization is None:
        return None
    root = _load(kustomization)
    options = options or ConvertOptions()
    jobs = bases(kustomization.parent, root).jobs
    try:
        patch = yamlio.plain(yamlio.load(text))
    except yamlio.DocumentError:
        return None
    entry = next((e for p, e in _patch_files(root) if _clean(p) == Path(name).name), None)
    if isinstance(entry, dict):
        target = entry.get("target")
    elif isinstance(patch, dict):
        target = {"kind": patch.get("kind"), "name": (patch.get("metadata") or {}).get("name")}
    else:
        target = None
    if isinstance(target, dict) and target.get("kind") == KIND:
        # the kustomization was rewritten first in this run: its base is still legacy
        target = {"kind": None, "name": target.get("name")}
    chosen = targets(target, jobs)
    source = {"kind": "Patch", "name": None}
    if not chosen:
        if not (isinstance(target, dict) and target.get("kind") in {*kustomize.LEGACY_KINDS,
                                                                    KIND}
                and _LEGACY_PATCH.search(text)):
            return None
        finding = notes.finding(UNTRANSLATABLE, "", "this patch is written for a legacy job "
                                "but no legacy base job matches it (was the base already "
                                "converted in place? convert the overlay together with its "
                                "bases, e.g. with -o)", 1)
        return TextResult(text, [DocumentResult(0, 1, "failed", text, source=source,
                                                findings=[finding])])
    translation = translate(patch, chosen, converter(options))
    if translation.problems:
        findings = [notes.finding(UNTRANSLATABLE, "", _problem(p), 1)
                    for p in translation.problems]
        return TextResult(text, [DocumentResult(0, 1, "failed", text, source=source,
                                                findings=findings)])
    out = render(translation, as_json=text.lstrip().startswith(("[", "{")))
    finding = notes.finding(TRANSLATED, "", "the patch now applies to the TrainJob "
                            f"({_summary(translation)})", 1)
    out = out if render_output else text
    return TextResult(out, [DocumentResult(0, 1, "converted", out, source=source,
                                           findings=[finding],
                                           output={"kind": "Patch (for the TrainJob)"})])
