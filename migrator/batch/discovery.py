"""BATCH: which files a run looks at: explicit files, directory walks, ignore rules, git changes.

Directory walks are sorted, skip hidden directories, never follow directory symlinks (so
symlink loops cannot recur) nor file symlinks that lead outside the walked folder (a
repository cannot make the tool read or rewrite a file elsewhere), and honour the
``--include`` / ``--exclude`` globs and ``.gitignore``: in a git work tree the walk takes what
git holds (``_Tracked``: ``git ls-files``, run so that it executes nothing the repository
configures, ``_SAFE``), elsewhere or without git it reads the ``.gitignore`` files (the walk
root's repository and every nested one; never through a link). Explicitly named files are
always taken unless an ``--exclude`` glob matches them (so a config's exclude list works
under pre-commit too). pathspec is imported only when a walk reads a .gitignore or a glob is
given. A folder the walk enters but cannot list (no permission, removed meanwhile) is not
passed over in silence: a ``Walk`` keeps it (``Walk.unlisted``) for the run to report like
an unreadable file.

Each file comes with its place below an output folder (``-o``): a file the run names, its
path relative to the working directory; a file of a folder the run names, its path below
that folder when the folder is the run's only path (``convert jobs/ -o out/`` mirrors
``jobs/`` into ``out/``), else below the folder's own path relative to the working
directory (``convert a b -o out`` writes ``out/a/...`` and ``out/b/...``).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from operator import attrgetter
from pathlib import Path
from typing import Any

from migrator.errors import MigratorError
from migrator.results import FrozenValue, Unreadable

_set = object.__setattr__  # how a frozen value's constructor sets its fields

YAML_SUFFIXES = (".yaml", ".yml")
STDIN = "-"
GITIGNORE = ".gitignore"
UNLISTED = "cannot list folder"  # the reason of a folder a walk could not list starts so
IGNORE_BYTES = 1 << 20  # a .gitignore is read up to this size
# .gitignore patterns a walk reads (each costs ~1 ms to compile; matching is one expression)
MAX_IGNORE_PATTERNS = 3000
_NAME = attrgetter("name")  # a folder entry's name (the sort key of a listing)
# what ends a folder name that ``os.path.join`` would not add a separator to
_SEPARATORS = (os.sep, os.altsep) if os.altsep else os.sep


class SelectionError(MigratorError):
    """The file selection cannot be computed (e.g. --changed-since outside a git repository)."""


class Selection(FrozenValue):
    """Rules that narrow the files a run processes."""

    FIELDS = ("include", "exclude", "gitignore", "changed_since", "only")
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    gitignore: bool
    changed_since: str | None
    only: frozenset[str] | None  # realpaths changed since changed_since (None: unasked)

    def __init__(self, include: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
                 gitignore: bool = True, changed_since: str | None = None,
                 only: frozenset[str] | None = None) -> None:
        _set(self, "include", include)
        _set(self, "exclude", exclude)
        _set(self, "gitignore", gitignore)
        _set(self, "changed_since", changed_since)
        _set(self, "only", only)


EVERY_FILE = Selection()  # no rules (the default)


class Walk(FrozenValue):
    """The files a run looks at, walked anew each time it is iterated (never held in a list,
    so a run over 100,000 files starts converting while it walks and does not grow with the
    tree). Iterate ``changes()`` first so that git is asked once.

    ``unlisted`` (not a field: not compared) gathers, across every iteration, the folders
    the walk entered but could not list, by realpath, in the order first met; ``ignored``
    (nor is it) counts the files the last iteration passed over as ignored (.gitignore)."""

    FIELDS = ("paths", "selection")
    paths: tuple[str, ...]
    selection: Selection
    unlisted: dict[str, Unreadable]
    ignored: list[int]

    def __init__(self, paths: tuple[str, ...], selection: Selection | None = None,
                 unlisted: dict[str, Unreadable] | None = None,
                 ignored: list[int] | None = None) -> None:
        _set(self, "paths", paths)
        _set(self, "selection", EVERY_FILE if selection is None else selection)
        _set(self, "unlisted", {} if unlisted is None else unlisted)
        _set(self, "ignored", [0] if ignored is None else ignored)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return discover(self.paths, self.selection, self.unlisted, self.ignored)

    def groups(self) -> Iterator[Folder]:
        """The files grouped by folder (``groups``)."""
        return groups(self.paths, self.selection, self.unlisted, self.ignored)

    def changes(self) -> Walk:
        """This walk with ``--changed-since`` resolved (git asked now, once)."""
        if self.selection.changed_since is None or self.selection.only is not None:
            return self
        return Walk(self.paths, _with_changes(self.selection), self.unlisted, self.ignored)


def discover(paths: tuple[str, ...], selection: Selection = EVERY_FILE,
             unlisted: dict[str, Unreadable] | None = None,
             ignored: list[int] | None = None) -> Iterator[tuple[str, str]]:
    """Yield ``(path, relative)`` per input; ``relative`` is its place below an output dir."""
    for folder in groups(paths, selection, unlisted, ignored):
        yield from folder.items()


class Folder:
    """The selected files of one walked folder, in walk order (``names``, with the
    ``os.DirEntry`` of each: its stat needs no path built in Python), or one file named by
    the run (``given``). A walked folder also keeps the names of every entry of its listing
    (``listed``, sorted: which files exist at all). ``path`` is the folder as the run names
    it (None for standard input)."""

    __slots__ = ("entries", "given", "listed", "names", "path", "prefix", "rel_prefix")

    def __init__(self, path: str | None, prefix: str, rel_prefix: str, names: list[str],
                 entries: list[os.DirEntry[str]] | None, listed: list[str] | None,
                 given: list[tuple[str, str]] | None = None) -> None:
        self.path, self.prefix, self.rel_prefix = path, prefix, rel_prefix
        self.names, self.entries, self.listed, self.given = names, entries, listed, given

    def items(self) -> list[tuple[str, str]]:
        """``(path, relative)`` of each file."""
        if self.given is not None:
            return self.given
        prefix, rel_prefix = self.prefix, self.rel_prefix
        return [(prefix + name, rel_prefix + name) for name in self.names]


def one_file(name: str, relative: str) -> Folder:
    """The group of one file of a run (``name`` as the run names it)."""
    head, _, base = name.rpartition(os.sep)
    if os.altsep is not None or (not head and name.startswith(os.sep)):
        head, base = os.path.split(name)
    return Folder(None if name == STDIN else head, "", "", [base], None, None,
                  [(name, relative)])


def groups(paths: tuple[str, ...], selection: Selection = EVERY_FILE,
           unlisted: dict[str, Unreadable] | None = None,
           ignored: list[int] | None = None) -> Iterator[Folder]:
    """``discover``'s files grouped: one ``Folder`` per walked folder that has selected
    files, one per file named by the run (and standard input). A folder that the walk
    enters but cannot list goes into ``unlisted`` (by realpath; the first reason kept);
    ``ignored[0]`` is set to the number of files passed over as ignored once the walk has
    ended (another walk of the same paths meanwhile, a kustomization's, changes nothing)."""
    passed_over = [0]
    if selection.changed_since is not None and selection.only is None:
        selection = _with_changes(selection)
    globs = _Globs(selection)
    only = selection.only
    seen: set[str] = set()  # files of the paths before the last one (a later one may repeat)
    for position, given in enumerate(paths):
        if given == STDIN:
            yield one_file(STDIN, "stdin.yaml")
            continue
        remember = position < len(paths) - 1
        root = Path(given)
        if os.path.isdir(root):  # (False when it cannot be told: read, and reported, as a file)
            keyed = remember or only is not None or bool(seen)
            # one root: its tree is the output tree; among others, it keeps its place
            below = _relative_for_file(root) if len(paths) > 1 else "."
            for folder, real in _walk(root, selection, globs, unlisted,
                                      "" if below == "." else below + os.sep,
                                      passed_over):
                if keyed:  # the file's realpath (its folder's is known: links not followed)
                    kept = []
                    for index, name in enumerate(folder.names):
                        key = os.path.join(real, name)
                        if key in seen or (only is not None and key not in only):
                            continue
                        if remember:
                            seen.add(key)
                        kept.append(index)
                    if len(kept) < len(folder.names):
                        if not kept:
                            continue
                        entries = folder.entries or []
                        folder.names = [folder.names[i] for i in kept]
                        folder.entries = [entries[i] for i in kept]
                yield folder
            continue
        name = str(root)
        key = os.path.join(_realpath(os.path.dirname(name) or "."), root.name)
        if key in seen or (only is not None and key not in only) or \
                globs.excluded(_key(root)):
            continue
        if remember:
            seen.add(key)
        yield one_file(name, _relative_for_file(root))
    if ignored is not None:
        ignored[0] = passed_over[0]


def _walk(root: Path, selection: Selection, globs: _Globs,
          unlisted: dict[str, Unreadable] | None = None,
          placed: str = "", ignored: list[int] | None = None) -> Iterator[tuple[Folder, str]]:
    """Each folder below ``root`` that has selected files (sorted, folders first-to-last as
    ``os.walk`` (top-down) visits them), with its realpath. A folder it enters (``root``
    too) but cannot list is recorded in ``unlisted`` (``_unlisted``), never passed over in
    silence: the files in it were not checked. A file's ``relative`` (its place below an
    output folder) is its path below ``root``, after ``placed`` (empty, or ending in a
    separator).

    One ``scandir`` per folder and no system call per file (an entry's type comes with the
    listing): a folder's realpath is its parent's plus its name (folder links are never
    followed), a file's realpath is asked only when the file is a link.

    In a git work tree, what git holds is what is walked (``_Tracked``: tracked files, and
    untracked ones git does not ignore); elsewhere, or without git, the .gitignore files
    are read here (``_IgnoreStack``)."""
    top = os.fspath(root)
    base = os.path.abspath(top)
    top_real = os.path.realpath(top)
    tracked = _Tracked.of(top_real) if selection.gitignore else None
    ignores = _IgnoreStack(root, unlisted) if selection.gitignore and tracked is None \
        else None
    inside = os.path.join(top_real, "")
    cwd = _cwd()
    stack = [(top, ".", top_real)]
    while stack:
        dirpath, rel_dir, real = stack.pop()
        try:
            with os.scandir(dirpath) as listing:
                entries = sorted(listing, key=_NAME)
        except OSError as exc:  # no permission, removed or replaced since its parent's listing
            if unlisted is not None and real not in unlisted and \
                    _may_hold(real, selection.only):
                shown = (placed + rel_dir) if rel_dir != "." else (placed.rstrip(os.sep) or ".")
                unlisted[real] = _unlisted(dirpath, shown, exc)
            continue
        listed = [entry.name for entry in entries]
        try:  # (an entry's type comes with the listing: an error is rare)
            folders = [entry for entry in entries if entry.is_dir()]
        except OSError:
            folders = [entry for entry in entries if _is_dir(entry)]
        files = [entry for entry in entries if not _is_dir(entry)] if folders else entries
        key = _key_of(os.path.normpath(os.path.join(base, rel_dir)), cwd) if globs.any \
            else ""
        rules = None
        if ignores is not None:
            if GITIGNORE in listed:  # (only a file of that name has rules: ``enter``)
                ignores.enter(real)
            rules = ignores.rules(real)
        prefix = dirpath if dirpath.endswith(_SEPARATORS) else dirpath + os.sep
        walked = "" if rel_dir == "." else rel_dir + os.sep  # (``rel_dir`` is below ``root``)
        rel_prefix = placed + walked
        real_prefix = real if real.endswith(_SEPARATORS) else real + os.sep
        below = []
        for entry in folders:
            name = entry.name
            if name.startswith(".") or globs.excluded(_join(key, name) + "/") or \
                    (rules and _ignored(rules, name, True)) or \
                    (tracked is not None and not tracked.holds_folder(walked + name)):
                continue
            try:
                link = entry.is_symlink()
            except OSError:
                link = True
            if not link:  # as os.walk: a folder link is listed, never walked into
                below.append((prefix + name, walked + name, real_prefix + name))
        stack.extend(reversed(below))
        # a link out of the walked folder is not followed (nor are folder links)
        if globs.any:
            chosen = [entry for entry in files if globs.wanted(_join(key, entry.name),
                                                               entry.name)
                      and (not entry.is_symlink() or _inside(prefix + entry.name, inside))]
        else:
            chosen = [entry for entry in files if entry.name.endswith(YAML_SUFFIXES)
                      and (not entry.is_symlink() or _inside(prefix + entry.name, inside))]
        if rules or tracked is not None:
            if tracked is not None:
                held, known = tracked.files, walked.replace(os.sep, "/")
                kept = [entry for entry in chosen if known + entry.name in held]
            else:
                kept = [entry for entry in chosen if not _ignored(rules or [], entry.name,
                                                                  False)]
            if ignored is not None:
                ignored[0] += len(chosen) - len(kept)
            chosen = kept
        if chosen:
            yield Folder(dirpath, prefix, rel_prefix, [entry.name for entry in chosen],
                         chosen, listed), real


class _Tracked:
    """The files git holds below a walk's folder: tracked ones and untracked ones git does
    not ignore (``git ls-files --cached --others --exclude-standard``, git run as
    ``_git_safe`` runs it), by path relative to the folder, and the folders that hold them.
    A nested repository (a submodule, or an untracked repository) is asked when the walk
    enters it. What git tracks is what the repository holds: a tracked file that matches a
    .gitignore is walked (git itself matches patterns only against untracked files)."""

    __slots__ = ("files", "folders", "nested", "top")

    def __init__(self, top: str) -> None:
        self.top = top
        self.files: set[str] = set()
        self.folders: set[str] = set()
        self.nested: set[str] = set()

    @classmethod
    def of(cls, top: str) -> _Tracked | None:
        """What git holds below ``top`` (a realpath); None when ``top`` is in no git work
        tree, or git is not installed or cannot tell (the walk then reads .gitignore)."""
        if _git_root(Path(top)) is None:
            return None
        tracked = cls(top)
        return tracked if tracked._add(top, "") else None

    def _add(self, folder: str, prefix: str) -> bool:
        listed = _ls_files(folder)
        if listed is None:
            return False
        for name in listed:
            if name.endswith("/"):  # an untracked repository inside
                self.nested.add(prefix + name[:-1])
                name = name[:-1]
            else:
                self.files.add(prefix + name)
            parts = (prefix + name).split("/")
            for depth in range(1, len(parts)):
                self.folders.add("/".join(parts[:depth]))
        return True

    def holds_folder(self, relative: str) -> bool:
        """Whether the walk enters the folder ``relative`` (``/``-separated below ``top``)."""
        relative = relative.replace(os.sep, "/")
        if relative in self.nested or (relative in self.files and relative not in
                                       self.folders):
            self.nested.discard(relative)
            self.files.discard(relative)  # (a submodule: listed as one entry)
            self._add(os.path.join(self.top, relative), relative + "/")
            return True
        return relative in self.folders


def _ls_files(folder: str) -> list[str] | None:
    """``git ls-files`` of ``folder``: its files (and untracked repositories, ending in
    ``/``) relative to it; None when git is not installed or fails there."""
    import subprocess

    # the repository is the folder's own (a hook's GIT_DIR or GIT_INDEX_FILE is another's)
    env = {key: value for key, value in os.environ.items() if key not in _LOCATING}
    try:
        proc = subprocess.run(["git", *_SAFE, "ls-files", "-z", "--cached", "--others",
                               "--exclude-standard", "--deduplicate", "--", "."],
                              capture_output=True, check=False, stdin=subprocess.DEVNULL,
                              cwd=folder, env=_safe_env(folder, env))
    except OSError:
        return None
    if proc.returncode != 0:
        return None
    return [name for name in os.fsdecode(proc.stdout).split("\0") if name]


def _unlisted(dirpath: str, rel_dir: str, exc: OSError) -> Unreadable:
    """The folder ``dirpath`` that could not be listed, as an unreadable input (Y102)."""
    return Unreadable(dirpath, f"{UNLISTED}: {exc.strerror or exc}", rel_dir, folder=True)


def _may_hold(real: str, only: frozenset[str] | None) -> bool:
    """Whether the folder ``real`` may hold a file of the run (with ``--changed-since``, only
    one that holds a changed file: the others hold nothing the run would check)."""
    if only is None:
        return True
    inside = real if real.endswith(_SEPARATORS) else real + os.sep
    return any(path.startswith(inside) for path in only)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """Whether a listed entry is a folder (False when that cannot be told, as os.walk)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _inside(path: str, inside: str) -> bool:
    """Whether the link at ``path`` leads inside the folder ``inside`` (ending in a
    separator)."""
    return os.path.realpath(path).startswith(inside)


class _Globs:
    """--include / --exclude: gitignore-style globs, matched against paths relative to the
    working directory (where the config file usually is)."""

    def __init__(self, selection: Selection) -> None:
        self.include = _spec(selection.include) if selection.include else None
        self.exclude = _spec(selection.exclude) if selection.exclude else None
        self.any = self.include is not None or self.exclude is not None

    def wanted(self, relative: str, name: str) -> bool:
        if self.excluded(relative):
            return False
        if self.include is not None:
            return bool(self.include.match_file(relative))
        return name.endswith(YAML_SUFFIXES)

    def excluded(self, relative: str) -> bool:
        return self.exclude is not None and bool(self.exclude.match_file(relative))


def _spec(patterns: tuple[str, ...]) -> Any:
    from migrator.load.globs import spec  # (bounded matching time: normal forms)

    return spec(patterns)


class _IgnoreStack:
    """The .gitignore files that apply below a walk root (its repository's and nested ones)."""

    def __init__(self, root: Path, unlisted: dict[str, Unreadable] | None = None) -> None:
        self.specs: list[tuple[str, Any]] = []
        self.loaded: set[str] = set()
        self.patterns = 0  # patterns read (at most ``MAX_IGNORE_PATTERNS``)
        self.unlisted = unlisted  # a .gitignore with a pattern not used is reported there
        top = _git_root(root.resolve())
        if top is not None:
            chain = [p for p in reversed(root.resolve().parents) if p == top or top in p.parents]
            for folder in chain:
                self.enter(str(folder))

    def enter(self, folder: str) -> None:
        """Load ``folder``'s .gitignore (``folder`` is a resolved path)."""
        if folder in self.loaded:
            return
        self.loaded.add(folder)
        data = _ignore_file(os.path.join(folder, GITIGNORE))
        if data is not None:
            lines = data.decode("utf-8", "replace").splitlines()
            from migrator.load.globs import ignore_spec

            # counted before anything is made of them (a 1 MiB file may hold 500,000 lines)
            count = sum(1 for line in lines if line.strip() and not line.startswith("#"))
            if self.patterns + count > MAX_IGNORE_PATTERNS:
                self._refuse(folder, f"its {count} patterns not used: a walk reads at most "
                             f"{MAX_IGNORE_PATTERNS} .gitignore patterns (the time to read "
                             "them grows with each); the files they name were walked")
                return
            self.patterns += count
            self.specs.append((folder, ignore_spec(self._usable(folder, lines))))

    def _refuse(self, folder: str, why: str) -> None:
        """Report ``folder``'s .gitignore (Y102: the folder is walked as if it named less)."""
        if self.unlisted is not None:
            path = os.path.join(folder, GITIGNORE)
            self.unlisted.setdefault(path, Unreadable(path, why, GITIGNORE, folder=True))

    def _usable(self, folder: str, lines: list[str]) -> list[str]:
        """``lines`` without the patterns whose matching could take too long (a hostile
        ``**********x`` took minutes per file); the file is reported (Y102) if it had any."""
        from migrator.load import globs as bounded

        kept, refused = [], []
        for number, line in enumerate(lines, 1):
            pattern = bounded.git_pattern(line)  # (None: git's pattern matches nothing)
            if pattern is None:
                continue
            if pattern.lstrip().startswith("#") or not bounded.too_complex(pattern.strip()):
                kept.append(pattern)
            else:
                refused.append((number, line.strip()))
        if refused:
            number, pattern = refused[0]
            more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
            self._refuse(folder, f"pattern {bounded.shown(pattern)!r} (line {number}){more} not "
                         f"used: more than {bounded.MAX_STARS} wildcards, or more than "
                         f"{bounded.MAX_SEGMENT_STARS} in one name, make matching too slow; "
                         "the files it names were walked")
        return kept

    def ignored(self, folder: str, name: str, *, directory: bool) -> bool:
        """Whether ``folder/name`` is ignored (``folder`` resolved); deeper files decide last."""
        rules = self.rules(folder)
        return bool(rules) and _ignored(rules, name, directory)

    def rules(self, folder: str) -> list[tuple[str, Any]]:
        """The specs that apply in ``folder`` (resolved), each with the folder's path relative
        to the spec's base as a prefix of its files' names (``a/b/``, or empty)."""
        rules = []
        for base, spec in self.specs:
            if folder != base and not folder.startswith(base.rstrip(os.sep) + os.sep):
                continue
            relative = os.path.relpath(folder, base).replace(os.sep, "/")
            rules.append(("" if relative == "." else relative + "/", spec))
        return rules


def _ignore_file(path: str) -> bytes | None:
    """The first ``IGNORE_BYTES`` of the .gitignore at ``path``; None when there is none, it
    cannot be read, or it is not a regular file: a link is not followed (as git: dir.c in
    v2.39.5 reads in-tree .gitignore files with ``PATTERN_NOFOLLOW``, lines 1083 and 1674),
    so a repository cannot make the walk read a file elsewhere."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        chunks, size = [], 0
        while size < IGNORE_BYTES and (chunk := os.read(handle, IGNORE_BYTES - size)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(handle)


def _ignored(rules: list[tuple[str, Any]], name: str, directory: bool) -> bool:
    """Whether ``name`` is ignored by a folder's ``rules`` (``_IgnoreStack.rules``); deeper
    files decide last."""
    verdict = None
    for prefix, spec in rules:
        result = spec.check_file(prefix + name + ("/" if directory else ""))
        if result.include is not None:
            verdict = result.include
    return bool(verdict)


def _git_root(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if os.path.exists(candidate / ".git"):  # (False, never an error, when unreadable)
            return candidate
    return None


def _with_changes(selection: Selection) -> Selection:
    """Resolve --changed-since into the set of changed or new files (realpaths)."""
    import subprocess  # only here: a run without --changed-since never starts git

    ref = selection.changed_since or ""
    try:
        top = _git("rev-parse", "--show-toplevel").rstrip("\n")
        commit = _commit(ref)
        # plumbing (diff-index), not ``git diff``: it neither refreshes nor writes the index,
        # nor reads a file through a filter; a file whose stat alone changed is compared here
        raw = _git("diff-index", "-z", "--raw", "--no-renames", "--no-ext-diff", "--no-textconv",
                   "--diff-filter=ACMR", commit, "--", cwd=top).split("\0")
        changed = [path for header, path in zip(raw[::2], raw[1::2], strict=False)
                   if not _same_blob(header, os.path.join(top, path))]
        changed += _git("ls-files", "-z", "--others", "--exclude-standard", cwd=top).split("\0")
        names = {os.path.realpath(os.path.join(top, name)) for name in changed if name}
    except FileNotFoundError:
        raise SelectionError("--changed-since needs git, which is not installed") from None
    except subprocess.CalledProcessError as exc:
        detail = os.fsdecode(exc.stderr or b"").strip().splitlines()
        raise SelectionError(f"--changed-since {ref}: {detail[-1] if detail else 'git failed'}"
                             ) from None
    return Selection(selection.include, selection.exclude, selection.gitignore, ref,
                     frozenset(names))


def _same_blob(header: str, path: str) -> bool:
    """Whether a ``diff-index --raw`` entry (``:mode mode oid oid status``) is a regular file
    whose working copy holds the commit's blob byte for byte (its stat alone changed: git
    left its content unread). Anything else counts as changed: a link, a file git filters
    (its blob differs from its bytes), one larger than ``MAX_COMPARED``."""
    import hashlib

    fields = header.lstrip(":").split()
    if len(fields) < 5 or fields[4] != "M" or fields[1] not in ("100644", "100755") or \
            fields[3].strip("0"):  # (a zero new oid: the working copy, not hashed by git)
        return False
    old = fields[2]
    digest = hashlib.sha1 if len(old) == 40 else hashlib.sha256
    try:
        with open(path, "rb", opener=_no_follow) as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_COMPARED:
                return False
            data = handle.read(MAX_COMPARED + 1)
    except OSError:
        return False
    return digest(b"blob %d\0" % len(data) + data).hexdigest() == old


MAX_COMPARED = 16 << 20  # bytes of a stat-changed file --changed-since compares with git's blob


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))


def _commit(ref: str) -> str:
    """The commit ``ref`` names, as a full hash; anything that is not a revision (such as
    a value starting with ``-``, which git would take as an option) is refused."""
    import subprocess

    if not ref or ref.startswith("-") or any(ord(c) < 32 for c in ref):
        raise SelectionError(f"--changed-since {ref!r}: not a git revision")
    try:
        commit = _git("rev-parse", "--verify", "--quiet", "--end-of-options",
                      f"{ref}^{{commit}}").strip()
    except subprocess.CalledProcessError:
        commit = ""
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit):
        raise SelectionError(f"--changed-since {ref}: no such commit in this repository")
    return commit


def _git(*args: str, cwd: str | None = None) -> str:
    """git's output (file names as the file system has them: no newline translation)."""
    import subprocess

    return os.fsdecode(subprocess.run(["git", *_SAFE, *args], capture_output=True, check=True,
                                      stdin=subprocess.DEVNULL, cwd=cwd,
                                      env=_safe_env(cwd)).stdout)


# git runs nothing a repository configures: no hook (core.hooksPath; nor does the index get
# written: no optional locks), no fsmonitor, no pager, no external diff or textconv (the
# commands' options), no transport (a partial clone's lazy fetch), no filter (``_safe_env``)
_SAFE = ("--no-pager", "--no-optional-locks", "-c", "core.hooksPath=/dev/null",
         "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false",
         "-c", "protocol.allow=never", "-c", "diff.external=")


_LOCATING = frozenset(("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
                       "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                       "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES",
                       "GIT_DISCOVERY_ACROSS_FILESYSTEM"))


def _safe_env(cwd: str | None, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a git the tool starts: no system config, no optional locks, no
    prompt nor lazy fetch, and every filter driver the configuration names made empty (git
    then filters nothing: convert.c ``apply_filter``; and not required), by git's
    ``GIT_CONFIG_COUNT`` (command-line scope: it overrides the repository's config)."""
    import subprocess

    env = {key: value for key, value in (os.environ if base is None else base).items()
           if not key.startswith("GIT_CONFIG_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0",
               GIT_NO_LAZY_FETCH="1", GIT_NO_REPLACE_OBJECTS="1")
    listed = subprocess.run(["git", *_SAFE, "config", "-z", "--get-regexp", r"^filter\."],
                            capture_output=True, check=False, stdin=subprocess.DEVNULL,
                            cwd=cwd, env=env).stdout
    drivers = sorted({key[len("filter."):key.rindex(".")] for key in
                      (os.fsdecode(item).partition("\n")[0] for item in listed.split(b"\0"))
                      if key.count(".") >= 2})
    overrides = [(f"filter.{name}.{var}", value) for name in drivers for var, value in
                 (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))]
    env["GIT_CONFIG_COUNT"] = str(len(overrides))
    for index, (key, value) in enumerate(overrides):
        env[f"GIT_CONFIG_KEY_{index}"], env[f"GIT_CONFIG_VALUE_{index}"] = key, value
    return env


def _join(key: str, name: str) -> str:
    return name if key == "." else f"{key}/{name}"


def _key(path: Path) -> str:
    """How globs see a path: relative to the working directory (absolute when outside it)."""
    cwd = _cwd()
    return _key_of(os.path.abspath(path) if cwd is not None else os.fspath(path), cwd)


def _cwd() -> str | None:
    """The working directory; None when it is gone (removed while we run): paths are then
    seen as given, absolute ones as outside it."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _realpath(path: str) -> str:
    """``os.path.realpath``; the path as given when it cannot be resolved (a relative path
    once the working directory is gone)."""
    try:
        return os.path.realpath(path)
    except OSError:
        return path


def _key_of(absolute: str, cwd: str | None) -> str:
    if cwd is None:
        return absolute.replace(os.sep, "/")
    if absolute == cwd:
        return "."
    if absolute.startswith(cwd.rstrip(os.sep) + os.sep):
        return absolute[len(cwd.rstrip(os.sep)) + 1:].replace(os.sep, "/")
    return absolute.replace(os.sep, "/")


def _relative_for_file(path: Path) -> str:
    """The place below an output folder of a file named by the run, or of a folder named
    with other paths: its path relative to the working directory (links resolved), or, when
    outside it, its absolute path without the leading separator."""
    resolved = Path(_realpath(os.fspath(path)))  # (not Path.resolve: a link loop raises)
    if not resolved.is_absolute():  # (a relative path once the working directory is gone)
        return os.fspath(path)
    try:
        return str(resolved.relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(Path(*resolved.parts[1:]))
