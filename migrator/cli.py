"""CLI: the command line: parse options into settings, run the pipeline, print, exit. No logic."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from migrator import launch
from migrator.errors import ExitCode, MigratorError
from migrator.report import REPORTERS
from migrator.settings import (
    DEFAULT_MANAGER,
    SEVERITIES,
    TARGETS,
    ConvertOptions,
    OutputMode,
)
from migrator.version import __version__


class _Commands(click.Group):
    """The command group. A command (with its options) is built when it is first looked up:
    a run builds only its own (each file-processing command has some thirty options; building
    them all is ~2 ms of every start-up). Listing them (``--help``), or an unknown name (its
    error suggests the close ones), builds them all."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.builders: dict[str, Callable[[], click.Command]] = {}

    def lazy(self, name: str) -> Callable[[Callable[[], click.Command]],
                                          Callable[[], click.Command]]:
        """Register a function that builds command ``name``."""
        def register(builder: Callable[[], click.Command]) -> Callable[[], click.Command]:
            self.builders[name] = builder
            return builder
        return register

    def _build(self, name: str) -> None:
        builder = self.builders.pop(name, None)
        if builder is not None:
            self.add_command(builder(), name)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.builders:
            self._build(cmd_name)
        elif cmd_name not in self.commands:
            for name in list(self.builders):
                self._build(name)
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.builders})


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trainjob-migrate")
def main() -> None:
    """Migrate legacy Kubeflow training manifests to Kubeflow Trainer v2 TrainJobs."""


