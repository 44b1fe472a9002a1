"""Run a batch: process files, write outputs and reports, print, compute the exit code."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from migrator import pipeline, report, writer
from migrator.findings import Severity
from migrator.pipeline import FileResult
from migrator.settings import RunSettings


def run(settings: RunSettings) -> int:
    started = time.monotonic()
    files: list[FileResult] = []
    minimum = Severity.INFO if settings.verbose else \
        Severity.ERROR if settings.quiet else Severity.WARNING
    for file in pipeline.process_paths(settings.paths, settings.options):
        files.append(file)
        _write(file, settings)
        _print(file, settings, minimum)
    built = report.build(files, settings.options.target)
    for path in settings.reports:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report.to_json(built), encoding="utf-8")
    print(report.summary_line(built["summary"], time.monotonic() - started), file=sys.stderr)
    return pipeline.exit_code(files, settings.fail_on)


def _write(file: FileResult, settings: RunSettings) -> None:
    if file.source is None or file.result is None:
        return
    if settings.mode == "stdout":
        text = file.result.text
        if len(settings.paths) > 1 or Path(settings.paths[0]).is_dir():
            text = f"---\n# Source: {file.name}\n{text}"
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    elif settings.mode == "directory" and settings.output_dir is not None and file.changed:
        target = writer.mirrored_path(settings.output_dir, file.relative)
        writer.atomic_write(target, file.source.encode(file.result.text))
    elif settings.mode == "in-place" and file.writable:
        writer.atomic_write(Path(file.name),
                            file.source.encode(file.result.text))


def _print(file: FileResult, settings: RunSettings, minimum: Severity) -> None:
    lines = [] if settings.quiet else report.document_lines(file)
    lines += report.finding_lines(file, minimum)
    if settings.mode == "in-place" and file.writable:
        lines.insert(0, f"rewrote {file.name}")
    for line in lines:
        print(line, file=sys.stderr)
