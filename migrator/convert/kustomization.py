"""CONVERT stage for Kustomize: a ``kustomization.yaml`` whose patches target a legacy job, and
the patch files it names, rewritten for the TrainJob the base job converts to.

The legacy bases are read from the kustomization's ``resources`` (files, and folders with a
kustomization, a few levels deep, never URLs); each patch is translated by ``kustomize``
(apply to the base, convert both, diff); when one cannot be translated alone, the patches
are judged together, in kustomize's order (``joint``). A patch's target becomes the TrainJob
(group/version/kind; the name is unchanged, so ``namePrefix``/``labels`` keep working).
``images:`` does not reach ``spec.trainer.image`` (kustomize only edits ``containers``),
so an inline ``ImageTagTransformer`` with that field spec is added for each image.

Paths a kustomization names (bases, patch files) are read only inside the repository:
relative paths whose real location (links resolved) lies below the git top-level of the
kustomization, or outside a git checkout below the folder the user named; anything else is
reported (E810, naming the path) and never opened. In a run (``begin_run``) an overlay is
converted whole or not at all: a patch is retargeted only when its patch file and its
legacy bases are converted in the same run, a patch file only with its kustomization.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from migrator.convert import kustomize
from migrator.convert import snippets as notes
from migrator.convert.filekinds import KUSTOMIZATIONS
from migrator.load import detect
from migrator.settings import ConvertOptions

if TYPE_CHECKING:
    from migrator.results import DocumentResult, Finding, Status, TextResult

NAMES = KUSTOMIZATIONS
TRANSLATED = "E809"
UNTRANSLATABLE = "E810"
HELD = "E811"
MAX_FILES = 200
_ACTIVE = re.compile(r"^(?:patches|patchesStrategicMerge|patchesJson6902|images)\s*:", re.M)
_SAFE_PATTERN = re.compile(r"[A-Za-z0-9._\-*^$|]*")
_LEGACY_PATCH = re.compile(r"ReplicaSpecs|runPolicy|(?<![\w.])kubeflow\.org/v1\b")
MAX_DEPTH = 4
_OUTSIDE = "is outside the repository (or the folder being converted); it was not read"
_NOT_IN_RUN = ("is part of this overlay but is not converted in this run; convert the whole "
               "folder (the kustomization with its patch files and bases) together")


@dataclass
class _Context:
    roots: tuple[Path, ...] = ()  # the folders the user named (real paths)
    files: frozenset[str] | None = None  # real paths of the files in this run
    found: Iterable[tuple[str, str]] | None = None  # the run's files, read when first asked
    holds: dict[str, Holds | None] = field(default_factory=dict)  # by repr(options)
    joints: dict[tuple[str, str], dict[str, _Step] | None] = field(
        default_factory=dict)  # (kustomization, repr(options)): ``_joint_of``


_CONTEXT = _Context()


def begin_run(paths: tuple[str, ...] | list[str], found: Iterable[tuple[str, str]]) -> None:
    """Remember the paths the user named and the files of this run (see the docstring).

    ``found`` (a list, or a walk that can be iterated again) is read only when a file's
    membership is first asked, so a run that converts no overlay never lists its files."""
    roots = []
    for named in paths:
        real = Path(os.path.realpath(named))
        roots.append(real if real.is_dir() else real.parent)
    global _CONTEXT
    _CONTEXT = _Context(tuple(roots), None, found)
    _patch_names.cache_clear()


def end_run() -> None:
    global _CONTEXT
    _CONTEXT = _Context()


def confinement(folder: Path) -> Path:
    """The folder a kustomization in ``folder`` may read below: its git top-level, else the
    outermost folder the user named that holds it, else ``folder`` itself."""
    real = Path(os.path.realpath(folder))
    for parent in (real, *real.parents):
        if os.path.lexists(parent / ".git"):
            return parent
    named = [r for r in _CONTEXT.roots if r == real or r in real.parents]
    return min(named, key=lambda r: len(r.parts)) if named else real


def resolve(folder: Path, entry: str, limit: Path | None = None) -> Path | None:
    """The real path of ``entry`` (relative to ``folder``) when it lies inside the
    repository, else None (absolute paths, ``~``, links or ``..`` leading out)."""
    if not entry or "\0" in entry or os.path.isabs(entry) or entry.startswith("~"):
        return None
    limit = limit or confinement(folder)
    try:
        real = Path(os.path.realpath(folder / entry))
    except (OSError, ValueError):
        return None
    return real if real == limit or limit in real.parents else None


def _in_run(path: Path) -> bool:
    """``path`` (a real path) is converted in this run (True outside a run)."""
    if _CONTEXT.files is None and _CONTEXT.found is not None:
        _CONTEXT.files = frozenset(os.path.realpath(n) for n, _ in _CONTEXT.found)
    return _CONTEXT.files is None or str(path) in _CONTEXT.files


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
    origins: list[tuple[str, int]] = field(default_factory=list)  # (real path, document)
    files: int = 0
    legacy_files: list[Path] = field(default_factory=list)  # real paths holding the jobs
    outside: list[str] = field(default_factory=list)  # entries not read (outside the repo)


def bases(folder: Path, root: Any, depth: int = 0, found: Bases | None = None,
          limit: Path | None = None) -> Bases:
    """The legacy jobs among ``root``'s resources (read from disk below ``folder``, inside
    the repository only: ``resolve``)."""
    from migrator.load import stream, yamlio

    found = found or Bases()
    limit = limit or confinement(folder)
    if depth > MAX_DEPTH or not isinstance(root, dict):
        return found
    for entry in _list(root.get("resources")) + _list(root.get("bases")):
        if not isinstance(entry, str) or "://" in entry or entry.startswith("git@") \
                or found.files >= MAX_FILES:
            continue
        path = resolve(folder, entry, limit)
        if path is None:
            found.outside.append(entry)
            continue
        if path.is_dir():
            inner = next((path / n for n in NAMES if (path / n).is_file()), None)
            if inner is not None:
                bases(path, _load(inner), depth + 1, found, limit)
            continue
        found.files += 1
        text = _text(path)
        if text is None or not detect.is_candidate(text):
            continue
        before = len(found.jobs)
        for index, chunk in enumerate(stream.split(text)):
            if not chunk.has_content or _other_kind(chunk.body):
                continue  # (a CustomResourceDefinition that names the kinds: no deep parse)
            try:
                doc = yamlio.plain(yamlio.load(chunk.body))
            except yamlio.DocumentError:
                continue
            if isinstance(doc, dict) and _is_legacy(doc):
                found.jobs.append(doc)
                found.origins.append((str(path), index))
        if len(found.jobs) > before:
            found.legacy_files.append(path)
    return found


_TOP_KIND = re.compile(r"^kind[ \t]*:(?P<value>.*)$", re.M)
_PLAIN_KIND = re.compile(r"[ \t]*([\"']?)(?P<kind>[A-Za-z][A-Za-z0-9]*)\1[ \t]*(?:#.*)?")


def _other_kind(body: str) -> bool:
    """The document is a block mapping whose top-level ``kind`` (its one line starting with
    ``kind:``) is a plain name other than a legacy kind: it is not a legacy job, and is not
    parsed (a 650 KB CustomResourceDefinition costs seconds to round-trip parse). A document
    written otherwise (flow style, indented, a tagged or anchored kind) is parsed."""
    lines = _TOP_KIND.findall(body)
    if len(lines) != 1:
        return False
    value = _PLAIN_KIND.fullmatch(lines[0])
    return value is not None and value.group("kind") not in detect.legacy_kinds()


def _mentions_legacy(text: str) -> bool:
    """The text names a Kubeflow group or a legacy kind (mappings/kinds.yaml)."""
    return detect.is_candidate(text) or any(kind in text for kind in detect.legacy_kinds())


def _is_legacy(doc: dict[str, Any]) -> bool:
    return doc.get("kind") in detect.legacy_kinds() and detect.is_candidate(
        str(doc.get("apiVersion", "")))


@dataclass(frozen=True)
class TrainJobType:
    """The group, version and kind of the TrainJob the target writes (mappings/targets/)."""

    group: str
    version: str
    kind: str

    @classmethod
    def of(cls, options: ConvertOptions) -> TrainJobType:
        from migrator.knowledge import catalog

        target = catalog.load().target(options.target)
        group, _, version = target.api_version.rpartition("/")
        return cls(group, version, target.kind)


def converter(options: ConvertOptions) -> kustomize.Convert:
    """Legacy job (plain) -> its TrainJob (plain), or None when it does not convert."""
    from migrator.convert.text import convert_text
    from migrator.load import stream, yamlio

    cache: dict[str, Any] = {}
    kind = TrainJobType.of(options).kind

    def convert(job: Any) -> Any:
        text = json.dumps(job, sort_keys=True, default=str)
        if text not in cache:
            result = convert_text(text + "\n", options=options)
            trainjob = None
            if result.changed and not result.failed:
                for chunk in stream.split(result.text):
                    doc = yamlio.plain(yamlio.load(chunk.body)) if chunk.has_content else None
                    if isinstance(doc, dict) and doc.get("kind") == kind:
                        trainjob = json.loads(json.dumps(doc, default=str))  # plain str
            cache[text] = trainjob
        return cache[text]

    return convert


def targets(target: Any, jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The legacy jobs a patch ``target`` selects (kind - None for any legacy kind -, and an
    optional name regex)."""
    if not isinstance(target, dict) or target.get("kind") not in {*detect.legacy_kinds(),
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


# Patches judged together: kustomize applies an overlay's patches one after the other
# (patchesStrategicMerge, then patches, then patchesJson6902: ``configureBuiltinTransformers``;
# namePrefix, labels and annotations come between, and do not change what a patch selects).
# Two patches may only convert together (one patches Master, the next Worker the same way:
# in between the roles differ). When judging each patch alone against the base fails, the
# patches are applied in that order and the job converted after each; a patch after which the
# job does not convert changes nothing on the TrainJob (a JSON ``test`` of the kind, or an
# empty partial TrainJob), and the next patch after which it converts makes its change too.
# Applied in order to the converted base, the translated patches give the conversion of the
# built overlay.


@dataclass(frozen=True)
class _Step:
    """A patch's translation when the overlay's patches are judged together (``joint``)."""

    translation: kustomize.Translation
    carries: tuple[str, ...] = ()  # the earlier patches whose change this one makes
    deferred: bool = False  # the job does not convert after it: a later patch makes its change


@dataclass(frozen=True)
class _Entry:
    at: str  # e.g. patches[1]
    patch: Any
    target: Any
    file: Path | None  # the patch file (real path), or None for an inline patch


ORDER = ("patchesStrategicMerge", "patches", "patchesJson6902")


def _entries(folder: Path, root: Any, limit: Path | None) -> list[_Entry] | None:
    """Every patch of the kustomization in the order kustomize applies them, or None when one
    cannot be read (then the patches are not judged together)."""
    from migrator.load import yamlio

    found: list[_Entry] = []
    for key in ORDER:
        for index, entry in enumerate(_list(root.get(key))):
            at = f"{key}[{index}]"
            inline = entry.get("patch") if isinstance(entry, dict) else entry
            named = entry.get("path") if isinstance(entry, dict) else None
            if key == "patchesStrategicMerge" and isinstance(entry, str) \
                    and "\n" not in entry and ":" not in entry:
                inline, named = None, entry
            file = None
            if isinstance(inline, str):
                try:
                    patch = yamlio.plain(yamlio.load(inline))
                except yamlio.DocumentError:
                    return None
            elif isinstance(named, str):
                file = resolve(folder, named, limit)
                patch = _read_patch(file) if file is not None else None
                if patch is None:
                    return None
            else:
                return None
            if isinstance(entry, dict):
                target = entry.get("target")
            elif isinstance(patch, dict):
                target = {"kind": patch.get("kind"),
                          "name": (patch.get("metadata") or {}).get("name")}
            else:
                return None
            found.append(_Entry(at, patch, target, file))
    return found


def joint(entries: list[_Entry], jobs: list[dict[str, Any]], convert: kustomize.Convert,
          trainjob: TrainJobType) -> dict[str, _Step] | None:
    """Each patch's translation with the overlay's patches applied together (see above), or
    None when the built overlay does not convert either (or a patch's change is lost, or a
    patch translates differently for the jobs it selects)."""
    steps: dict[str, list[_Step]] = {}
    for job in jobs:
        state, done = job, convert(job)
        if done is None:
            return None
        settled, pending = state, []  # the last state that converted; patches since then
        for entry in entries:
            if not targets(entry.target, [job]):
                continue
            try:
                if isinstance(entry.patch, list):
                    state = kustomize.apply_json6902(state, entry.patch)
                elif isinstance(entry.patch, dict):
                    state = kustomize.apply_strategic(state, entry.patch)
                else:
                    return None
            except kustomize.PatchError:
                return None
            now = convert(state)
            if now is None:
                steps.setdefault(entry.at, []).append(
                    _Step(_unchanged(entry.patch, done, trainjob), deferred=True))
                pending.append(entry.at)
                continue
            if now == done and state != settled:
                return None  # the change does not survive conversion: judged alone instead
            if now == done:
                translation = _unchanged(entry.patch, now, trainjob)
            elif isinstance(entry.patch, list):
                translation = kustomize.Translation(ops=kustomize.diff(done, now))
            else:
                translation = kustomize.Translation(
                    partial=kustomize.apply_strategic(_unchanged(entry.patch, now, trainjob)
                                                      .partial, kustomize.merge_patch(done, now)))
            steps.setdefault(entry.at, []).append(_Step(translation, tuple(pending)))
            settled, done, pending = state, now, []
        if pending:
            return None  # the built overlay does not convert
    joined: dict[str, _Step] = {}
    for at, found in steps.items():
        if any(step != found[0] for step in found):
            return None
        joined[at] = found[0]
    return joined


def _unchanged(patch: Any, trainjob: dict[str, Any],
               output: TrainJobType) -> kustomize.Translation:
    """A patch that changes nothing on the TrainJob (kustomize refuses an empty JSON patch)."""
    if isinstance(patch, list):
        return kustomize.Translation(ops=[{"op": "test", "path": "/kind",
                                           "value": output.kind}])
    return kustomize.Translation(partial={
        "apiVersion": trainjob.get("apiVersion"), "kind": trainjob.get("kind"),
        "metadata": {"name": (trainjob.get("metadata") or {}).get("name")}})


def _joint_of(kustomization: Path, root: Any, jobs: list[dict[str, Any]],
              options: ConvertOptions, limit: Path | None = None) -> dict[str, _Step] | None:
    """``joint`` for a kustomization, remembered for the run (a kustomization rewritten in
    place is no longer legacy: its patch files are judged with what it was)."""
    key = (os.path.realpath(kustomization), repr(options))
    if key in _CONTEXT.joints:
        return _CONTEXT.joints[key]
    limit = limit or confinement(kustomization.parent)
    entries = _entries(kustomization.parent, root, limit)
    output = TrainJobType.of(options)
    if entries is None or not jobs or any(isinstance(e.target, dict) and e.target.get(
            "kind") == output.kind for e in entries):
        return None  # (retargeted already: what it was is not known)
    found = joint(entries, jobs, converter(options), output)
    if _CONTEXT.found is not None:
        _CONTEXT.joints[key] = found
    return found


def _joint_at(folder: Path, root: Any, file: Path, limit: Path | None) -> str | None:
    """Where the kustomization names the patch file ``file`` (a real path)."""
    entries = _entries(folder, root, limit)
    return next((e.at for e in entries or [] if e.file == file), None)


def _joint_note(joined: dict[str, _Step], at: str, step: _Step) -> str:
    """What an E809 adds for a patch judged together with the others."""
    if step.deferred:
        later = next((other for other, s in joined.items() if at in s.carries), "a later patch")
        return (f"it changes nothing there: the job does not convert after this patch alone "
                f"(the roles differ), so {later}, after which it converts, makes its change")
    if step.carries:
        return (f"it also makes the change of {', '.join(step.carries)}, after which the job "
                "does not convert alone")
    return "the overlay's patches judged together"


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
    trainjob: TrainJobType
    findings: list[Finding] = field(default_factory=list)
    changed: bool = False
    limit: Path | None = None
    joint: dict[str, _Step] | None = None  # the patches judged together (``joint``)
    untranslated: bool = False  # a patch judged alone could not be translated

    def translation(self, at: str, patch: Any,
                    chosen: list[dict[str, Any]]) -> tuple[kustomize.Translation, str]:
        """The patch's translation, and what its E809 adds (judged together, or alone)."""
        if self.joint is not None and at in self.joint:
            step = self.joint[at]
            return step.translation, f"; {_joint_note(self.joint, at, step)}"
        translation = translate(patch, chosen, self.convert)
        self.untranslated = self.untranslated or bool(translation.problems)
        return translation, ""


def convert_kustomization(name: str, text: str, options: ConvertOptions | None = None,
                          render_output: bool = True, shared: bool = True) -> TextResult:
    """Translate the patches of a kustomization whose bases hold legacy jobs. In a run (and
    with ``shared``) an overlay is not retargeted when a legacy job it patches is held back
    because another overlay of the run that patches it cannot be converted (``holds``).
    The patches are judged one at a time; when one cannot be translated so, they are judged
    together (``joint``): what counts is whether the built overlay converts."""
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
    limit = confinement(folder)
    found = bases(folder, root, limit=limit)
    run = _pass(name, text, root, found, options, shared, None)
    if run.untranslated and run.jobs:
        root = yamlio.load(text)  # (the first pass rewrote what it could)
        joined = _joint_of(Path(name), yamlio.plain(root), found.jobs, options, limit)
        run = _pass(name, text, root, found, options, shared, joined)
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


def _pass(name: str, text: str, root: Any, found: Bases, options: ConvertOptions,
          shared: bool, joined: dict[str, _Step] | None) -> _Run:
    """One translation of the kustomization's patches (``root`` is rewritten in place)."""
    folder = Path(name).parent
    limit = confinement(folder)
    run = _Run(folder, found.jobs, converter(options), TrainJobType.of(options), limit=limit,
               joint=joined)
    if found.outside and _mentions_legacy(text):
        run.findings += [notes.finding(UNTRANSLATABLE, "resources", f"the base {entry!r} "
                                       f"{_OUTSIDE}", notes_line(root, "resources"))
                         for entry in dict.fromkeys(found.outside)]
    left = [p for p in found.legacy_files if not _in_run(p)]
    if left:
        run.findings += [notes.finding(UNTRANSLATABLE, "resources", "the legacy base "
                                       f"{_shown(p, limit)!r} {_NOT_IN_RUN}",
                                       notes_line(root, "resources")) for p in left]
        run.jobs = []  # nothing is retargeted: the base stays a legacy job
    blockers = _held_by_others(name, options) if shared and found.jobs else []
    if blockers:
        run.findings += [notes.finding(UNTRANSLATABLE, "resources", "a legacy base job it "
                                       f"patches is also patched by the overlay {other!r}, "
                                       "which cannot be converted: the base stays a legacy "
                                       "job, so this overlay is not converted either",
                                       notes_line(root, "resources")) for other in blockers]
        run.jobs = []
    for key in ("patches", "patchesJson6902"):
        for index, entry in enumerate(_list(root.get(key))):
            if isinstance(entry, dict):
                _targeted(run, entry, f"{key}[{index}]")
    merges = _list(root.get("patchesStrategicMerge"))
    for index, entry in enumerate(merges):
        if isinstance(entry, str):
            _strategic(run, merges, index)
    _images(run, root)
    return run


def _targeted(run: _Run, entry: Any, at: str) -> None:
    from ruamel.yaml.scalarstring import LiteralScalarString

    from migrator.load import yamlio

    target = entry.get("target")
    chosen = targets(target, run.jobs)
    line = notes_line(entry, "target")
    if not chosen and not run.jobs and any(f.path == "resources" for f in run.findings):
        return  # its bases are reported above
    if not chosen:
        if isinstance(target, dict) and target.get("kind") in detect.legacy_kinds():
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
        patch_file = None
    else:
        named = str(entry.get("path", ""))
        patch_file = resolve(run.folder, named, run.limit)
        if patch_file is None:
            run.findings.append(notes.finding(UNTRANSLATABLE, f"{at}.path", f"the patch file "
                                              f"{named!r} {_OUTSIDE}", line))
            return
        patch = _read_patch(patch_file)
    translation, note = run.translation(at, patch, chosen)
    if translation.problems:
        run.findings += [notes.finding(UNTRANSLATABLE, f"{at}.patch", _problem(p), line)
                         for p in translation.problems]
        return
    if patch_file is not None and not _in_run(patch_file) and not (
            isinstance(patch, list) and translation.ops == patch):
        run.findings.append(notes.finding(UNTRANSLATABLE, f"{at}.path", "the patch file "
                                          f"{entry.get('path')!r} {_NOT_IN_RUN}", line))
        return
    if isinstance(entry.get("patch"), str):
        entry["patch"] = LiteralScalarString(render(translation).rstrip("\n"))
    output = run.trainjob
    target["group"], target["version"], target["kind"] = output.group, output.version, output.kind
    run.changed = True
    run.findings.append(notes.finding(TRANSLATED, at, f"the patch now targets the TrainJob "
                                      f"({_summary(translation)}{note})", line))


def _strategic(run: _Run, merges: list[Any], index: int) -> None:
    from ruamel.yaml.scalarstring import LiteralScalarString

    from migrator.load import yamlio

    entry = merges[index]
    if "\n" not in entry and ":" not in entry:
        _strategic_file(run, entry, index)  # translated when that file is converted
        return
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
    translation, note = run.translation(at, patch, chosen)
    if translation.problems:
        run.findings += [notes.finding(UNTRANSLATABLE, at, _problem(p))
                         for p in translation.problems]
        return
    merges[index] = LiteralScalarString(render(translation))
    run.changed = True
    run.findings.append(notes.finding(TRANSLATED, at, "the strategic-merge patch now patches "
                                      f"the TrainJob ({_summary(translation)}{note})"))


def _strategic_file(run: _Run, entry: str, index: int) -> None:
    """A strategic-merge patch file: reported when it is outside the repository, or legacy
    and left out of this run while its kustomization is converted."""
    at = f"patchesStrategicMerge[{index}]"
    path = resolve(run.folder, entry, run.limit)
    if path is None:
        run.findings.append(notes.finding(UNTRANSLATABLE, at, f"the patch file {entry!r} "
                                          f"{_OUTSIDE}"))
        return
    if _in_run(path) or not run.jobs:
        return
    text = _text(path)
    if text is not None and (_LEGACY_PATCH.search(text) or _mentions_legacy(text)):
        run.findings.append(notes.finding(UNTRANSLATABLE, at, f"the patch file {entry!r} "
                                          f"{_NOT_IN_RUN}"))


def _shown(path: Path, limit: Path | None) -> str:
    """``path`` relative to the repository (never an absolute path of the machine)."""
    try:
        return path.relative_to(limit).as_posix() if limit else path.name
    except ValueError:
        return path.name


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
                  "fieldSpecs": [{"path": "spec/trainer/image", "kind": run.trainjob.kind,
                                  "group": run.trainjob.group}]}
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


