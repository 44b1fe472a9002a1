"""BATCH: run a batch: select files, process them, write outputs and reports, print, exit code."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from migrator import report as reports
from migrator.batch import discovery, pipeline, writer
from migrator.batch.progress import Progress
from migrator.report import diffs
from migrator.report import jsonreport as report
from migrator.report.baseline import IgnoreRule, Suppressor, load_baseline, write_baseline
from migrator.results import FileResult, Severity, exit_code, needs_attention
from migrator.settings import RunSettings

if TYPE_CHECKING:
    pass


def run(settings: RunSettings) -> int:
    started = time.monotonic()
    minimum = Severity.INFO if settings.verbose else \
        Severity.ERROR if settings.quiet else Severity.WARNING
    selection = discovery.Selection(settings.include, settings.exclude, settings.gitignore,
                                    settings.changed_since)
    found = list(discovery.discover(settings.paths, selection))
    if settings.helm:
        found = _with_rendered_charts(found, settings.paths)
    options = settings.options
    if settings.mode == "validate" or options.runtime_files:
        options = replace(options, local_runtime_files=_runtime_files(found))
    suppressor = Suppressor(tuple(IgnoreRule(paths, codes) for paths, codes in settings.ignore),
                            load_baseline(settings.baseline) if settings.baseline else None)
    progress = Progress(len(found), settings.progress)
    wanted = {reports.format_of(str(p)) for p in settings.reports} | \
        ({settings.report_format} if settings.report_format else set())
    reviewing = bool(wanted - {"json", None})
    reviewed: list[Any] = []  # review.ReviewDocument, imported only when needed
    files: list[FileResult] = []
    try:
        for file in pipeline.process_paths(settings.paths, options, jobs=settings.jobs,
                                           found=found, render=settings.mode != "check",
                                           max_bytes=settings.max_bytes,
                                           audit=settings.mode == "validate",
                                           keep_text=settings.mode in ("stdout", "diff")
                                           or reviewing,
                                           destination=_destination(settings)):
            file = suppressor.apply(file)
            _show(file, settings)
            if file.write_error is not None:
                print(f"{file.name}: error Y106 cannot write the result: "
                      f"{file.write_error} (the input is unchanged)", file=sys.stderr)
            _print(file, settings, minimum)
            if reviewing:
                from migrator.batch import explain
                from migrator.report import review

                reviewed += review.collect(file, explain.explanations(file, options))
            files.append(file.slim())
            progress.advance()
    finally:
        progress.close()
    target = settings.options.target
    built = report.build(files, target)
    for path in settings.reports:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(reports.write(reports.format_of(str(path)), built, reviewed, target),
                        encoding="utf-8")
    if settings.report_format:
        sys.stdout.write(reports.write(settings.report_format, built, reviewed, target))
    if settings.write_baseline is not None:
        count = write_baseline(settings.write_baseline, files)
        print(f"wrote {count} findings to baseline {settings.write_baseline}", file=sys.stderr)
    if settings.github:
        from migrator.report import github

        github.append_step_summary(built)
    line = report.summary_line(built["summary"], time.monotonic() - started)
    if suppressor.suppressed:
        line += f"; {suppressor.suppressed} accepted findings suppressed"
    if settings.terse and settings.mode == "check" and needs_attention(files):
        line += "; run `trainjob-migrate convert --in-place` on these files"
    print(line, file=sys.stderr)
    return exit_code(files, settings.fail_on, legacy_fails=settings.mode in ("check", "diff"))


def _runtime_files(found: list[tuple[str, str]]) -> tuple[str, ...]:
    """Files of the run that hold a runtime (so TrainJobs can be resolved against them)."""
    hits = []
    for name, _ in found:
        if name == "-" or name.startswith("helm-chart:"):
            continue
        try:
            with open(name, "rb") as handle:
                if b"TrainingRuntime" in handle.read(4 * 1024 * 1024):
                    hits.append(name)
        except OSError:
            continue
    return tuple(hits)


def _with_rendered_charts(found: list[tuple[str, str]],
                          paths: tuple[str, ...]) -> list[tuple[str, str]]:
    """Replace the files of each Helm chart by one entry for its rendered output."""
    from migrator.batch import helm

    helm.require()
    charts = helm.charts(paths)
    kept = [item for item in found if not helm.inside_chart(item[0], charts)]
    for chart in charts:
        relative = os.path.relpath(chart, Path.cwd()) if chart.is_absolute() else str(chart)
        kept.append((helm.PREFIX + str(chart), os.path.join(relative, helm.RENDERED)))
    return kept


def _destination(settings: RunSettings) -> writer.Destination | None:
    """Where conversions are written (by the process that makes them), if anywhere."""
    if settings.mode == "directory" and settings.output_dir is not None:
        return writer.Destination(output_dir=settings.output_dir)
    if settings.mode == "in-place":
        return writer.Destination(backup=settings.backup)
    return None


def _show(file: FileResult, settings: RunSettings) -> None:
    """stdout and diff modes: print the conversion or its diff, in input order."""
    if file.source is None or file.result is None:
        return
    if settings.mode == "stdout":
        text = file.result.text
        if len(settings.paths) > 1 or Path(settings.paths[0]).is_dir():
            text = f"---\n# Source: {file.name}\n{text}"
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    elif settings.mode == "diff":
        sys.stdout.write(diffs.unified(file.name, file.source.text, file.result.text,
                                       color=settings.color))


def _print(file: FileResult, settings: RunSettings, minimum: Severity) -> None:
    if settings.mode == "validate":
        lines = [] if settings.quiet else report.validate_lines(file, settings.options.target)
        lines += report.finding_lines(file, minimum)
    elif settings.mode == "check":
        lines = report.check_lines(file, terse=settings.terse)
        if not settings.terse:
            lines += report.finding_lines(file, minimum if settings.verbose else Severity.ERROR)
    else:
        lines = [] if settings.quiet else report.document_lines(file)
        lines += report.finding_lines(file, minimum)
    if settings.mode == "in-place" and file.written:
        lines.insert(0, f"rewrote {file.name}")
    for line in lines:
        print(line, file=sys.stderr)
    if settings.github:
        from migrator.report import github

        github.write_annotations(file, Severity.WARNING if not settings.verbose else Severity.INFO,
                           sys.stdout if settings.mode not in ("stdout", "diff") else sys.stderr)
