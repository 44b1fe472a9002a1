"""CLI: the project config file: ``.trainjob-migrate.yaml`` or ``[tool.trainjob-migrate]``.

Found by walking up from the working directory (the first directory holding either file
wins; a pyproject.toml without the table is passed over) as far as the repository root and
only through folders the user controls (``search``), or named with ``--config``.
Command-line options override it. Unknown keys are errors, so typos do not go unnoticed.
The config is validated by hand (it is small) so that reading it never imports pydantic, and
what the YAML parser made of a ``.trainjob-migrate.yaml`` is kept in the private per-user
cache (JSON, keyed by the file's path, checked against a digest of its text, validated again
like a parsed file) so that a hook run does not import a YAML parser for it.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from migrator.errors import MigratorError
from migrator.load import sources
from migrator.results import FrozenValue
from migrator.settings import RUNTIME_KINDS, SEVERITIES, TARGETS

YAML_NAME = ".trainjob-migrate.yaml"
PYPROJECT = "pyproject.toml"
TABLE = "trainjob-migrate"
CONFIG_BYTES = 1 << 20
# values in a config with its aliases expanded (more is an alias bomb)
CONFIG_VALUES = 100_000


class ConfigError(MigratorError):
    """The config file cannot be read or holds invalid settings."""


class ProjectConfig(FrozenValue):
    """Settings a team keeps with its repository (None: not set)."""

    FIELDS = ("path", "target", "runtimes", "companion_runtimes", "manager", "fail_on",
              "allow_lossy", "include", "exclude", "gitignore", "ignore", "baseline", "allow",
              "shared_runtimes")
    path: Path | None
    target: str | None
    runtimes: tuple[tuple[str, str, str], ...]
    companion_runtimes: bool | None
    manager: str | None
    fail_on: str | None
    allow_lossy: bool | None
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    gitignore: bool | None
    ignore: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]  # (paths, codes)
    baseline: Path | None
    allow: tuple[str, ...]  # waivers, CODE[=choice] [-- reason] (``migrator.waivers``)
    shared_runtimes: Path | None

    def __init__(self, path: Path | None = None, target: str | None = None,
                 runtimes: tuple[tuple[str, str, str], ...] = (),
                 companion_runtimes: bool | None = None, manager: str | None = None,
                 fail_on: str | None = None, allow_lossy: bool | None = None,
                 include: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
                 gitignore: bool | None = None,
                 ignore: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (),
                 baseline: Path | None = None, allow: tuple[str, ...] = (),
                 shared_runtimes: Path | None = None) -> None:
        _set = object.__setattr__
        _set(self, "path", path)
        _set(self, "target", target)
        _set(self, "runtimes", runtimes)
        _set(self, "companion_runtimes", companion_runtimes)
        _set(self, "manager", manager)
        _set(self, "fail_on", fail_on)
        _set(self, "allow_lossy", allow_lossy)
        _set(self, "include", include)
        _set(self, "exclude", exclude)
        _set(self, "gitignore", gitignore)
        _set(self, "ignore", ignore)
        _set(self, "baseline", baseline)
        _set(self, "allow", allow)
        _set(self, "shared_runtimes", shared_runtimes)


class Search(FrozenValue):
    """The outcome of the config search: the file to apply (if any) and the config files
    passed over because they cannot be trusted (one line each, for the user)."""

    FIELDS = ("path", "passed_over")
    path: Path | None
    passed_over: tuple[str, ...]

    def __init__(self, path: Path | None = None, passed_over: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "passed_over", passed_over)


def find(start: Path) -> Path | None:
    """The nearest trusted config file at or above ``start`` (see ``search``)."""
    return search(start).path


def search(start: Path) -> Search:
    """Look for a config file in ``start`` and the folders above it.

    The first folder holding a config file (``.trainjob-migrate.yaml``, or a pyproject.toml
    with the table) wins. The search stops after the repository root (a folder holding
    ``.git``) and does not enter a folder that another user owns or that others may write
    (like a 1777 /tmp): whoever can plant a file there must not configure this run. A config
    file that is not trusted in the same way is passed over, and said so.
    """
    passed: list[str] = []
    for folder in (start, *start.parents):
        try:
            why = _untrusted(os.stat(folder))
        except OSError:
            break
        if why is not None:
            passed += [f"{candidate}: not applied, its folder is {why}"
                       for candidate in _candidates(folder)]
            break
        for candidate in _candidates(folder):
            try:
                why = _untrusted(os.stat(candidate))
            except OSError:
                continue
            if why is not None:
                passed.append(f"{candidate}: not applied, the file is {why}")
                continue
            return Search(candidate, tuple(passed))
        if os.path.lexists(folder / ".git"):
            break  # the repository root: what is above it is not the project's
    return Search(None, tuple(passed))


def _candidates(folder: Path) -> list[Path]:
    """The config files in ``folder`` (a pyproject.toml only when it has the table)."""
    found = []
    candidate = folder / YAML_NAME
    if candidate.is_file():
        found.append(candidate)
    pyproject = folder / PYPROJECT
    if pyproject.is_file() and _may_name_the_table(pyproject):
        try:
            if _pyproject_table(pyproject) is not None:
                found.append(pyproject)
        except ConfigError:  # unreadable: ours (loading it says why) if it names the table
            head = sources.head(str(pyproject), CONFIG_BYTES) or b""
            if f"[tool.{TABLE}".encode() in head:
                found.append(pyproject)
    return found


def _may_name_the_table(pyproject: Path) -> bool:
    """Whether the file can hold ``[tool.trainjob-migrate]``: every TOML spelling of it
    (a table header, dotted keys, an inline table) holds the name, but for a quoted key
    written with escapes; and the name is either written right after ``tool.`` (headers
    ``[tool.trainjob-migrate...]``, dotted keys ``tool.trainjob-migrate.x``, with white space
    and quotes as TOML allows them) or it is a key inside a ``[tool]`` table or a ``tool =
    {...}`` inline table. Most pyproject.toml files (also those naming the tool elsewhere,
    as a script or a dependency) are then passed over without parsing them (nor importing
    tomllib: a hook-style run stays fast)."""
    head = sources.head(str(pyproject), CONFIG_BYTES + 1)
    if head is None or b"\\u" in head or b"\\U" in head:
        return True
    return TABLE.encode() in head and re.search(_TABLE_SPELLING, head, re.MULTILINE) is not None


_TABLE_SPELLING = (
    rb"""tool["']?[ \t]*\.[ \t]*["']?""" + re.escape(TABLE.encode())  # [tool.x], tool.x.key =
    + rb"""|^(?:\xef\xbb\xbf)?[ \t]*\[[ \t]*["']?tool["']?[ \t]*\]"""  # a [tool] table
    + rb"""|\btool["']?[ \t]*=[ \t]*\{""")  # tool = {...}, an inline table


