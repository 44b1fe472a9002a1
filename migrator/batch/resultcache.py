"""BATCH stage: a private per-user cache of check and validate results, so that a repeated run
over a mostly unchanged tree reads (and converts) only the files that changed.

Like ruff's cache: one JSON entry per run configuration (format, tool version, the code and
mapping data it runs, the versions of ruamel.yaml and pydantic, the options and the files
they name, the mode, the working directory), holding per file the stat it had when it was
processed and its slim result (statuses and findings, never file contents). Files whose
result depends on another file (those beside a kustomization) are not cached. JSON data only,
decoded into plain result values: nothing in the cache can run code. It lives in the private
per-user folder of ``knowledge.cache`` (0700, refused when another user could write it).

Format 5 (``ResultCache``): a folder's records are kept together, so that a walked folder
whose files all have their recorded stamps is matched by comparing two strings (its names and
its packed stamps) and its files without documents reach a counting run as counts, with no
value built per file; the texts of findings and mappings live once in the entry's table
(``Strings``). The entry is a line of JSON (the format, the table, the folders' paths) and
then a line of JSON per folder, its records, decoded when the run reaches that folder: a run
reads its first folders (and, in a warm run, forks the worker for its first changed file)
without decoding the whole entry first. An entry of another format is a miss.

Choice: a file is unchanged when its (mode, size, mtime_ns, ctime_ns, inode, device) are the
ones recorded; its content is not hashed (a warm run then reads nothing but the cache). Writing a
file always updates its ctime, which no tool can set back. A file changed within
``RACY_SECONDS`` of being processed is not recorded (its timestamps may not tell a second
change apart: "racily clean" in git's terms), so it is processed again next time. Results are
identical with and without the cache (a test holds the corpus to it); ``--no-cache`` or
``TRAINJOB_MIGRATE_NO_CACHE=1`` turns it off.
"""

from __future__ import annotations

import functools
import os
import stat
import struct
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import starmap
from pathlib import Path
from typing import Any, cast

from migrator.batch import discovery, helm
from migrator.convert import filekinds, routing
from migrator.load import sources
from migrator.results import DocumentResult, FileResult, Finding, Severity, TextResult
from migrator.settings import ConvertOptions

FORMAT = 5
RACY_SECONDS = 2  # a file changed this recently may change again unseen within its mtime
MAX_ENTRIES = 1_000_000  # files per entry; beyond this, files not seen in a run are dropped
STALE_DAYS = 30  # entries of other configurations unused this long are removed
# a file's stamp: its (mode, size, mtime_ns, ctime_ns, inode, device) packed as
# little-endian integers, in hex (a folder's stamps are then made and compared as one
# string, with no formatting per number)
Stamp = str
_PACK = struct.Struct("<IQqqQQ").pack
_STAMPED = sources.identity_of
_STAT = os.DirEntry.stat
STAMP_CHARS = 2 * struct.calcsize("<IQqqQQ")
# what a file without documents adds to a run's counts (``through(..., counting=True)``):
# files, files changed, documents scanned
Counts = tuple[int, int, int]
KUSTOMIZATIONS = filekinds.KUSTOMIZATIONS
_FOLDED = tuple(f"\0{name.casefold()}\0" for name in KUSTOMIZATIONS)
assert len(_FOLDED) == 3, "_beside_kustomization looks for three names"
_SEVERITIES = {severity.value: severity for severity in Severity}  # faster than Severity(x)
NOT_CACHED = "Y105"  # a result with this finding (a crash, an internal error) is not recorded
_MAX_DIGITS = 18  # of a count in a tail (more is a damaged entry, never a file's documents)
_IN_PAYLOADS = "="  # the tail of a file whose result holds documents (in the payloads)
# a folder's files, parsed (``_parse``): base name -> (stamp, tail or payload)
Files = dict[str, tuple[Stamp, Any]]