def _overlay_blocked(kustomization: Path, found: Bases,
                     options: ConvertOptions) -> str | None:
    """Why the kustomization that names a patch file is not retargeted with it in this run
    (then the patch file must stay as it is too), or None."""
    real = Path(os.path.realpath(kustomization))
    if not _in_run(real):
        return f"its kustomization {kustomization.name!r} {_NOT_IN_RUN}"
    if any(not _in_run(p) for p in found.legacy_files):
        return f"a legacy base of its kustomization {_NOT_IN_RUN}"
    text = _text(kustomization)
    verdict = convert_kustomization(str(kustomization), text, options, False) \
        if text is not None else None
    if verdict is not None and verdict.failed:
        return "its kustomization cannot be converted (see its findings)"
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
    found = bases(kustomization.parent, root)
    jobs = found.jobs
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
    trainjob = TrainJobType.of(options).kind
    if isinstance(target, dict) and target.get("kind") == trainjob:
        # the kustomization was rewritten first in this run: its base is still legacy
        target = {"kind": None, "name": target.get("name")}
    chosen = targets(target, jobs)
    source = {"kind": "Patch", "name": None}
    if not chosen:
        if not (isinstance(target, dict) and target.get("kind") in {*detect.legacy_kinds(),
                                                                    trainjob}
                and _LEGACY_PATCH.search(text)):
            return None
        finding = notes.finding(UNTRANSLATABLE, "", "this patch is written for a legacy job "
                                "but no legacy base job matches it (was the base already "
                                "converted in place? convert the overlay together with its "
                                "bases, e.g. with -o)", 1)
        return TextResult(text, [DocumentResult(0, 1, "failed", text, source=source,
                                                findings=[finding])])
    translation = translate(patch, chosen, converter(options))
    note = ""
    if translation.problems:  # judged with the overlay's other patches (``joint``)
        real = Path(os.path.realpath(name))
        joined = _joint_of(kustomization, root, jobs, options)
        at = _joint_at(kustomization.parent, root, real, None) if joined else None
        if joined is not None and at is not None and at in joined:
            translation = joined[at].translation
            note = f"; {_joint_note(joined, at, joined[at])}"
    if translation.problems:
        findings = [notes.finding(UNTRANSLATABLE, "", _problem(p), 1)
                    for p in translation.problems]
        return TextResult(text, [DocumentResult(0, 1, "failed", text, source=source,
                                                findings=findings)])
    reason = _overlay_blocked(kustomization, found, options) if isinstance(entry, dict) \
        else None
    if reason is not None:
        finding = notes.finding(UNTRANSLATABLE, "", f"this patch file is not rewritten: "
                                f"{reason}", 1)
        return TextResult(text, [DocumentResult(0, 1, "failed", text, source=source,
                                                findings=[finding])])
    out = render(translation, as_json=text.lstrip().startswith(("[", "{")))
    finding = notes.finding(TRANSLATED, "", "the patch now applies to the TrainJob "
                            f"({_summary(translation)}{note})", 1)
    out = out if render_output else text
    return TextResult(out, [DocumentResult(0, 1, "converted", out, source=source,
                                           findings=[finding],
                                           output={"kind": "Patch (for the TrainJob)"})])


