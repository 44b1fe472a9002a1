"""CLI: the click-free half of the command line — the options the common ``check`` runs use,
declared once (cli.py builds its click options from them), a strict reader of such a command
line that hands anything else to click, and what every file-processing command does with its
option values: settings, the project config, the --crd/--runtimes preload, signals, exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO, cast

from migrator.errors import INTERRUPTED, ExitCode, MigratorError, exit_interrupted
from migrator.settings import (
    DEFAULT_MANAGER,
    RUNTIME_KINDS,
    TARGETS,
    ConvertOptions,
    OutputMode,
    RunSettings,
)


class UsageError(Exception):
    """A command line or config the run cannot start with (cli.py shows it as click does)."""


def shown(text: str) -> str:
    """A line said before the run (a config's name and its problems, a usage error) as it is
    printed: it may hold a config file's keys and values and folder names, which are input,
    so control characters are escaped (no line break, no terminal escape sequence) and, on a
    GitHub Actions runner, workflow commands neutralised (``safety.said``)."""
    from migrator.report.safety import said

    return said(text)


# ---------------------------------------------------------------------------- the options

FLAG = "flag"  # given: True; absent: the option's default (None where a config file may decide)
SWITCH = "switch"  # --name / --no-name: True / False; absent: None (the config file decides)
CHOICE = "choice"  # one of the option's choices
COUNT = "count"  # a whole number >= 1
WRITING = ("stdout", "directory", "in-place")  # the modes --shared-runtimes applies to


class Option:
    """An option of the file-processing commands that both command-line readers read: click
    (cli.py builds it from this) and ``read_check`` here."""

    __slots__ = ("choices", "default", "dest", "help", "kind", "names")

    def __init__(self, dest: str, names: tuple[str, ...], kind: str, help: str, *,
                 choices: tuple[str, ...] = (), default: Any = None) -> None:
        self.dest = dest
        self.names = names
        self.kind = kind
        self.help = help
        self.choices = choices
        self.default = default


OPTIONS: dict[str, Option] = {option.dest: option for option in (
    Option("target", ("--target",), CHOICE, "Kubeflow Trainer version to convert for "
           "(default 2.2).", choices=TARGETS),
    Option("runtime_kind", ("--runtime-kind",), CHOICE, "Kind of the referenced runtime "
           "(default ClusterTrainingRuntime).", choices=RUNTIME_KINDS),
    Option("companion_runtimes", ("--companion-runtimes", "--no-companion-runtimes"), SWITCH,
           "Generate a namespaced TrainingRuntime per job for what a TrainJob alone cannot "
           "express (TFJob, PaddleJob, MPI workers, sidecars, ...)."),
    Option("allow_lossy", ("--allow-lossy",), FLAG, "Convert documents even when an error "
           "finding says behaviour would change.", default=None),
    Option("no_gitignore", ("--no-gitignore",), FLAG, "Do not honour .gitignore files in "
           "directory walks.", default=False),
    Option("jobs", ("-j", "--jobs"), COUNT, "Parallel processes (default: the CPU count; 1 "
           "under pre-commit, which runs hooks in parallel itself). Output order and results "
           "do not depend on it."),
    Option("helm", ("--helm",), FLAG, "Render each Helm chart met in PATHS with the local "
           "`helm template` and check the rendered manifests (never written back into the "
           "chart).", default=False),
    Option("max_file_size", ("--max-file-size",), COUNT, "Refuse files larger than this many "
           "bytes.", default=10 * 1024 * 1024),
    Option("quiet", ("-q", "--quiet"), FLAG, "Print only errors and the summary.",
           default=False),
    Option("verbose", ("-v", "--verbose"), FLAG, "Also print info findings.", default=False),
    Option("color", ("--color",), CHOICE, "Colour: auto (a terminal, unless NO_COLOR or "
           "TERM=dumb), always or never; for every line, diff and progress bar.",
           choices=("auto", "always", "never")),
    Option("debug", ("--debug",), FLAG, "Show tracebacks for internal errors.", default=False),
    Option("no_cache", ("--no-cache",), FLAG, "Read and write no per-user cache (results of "
           "unchanged files, the validated catalog); the same as TRAINJOB_MIGRATE_NO_CACHE=1.",
           default=False),
)}

# The values of check's other options when not given (``read_check`` declines them).
UNREAD: dict[str, Any] = {
    "config_path": None, "runtime": None, "manager": None, "include": (), "exclude": (),
    "changed_since": None, "runtime_files": (), "crds": (), "reports": (),
    "report_format": None, "sarif_level": None, "baseline": None, "write_baseline": None,
    "allow": (), "format": None,
}

_BY_NAME: dict[str, tuple[Option, Any]] = {}
for _option in OPTIONS.values():
    if _option.kind == SWITCH:
        _BY_NAME[_option.names[0]] = (_option, True)
        _BY_NAME[_option.names[1]] = (_option, False)
    else:
        _BY_NAME.update((name, (_option, True)) for name in _option.names)
_MAX_DIGITS = 18  # a longer number is left to click (Python caps int() of long strings)


def read_check(argv: Sequence[str], environ: Mapping[str, str]) -> dict[str, Any] | None:
    """The option values click gives ``check`` for ``argv`` (the arguments after the program
    name), when ``argv`` is ``check``, at least one path and only options of ``OPTIONS`` each
    spelled exactly (``--name``, ``--name value``, ``--name=value``, ``-j N``, ``-jN``), with
    ``--`` ending the options as for click. Anything else — help, an unknown or clustered
    option, a missing or invalid value, no path, another command, shell completion, Windows —
    gives None: click reads that command line and says what is wrong."""
    if os.name == "nt" or len(argv) < 2 or argv[0] != "check":
        return None  # (click expands wildcards on Windows)
    if any(key[:1] == "_" and key.endswith("_COMPLETE") for key in environ):
        return None  # click's shell completion (_<PROG>_COMPLETE)
    values: dict[str, Any] = {option.dest: option.default for option in OPTIONS.values()}
    values.update(UNREAD)
    paths: list[str] = []
    index, count = 1, len(argv)
    while index < count:
        token = argv[index]
        index += 1
        if token == "--":
            paths.extend(argv[index:])
            break
        if token[:1] != "-" or token == "-":
            paths.append(token)
            continue
        attached: str | None = None
        name = token
        if token[:2] == "--":
            name, equals, rest = token.partition("=")
            if equals:
                attached = rest
        entry = _BY_NAME.get(name)
        if entry is None and token[:2] != "--":
            name, attached = token[:2], token[2:]  # -jN
            entry = _BY_NAME.get(name)
        if entry is None:
            return None
        option, given = entry
        if option.kind in (FLAG, SWITCH):
            if attached is not None:
                return None  # --quiet=..., -qv
            values[option.dest] = given
            continue
        if attached is None:
            if index == count:
                return None
            attached = argv[index]
            index += 1
        if option.kind == CHOICE:
            if attached not in option.choices:
                return None
            values[option.dest] = attached
        else:
            if not (attached.isascii() and attached.isdigit() and len(attached) <= _MAX_DIGITS):
                return None
            number = int(attached)
            if number < 1:
                return None
            values[option.dest] = number
    if not paths:
        return None
    values["paths"] = tuple(paths)
    return values


# ---------------------------------------------------------------------------- the run


def prepare(mode: OutputMode, values: Mapping[str, Any],
            say: Callable[[str], None]) -> RunSettings:
    """The run's settings from the option values, the project config and the environment.
    Says the config lines (``say``, one line each, for standard error); raises UsageError."""
    if values["reports"]:
        from migrator.report import format_of, suffix_list

        for report in values["reports"]:
            if format_of(str(report)) is None:
                raise UsageError(f"report {report}: use a {suffix_list()} file name")
    if values["report_format"] and mode in ("stdout", "diff"):
        raise UsageError("--report-format prints to standard output, which this command uses "
                         "for YAML; add -o DIR or --in-place, or use check")
    if values["no_cache"]:
        os.environ["TRAINJOB_MIGRATE_NO_CACHE"] = "1"  # worker processes inherit it
    under_pre_commit = bool(os.environ.get("PRE_COMMIT"))  # it runs hooks in parallel itself
    project = project_config(values["config_path"], say,
                             quiet=values["quiet"] or under_pre_commit)
    allow = _waivers(values.get("allow", ()), project)
    shared = values.get("shared_runtimes") or project.shared_runtimes
    # convert only, and only when it writes (not check, validate or diff)
    shared = str(shared) if shared is not None and mode in WRITING else None
    try:
        options = ConvertOptions(
            target=_pick(values["target"], project.target, "2.2"), runtime=values["runtime"],
            runtime_kind=values["runtime_kind"],
            manager=_pick(values["manager"], project.manager, DEFAULT_MANAGER),
            allow_lossy=_pick(values["allow_lossy"], project.allow_lossy, False),
            companion_runtimes=_pick(values["companion_runtimes"], project.companion_runtimes,
                                     False) or shared is not None,
            shared_runtimes=shared,
            runtimes=project.runtimes, runtime_files=values["runtime_files"],
            crds=values["crds"], allow=allow,
            converted_only=bool(values.get("converted_only")))
    except (ValueError, MigratorError) as exc:  # a bad target; no mappings folder
        raise UsageError(str(exc)) from None
    preload(options)
    include = values["include"] or project.include
    exclude = (*project.exclude, *values["exclude"])
    _bounded_globs((*include, *exclude, *(p for paths, _ in project.ignore for p in paths)))
    from migrator.report.terminal import color_wanted

    color = values.get("color") or "auto"
    return RunSettings(
        paths=values["paths"], options=options, mode=mode,
        output_dir=values.get("output_dir"), reports=values["reports"],
        fail_on=_pick(values.get("fail_on"), project.fail_on, "error"),
        quiet=values["quiet"], verbose=values["verbose"],
        include=include, exclude=exclude,
        gitignore=not values["no_gitignore"] and project.gitignore is not False,
        changed_since=values["changed_since"],
        jobs=values["jobs"] or (1 if under_pre_commit else os.cpu_count() or 1),
        backup=values.get("backup"), ignore=project.ignore,
        baseline=values["baseline"] or project.baseline,
        write_baseline=values["write_baseline"],
        color=color_wanted(sys.stdout, color), color_stderr=color_wanted(sys.stderr, color),
        progress=mode not in ("stdout", "diff") and not values["quiet"] and not under_pre_commit,
        terse=under_pre_commit,
        github=os.environ.get("GITHUB_ACTIONS") == "true",
        helm=values["helm"], max_bytes=values["max_file_size"],
        report_format=values["report_format"], table=values.get("format") == "table",
        sarif_level=values.get("sarif_level") or "info")


# Set by the process entry (migrator.__main__.run), never by a caller in a longer-lived process.
PROCESS_ENTRY = False


def execute(settings: RunSettings, *, debug: bool, say: Callable[[str], None]) -> NoReturn:
    """Run the batch and exit with its code. From here on Ctrl-C is the run's to report (files
    already written are complete); a run that cannot start raises UsageError."""
    if debug:
        from migrator.convert import document

        document.RAISE_INTERNAL_ERRORS = True
    import signal

    from migrator.batch.runner import run

    if PROCESS_ENTRY:  # the process ends after this run: what the imports made stays until
        import gc  # then; the collector (at exit too) need not walk it again (~14 M
        # instructions, 3-4 ms of a warm check). Not in tests' long-lived processes.
        gc.freeze()

    if signal.getsignal(signal.SIGINT) is exit_interrupted:  # set by migrator.__main__.run
        signal.signal(signal.SIGINT, signal.default_int_handler)  # the run reports it
    import errno

    try:
        code = run(settings)
        sys.stdout.flush()  # a full disk says so here, not after the exit code is chosen
    except MigratorError as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        say("interrupted: files already written are complete, the rest are unchanged")
        sys.exit(INTERRUPTED)
    except OSError as exc:  # standard output or error cannot be written (full, closed)
        if exc.errno == errno.EPIPE:  # a reader that stopped reading: the caller ends it
            raise
        import contextlib

        with contextlib.suppress(OSError, ValueError):  # what is still buffered is dropped
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (no second
            # error when the interpreter flushes it at exit)
        with contextlib.suppress(OSError, ValueError):
            say(f"error: cannot write the output: {exc.strerror or exc}; files already "
                "written are complete, the rest are unchanged")
        sys.exit(ExitCode.USAGE)
    sys.exit(code)


def standard_streams() -> None:
    """Give a process started with standard output or error closed a stand-in (Python sets
    None): writing the results to a closed standard output is an error (exit 2, said on
    standard error), what goes to a closed standard error is dropped, as shells do."""
    if sys.stdout is None:
        sys.stdout = cast(TextIO, _Closed(refuse=True))
    if sys.stderr is None:
        sys.stderr = cast(TextIO, _Closed(refuse=False))


class _Closed:
    """A standard stream the process started without: writing to it is an error (EBADF)
    when ``refuse``, else does nothing."""

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, *, refuse: bool) -> None:
        self.refuse = refuse

    def write(self, text: str) -> int:
        if self.refuse:
            import errno

            raise OSError(errno.EBADF, "standard output is closed")
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        import io

        raise io.UnsupportedOperation("a closed standard stream has no descriptor")


def _bounded_globs(patterns: tuple[str, ...]) -> None:
    """A glob of the command line or the config whose matching could take too long is a usage
    error (``migrator.load.globs``)."""
    if not any("*" in pattern for pattern in patterns):
        return
    from migrator.load import globs

    for pattern in patterns:
        if globs.too_complex(pattern):
            raise UsageError(f"pattern {shown(globs.shown(pattern))!r}: more than "
                             f"{globs.MAX_STARS} wildcards, or more than "
                             f"{globs.MAX_SEGMENT_STARS} in one name, make matching too slow; "
                             "split it into simpler patterns")


def preload(options: ConvertOptions) -> None:
    """Read --crd and --runtimes files up front: a bad one is a usage error, not a finding."""
    if not options.crds and not options.runtime_files:
        return
    from migrator.check import crdschema, runtimefiles

    try:
        for crd in options.crds:
            crdschema.load(crd)
        runtimefiles.from_files(options.runtime_files)
    except MigratorError as exc:
        raise UsageError(str(exc)) from None


def project_config(explicit: Path | None, say: Callable[[str], None], *, quiet: bool) -> Any:
    """The config to apply (named, or found by the trusted search), said on standard error."""
    from migrator import config

    try:
        if explicit is not None:
            if not explicit.is_file():
                raise UsageError(f"config file {explicit} does not exist")
            found: Path | None = explicit
        else:
            try:
                here = Path.cwd()
            except OSError as exc:  # removed while the shell stayed in it
                raise UsageError(f"the working directory: {exc.strerror}") from None
            search = config.search(here)
            for line in search.passed_over:
                say(f"warning: {line} (name it with --config to use it)")
            found = search.path
        if found is None:
            return config.ProjectConfig()
        loaded = config.load(found)
    except MigratorError as exc:
        raise UsageError(_one_line(str(exc))) from None
    if not quiet:
        say(f"using config {found}")
    return loaded


def _one_line(message: str) -> str:
    """A parser's message on one readable line: YAML's ``in "<unicode string>", line L,
    column C:`` become ``(line L, column C)`` after what they place, the echoed source and
    its caret are left out; TOML's quoted line break is named."""
    import re

    parts: list[str] = []
    for line in message.replace("'\\n'", "a line break (is a closing quote missing?)") \
            .splitlines():
        place = re.match(r'\s*in "[^"]*", (line \d+, column \d+):?$', line)
        if place is not None and parts:
            parts[-1] += f" ({place[1]})"
        elif line.strip() and not line.startswith("    "):
            parts.append(line.strip())
    return "; ".join(parts)