class ResultCache:
    """The cached results of one run configuration (one entry).

    ``folders`` maps a folder's absolute path to the records of its files (a view of their
    JSON line in the entry read until first looked up: ``_folder_record``), one JSON list
    ``[names, stamps, tails, payloads]`` (format 5):

    - ``names``: the files' base names in name order (as a walk lists them), joined by
      ``/`` (which no base name holds);
    - ``stamps``: their stamps (``STAMP_CHARS`` hex digits each), in the same order: a walked
      folder whose files all have their recorded stamps is matched by comparing two strings;
    - ``tails``: per file, ``"<documents scanned>:<changed 0/1>"`` when its result holds no
      document (most files of a repository), else ``=``; joined by spaces;
    - ``payloads``: base name -> the result of a file with documents (``_encode``).
    """

    def __init__(self, folder: Path, name: str, folders: dict[str, Any],
                 strings: list[str] | None = None) -> None:
        self.folder, self.name, self.folders = folder, name, folders
        self.strings = Strings(strings)
        self.dirty = False
        self.hits = 0
        self._files: dict[str, Files] = {}  # folders parsed to be looked up file by file
        # folders whose records are to be written again, in the order they changed (a set
        # would write the entry in an order of its own each run)
        self._changed: dict[str, None] = {}

    def record_of(self, path: str) -> tuple[Stamp, Any] | None:
        """The stamp and tail (or payload) of the file at absolute ``path`` (None when it
        has no record)."""
        folder, base = routing.split(path)
        return self._files_of(folder).get(base)

    def through(self, found: Iterable[tuple[str, str]],
                process: Callable[[Iterable[tuple[str, str]]], Iterator[FileResult]]
                ) -> Iterator[FileResult]:
        """The results of ``found`` in order: cached ones for unchanged files, ``process``
        (called once, with the other files in order) for the rest, which are recorded.

        ``found`` is iterated as the run goes (a walk streams through; a
        ``discovery.Walk`` folder by folder): a folder is stamped when ``process`` or the
        caller reaches it, so memory holds only the files between the two (``process``'s
        read-ahead), not the tree."""
        # without ``counting``, results only
        return cast("Iterator[FileResult]", self._through(found, process, False))

    def counted(self, found: Iterable[tuple[str, str]],
                process: Callable[[Iterable[tuple[str, str]]], Iterator[FileResult]]
                ) -> Iterator[FileResult | Counts]:
        """``through``, except that unchanged files without documents come as ``Counts``
        (one per folder, in no particular place among its results): a run that only
        counts them builds no value per file."""
        return self._through(found, process, True)

    def _through(self, found: Iterable[tuple[str, str]],
                 process: Callable[[Iterable[tuple[str, str]]], Iterator[FileResult]],
                 counting: bool) -> Iterator[FileResult | Counts]:
        folders: Iterator[discovery.Folder] = found.groups() \
            if isinstance(found, discovery.Walk) else \
            (discovery.one_file(name, relative) for name, relative in found)
        # ready results and counts; None: the next result of ``process``
        plan: deque[FileResult | Counts | None] = deque()
        to_process: deque[tuple[str, str]] = deque()
        # the files handed to ``process`` whose results have not come back, by name: their
        # folder (absolute; None: not recorded), base name and stamp (None: forgotten)
        waiting: dict[str, tuple[str | None, str, Stamp | None]] = {}
        places: dict[str, tuple[str, bool]] = {}  # folder -> absolute path, cached
        tails: dict[str, tuple[int, bool]] = {}
        racy = time.time_ns() - RACY_SECONDS * 10**9
        seen = hits = 0

        def miss(name: str, relative: str, absolute: str | None, base: str,
                 stamp: Stamp | None) -> None:
            to_process.append((name, relative))
            waiting[name] = absolute, base, stamp
            plan.append(None)

        def advance() -> bool:
            """Stamp the next folder of ``found`` into ``plan`` (and ``to_process``); False
            at the end."""
            nonlocal seen, hits
            folder = next(folders, None)
            if folder is None:
                return False
            seen += len(folder.names)
            path = folder.path
            given = folder.given
            if path is None or (given is not None and (
                    given[0][0].startswith(helm.PREFIX) or folder.names[0] in ("", ".", ".."))):
                for name, relative in folder.items():  # not a file name: never cached
                    miss(name, relative, None, "", None)
                return True
            place = places.get(path)
            if place is None:
                place = places[path] = (os.path.abspath(path or os.curdir),
                                        not _beside_kustomization(path, folder.listed))
            absolute, cached = place
            if not cached:
                if absolute in self.folders:  # (files that depend on a kustomization)
                    self._files[absolute] = {}
                    self._changed[absolute] = None
                for name, relative in folder.items():
                    miss(name, relative, None, "", None)
                return True
            record = self._folder_record(absolute)
            if folder.entries is not None and absolute not in self._files and \
                    type(record) is list and len(record) == 4:
                found_hits = self._whole(folder, record, absolute, plan, miss, tails, racy,
                                         counting)
                if found_hits >= 0:
                    hits += found_hits
                    return True
            hits += self._each(folder, absolute, plan, miss, tails, racy, counting)
            return True

        def misses() -> Iterator[tuple[str, str]]:
            while to_process or advance():
                if to_process:
                    yield to_process.popleft()

        fresh = process(misses())
        while plan or advance():
            if not plan:
                continue
            item = plan.popleft()
            if item is not None:
                yield item
                continue
            result = next(fresh)
            # recorded under its own file's stamp, never under another's (a ``process`` that
            # broke the order would otherwise plant one file's result under another's name)
            absolute, base, stamp = waiting.pop(result.name, (None, "", None))
            if absolute is not None:
                self._note(absolute, base, stamp, result)
            yield result
        for absolute, base, _ in waiting.values():  # processed, no result under its name
            if absolute is not None:
                self._note(absolute, base, None, None)
        self.hits += hits
        self.save(seen)

    def _whole(self, folder: discovery.Folder, record: list[Any], absolute: str,
               plan: deque[FileResult | Counts | None],
               miss: Callable[[str, str, str | None, str, Stamp | None], None],
               tails: dict[str, tuple[int, bool]], racy: int, counting: bool) -> int:
        """Plan a walked folder whose files all have their recorded stamps (one string
        compared); the number of hits, or -1 (planned nothing) when it is not such a
        folder."""
        listed, stamps, recorded, payloads = record
        names = folder.names
        if type(listed) is not str or type(stamps) is not str or type(recorded) is not str \
                or type(payloads) is not dict or "/".join(names) != listed:
            return -1
        entries = folder.entries
        assert entries is not None
        try:
            infos = list(map(_STAT, entries))  # (no Python code per file)
            fresh = b"".join(starmap(_PACK, map(_STAMPED, infos))).hex()
        except (OSError, struct.error):
            return -1
        if fresh != stamps:  # (a recorded file is a regular file: so are these)
            return -1
        tokens = recorded.split(" ")
        if len(tokens) != len(names):
            return -1
        prefix, rel_prefix = folder.prefix, folder.rel_prefix
        hits = 0
        if counting:
            files = changed = scanned = 0
            odd = []
            for tail in set(tokens):  # (a folder holds few different tails)
                known = tails.get(tail) or _tail(tail, tails)
                if known is None:
                    odd.append(tail)
                    continue
                times = tokens.count(tail)
                files += times
                changed += times * known[1]
                scanned += times * known[0]
            if files:
                plan.append((files, changed, scanned))
                hits += files
            if not odd:
                return hits
            chosen = [(index, tail) for index, tail in enumerate(tokens) if tail in odd]
        else:
            chosen = list(enumerate(tokens))
        for index, tail in chosen:
            base = names[index]
            name, relative = prefix + base, rel_prefix + base
            hit: FileResult | None = None
            if tail == _IN_PAYLOADS:
                hit = _decode(name, relative, payloads.get(base), self.strings.table,
                              self.strings.findings)
            else:
                known = tails.get(tail) or _tail(tail, tails)
                if known is not None:
                    hit = FileResult(name, relative, None, None, TextResult(""), known[0],
                                     known[1])
            if hit is not None:
                hits += 1
                plan.append(hit)
                continue
            info = infos[index]
            miss(name, relative, absolute, base,
                 None if max(info.st_mtime_ns, info.st_ctime_ns) >= racy else
                 fresh[STAMP_CHARS * index:STAMP_CHARS * (index + 1)])
        return hits

    def _each(self, folder: discovery.Folder, absolute: str,
              plan: deque[FileResult | Counts | None],
              miss: Callable[[str, str, str | None, str, Stamp | None], None],
              tails: dict[str, tuple[int, bool]], racy: int, counting: bool) -> int:
        """Plan a folder file by file (some files changed, or not a walked folder); the
        number of hits."""
        files = self._files_of(absolute)
        if folder.listed is not None:  # files that no longer exist are forgotten
            listed = set(folder.listed)
            gone = [base for base in files if base not in listed]
            for base in gone:
                del files[base]
            if gone:
                self._changed[absolute] = None
        entries = folder.entries
        counts = [0, 0, 0]
        hits = 0
        for index, (name, relative) in enumerate(folder.items()):
            base = folder.names[index]
            try:
                info = entries[index].stat() if entries is not None else os.stat(name)
            except (OSError, ValueError):
                miss(name, relative, absolute, base, None)
                continue
            stamp = _stamp(info)
            if stamp is None:
                miss(name, relative, absolute, base, None)
                continue
            have = files.get(base)
            if have is not None and have[0] == stamp:
                value = have[1]
                if type(value) is str:
                    known = tails.get(value) or _tail(value, tails)
                    if known is not None:
                        hits += 1
                        if counting:
                            counts[0] += 1
                            counts[1] += known[1]
                            counts[2] += known[0]
                        else:
                            plan.append(FileResult(name, relative, None, None, TextResult(""),
                                                   known[0], known[1]))
                        continue
                else:
                    hit = _decode(name, relative, value, self.strings.table,
                                  self.strings.findings)
                    if hit is not None:
                        hits += 1
                        plan.append(hit)
                        continue
            # changed just before (or during) the run ("racily clean"): not recorded
            miss(name, relative, absolute, base,
                 None if max(info.st_mtime_ns, info.st_ctime_ns) >= racy else stamp)
        if counts[0]:
            plan.append((counts[0], counts[1], counts[2]))
        return hits

    def _files_of(self, absolute: str) -> Files:
        """The files of a folder's record, parsed (and kept: from now on they are the
        folder's record)."""
        files = self._files.get(absolute)
        if files is None:
            files = self._files[absolute] = _parse(self._folder_record(absolute))
        return files

    def _folder_record(self, absolute: str) -> Any:
        """The records of folder ``absolute`` (None: it has none), decoded from the entry's
        line on first use (a line that does not decode is None: a miss for each file)."""
        line = self.folders.get(absolute)
        if type(line) is not memoryview:
            return line
        try:  # (as json.loads reads bytes, with no call to detect their encoding)
            text = str(line, "utf-8", "surrogatepass")
            record, end = _decoder()(text)
            if end != len(text):
                record = None
        except (ValueError, RecursionError):
            record = None
        self.folders[absolute] = record
        return record

    def _note(self, absolute: str, base: str, stamp: Stamp | None,
              result: FileResult | None) -> None:
        """Record a processed file's result under its stamp (None: forget the file) — only
        when it was made from that very file: the name may have led to another file when it
        was read (a folder swapped and back, a link retargeted), whose result must not be
        replayed for this one."""
        if stamp is None and result is not None:
            # changed just before or while it was read (or not stamped): not recorded; a record
            # of its earlier content is left as it is, since its stamp can no longer match
            # (every write moves the ctime), and so the entry need not be written again; an
            # old record could be replayed only if the ctime came back to its recorded value
            # (a clock stepped back, a file system that does not keep ctimes)
            return
        files = self._files_of(absolute)
        payload = _encode(result, self.strings) if stamp is not None and result is not None \
            and result.identity is not None and _identity_stamp(result.identity) == stamp \
            else None
        if payload is None or stamp is None:
            if base in files:
                del files[base]
                self._changed[absolute] = None
            return
        files[base] = (stamp, f"{payload[0]}:{int(payload[1])}" if len(payload) == 2 else
                       payload)
        self._changed[absolute] = None

    def save(self, seen: int) -> None:
        from migrator.knowledge import cache

        for absolute in self._changed:
            files = self._files[absolute]
            self.folders.pop(absolute, None)  # (re)recorded: last in the entry, trimmed last
            if files:
                self.folders[absolute] = _record(files)
            self.dirty = True
        self._changed.clear()
        if not self.dirty:
            return
        for absolute in self.folders:  # the lines not decoded yet (folders the run did not see)
            self._folder_record(absolute)
        count = sum(_count(record) for record in self.folders.values())
        if count > MAX_ENTRIES:  # keep the most recently added folders
            keep = max(seen, MAX_ENTRIES // 2)
            for folder in list(self.folders):
                if count <= keep:
                    break
                count -= _count(self.folders.pop(folder))
        self._compact()
        text = _entry_text(self.strings.table, self.folders)
        if text is not None:
            cache.write_text(self.folder, self.name, text)
        self.dirty = False
        _remove_stale(self.folder, self.name)

    def _compact(self) -> None:
        """Renumber the texts of every payload into a table of only the texts in use (in
        order of first use), dropping a folder with a payload that does not decode (checked
        as a run reads it: a damaged payload is never renumbered into a well-formed one); the
        records are parsed again when next looked up."""
        table, memo, strings = self.strings.table, self.strings.findings, Strings()
        for folder, record in list(self.folders.items()):
            try:
                if type(record) is not list or len(record) != 4 or type(record[3]) is not dict:
                    raise ValueError("not a record")
                if any(_decode("", "", payload, table, memo) is None
                       for payload in record[3].values()):
                    raise ValueError("not a payload")
                payloads = {base: _renumber(payload, table, strings)
                            for base, payload in record[3].items()}
            except (ValueError, TypeError, IndexError, KeyError):
                del self.folders[folder]
                continue
            self.folders[folder] = [*record[:3], payloads]
        self.strings = strings
        self._files.clear()


def _beside_kustomization(path: str, listed: list[str] | None) -> bool:
    """``routing.beside_kustomization``; a walked folder whose listing has no entry named
    like a kustomization in any case (the file system may ignore case) needs no look."""
    if listed is not None:
        names = "\0" + "\0".join(listed).casefold() + "\0"
        if _FOLDED[0] not in names and _FOLDED[1] not in names and _FOLDED[2] not in names:
            return False
    return routing.beside_kustomization(path)


def _stamp(info: os.stat_result) -> Stamp | None:
    """The stamp of a regular file (None: another kind of file, never recorded)."""
    return _identity_stamp(_STAMPED(info)) if stat.S_ISREG(info.st_mode) else None


def _identity_stamp(identity: tuple[int, ...]) -> Stamp | None:
    """The stamp of a file's identity (``sources.identity_of``; ``FileResult.identity``)."""
    try:
        return _PACK(*identity).hex()
    except struct.error:  # a time beyond what 64 bits of nanoseconds hold
        return None


def _parse(record: Any) -> Files:
    """A folder's record as base name -> (stamp, tail or payload); empty when the record
    is not exactly what ``_record`` writes (a miss for each of its files)."""
    if type(record) is not list or len(record) != 4:
        return {}
    listed, stamps, recorded, payloads = record
    if type(listed) is not str or type(stamps) is not str or type(recorded) is not str or \
            type(payloads) is not dict:
        return {}
    names = listed.split("/")
    tokens = recorded.split(" ")
    if len(tokens) != len(names) or len(stamps) != STAMP_CHARS * len(names):
        return {}
    files: Files = {}
    for index, (base, tail) in enumerate(zip(names, tokens, strict=True)):
        value = payloads.get(base) if tail == _IN_PAYLOADS else tail
        if value is not None:
            files[base] = (stamps[STAMP_CHARS * index:STAMP_CHARS * (index + 1)], value)
    return files


def _record(files: Files) -> list[Any]:
    """A folder's record (``ResultCache``) of its parsed files."""
    order = sorted(files)
    payloads = {base: files[base][1] for base in order if type(files[base][1]) is not str}
    return ["/".join(order), "".join(files[base][0] for base in order),
            " ".join(_IN_PAYLOADS if base in payloads else files[base][1] for base in order),
            payloads]


def _count(record: Any) -> int:
    """The number of files of a folder's record (for the size limit)."""
    return record[2].count(" ") + 1 if type(record) is list and len(record) == 4 and \
        type(record[2]) is str else 1


def open_for(options: ConvertOptions, render: bool, audit: bool,
             max_bytes: int) -> ResultCache | None:
    """The cache for a run with these settings, or None when caching is off or the cache
    folder cannot be trusted."""
    from migrator.knowledge import cache

    folder = cache.private_folder()
    if folder is None:
        return None
    try:
        cwd = os.getcwd()
    except OSError:  # (removed while we run: part of the key, so no cache)
        return None
    parts = [f"format {FORMAT} render {render} audit {audit} max {max_bytes}".encode(),
             repr(options).encode(), cwd.encode("utf-8", "surrogateescape"),
             sys.version.encode(), *_code_stamps(),
             *_file_stamps((*options.runtime_files, *options.crds,
                            *options.local_runtime_files))]
    name = f"results-{cache.key(parts)}.json"
    raw = cache.read_bytes(folder, name)
    read = _entry(raw) if raw is not None else None
    if read is not None:
        return ResultCache(folder, name, *read)
    return ResultCache(folder, name, {})


def _entry(raw: bytes) -> tuple[dict[str, Any], list[str]] | None:
    """The folders (path -> its records' line, a view of ``raw`` decoded on first use) and
    the table of texts of an entry (``_entry_text``); None when it is not one of this format.
    Nothing of ``raw`` is copied but the header: a large entry (13.5 MB for 100,000 files)
    copied whole, or split into lines, cost more in fresh pages than the lines' decoding."""
    import json

    head_end = raw.find(b"\n")
    if head_end < 0:  # (an entry of an earlier format: one JSON document, not decoded)
        return None
    try:
        header = json.loads(raw[:head_end])
    except (ValueError, RecursionError):
        return None
    if type(header) is not dict or header.get("format") != FORMAT:
        return None
    strings, paths = header.get("strings"), header.get("folders")
    if type(strings) is not list or type(paths) is not list or \
            not all(type(text) is str for text in strings) or \
            not all(type(path) is str for path in paths):
        return None
    # one line per folder, each ended by a line break, nothing after the last
    if raw.count(b"\n", head_end + 1) != len(paths) or \
            (paths and not raw.endswith(b"\n")) or (not paths and len(raw) != head_end + 1):
        return None
    view = memoryview(raw)
    folders: dict[str, Any] = {}
    start = head_end + 1
    for path in paths:
        stop = raw.index(b"\n", start)
        folders[path] = view[start:stop]
        start = stop + 1
    if len(folders) != len(paths):  # a folder named twice
        return None
    return folders, strings


@functools.cache
def _decoder() -> Callable[[str], tuple[Any, int]]:
    """JSON text to (its value, where it ends): what ``json.loads`` calls, without its checks
    of each call's argument."""
    import json

    return json.JSONDecoder().raw_decode


def _entry_text(table: list[str], folders: dict[str, Any]) -> str | None:
    """An entry: a line of JSON with the format, the table of texts and the folders' paths,
    then the JSON of each folder's records on a line of its own (JSON text holds no line
    break: one in a string is written ``\\n``); None when something is not JSON data."""
    import json

    dumped = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False,
                              allow_nan=False).encode  # (one encoder for every line)
    try:
        lines = [dumped({"format": FORMAT, "strings": table, "folders": list(folders)}),
                 *map(dumped, folders.values())]
    except (TypeError, ValueError, RecursionError):
        return None
    return "\n".join(lines) + "\n"