def _untrusted(info: os.stat_result) -> str | None:
    """Why a file or folder with this stat may hold a config planted by someone else:
    owned by another user (root is trusted), or writable by others or by a group other
    than the user's own. None when it is trusted."""
    if info.st_uid not in (os.geteuid(), 0):
        return f"owned by another user (uid {info.st_uid})"
    if info.st_mode & stat.S_IWOTH:
        return "writable by every user"
    if info.st_mode & stat.S_IWGRP and info.st_gid != os.getegid():
        return f"writable by group {info.st_gid}"
    return None


def load(path: Path) -> ProjectConfig:
    """Read and validate the config file at ``path``."""
    data = _pyproject_table(path) if path.name == PYPROJECT else _yaml(path)
    return _validate(path, data or {})


def _validate(path: Path, data: dict[str, Any]) -> ProjectConfig:
    def fail(key: str, message: str) -> ConfigError:
        return ConfigError(f"{path}: {key}: {message}")

    known = {"target", "runtimes", "companion-runtimes", "manager", "fail-on", "allow-lossy",
             "include", "exclude", "gitignore", "ignore", "baseline", "allow",
             "shared-runtimes"}
    for key in data:
        if key not in known:
            raise fail(str(key), f"unknown setting (known: {', '.join(sorted(known))})")
    target = _choice(data, "target", TARGETS, fail)
    fail_on = _choice(data, "fail-on", SEVERITIES, fail)
    manager = data.get("manager")
    if manager is not None and (not isinstance(manager, str) or "/" not in manager):
        raise fail("manager", "must be a domain-prefixed name such as example.com/migrator")
    baseline = data.get("baseline")
    if baseline is not None and (not isinstance(baseline, str) or "\x00" in baseline):
        raise fail("baseline", "must be a file path")
    if baseline and (os.path.isabs(baseline) or not _inside(path.parent, baseline)):
        raise fail("baseline", "must be a relative path to a file in the config's folder or "
                   "below it (name another file with --baseline)")
    return ProjectConfig(path=path, target=target, runtimes=_runtimes(data, fail),
                         companion_runtimes=_flag(data, "companion-runtimes", fail),
                         manager=manager, fail_on=fail_on,
                         allow_lossy=_flag(data, "allow-lossy", fail),
                         include=_strings(data, "include", fail),
                         exclude=_strings(data, "exclude", fail),
                         gitignore=_flag(data, "gitignore", fail),
                         ignore=_ignores(data, fail),
                         baseline=(path.parent / baseline) if baseline else None,
                         allow=_waivers(data, fail),
                         shared_runtimes=_folder(path, data, "shared-runtimes", fail))