# An overlay converts whole or not at all, and its legacy bases follow it: a legacy job that an
# overlay of the run patches is not converted while that overlay cannot be (kustomize selects a
# patch's target by kind: the overlay would still build, without its patches), and an overlay
# that patches such a held job is not retargeted either.


@dataclass
class _Overlay:
    shown: str  # the kustomization, as findings name it
    real: str
    patched: frozenset[tuple[str, int]]  # the legacy jobs its patches select (``origins``)
    failed: bool


@dataclass
class Holds:
    """What the run's overlays hold back (``holds``)."""

    jobs: dict[tuple[str, int], list[str]] = field(default_factory=dict)  # -> overlays
    blocked: dict[str, list[str]] = field(default_factory=dict)  # overlay -> overlays
    bases: frozenset[str] = frozenset()  # every legacy base file an overlay patches


def holds(options: ConvertOptions) -> Holds | None:
    """The legacy jobs held back by the overlays of this run (None outside a run, and while
    they are being worked out). Worked out once per run, process and options, before any
    overlay is written (a run that writes converts kustomizations first: ``kustomize_first``);
    an overlay written since then no longer targets a legacy job and holds nothing."""
    if _CONTEXT.found is None:
        return None
    key = repr(options)
    if key not in _CONTEXT.holds:
        _CONTEXT.holds[key] = None  # being worked out: the overlays are judged on their own
        _CONTEXT.holds[key] = _work_out(options)
    return _CONTEXT.holds[key]