def _tail(tail: str, tails: dict[str, tuple[int, bool]]) -> tuple[int, bool] | None:
    """``"<documents scanned>:<changed 0/1>"`` of a file without documents, remembered in
    ``tails`` (a tree holds few different ones); None when it is not one."""
    scanned, _, changed = tail.partition(":")
    if not scanned.isdecimal() or not scanned.isascii() or len(scanned) > _MAX_DIGITS or \
            changed not in ("0", "1"):
        return None  # (int() refuses thousands of digits: a damaged entry)
    tails[tail] = (int(scanned), changed == "1")
    return tails[tail]


def _code_stamps() -> list[bytes]:
    """What the results depend on besides the options: this package's code and the mapping
    data the run reads (``settings.mappings_dir()``: ``$TRAINJOB_MIGRATE_MAPPINGS`` when set;
    each file's path, size and mtime), the tool version, ruamel.yaml, pydantic and jsonschema
    (which validates against ``--crd``)."""
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
    for module in ("ruamel.yaml", "pydantic", "pydantic_core", "_ruamel_yaml", "jsonschema"):
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


class Strings:
    """The entry's table of the texts of findings and mappings (a few hundred different ones
    repeat over thousands of findings): a payload names them by their place in it."""

    def __init__(self, table: list[str] | None = None) -> None:
        self.table: list[str] = [] if table is None else table
        self._places: dict[str, int] | None = None
        # findings made from the table, by their record (``_decode``'s memo)
        self.findings: dict[tuple[Any, ...], Finding] = {}

    def place(self, text: str) -> int:
        """``text``'s place in the table (added when new)."""
        if type(text) is not str:
            raise TypeError("not a text")
        places = self._places
        if places is None:
            places = self._places = {}
            for index, entry in enumerate(self.table):
                places.setdefault(entry, index)
        known = places.get(text)
        if known is not None:
            return known
        index = places[text] = len(self.table)
        self.table.append(text)
        return index


