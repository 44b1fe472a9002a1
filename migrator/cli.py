"""The command line: parse options into settings, run the pipeline, print, exit. No logic."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from migrator import __version__
from migrator.errors import ExitCode, MigratorError
from migrator.settings import (
    DEFAULT_MANAGER,
    RUNTIME_KINDS,
    SEVERITIES,
    TARGETS,
    ConvertOptions,
    OutputMode,
    RunSettings,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trainjob-migrate")
def main() -> None:
    """Migrate legacy Kubeflow training manifests to Kubeflow Trainer v2 TrainJobs."""


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("-o", "--output-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write a mirrored tree of the input files here.")
@click.option("--in-place", is_flag=True, help="Rewrite the input files atomically.")
@click.option("--report", "reports", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Write a machine-readable report (FILE.json). Repeatable.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Config file (default: the nearest .trainjob-migrate.yaml or pyproject.toml "
              "with [tool.trainjob-migrate] at or above the working directory).")
@click.option("--target", type=click.Choice(TARGETS),
              help="Kubeflow Trainer version to convert for (default 2.2).")
@click.option("--runtime", help="Runtime name for the TrainJob's runtimeRef "
              "(default: the target's runtime for the framework, e.g. torch-distributed).")
@click.option("--runtime-kind", type=click.Choice(RUNTIME_KINDS),
              help="Kind of the referenced runtime (default ClusterTrainingRuntime).")
@click.option("--companion-runtimes/--no-companion-runtimes", default=None,
              help="Generate a namespaced TrainingRuntime per job for what a TrainJob alone "
              "cannot express (TFJob, PaddleJob, MPI workers, sidecars, restart policies).")
@click.option("--manager", help=f"Manager key of the generated runtimePatches entry "
              f"(default {DEFAULT_MANAGER}).")
@click.option("--fail-on", type=click.Choice(SEVERITIES),
              help="Exit 1 when a finding has at least this severity (default error).")
@click.option("--allow-lossy", is_flag=True, default=None,
              help="Convert documents even when an error finding says behaviour would change.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the summary.")
@click.option("-v", "--verbose", is_flag=True, help="Also print info findings.")
@click.option("--debug", is_flag=True, help="Show tracebacks for internal errors.")
def convert(paths: tuple[str, ...], output_dir: Path | None, in_place: bool,
            reports: tuple[Path, ...], config_path: Path | None, target: str | None,
            runtime: str | None, runtime_kind: str | None, companion_runtimes: bool | None,
            manager: str | None, fail_on: str | None, allow_lossy: bool | None,
            quiet: bool, verbose: bool, debug: bool) -> None:
    """Convert legacy manifests in PATHS (files, directories, or - for stdin).

    Without -o or --in-place the converted stream is written to standard output.
    """
    if output_dir is not None and in_place:
        raise click.UsageError("use either -o/--output-dir or --in-place, not both")
    if in_place and "-" in paths:
        raise click.UsageError("--in-place cannot rewrite standard input")
    for report in reports:
        if report.suffix.lower() != ".json":
            raise click.UsageError(f"report {report}: only .json reports are supported")
    mode: OutputMode = "in-place" if in_place else \
        "directory" if output_dir is not None else "stdout"
    project = _project_config(config_path)
    options = ConvertOptions(
        target=_pick(target, project.target, "2.2"), runtime=runtime, runtime_kind=runtime_kind,
        manager=_pick(manager, project.manager, DEFAULT_MANAGER),
        allow_lossy=_pick(allow_lossy, project.allow_lossy, False),
        companion_runtimes=_pick(companion_runtimes, project.companion_runtimes, False),
        runtimes=project.runtimes)
    settings = RunSettings(paths=paths, options=options, mode=mode, output_dir=output_dir,
                           reports=reports, fail_on=_pick(fail_on, project.fail_on, "error"),
                           quiet=quiet, verbose=verbose)
    if debug:
        from migrator import document

        document.RAISE_INTERNAL_ERRORS = True
    from migrator.runner import run

    sys.exit(run(settings))


def _project_config(explicit: Path | None) -> Any:
    from migrator import config

    try:
        if explicit is not None:
            if not explicit.is_file():
                raise click.UsageError(f"config file {explicit} does not exist")
            return config.load(explicit)
        found = config.find(Path.cwd())
        return config.load(found) if found is not None else config.ProjectConfig()
    except MigratorError as exc:
        raise click.UsageError(str(exc)) from None


def _pick(cli_value: Any, config_value: Any, default: Any) -> Any:
    """Command line first, then the config file, then the built-in default."""
    if cli_value is not None:
        return cli_value
    return config_value if config_value is not None else default


@main.command()
@click.argument("code")
def explain(code: str) -> None:
    """Explain a finding CODE (e.g. F501) or its name (e.g. elastic-policy)."""
    from migrator.catalog import load

    codes = load().codes
    key = code.upper()
    if key not in codes:
        key = next((c for c, doc in codes.items() if doc.name == code.lower()), "")
    if not key:
        click.echo(f"unknown finding code {code!r}; `trainjob-migrate rules` lists them", err=True)
        sys.exit(ExitCode.USAGE)
    doc = codes[key]
    click.echo(f"{key} {doc.name} ({doc.severity})\n\n{doc.summary}\n\nWhy: {doc.why}\n\n"
               f"Example: {doc.example}\n\nFix: {doc.fix}")


@main.command()
def rules() -> None:
    """List every finding code with its default severity."""
    from migrator.catalog import load

    for code, doc in load().codes.items():
        click.echo(f"{code}  {doc.severity:<7}  {doc.name:<30}  {doc.summary}")


def run_main(argv: list[str] | None = None) -> Any:
    """Entry point for tests: run the CLI without exiting the interpreter."""
    return main.main(args=argv, prog_name="trainjob-migrate", standalone_mode=False)