def _work_out(options: ConvertOptions) -> Holds:
    assert _CONTEXT.found is not None
    overlays = [o for o in (_overlay(name, options) for name, _ in _CONTEXT.found
                            if os.path.basename(name) in NAMES) if o is not None]
    failing = {o.real for o in overlays if o.failed}
    while True:  # an overlay that patches a held job is held too, and so are its other jobs
        held = {job for o in overlays if o.real in failing for job in o.patched}
        more = {o.real for o in overlays if o.real not in failing and o.patched & held}
        if not more:
            break
        failing |= more
    jobs = {job: sorted({o.shown for o in overlays if o.real in failing and job in o.patched})
            for job in held}
    blocked = {o.real: sorted({other.shown for other in overlays if other.failed
                               and other.real != o.real and other.patched & o.patched})
               for o in overlays if o.real in failing and not o.failed}
    return Holds(jobs, blocked, frozenset(path for o in overlays for path, _ in o.patched))


def _overlay(name: str, options: ConvertOptions) -> _Overlay | None:
    """A kustomization of the run that patches legacy jobs, judged on its own."""
    from migrator.load import yamlio

    path = Path(name)
    text = _text(path)
    if text is None or _ACTIVE.search(text) is None:
        return None
    try:
        root = yamlio.load(text)
    except yamlio.DocumentError:
        return None
    if not isinstance(root, dict):
        return None
    limit = confinement(path.parent)
    found = bases(path.parent, root, limit=limit)
    patched = _patched(path.parent, root, found, limit)
    if not patched:
        return None
    result = convert_kustomization(name, text, options, False, shared=False)
    failed = result.failed or any(_patch_file_fails(p, options)
                                  for p in _merge_files(path.parent, root, limit))
    real = os.path.realpath(name)
    return _Overlay(_shown(Path(real), limit), real, frozenset(patched), failed)