def _encode(file: FileResult, strings: Strings) -> list[Any] | None:
    """A slim result as JSON data (its texts placed in ``strings``), or None when it is not
    to be cached (unreadable, written, rendered, or holding values JSON does not carry
    exactly)."""
    import json

    if file.unreadable is not None or file.write_error is not None or file.virtual \
            or file.written or file.result is None:
        return None
    slim = file.slim()
    assert slim.result is not None
    if not slim.result.documents:
        return [slim.documents_scanned, bool(slim.changed)]
    if any(f.code == NOT_CACHED for d in slim.result.documents for f in d.findings):
        return None  # a crash or an internal error: done again (and shown with --debug)
    place = strings.place
    try:
        # mappings and findings flat: (source, target) pairs, seven fields per finding
        documents = [[d.index, d.line, d.status, d.source, d.output,
                      [place(text) for mapping in d.mappings for text in mapping], d.values,
                      [field for f in d.findings for field in (
                          place(f.code), place(f.severity.value), place(f.path),
                          place(f.message), place(f.hint), f.line, f.column)], d.reportable]
                     for d in slim.result.documents]
        payload = [slim.documents_scanned, bool(slim.changed), documents]
        again = json.loads(json.dumps(payload, allow_nan=False))
        if _decode(file.name, file.relative, again, strings.table) != slim:
            return None  # a value JSON does not carry exactly (a date, a tuple): not cached
    except (TypeError, ValueError, RecursionError, IndexError):
        return None
    return payload


