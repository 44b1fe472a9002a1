"""BATCH stage: a private per-user cache of check and validate results, so that a repeated run
over a mostly unchanged tree reads (and converts) only the files that changed.

Like ruff's cache: one JSON entry per run configuration (format, tool version, the code and
mapping data it runs, the versions of ruamel.yaml and pydantic, the options and the files
they name, the mode, the working directory), holding per file the stat it had when it was
processed and its slim result (statuses and findings, never file contents). Files whose
result depends on another file (those beside a kustomization) are not cached. JSON data only,
decoded into plain result values: nothing in the cache can run code. It lives in the private
per-user folder of ``knowledge.cache`` (0700, refused when another user could write it).

Choice: a file is unchanged when its (size, mtime_ns, ctime_ns, inode, device) are the ones
recorded; its content is not hashed (a warm run then reads nothing but the cache). Writing a
file always updates its ctime, which no tool can set back. A file changed within
``RACY_SECONDS`` of being processed is not recorded (its timestamps may not tell a second
change apart: "racily clean" in git's terms), so it is processed again next time. Results are
identical with and without the cache (a test holds the corpus to it); ``--no-cache`` or
``TRAINJOB_MIGRATE_NO_CACHE=1`` turns it off.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from migrator.batch import helm
from migrator.convert import filekinds, routing
from migrator.load import sources
from migrator.results import DocumentResult, FileResult, Finding, Severity, TextResult
from migrator.settings import ConvertOptions

FORMAT = 3
RACY_SECONDS = 2  # a file changed this recently may change again unseen within its mtime
MAX_ENTRIES = 1_000_000  # files per entry; beyond this, files not seen in a run are dropped
STALE_DAYS = 30  # entries of other configurations unused this long are removed
# a file's stamp, "size mtime_ns ctime_ns-mtime_ns inode device" (one string: a JSON entry of
# thousands of files then parses several times faster than one of integer lists; the ctime
# as its distance from the mtime, mostly 0, keeps the entry small)
Stamp = str
KUSTOMIZATIONS = filekinds.KUSTOMIZATIONS
_SEVERITIES = {severity.value: severity for severity in Severity}  # faster than Severity(x)
# a file's place: its folder's absolute path and whether its files are cached (not beside a
# kustomization), remembered per folder as the run names it
Place = tuple[str, bool]
# what a run plans for a file: name, relative, folder (absolute), base name, stamp (None:
# not recorded) and the cached result (None: processed)
Planned = tuple[str, str, str | None, str, Stamp | None, FileResult | tuple[int, bool] | None]


class ResultCache:
    """The cached results of one run configuration (one JSON entry).

    ``folders`` maps a folder's absolute path to its files' records, by base name:
    ``"<stamp> <documents scanned> <changed 0/1>"`` when a file's result holds no document
    (most files of a repository), else ``[stamp, payload]`` (``_encode``)."""

    def __init__(self, folder: Path, name: str, folders: dict[str, Any]) -> None:
        self.folder, self.name, self.folders = folder, name, folders
        self.dirty = False
        self.hits = 0

    def record_of(self, path: str) -> Any:
        """The record of the file at absolute ``path`` (None when there is none)."""
        folder, base = routing.split(path)
        records = self.folders.get(folder)
        return records.get(base) if isinstance(records, dict) else None

    def through(self, found: Iterable[tuple[str, str]],
                process: Callable[[Iterable[tuple[str, str]]], Iterator[FileResult]]
                ) -> Iterator[FileResult]:
        """The results of ``found`` in order: cached ones for unchanged files, ``process``
        (called once, with the other files in order) for the rest, which are recorded.

        ``found`` is iterated as the run goes (a walk streams through): a file is stamped
        when ``process`` or the caller reaches it, so memory holds only the files between
        the two (``process``'s read-ahead), not the tree. A file met while nothing waits
        for ``process`` is stamped and, when unchanged, yielded at once."""
        source = iter(found)
        plan: deque[Planned] = deque()
        to_process: deque[tuple[str, str]] = deque()
        places: dict[str, Place] = {}
        tails: dict[str, tuple[int, bool]] = {}
        # the files handed to ``process`` whose results have not come back, by name: their
        # folder (absolute), base name and stamp
        waiting: dict[str, tuple[str | None, str, Stamp | None]] = {}
        folders = self.folders
        seen = 0
        racy = time.time_ns() - RACY_SECONDS * 10**9

        def look(name: str, relative: str) -> Planned:
            """Stamp a file and look it up."""
            if name == sources.STDIN or name.startswith(helm.PREFIX):
                return name, relative, None, name, None, None
            folder, base = routing.split(name)
            if base in ("", ".", ".."):
                return name, relative, None, base, None, None  # not a file name: never cached
            place = places.get(folder)
            if place is None:
                place = places[folder] = (os.path.abspath(folder or os.curdir),
                                          not routing.beside_kustomization(folder))
            absolute, cached = place
            if not cached:
                return name, relative, absolute, base, None, None
            try:
                info = os.stat(name)
            except (OSError, ValueError):
                return name, relative, absolute, base, None, None
            if not stat.S_ISREG(info.st_mode):
                return name, relative, absolute, base, None, None
            mtime, ctime = info.st_mtime_ns, info.st_ctime_ns
            stamp = f"{info.st_size} {mtime} {ctime - mtime} {info.st_ino} {info.st_dev}"
            records = folders.get(absolute)
            entry = records.get(base) if type(records) is dict else None
            if type(entry) is str:
                size = len(stamp)
                if entry[size:size + 1] == " " and entry.startswith(stamp):
                    tail = entry[size + 1:]
                    hit = tails.get(tail) or _tail(tail, tails)
                    if hit is not None:
                        return name, relative, absolute, base, stamp, hit
            elif entry is not None:
                found_hit = _hit(name, relative, entry, stamp)
                if found_hit is not None:
                    return name, relative, absolute, base, stamp, found_hit
            if max(mtime, ctime) >= racy:  # changed just before (or during) the run
                return name, relative, absolute, base, None, None  # ("racily clean"): not
                # recorded
            return name, relative, absolute, base, stamp, None

        def advance() -> bool:
            """Stamp the next file of ``found`` into ``plan`` (and ``to_process`` when it is
            not cached); False at the end."""
            nonlocal seen
            item = next(source, None)
            if item is None:
                return False
            seen += 1
            planned = look(*item)
            if planned[5] is None:
                to_process.append(item)
                waiting[item[0]] = planned[2:5]
            plan.append(planned)
            return True

        def misses() -> Iterator[tuple[str, str]]:
            while to_process or advance():
                if to_process:
                    yield to_process.popleft()

        fresh = process(misses())
        hits = 0
        while True:
            if plan:
                name, relative, absolute, base, stamp, hit = plan.popleft()
            else:  # nothing read ahead: stamp the next file here
                item = next(source, None)
                if item is None:
                    break
                seen += 1
                name, relative, absolute, base, stamp, hit = look(*item)
                if hit is None:
                    to_process.append(item)
                    waiting[name] = absolute, base, stamp
            if hit is not None:
                hits += 1
                yield hit if isinstance(hit, FileResult) else \
                    FileResult(name, relative, None, None, TextResult(""), hit[0], hit[1])
                continue
            result = next(fresh)
            # recorded under its own file's stamp, never under another's (a ``process`` that
            # broke the order would otherwise plant one file's result under another's name)
            absolute, base, stamp = waiting.pop(result.name, (None, "", None))
            if absolute is not None:
                if stamp is not None:
                    self._record(absolute, base, stamp, result)
                else:
                    self._forget(absolute, base)
            yield result
        for absolute, base, _ in waiting.values():  # processed, no result under its name
            if absolute is not None:
                self._forget(absolute, base)
        self.hits += hits
        self.save(seen)

    def _record(self, folder: str, base: str, stamp: Stamp, result: FileResult) -> None:
        payload = _encode(result)
        if payload is None:
            self._forget(folder, base)
            return
        records = self.folders.get(folder)
        if type(records) is not dict:
            records = self.folders[folder] = {}
        records[base] = f"{stamp} {payload[0]} {int(payload[1])}" if len(payload) == 2 else \
            [stamp, payload]
        self.dirty = True

    def _forget(self, folder: str, base: str) -> None:
        records = self.folders.get(folder)
        if type(records) is dict and base in records:
            del records[base]
            if not records:
                del self.folders[folder]
            self.dirty = True

    def save(self, seen: int) -> None:
        from migrator.knowledge import cache

        if not self.dirty:
            return
        count = sum(len(records) for records in self.folders.values())
        if count > MAX_ENTRIES:  # keep the most recently added folders
            keep = max(seen, MAX_ENTRIES // 2)
            for folder in list(self.folders):
                if count <= keep:
                    break
                count -= len(self.folders.pop(folder))
        cache.write_json(self.folder, self.name, {"format": FORMAT, "folders": self.folders})
        self.dirty = False
        _remove_stale(self.folder, self.name)


def open_for(options: ConvertOptions, render: bool, audit: bool,
             max_bytes: int) -> ResultCache | None:
    """The cache for a run with these settings, or None when caching is off or the cache
    folder cannot be trusted."""
    from migrator.knowledge import cache

    folder = cache.private_folder()
    if folder is None:
        return None
    parts = [f"format {FORMAT} render {render} audit {audit} max {max_bytes}".encode(),
             repr(options).encode(), os.getcwd().encode("utf-8", "surrogateescape"),
             sys.version.encode(), *_code_stamps(),
             *_file_stamps((*options.runtime_files, *options.crds,
                            *options.local_runtime_files))]
    name = f"results-{cache.key(parts)}.json"
    data = cache.read_json(folder, name)
    folders = data.get("folders") if isinstance(data, dict) and data.get("format") == FORMAT \
        else None
    return ResultCache(folder, name, folders if isinstance(folders, dict) else {})


def _tail(tail: str, tails: dict[str, tuple[int, bool]]) -> tuple[int, bool] | None:
    """``"<documents scanned> <changed 0/1>"`` of a record without documents, remembered in
    ``tails`` (a tree holds few different ones); None when it is not one."""
    scanned, _, changed = tail.partition(" ")
    if not scanned.isdecimal() or not scanned.isascii() or changed not in ("0", "1"):
        return None
    tails[tail] = (int(scanned), changed == "1")
    return tails[tail]


def _hit(name: str, relative: str, entry: Any, stamp: Stamp) -> FileResult | None:
    """The cached result of a file with documents and this stamp, or None (changed, or not
    an entry)."""
    if isinstance(entry, list) and len(entry) == 2 and entry[0] == stamp:
        return _decode(name, relative, entry[1])
    return None


def _code_stamps() -> list[bytes]:
    """What the results depend on besides the options: this package's code and the mapping
    data the run reads (``settings.mappings_dir()``: ``$TRAINJOB_MIGRATE_MAPPINGS`` when set;
    each file's path, size and mtime), the tool version, ruamel.yaml and pydantic."""
    import importlib.util

    from migrator.errors import MappingFileError
    from migrator.settings import mappings_dir
    from migrator.version import __version__

    package = Path(__file__).resolve().parent.parent
    parts = [__version__.encode()]
    roots = [package]
    try:
        roots.append(mappings_dir().resolve())
    except (MappingFileError, OSError):
        parts.append(b"no mappings folder")  # the run itself reports it
    parts += [str(root).encode("utf-8", "surrogateescape") for root in roots]
    for root in roots:
        found = []
        for folder, folders, names in os.walk(root):
            folders[:] = [f for f in folders if f != "__pycache__"]
            found += [os.path.join(folder, entry) for entry in names
                      if entry.endswith((".py", ".yaml", ".yml", ".json"))]
        parts.extend(_file_stamp(path) for path in sorted(found))
    for module in ("ruamel.yaml", "pydantic", "pydantic_core", "_ruamel_yaml"):
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        parts.append(_file_stamp(spec.origin) if spec is not None and spec.origin else
                     module.encode())
    return parts


def _file_stamps(paths: tuple[str, ...]) -> list[bytes]:
    parts = []
    for path in paths:
        if os.path.isdir(path):
            for folder, _, names in sorted(os.walk(path)):
                parts += [_file_stamp(os.path.join(folder, n)) for n in sorted(names)]
        else:
            parts.append(_file_stamp(path))
    return parts


def _file_stamp(path: str) -> bytes:
    try:
        info = os.stat(path)
    except OSError:
        return f"{path} missing".encode("utf-8", "surrogateescape")
    return f"{path} {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns}".encode(
        "utf-8", "surrogateescape")


def _remove_stale(folder: Path, keep: str) -> None:
    cutoff = time.time() - STALE_DAYS * 86400
    try:
        names = [n for n in os.listdir(folder) if n.startswith("results-") and n != keep]
    except OSError:
        return
    for name in names:
        try:
            info = os.lstat(folder / name)
            if info.st_mtime < cutoff and info.st_uid == os.geteuid():
                os.unlink(folder / name)
        except OSError:
            pass


# --------------------------------------------------------------------- results as JSON data


def _encode(file: FileResult) -> list[Any] | None:
    """A slim result as JSON data, or None when it is not to be cached (unreadable, written,
    rendered, or holding values JSON does not carry exactly)."""
    import json

    if file.unreadable is not None or file.write_error is not None or file.virtual \
            or file.written or file.result is None:
        return None
    slim = file.slim()
    assert slim.result is not None
    if not slim.result.documents:
        return [slim.documents_scanned, bool(slim.changed)]
    documents = [[d.index, d.line, d.status, d.source, d.output, [list(m) for m in d.mappings],
                  d.values, [[f.code, f.severity.value, f.path, f.message, f.hint, f.line,
                              f.column] for f in d.findings], d.reportable]
                 for d in slim.result.documents]
    payload = [slim.documents_scanned, bool(slim.changed), documents]
    try:
        again = json.loads(json.dumps(payload, allow_nan=False))
        if _decode(file.name, file.relative, again) != slim:
            return None  # a value JSON does not carry exactly (a date, a tuple): not cached
    except (TypeError, ValueError, RecursionError):
        return None
    return payload


def _decode(name: str, relative: str, payload: Any) -> FileResult | None:
    """The slim result of a cache entry, or None when the entry is not exactly what
    ``_encode`` writes (a damaged or foreign entry is a miss, never a changed result)."""
    try:
        scanned, changed = payload[0], payload[1]
        if not _is_int(scanned) or not isinstance(changed, bool) or len(payload) > 3:
            return None
        documents = [_document(d) for d in (payload[2] if len(payload) > 2 else [])]
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    return FileResult(name, relative, None, None, TextResult("", documents), scanned=scanned,
                      was_changed=changed)


_STATUSES = frozenset(("converted", "unchanged", "skipped", "failed"))


def _document(d: Any) -> DocumentResult:
    """One document of an entry; ValueError when a field is not of its type."""
    if type(d) is not list or len(d) != 9 or not _is_int(d[0]) or not _is_int(d[1]) or \
            d[2] not in _STATUSES or type(d[3]) is not dict or \
            (d[4] is not None and type(d[4]) is not dict) or type(d[5]) is not list or \
            type(d[6]) is not dict or type(d[7]) is not list or type(d[8]) is not bool:
        raise ValueError("not a cached document")
    mappings = []
    for m in d[5]:
        if type(m) is not list or len(m) != 2 or type(m[0]) is not str or \
                type(m[1]) is not str:
            raise ValueError("not a cached mapping")
        mappings.append((m[0], m[1]))
    findings = []
    for f in d[7]:
        if type(f) is not list or len(f) != 7 or not all(type(x) is str for x in f[:5]) or \
                not all(x is None or _is_int(x) for x in f[5:]):
            raise ValueError("not a cached finding")
        findings.append(Finding(f[0], _SEVERITIES[f[1]], f[2], f[3], f[4], f[5], f[6]))
    return DocumentResult(index=d[0], line=d[1], status=d[2], text="", source=d[3],
                          output=d[4], mappings=mappings, values=d[6], findings=findings,
                          reportable=d[8])


def _is_int(value: object) -> bool:
    return type(value) is int