def _patched(folder: Path, root: Any, found: Bases, limit: Path) -> set[tuple[str, int]]:
    """The legacy jobs of ``found`` that the kustomization's patches (or ``images:``) select;
    a patch that cannot be read, or whose target cannot be told, selects them all."""
    every = set(found.origins)
    entries = _entries(folder, root, limit)
    if _list(root.get("images")) or entries is None:
        return every
    origin = {id(job): where for job, where in zip(found.jobs, found.origins, strict=True)}
    chosen: set[tuple[str, int]] = set()
    for entry in entries:
        target = entry.target
        if target is None and isinstance(entry.patch, dict):  # a strategic-merge patch
            target = {"kind": entry.patch.get("kind"),  # names what it patches
                      "name": (entry.patch.get("metadata") or {}).get("name")}
        if not isinstance(target, dict) or target.get("kind") is None:
            return every
        chosen.update(origin[id(job)] for job in targets(target, found.jobs))
    return chosen


def _merge_files(folder: Path, root: Any, limit: Path) -> list[Path]:
    """The strategic-merge patch files (inside the repository) a kustomization names."""
    found = []
    for entry in _list(root.get("patchesStrategicMerge")):
        if isinstance(entry, str) and "\n" not in entry and ":" not in entry:
            path = resolve(folder, entry, limit)
            if path is not None:
                found.append(path)
    return found