def _waivers(data: dict[str, Any], fail: Any) -> tuple[str, ...]:
    value = data.get("allow") or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise fail("allow", "must be a list of waivers such as 'F501=max -- why'")
    return tuple(value)


def _inside(folder: Path, name: str) -> bool:
    """Whether ``name`` (relative) resolves to a path in ``folder`` or below it (False when it
    cannot be resolved: a loop of links)."""
    try:
        return (folder / name).resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError, ValueError):
        return False


def _folder(path: Path, data: dict[str, Any], key: str, fail: Any) -> Path | None:
    """A folder setting: relative to the config's folder and inside it."""
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value or os.path.isabs(value) or not (
            path.parent / value).resolve().is_relative_to(path.parent.resolve()):
        raise fail(key, "must be a relative path to a folder in the config's folder or below it")
    return path.parent / value


def _strings(data: dict[str, Any], key: str, fail: Any) -> tuple[str, ...]:
    value = data.get(key) or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise fail(key, "must be a list of glob patterns")
    return tuple(value)


IgnoreRules = tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]


def _ignores(data: dict[str, Any], fail: Any) -> IgnoreRules:
    rules = data.get("ignore") or []
    if not isinstance(rules, list):
        raise fail("ignore", "must be a list of {paths, codes}")
    parsed = []
    for index, rule in enumerate(rules):
        where = f"ignore[{index}]"
        if not isinstance(rule, dict) or set(rule) - {"paths", "codes"} or "paths" not in rule:
            raise fail(where, "must be {paths: [globs], codes: [CODE, ...]}")
        paths = _strings(rule, "paths", _prefixed(fail, where))
        codes = _strings(rule, "codes", _prefixed(fail, where))
        parsed.append((paths, codes))
    return tuple(parsed)


def _choice(data: dict[str, Any], key: str, allowed: tuple[str, ...], fail: Any) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    text = str(value) if isinstance(value, int | float) and key == "target" else value
    if text not in allowed:
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise fail(key, f"{shown} is not one of {', '.join(allowed)}")
    return str(text)


def _flag(data: dict[str, Any], key: str, fail: Any) -> bool | None:
    value = data.get(key)
    if value is not None and not isinstance(value, bool):
        raise fail(key, "must be true or false")
    return value


def _frameworks() -> list[str]:
    """The frameworks of the legacy kinds (mappings/legacy/*.yaml), in the order the target
    files list them."""
    from migrator.knowledge import catalog

    loaded = catalog.load()
    mapped = {spec.framework for spec in loaded.legacy.values()}
    listed = dict.fromkeys(name for target in loaded.targets.values() for name in target.frameworks)
    return [name for name in listed if name in mapped]


