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
from migrator.convert import routing
from migrator.load import sources
from migrator.results import DocumentResult, FileResult, Finding, Severity, TextResult
from migrator.settings import ConvertOptions

FORMAT = 2
RACY_SECONDS = 2  # a file changed this recently may change again unseen within its mtime
MAX_ENTRIES = 1_000_000  # files per entry; beyond this, files not seen in a run are dropped
STALE_DAYS = 30  # entries of other configurations unused this long are removed
# a file's stamp, "size mtime_ns ctime_ns inode device" (one string: a JSON entry of
# thousands of files then parses several times faster than one of integer lists)
Stamp = str
KUSTOMIZATIONS = routing.KUSTOMIZATIONS


class ResultCache:
    """The cached results of one run configuration (one JSON entry).

    ``files`` maps a file's absolute path to ``"<stamp> <documents scanned> <changed 0/1>"``
    when its result holds no document (most files of a repository), else to ``[stamp,
    payload]`` (``_encode``)."""

    def __init__(self, folder: Path, name: str, files: dict[str, Any]) -> None:
        self.folder, self.name, self.files = folder, name, files
        self.dirty = False
        self.hits = 0

    def through(self, found: Iterable[tuple[str, str]],
                process: Callable[[Iterable[tuple[str, str]]], Iterator[FileResult]]
                ) -> Iterator[FileResult]:
        """The results of ``found`` in order: cached ones for unchanged files, ``process``
        (called once, with the other files in order) for the rest, which are recorded.

        ``found`` is iterated as the run goes (a walk streams through): a file is stamped
        when ``process`` or the caller reaches it, so memory holds only the files between
        the two (``process``'s read-ahead), not the tree."""
        source = iter(found)
        plan: deque[tuple[str, str, str, Stamp | None, FileResult | tuple[int, bool] | None]] = \
            deque()
        to_process: deque[tuple[str, str]] = deque()
        folders: dict[str, str | None] = {}
        files = self.files
        seen = 0
        started = time.time_ns()

        def advance() -> bool:
            """Stamp the next file of ``found`` into ``plan`` (and ``to_process`` when it is
            not cached); False at the end."""
            nonlocal seen
            item = next(source, None)
            if item is None:
                return False
            seen += 1
            name, relative = item
            path, stamp, newest = _stamp(name, folders)
            hit = None
            if stamp is not None:
                entry = files.get(path)
                if entry is not None:
                    hit = _hit(name, relative, entry, stamp)
                if hit is None and started - newest <= RACY_SECONDS * 10**9:
                    stamp = None  # changed just before (or during) the run ("racily
                    # clean"): processed, not recorded
            if hit is None:
                to_process.append(item)
            plan.append((name, relative, path, stamp, hit))
            return True

        def misses() -> Iterator[tuple[str, str]]:
            while to_process or advance():
                if to_process:
                    yield to_process.popleft()

        fresh = process(misses())
        while plan or advance():
            name, relative, path, stamp, hit = plan.popleft()
            if hit is not None:
                self.hits += 1
                yield _result(name, relative, hit)
                continue
            result = next(fresh)
            if stamp is not None:
                self._record(path, stamp, result)
            elif path in self.files:
                del self.files[path]
                self.dirty = True
            yield result
        self.save(seen)

    def _record(self, path: str, stamp: Stamp, result: FileResult) -> None:
        payload = _encode(result)
        if payload is None:
            self.files.pop(path, None)
        elif len(payload) == 2:
            self.files[path] = f"{stamp} {payload[0]} {int(payload[1])}"
        else:
            self.files[path] = [stamp, payload]
        self.dirty = True

    def save(self, seen: int) -> None:
        from migrator.knowledge import cache

        if not self.dirty:
            return
        if len(self.files) > MAX_ENTRIES:  # keep the most recently added
            for path in list(self.files)[:len(self.files) - max(seen, MAX_ENTRIES // 2)]:
                del self.files[path]
        cache.write_json(self.folder, self.name, {"format": FORMAT, "files": self.files})
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
    files = data.get("files") if isinstance(data, dict) and data.get("format") == FORMAT \
        else None
    return ResultCache(folder, name, files if isinstance(files, dict) else {})


def _stamp(name: str, folders: dict[str, str | None]) -> tuple[str, Stamp | None, int]:
    """A file's absolute path, its stamp and the newer of its mtime and ctime (ns); no stamp
    (never cached) for standard input, a rendered chart, or a file beside a kustomization
    (whose result depends on that file). ``folders`` remembers each folder's absolute path
    (None: beside a kustomization)."""
    if name == sources.STDIN or name.startswith(helm.PREFIX):
        return name, None, 0
    folder, base = routing.split(name)
    if base in ("", ".", ".."):
        return os.path.abspath(name), None, 0  # not a file name: never cached
    if folder not in folders:
        folders[folder] = None if routing.beside_kustomization(folder) else \
            os.path.abspath(folder or os.curdir)
    absolute = folders[folder]
    if absolute is None:
        return os.path.abspath(name), None, 0
    path = os.path.join(absolute, base)
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return path, None, 0
    if not stat.S_ISREG(info.st_mode):
        return path, None, 0
    return path, (f"{info.st_size} {info.st_mtime_ns} {info.st_ctime_ns} {info.st_ino} "
                  f"{info.st_dev}"), max(info.st_mtime_ns, info.st_ctime_ns)


def _hit(name: str, relative: str, entry: Any,
         stamp: Stamp) -> FileResult | tuple[int, bool] | None:
    """The cached result of a file with this stamp, or None (changed, or not an entry): for a
    result without documents its (documents scanned, changed), made a result when it is
    yielded (files stamped ahead then hold only these)."""
    if isinstance(entry, str):
        recorded, _, rest = entry.rpartition(" ")
        recorded, _, scanned = recorded.rpartition(" ")
        if recorded != stamp or rest not in ("0", "1") or not scanned.isdecimal():
            return None
        return int(scanned), rest == "1"
    if isinstance(entry, list) and len(entry) == 2 and entry[0] == stamp:
        return _decode(name, relative, entry[1])
    return None


def _result(name: str, relative: str, hit: FileResult | tuple[int, bool]) -> FileResult:
    if isinstance(hit, FileResult):
        return hit
    return FileResult(name, relative, None, None, TextResult(""), scanned=hit[0],
                      was_changed=hit[1])


def _code_stamps() -> list[bytes]:
    """What the results depend on besides the options: this package's code and mapping data
    (each file's path, size and mtime), the tool version, ruamel.yaml and pydantic."""
    import importlib.util

    from migrator.version import __version__

    package = Path(__file__).resolve().parent.parent
    roots = [package, package.parent / "mappings"]
    parts = [__version__.encode()]
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
    """The slim result of a cache entry, or None when the entry is not one."""
    try:
        scanned, changed = payload[0], payload[1]
        documents = [DocumentResult(
            index=d[0], line=d[1], status=d[2], text="", source=d[3], output=d[4],
            mappings=[(m[0], m[1]) for m in d[5]], values=d[6],
            findings=[Finding(f[0], Severity(f[1]), f[2], f[3], f[4], f[5], f[6])
                      for f in d[7]], reportable=d[8])
            for d in (payload[2] if len(payload) > 2 else [])]
        if not isinstance(scanned, int) or not isinstance(changed, bool):
            return None
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    return FileResult(name, relative, None, None, TextResult("", documents), scanned=scanned,
                      was_changed=changed)