def _option(dest: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The click option of an option declared in ``launch.OPTIONS`` (which the click-free
    ``check`` reads too)."""
    spec = launch.OPTIONS[dest]
    if spec.kind == launch.SWITCH:
        return click.option("/".join(spec.names), dest, default=None, help=spec.help)
    if spec.kind == launch.FLAG:
        return click.option(*spec.names, dest, is_flag=True, default=spec.default,
                            help=spec.help)
    if spec.kind == launch.CHOICE:
        return click.option(*spec.names, dest, type=click.Choice(spec.choices), help=spec.help)
    extra: dict[str, Any] = {} if spec.default is None else {"default": spec.default,
                                                             "show_default": True}
    return click.option(*spec.names, dest, type=click.IntRange(min=1), help=spec.help, **extra)


def _shared(func: Callable[..., Any]) -> Callable[..., Any]:
    """Options every file-processing command takes (convert, check, diff). Those the
    click-free ``check`` reads are declared in ``launch.OPTIONS``; a new option's absent value
    goes into ``launch.UNREAD`` too (tests/test_cli_fastpath.py holds both to click)."""
    options: list[Callable[[Callable[..., Any]], Callable[..., Any]]] = [
        click.argument("paths", nargs=-1, required=True),
        click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
                     help="Config file (default: the nearest .trainjob-migrate.yaml, or "
                     "pyproject.toml with [tool.trainjob-migrate], at or above the working "
                     "directory)."),
        _option("target"),
        click.option("--runtime", help="Runtime name for every TrainJob's runtimeRef "
                     "(default: the target's runtime for the framework, e.g. torch-distributed)."),
        _option("runtime_kind"),
        _option("companion_runtimes"),
        click.option("--manager", help="Manager key of the generated runtimePatches entry "
                     f"(default {DEFAULT_MANAGER})."),
        _option("allow_lossy"),
        click.option("--allow", "allow", multiple=True, metavar="CODE[=CHOICE]",
                     help="Accept the findings of this code (they are still reported, as "
                     "waived); add ' -- reason' to say why. An elastic job needs its size: "
                     "F501=min, F501=max or F501=replicas. Repeatable."),
        click.option("--include", multiple=True, help="Only files matching this glob in "
                     "directory walks (gitignore syntax; default *.yaml, *.yml). Repeatable."),
        click.option("--exclude", multiple=True, help="Skip files matching this glob "
                     "(gitignore syntax, also for named files). Repeatable."),
        _option("no_gitignore"),
        click.option("--changed-since", metavar="GIT_REF",
                     help="Only files changed (or new) since GIT_REF."),
        _option("jobs"),
        _option("helm"),
        _option("max_file_size"),
        click.option("--runtimes", "runtime_files", multiple=True,
                     type=click.Path(exists=True), help="TrainingRuntime / "
                     "ClusterTrainingRuntime YAML (file or directory, e.g. `kubectl get "
                     "clustertrainingruntimes -o yaml`) to resolve runtimeRefs against; an "
                     "unresolved runtimeRef is then an error. Repeatable."),
        click.option("--crd", "crds", multiple=True, type=click.Path(exists=True,
                                                                     dir_okay=False),
                     help="Also validate against this CRD exported from your cluster "
                     "(strict: unknown fields rejected). Repeatable."),
        click.option("--report", "reports", multiple=True,
                     type=click.Path(dir_okay=False, path_type=Path),
                     help="Write a report; the format comes from the suffix: .json (machine "
                     "contract), .md (PR comment), .html, .sarif (code scanning), .xml (JUnit), "
                     "gl-code-quality.json (GitLab Code Quality). "
                     "Repeatable."),
        click.option("--report-format", type=click.Choice(tuple(REPORTERS)),
                     help="Also print a report in this format to standard output (with check, "
                     "validate, -o or --in-place)."),
        click.option("--sarif-level", type=click.Choice(SEVERITIES),
                     help="Lowest severity the SARIF report lists (default info: all)."),
        click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path),
                     help="Suppress the findings listed in this baseline file."),
        click.option("--write-baseline", type=click.Path(dir_okay=False, path_type=Path),
                     help="Write every finding of this run to a baseline file."),
        _option("quiet"),
        _option("verbose"),
        _option("color"),
        _option("debug"),
        _option("no_cache"),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@main.lazy("convert")
def _convert_command() -> click.Command:
    @click.command()
    @_shared
    @click.option("-o", "--output-dir", type=click.Path(file_okay=False, path_type=Path),
                  help="Write a mirrored tree of the converted files here.")
    @click.option("--in-place", is_flag=True, help="Rewrite the input files atomically.")
    @click.option("--backup", metavar="SUFFIX",
                  help="With --in-place, keep the original next to each rewritten file.")
    @click.option("--diff", "as_diff", is_flag=True, help="Print a unified diff instead (= diff).")
    @click.option("--converted-only", is_flag=True,
                  help="Print only what converted (the TrainJobs; a List keeps only its "
                  "converted items): a stream to apply that holds no legacy job.")
    @click.option("--fail-on", type=click.Choice(SEVERITIES),
                  help="Exit 1 when a finding has at least this severity (default error).")
    @click.option("--shared-runtimes", type=click.Path(file_okay=False, path_type=Path),
                  metavar="DIR", help="Instead of a companion runtime per job, reference "
                  "shared ClusterTrainingRuntimes kept in DIR (read, then updated: only new "
                  "variants are added; see docs/usage.md).")
    def convert(**values: Any) -> None:
        """Convert legacy manifests in PATHS (files, directories, or - for stdin).

        Without -o or --in-place the converted stream is written to standard output.
        """
        if values["output_dir"] is not None and values["in_place"]:
            raise click.UsageError("use either -o/--output-dir or --in-place, not both")
        if values["in_place"] and "-" in values["paths"]:
            raise click.UsageError("--in-place cannot rewrite standard input")
        if values["converted_only"] and (values["in_place"] or values["output_dir"] is not None
                                         or values["as_diff"]):
            raise click.UsageError("--converted-only is for the stream on standard output "
                                   "(not with -o, --in-place or --diff)")
        if values["backup"] is not None and not values["in_place"]:
            raise click.UsageError("--backup needs --in-place")
        if values["backup"] is not None and (not values["backup"] or "/" in values["backup"]
                                             or os.sep in values["backup"]):
            raise click.UsageError("--backup takes a file-name suffix such as .orig (not empty, "
                                   "no path separator)")
        mode: OutputMode = "diff" if values["as_diff"] else "in-place" if values["in_place"] else \
            "directory" if values["output_dir"] is not None else "stdout"
        _run(mode, values)

    return convert


@main.lazy("check")
def _check_command() -> click.Command:
    @click.command()
    @_shared
    @click.option("--format", "format", type=click.Choice(("lines", "table")),
                  help="lines (default): each document and its findings; table: one row per "
                  "document (file, kind/name, status, first code), for triage.")
    def check(**values: Any) -> None:
        """Report legacy manifests in PATHS without changing anything.

        Exit 0 when nothing would change, 1 when something would, 2 on unreadable input.
        Terse output when PRE_COMMIT is set (as under pre-commit).
        """
        _run("check", values)

    return check


@main.lazy("validate")
def _validate_command() -> click.Command:
    @click.command(name="validate")
    @_shared
    @click.option("--fail-on", type=click.Choice(SEVERITIES),
                  help="Exit 1 when a finding has at least this severity (default error).")
    def validate_command(**values: Any) -> None:
        """Validate existing TrainJobs and runtimes in PATHS for the target Trainer release.

        Checks every TrainJob, TrainingRuntime and ClusterTrainingRuntime (hand-written ones too)
        against the strict API models, the webhook's admission rules, the runtimes it can resolve
        and any --crd. Changes nothing; exit 1 when something would be rejected.
        """
        _run("validate", values)

    return validate_command


@main.lazy("diff")
def _diff_command() -> click.Command:
    @click.command()
    @_shared
    def diff(**values: Any) -> None:
        """Print a unified diff of what convert would change in PATHS (exit 1 if any)."""
        _run("diff", values)

    return diff


def _run(mode: OutputMode, values: dict[str, Any]) -> None:
    if _LATE:  # the click-free check's run could not start: say so as for any command line
        raise click.UsageError(launch.shown(_LATE.pop()))
    try:
        settings = launch.prepare(mode, values, _say)
        launch.execute(settings, debug=values["debug"], say=_say)
    except launch.UsageError as exc:
        raise click.UsageError(launch.shown(str(exc))) from None


def _say(line: str) -> None:
    click.echo(launch.shown(line), err=True)


_LATE: list[str] = []


def show_usage_error(message: str) -> NoReturn:
    """Show ``message`` as the usage error of the command line in ``sys.argv`` (a click-free
    ``check`` whose run could not start), exactly as click shows one raised by its command;
    exit 2."""
    _LATE.append(message)
    main()
    raise SystemExit(ExitCode.USAGE)  # (main() exits)


def _preload(options: ConvertOptions) -> None:
    """Read --crd and --runtimes files up front: a bad one is a usage error, not a finding."""
    try:
        launch.preload(options)
    except launch.UsageError as exc:
        raise click.UsageError(launch.shown(str(exc))) from None


@main.lazy("explain-diff")
def _explain_diff_command() -> click.Command:
    @click.command(name="explain-diff")
    @click.argument("files", nargs=-1, required=True,
                    type=click.Path(exists=True, dir_okay=False, allow_dash=True))
    @click.option("--target", type=click.Choice(TARGETS), default="2.2", show_default=True)
    @click.option("--companion-runtimes", is_flag=True,
                  help="Compare as with --companion-runtimes.")
    @click.option("--runtime", help="Runtime name for the TrainJobs (as for convert).")
    @click.option("--runtimes", "runtime_files", multiple=True, type=click.Path(exists=True),
                  help="Runtime YAML whose templates to render with (as for convert).")
    def explain_diff(files: tuple[str, ...], target: str, companion_runtimes: bool,
                     runtime: str | None, runtime_files: tuple[str, ...]) -> None:
        """Show how the pods of each converted job will differ from the legacy job's pods.

        Renders what Trainer will create (runtime template + trainer fields + runtime patches,
        with the target's merge rules) and lists every difference: image, command, env and the
        env contract, resources, volumes, scheduling, container names, pod counts.
        """
        from migrator.batch import explain as explainer

        options = ConvertOptions(target=target, companion_runtimes=companion_runtimes,
                                 runtime=runtime, runtime_files=runtime_files)
        _preload(options)
        sys.exit(explainer.run(files, options))

    return explain_diff


@main.lazy("explain")
def _explain_command() -> click.Command:
    @click.command()
    @click.argument("code")
    def explain(code: str) -> None:
        """Explain a finding code such as F501, or its name such as elastic-policy."""
        codes = _finding_codes()
        key = code.upper()
        if key not in codes:
            key = next((c for c, doc in codes.items() if doc.name == code.lower()), "")
        if not key:
            click.echo(f"unknown finding code {code!r}; `trainjob-migrate rules` lists them",
                       err=True)
            sys.exit(ExitCode.USAGE)
        doc = codes[key]
        click.echo(f"{key} {doc.name} ({doc.severity})\n\n{doc.summary}\n\nWhy: {doc.why}\n\n"
                   f"Example: {doc.example}\n\nFix: {doc.fix}")

    return explain


@main.lazy("rules")
def _rules_command() -> click.Command:
    @click.command()
    def rules() -> None:
        """List every finding code with its default severity."""
        for code, doc in _finding_codes().items():
            click.echo(f"{code}  {doc.severity:<7}  {doc.name:<30}  {doc.summary}")

    return rules


def _finding_codes() -> dict[str, Any]:
    """The catalog's finding codes (code -> doc); a broken mappings folder is a one-line
    usage error (exit 2), never a traceback."""
    from migrator.knowledge.catalog import load

    try:
        return dict(load().codes)
    except MigratorError as exc:
        raise click.UsageError(launch.shown(str(exc))) from None


def run_main(argv: list[str] | None = None) -> Any:
    """Entry point for tests: run the CLI without exiting the interpreter."""
    return main.main(args=argv, prog_name="trainjob-migrate", standalone_mode=False)