def _runtimes(data: dict[str, Any], fail: Any) -> tuple[tuple[str, str, str], ...]:
    table = data.get("runtimes") or {}
    if not isinstance(table, dict):
        raise fail("runtimes", "must map a framework to {name, kind}")
    chosen = []
    for framework, choice in table.items():
        where = f"runtimes.{framework}"
        if framework not in _frameworks():
            raise fail(where, f"unknown framework (known: {', '.join(_frameworks())})")
        if isinstance(choice, str):
            choice = {"name": choice}
        if not isinstance(choice, dict) or set(choice) - {"name", "kind"}:
            raise fail(where, "must be a runtime name or {name, kind}")
        name, kind = choice.get("name"), choice.get("kind", RUNTIME_KINDS[0])
        if not isinstance(name, str) or not name:
            raise fail(f"{where}.name", "must be a non-empty string")
        if kind not in RUNTIME_KINDS:
            raise fail(f"{where}.kind", f"must be one of {', '.join(RUNTIME_KINDS)}")
        chosen.append((str(framework), name, str(kind)))
    return tuple(chosen)


def _prefixed(fail: Any, where: str) -> Any:
    return lambda key, message: fail(f"{where}.{key}", message)


def _yaml(path: Path) -> Any:
    try:
        text = _text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from None
    data = _parsed(path, text)
    if data is not None and not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a mapping")
    return data


CACHE_FORMAT = b"config 1"


def _parsed(path: Path, text: str) -> Any:
    """The YAML data of the config ``text`` read from ``path``: from the cache entry of
    ``path`` when it was made from this very text, else parsed (and stored when the data is
    plain JSON data, which comes back from JSON exactly as the parser made it)."""
    from migrator.knowledge import cache

    folder = cache.private_folder()
    name = digest = None
    if folder is not None:
        name = f"config-{cache.key([CACHE_FORMAT, os.fsencode(os.path.abspath(path))])}.json"
        digest = cache.key([CACHE_FORMAT, text.encode("utf-8", "surrogatepass")])
        entry = cache.read_json(folder, name)
        if isinstance(entry, dict) and entry.get("digest") == digest and \
                "data" in entry and _plain(entry["data"]):
            return entry["data"]
    from migrator.load.yamlio import DocumentError, safe_documents

    try:  # nesting, merge keys and aliases bounded (a few hundred bytes of aliases expand to
        # billions of values, which the cache entry would go through first)
        documents = safe_documents(text, CONFIG_VALUES)
    except DocumentError as exc:
        where = f" (line {exc.line}, column {exc.column})" if exc.line else ""
        raise ConfigError(f"{path}: cannot read config: {exc}{where}") from None
    if len(documents) > 1:
        raise ConfigError(f"{path}: cannot read config: it holds {len(documents)} YAML "
                          "documents, not one")
    data = documents[0] if documents else None
    if folder is not None and name is not None and _plain(data):
        cache.write_json(folder, name, {"digest": digest, "data": data})
    return data


def _plain(data: Any, depth: int = 0) -> bool:
    """Whether ``data`` is JSON data that JSON gives back unchanged: mappings with string
    keys, lists, strings, booleans, integers, finite floats and null (a YAML date or a
    number key is not; such a config is parsed every time)."""
    if depth > 32:
        return False
    if data is None or isinstance(data, str | bool | int):
        return True
    if isinstance(data, float):
        return data == data and data not in (float("inf"), float("-inf"))
    if isinstance(data, list):
        return all(_plain(item, depth + 1) for item in data)
    if isinstance(data, dict):
        return all(isinstance(key, str) and _plain(value, depth + 1)
                   for key, value in data.items())
    return False


def _pyproject_table(path: Path) -> dict[str, Any] | None:
    import tomllib

    try:
        data = tomllib.loads(_text(path))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:  # TOMLDecodeError
        # is a ValueError, and so is an int of 4,300+ digits
        raise ConfigError(f"{path}: cannot read config: {exc}") from None
    tool = data.get("tool")
    table = tool.get(TABLE) if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{TABLE}] must be a table")
    return table


def _text(path: Path) -> str:
    """A config file's text: a regular file (never a FIFO or a device) of at most 1 MiB."""
    data = sources.read_bytes(str(path), CONFIG_BYTES)
    if data is None:
        raise OSError(f"larger than {CONFIG_BYTES} bytes")
    return data.decode("utf-8")
