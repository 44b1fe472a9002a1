"""CHECK: runtime files a TrainJob's runtimeRef may resolve to (``--runtimes``, and runtimes
among the run's own files), read as every input is (a regular file, non-blocking, within the
size cap) and bounded before parsing (``yamlio.safe_documents``), then indexed like the
target's default runtimes (``knowledge/runtimeindex.py``)."""

from __future__ import annotations

import functools
import os

from migrator import paths
from migrator.errors import MigratorError
from migrator.knowledge.runtimeindex import Index, defaults, describe, runtime_kinds
from migrator.knowledge.specs import TargetSpec
from migrator.load import sources, yamlio


class RuntimeFileError(MigratorError):
    """A --runtimes path cannot be read."""


def known(target: TargetSpec, user_files: tuple[str, ...],
          local_files: tuple[str, ...] = ()) -> Index:
    """Every runtime a TrainJob may resolve to: defaults, then the run's files, then --runtimes
    (a later source wins on a name clash). A fresh dict: callers may add to it."""
    index = dict(defaults(target))
    index.update(from_files(local_files, local=True))
    index.update(from_files(user_files))
    return index


@functools.lru_cache(maxsize=8)
def from_files(files: tuple[str, ...], *, local: bool = False) -> Index:
    """Runtimes in the given files and directories (YAML streams and v1 Lists).

    A --runtimes file that cannot be read or parsed is a ``RuntimeFileError`` (one line);
    one of the run's own files (``local``) is passed over instead: the run reports it as
    that file's finding, and its runtimes are not known."""
    index: Index = {}
    kinds = runtime_kinds() if files else ()
    for path in _yaml_files(files, local=local):
        try:  # a regular file within the size cap, bounded before parsing
            text = yamlio.read_text(path, sources.MAX_BYTES)
            if not any(kind in text for kind in kinds):
                continue
            documents = yamlio.safe_documents(text)
        except (OSError, UnicodeDecodeError, yamlio.DocumentError) as exc:
            if local:
                continue
            raise RuntimeFileError(f"--runtimes {path}: cannot read it ({_reason(exc)})"
                                   ) from None
        for doc in documents:
            items = doc.get("items") if isinstance(doc, dict) and doc.get("kind") == "List" \
                else [doc]
            for item in items or []:
                if isinstance(item, dict) and item.get("kind") in kinds:
                    name = paths.get(item, ("metadata", "name"))
                    if isinstance(name, str):
                        index[(item["kind"], name)] = describe(item, path)
    return index


def _reason(exc: Exception) -> str:
    """Why a runtime file cannot be read, on one line (a YAML error's problem and place)."""
    if isinstance(exc, OSError):
        return str(exc.strerror or exc)
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    line, column = getattr(exc, "line", None), getattr(exc, "column", None)
    if getattr(exc, "code", None) == "Y101" and line is not None:  # yamlio.DocumentError
        return f"not YAML: {' '.join(str(exc).split())} at line {line}, column {column}"
    return " ".join(str(exc).split())


def _yaml_files(given_paths: tuple[str, ...], *, local: bool = False) -> list[str]:
    files = []
    for given in given_paths:
        if os.path.isdir(given):
            for dirpath, dirnames, filenames in os.walk(given):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                files += [os.path.join(dirpath, f) for f in sorted(filenames)
                          if f.endswith((".yaml", ".yml"))  # a FIFO or a device: passed over
                          and os.path.isfile(os.path.join(dirpath, f))]
        elif local or os.path.exists(given):  # (a run's file gone since: passed over)
            files.append(given)
        else:
            raise RuntimeFileError(f"--runtimes {given}: no such file or directory")
    return files