def _decode(name: str, relative: str, payload: Any, strings: list[str],
            memo: dict[tuple[Any, ...], Finding] | None = None) -> FileResult | None:
    """The slim result of a cache entry (its texts in the table ``strings``), or None when
    the entry is not exactly what ``_encode`` writes (a damaged or foreign entry is a miss,
    never a changed result). ``memo``: findings already made from ``strings``."""
    try:
        scanned, changed = payload[0], payload[1]
        if not _is_int(scanned) or not isinstance(changed, bool) or len(payload) > 3:
            return None
        documents = [_document(d, strings, memo)
                     for d in (payload[2] if len(payload) > 2 else [])]
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    return FileResult(name, relative, None, None, TextResult("", documents), scanned=scanned,
                      was_changed=changed)


_STATUSES = frozenset(("converted", "unchanged", "skipped", "failed"))
_INTS = frozenset((int,))
_INTS_OR_NONE = frozenset((int, type(None)))


def _document(d: Any, strings: list[str],
              memo: dict[tuple[Any, ...], Finding] | None) -> DocumentResult:
    """One document of an entry; ValueError (or IndexError: a text not in ``strings``) when
    a field is not of its type. ``memo`` keeps the findings made from ``strings`` (a frozen
    value: one serves every file with the same finding)."""
    if type(d) is not list or len(d) != 9 or not _is_int(d[0]) or not _is_int(d[1]) or \
            d[2] not in _STATUSES or type(d[3]) is not dict or \
            (d[4] is not None and type(d[4]) is not dict) or type(d[5]) is not list or \
            type(d[6]) is not dict or type(d[7]) is not list or type(d[8]) is not bool:
        raise ValueError("not a cached document")
    places = d[5]  # source, target, source, target, ...
    if len(places) % 2 or not _INTS.issuperset(map(type, places)) or \
            (places and min(places) < 0):
        raise ValueError("not a cached mapping")
    texts = [strings[place] for place in places]
    mappings = list(zip(texts[::2], texts[1::2], strict=True))
    flat = d[7]  # code, severity, path, message, hint, line, column, code, ...
    if len(flat) % 7 or not _INTS_OR_NONE.issuperset(map(type, flat)):
        raise ValueError("not a cached finding")
    findings = []
    each = iter(flat)
    for key in zip(each, each, each, each, each, each, each, strict=True):
        finding = memo.get(key) if memo is not None else None  # (no bools: checked above)
        if finding is None:
            code, severity, path, message, hint, line, column = key
            if code is None or severity is None or path is None or message is None or \
                    hint is None or (code | severity | path | message | hint) < 0:
                raise ValueError("not a cached finding")
            finding = Finding(strings[code], _SEVERITIES[strings[severity]], strings[path],
                              strings[message], strings[hint], line, column)
            if memo is not None:
                memo[key] = finding
        findings.append(finding)
    return DocumentResult(index=d[0], line=d[1], status=d[2], text="", source=d[3],
                          output=d[4], mappings=mappings, values=d[6], findings=findings,
                          reportable=d[8])


def _renumber(payload: Any, table: list[str], strings: Strings) -> list[Any]:
    """A payload whose texts are places in ``table``, with them placed in ``strings``
    instead (a new list; ValueError or IndexError when it is not a payload)."""
    if type(payload) is not list or len(payload) != 3 or type(payload[2]) is not list:
        raise ValueError("not a payload")
    place = strings.place
    documents = []
    for d in payload[2]:
        if type(d) is not list or len(d) != 9 or type(d[5]) is not list or \
                type(d[7]) is not list:
            raise ValueError("not a cached document")
        if len(d[7]) % 7 or not _INTS_OR_NONE.issuperset(map(type, d[5] + d[7])) or \
                any(value is not None and value < 0 for value in d[5] + d[7]):
            raise ValueError("not a cached document")
        mappings = [place(table[index]) for index in d[5]]
        findings = [value if at % 7 > 4 else place(table[value])
                    for at, value in enumerate(d[7])]
        documents.append([*d[:5], mappings, d[6], findings, d[8]])
    return [payload[0], payload[1], documents]


def _is_int(value: object) -> bool:
    return type(value) is int