def _waivers(given: Sequence[str], project: Any) -> tuple[Any, ...]:
    """The run's waivers: --allow, then the config's ``allow:`` (``migrator.waivers``)."""
    if not given and not project.allow:
        return ()
    from migrator import waivers

    try:
        from_line = waivers.parse_all(given, "--allow")
    except waivers.WaiverError as exc:
        raise UsageError(f"--allow: {exc}") from None
    try:
        return (*from_line, *waivers.parse_all(project.allow, f"config {project.path}"))
    except waivers.WaiverError as exc:
        raise UsageError(f"{project.path}: allow: {exc}") from None


def _pick(cli_value: Any, config_value: Any, default: Any) -> Any:
    """Command line first, then the config file, then the built-in default."""
    if cli_value is not None:
        return cli_value
    return config_value if config_value is not None else default


# ---------------------------------------------------------------------------- without click


def fast_check(argv: Sequence[str]) -> Callable[[], NoReturn] | None:
    """``check`` without click: when ``read_check`` takes ``argv``, standard error is a plain
    text stream click would write to as it is, and the settings are made without a usage
    problem, the run to call (its config lines not said yet); else None and nothing was said
    (click then does it all, and says what is wrong in its words). The run raises UsageError
    when it cannot start (after the config lines: the caller has click show it). What it
    prints is what click's path prints, but for the frames of a traceback (--debug)."""
    stream = sys.stderr
    if not _plain_text(stream):
        return None
    values = read_check(argv, os.environ)
    if values is None:
        return None
    said: list[str] = []
    try:
        settings = prepare("check", values, said.append)
    except Exception:  # a usage problem (or anything odd): click's path, from the start
        return None

    def start() -> NoReturn:
        try:
            for line in said:
                _say(line)
            execute(settings, debug=values["debug"], say=_say)
        except (EOFError, KeyboardInterrupt):  # as click's main does
            _say("")
            _say("Aborted!")
            sys.exit(1)
        except OSError as exc:  # as click's main does with a closed pipe
            import errno

            if exc.errno != errno.EPIPE:
                raise
            sys.stdout = cast(TextIO, _Pacified(sys.stdout))
            sys.stderr = cast(TextIO, _Pacified(sys.stderr))
            sys.exit(1)

    return start


def _plain_text(stream: Any) -> bool:
    """Whether ``click.echo`` writes to ``stream`` as it is: a text file of a known encoding
    other than ASCII (click re-wraps an ASCII one, replacing what it cannot encode)."""
    import io

    if type(stream) is not io.TextIOWrapper or stream.errors is None or not stream.encoding:
        return False
    import codecs

    try:
        return codecs.lookup(stream.encoding).name != "ascii"
    except LookupError:
        return False


def _say(line: str) -> None:
    """A line on standard error as ``cli._say`` writes it there (``shown``: no escape
    sequence is left for ``click.echo`` to strip)."""
    stream = sys.stderr
    stream.write(shown(line) + "\n")
    stream.flush()


class _Pacified:
    """A stream whose flush ignores a closed pipe (click's PacifyFlushWrapper)."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as exc:
            import errno

            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.wrapped, attr)