def _patch_file_fails(path: Path, options: ConvertOptions) -> bool:
    text = _text(path)
    result = convert_patch_file(str(path), text, options, False) if text is not None else None
    return result is not None and result.failed


def _held_by_others(name: str, options: ConvertOptions) -> list[str]:
    """The overlays of the run that hold back a legacy job this kustomization patches."""
    found = holds(options)
    return found.blocked.get(os.path.realpath(name), []) if found is not None else []


def hold_bases(name: str, text: str, result: TextResult, options: ConvertOptions) -> TextResult:
    """``result`` (the conversion of the YAML stream ``text`` read from ``name``) with the
    legacy jobs that an overlay of the run holds back left as they are (an E811 each)."""
    found = holds(options)
    real = os.path.realpath(name)
    if found is None or real not in found.bases:
        return result
    held = {index: shown for (path, index), shown in found.jobs.items() if path == real}
    if not held:
        return result
    from migrator.load import stream
    from migrator.results import TextResult

    chunks = stream.split(text)
    if len(chunks) != len(result.documents) or any(
            d.index != i for i, d in enumerate(result.documents)):
        # (a templated stream, converted as a whole) the whole file stays as it is
        every = sorted({o for shown in held.values() for o in shown})
        return TextResult(text, [_held(d, d.text, every) for d in result.documents])
    documents = [_held(d, chunks[d.index].text, held.get(d.index, []))
                 for d in result.documents]
    return TextResult("".join(d.text for d in documents), documents)


def _held(document: DocumentResult, original: str, overlays: list[str]) -> DocumentResult:
    """``document`` left unconverted (``original``) for the overlays that hold it back."""
    if not overlays or not document.changed:
        return document
    from migrator.results import DocumentResult

    plural = len(overlays) > 1
    names = ("overlays " if plural else "overlay ") + ", ".join(map(repr, overlays))
    finding = notes.finding(HELD, "", f"not converted: the Kustomize {names} "
                            f"patch{'' if plural else 'es'} this job and cannot be converted; "
                            "converting the job alone would silently drop the overlay's "
                            "patches (they select the legacy kind)", document.line)
    return DocumentResult(document.index, document.line, "failed", original,
                          source=document.source, findings=[finding, *document.findings],
                          reportable=document.reportable)
