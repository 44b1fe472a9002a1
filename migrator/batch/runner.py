"""BATCH: run a batch: select files, process them, write outputs and reports, print, exit code.

check and validate print their results to stdout (unless it carries a report); convert's
per-document lines, progress and the summary go to stderr. Every printed line is escaped
(control characters, undecodable names); on a GitHub Actions runner stdout and stderr are
guarded so that no untrusted text becomes a workflow command. Reports are written
atomically; one that cannot be written is one line (Y107) and exit code 2. A folder the walk
could not list is reported after the files, as an unreadable file is (Y102, exit code 2).
A conversion into a folder (``-o``) creates it first (a report may go inside it), and never
writes two inputs to one output path: the later one is a write failure (Y106, exit code 2).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from migrator import report as reports
from migrator.batch import discovery, pipeline
from migrator.batch.progress import Progress
from migrator.load import sources
from migrator.report import diffs, jsonreport, terminal
from migrator.report.baseline import IgnoreRule, Suppressor, load_baseline, write_baseline
from migrator.report.safety import (
    GuardedStream,
    ReportWriteError,
    append_text,
    file_label,
    printable,
    write_data,
    write_report,
)
from migrator.results import FileResult, Finding, Severity, Verdict
from migrator.settings import RUNTIME_KINDS, RunSettings

if TYPE_CHECKING:
    from migrator.batch.writer import Destination

WRITE_FAILED_HINT = "Free space or fix permissions and run the tool again; nothing was " \
    "half-written."
SHARED_OUTPUT_HINT = "Convert these inputs in separate runs or into separate output " \
    "folders; nothing was overwritten."


def run(settings: RunSettings) -> int:
    restore = _guard_streams(settings.github)
    try:
        return _run(settings)
    finally:
        restore()


def _run(settings: RunSettings) -> int:
    started = time.monotonic()
    minimum = Severity.INFO if settings.verbose else \
        Severity.ERROR if settings.quiet else Severity.WARNING
    selection = discovery.Selection(settings.include, settings.exclude, settings.gitignore,
                                    settings.changed_since)
    # walked as the run goes (never listed), unless something needs the whole list first
    walk = discovery.Walk(settings.paths, selection).changes()
    found: Iterable[tuple[str, str]] = walk
    if settings.helm:
        found = _with_rendered_charts(list(found), settings.paths)
    if settings.mode == "directory" and settings.output_dir is not None:
        problem = _output_folder(settings.output_dir)
        if problem is not None:
            print(problem, file=sys.stderr)
            return 2
        if len(settings.paths) > 1 or settings.helm:  # (one path: no two files share one)
            from migrator.batch import writer

            found = writer.Claims(found, settings.output_dir)
    options = settings.options
    if settings.mode == "validate" or options.runtime_files:
        from dataclasses import replace  # here: most runs copy no options

        options = replace(options, local_runtime_files=_runtime_files(found))
    suppressor = Suppressor(tuple(IgnoreRule(paths, codes) for paths, codes in settings.ignore),
                            load_baseline(settings.baseline) if settings.baseline else None)
    if settings.progress:  # the bar shows a total
        found = list(found)
    progress = Progress(len(found) if isinstance(found, list) else 0, settings.progress)
    wanted = {reports.format_of(str(p)) for p in settings.reports} | \
        ({settings.report_format} if settings.report_format else set())
    reviewing = bool(wanted - {"json", None})
    reviewed: list[Any] = []  # review.ReviewDocument, imported only when needed
    kept = _Kept(listing=bool(wanted & {"json", None}) or settings.github
                 or settings.write_baseline is not None, target=settings.options.target)
    stdout_free = settings.mode not in ("stdout", "diff") and not settings.report_format
    # check and validate: their lines are the results (``check . > out.txt``); convert's
    # lines are a log of what was written, next to the summary on stderr
    to_stdout = stdout_free and settings.mode in ("check", "validate")
    lines = terminal.Lines(sys.stdout if to_stdout else sys.stderr,
                           settings.color if to_stdout else terminal.color_wanted(sys.stderr))
    annotations = None
    if settings.github:
        from migrator.report import github

        annotations = github.Annotations(Severity.INFO if settings.verbose else
                                         Severity.WARNING,
                                         sys.stdout if stdout_free else sys.stderr)
    # a file without documents (most of a tree) is only counted, unless it is printed
    # (stdout, diff), reviewed or annotated: it has nothing to suppress, print or fail
    quick = not reviewing and annotations is None and settings.mode not in ("stdout", "diff")
    totals = kept.counted
    # without a bar to advance, unchanged files without documents may come as counts
    counting = quick and not progress.enabled

    def take(file: FileResult) -> None:
        """Report, review and count one result."""
        file = _with_write_failure(suppressor.apply(file))
        _show(file, settings)
        _print(file, settings, minimum, lines)
        if annotations is not None:
            annotations.add_all(file.name, _findings(file))
        if reviewing:
            from migrator.report import review

            reviewed.extend(review.collect(file))
        kept.add(file)

    try:
        for file in (pipeline.process_counted if counting else pipeline.process_paths)(
                settings.paths, options, jobs=settings.jobs, found=found,
                render=settings.mode != "check", max_bytes=settings.max_bytes,
                audit=settings.mode == "validate",
                keep_text=settings.mode in ("stdout", "diff") or reviewing,
                destination=_destination(settings), review=reviewing):
            if type(file) is tuple:  # Kept.add of so many files without documents
                totals["files"] += file[0]
                totals["filesChanged"] += file[1]
                totals["documentsScanned"] += file[2]
                continue
            assert isinstance(file, FileResult)
            result = file.result
            if quick and result is not None and not result.documents and \
                    file.unreadable is None and file.write_error is None and not file.written:
                # Kept.add of a file without documents
                totals["files"] += 1
                totals["filesChanged"] += int(file.changed)
                totals["documentsScanned"] += file.documents_scanned
                progress.advance()
                continue
            take(file)
            progress.advance()
        # the folders the walk could not list (known once it has ended): after every file,
        # in walk order, each as an unreadable input (never cached: it holds no file)
        for folder in walk.unlisted.values():
            take(FileResult(folder.name, folder.relative, unreadable=folder))
    finally:
        progress.close()
    if annotations is not None:
        annotations.close()
    seconds = time.monotonic() - started
    built = kept.report()
    context = reports.Context(settings.options.target, seconds, _full_report(settings),
                              settings.sarif_level)
    failed = 0
    for path in settings.reports:
        text = reports.write(reports.format_of(str(path)), built, reviewed, context)
        failed += _write(partial(write_report, path, text))
    if settings.report_format:
        write_data(sys.stdout, reports.write(settings.report_format, built, reviewed, context),
                   github=settings.github)
    if settings.write_baseline is not None:
        baseline = settings.write_baseline
        counted: list[int] = []
        failed += _write(lambda: counted.append(write_baseline(baseline, kept.files)))
        if counted:
            print(printable(f"wrote {counted[0]} findings to baseline {baseline}"),
                  file=sys.stderr)
    if settings.github:
        failed += _step_summary(built)
    line = terminal.summary_line(built["summary"], time.monotonic() - started,
                                 check=settings.mode == "check")
    if suppressor.suppressed:
        line += f"; {suppressor.suppressed} accepted findings suppressed"
    print(line, file=sys.stderr)
    code = kept.verdict.exit_code(settings.fail_on,
                                  legacy_fails=settings.mode in ("check", "diff"))
    return 2 if failed else code


class _Kept:
    """What the chosen outputs need of a run's results, kept as they stream by: the exit
    code's inputs, the JSON report's summary, and (``listing``: a JSON report, a baseline or
    a GitHub step summary lists documents) the slim results of files with documents.

    A file without documents (most of a repository: manifests without a Kubeflow kind) is
    never listed, only counted, so it is never kept; without ``listing`` nothing is kept
    but counts, and memory does not grow with the size of the tree.
    """

    def __init__(self, *, listing: bool, target: str) -> None:
        self.listing, self.target = listing, target
        self.files: list[FileResult] = []  # slim, with documents (only when listing)
        self.verdict = Verdict()
        self.counted = jsonreport.build([], target)["summary"]  # of the files not kept

    def add(self, file: FileResult) -> None:
        self.verdict.add(file)
        if file.unreadable is not None or file.write_error is not None or (
                file.result is not None and file.result.documents):
            if self.listing:
                self.files.append(file.slim())
            else:
                _count(self.counted, file)
            return
        # jsonreport.summary of a file without documents
        self.counted["files"] += 1
        self.counted["filesChanged"] += int(file.changed)
        self.counted["documentsScanned"] += file.documents_scanned

    def report(self) -> dict[str, Any]:
        """The JSON report of the run (``jsonreport.build`` over every result)."""
        built = jsonreport.build(self.files, self.target)
        summary = built["summary"]
        _add(summary, self.counted)
        summary["codes"] = dict(sorted(summary["codes"].items()))
        return built


def _count(summary: dict[str, Any], file: FileResult) -> None:
    """Add ``file`` to the counts of a JSON report summary (``jsonreport.summary`` of the file
    alone, added; tests/perf/test_scale_streaming.py holds the two equal)."""
    summary["files"] += 1
    summary["filesChanged"] += int(file.changed)
    summary["documentsScanned"] += file.documents_scanned
    statuses, severities, codes = summary["documents"], summary["findings"], summary["codes"]
    if file.unreadable is not None:  # one failed document with one error (Y102)
        statuses["failed"] += 1
        severities[Severity.ERROR.value] += 1
        codes["Y102"] = codes.get("Y102", 0) + 1
        return
    for doc in file.result.documents if file.result is not None else ():
        if not doc.reportable:
            continue
        statuses[doc.status] += 1
        for finding in doc.findings:
            severities[finding.severity.value] += 1
            codes[finding.code] = codes.get(finding.code, 0) + 1


def _add(total: dict[str, Any], part: dict[str, Any]) -> None:
    """Add the counts of a JSON report summary ``part`` to ``total`` (the same shape)."""
    for key, value in part.items():
        if isinstance(value, dict):
            _add(total.setdefault(key, {}), value)
        else:
            total[key] = total.get(key, 0) + value


def _output_folder(output_dir: Path) -> str | None:
    """Create the output folder (``-o``) and its parents, whether or not a file will be
    written (a report may go inside it); why it cannot be, as one line, or None."""
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return printable(f"error: cannot create the output folder {output_dir}: "
                         f"{exc.strerror or exc}")
    return None


def _write(action: Callable[[], None]) -> int:
    """Run one report write; a failure is one line on stderr (Y107). Returns 1 if it failed."""
    try:
        action()
    except ReportWriteError as exc:
        print(f"{printable(exc.path)}: error Y107 cannot write the report: "
              f"{printable(exc.reason)}", file=sys.stderr)
        return 1
    return 0


def _step_summary(built: dict[str, Any]) -> int:
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return 0
    from migrator.report import github

    return _write(lambda: append_text(Path(path), github.step_summary(built)))


def _full_report(settings: RunSettings) -> str | None:
    """Where the complete report of this run is, for reports that shorten (Markdown)."""
    for kind in ("html", "json"):
        for path in settings.reports:
            if reports.format_of(str(path)) == kind:
                return str(path)
    return None


def _guard_streams(github: bool) -> Callable[[], None]:
    """Undecodable text never stops a print; on Actions, every line is guarded."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")
    if not github:
        return lambda: None
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = GuardedStream(saved[0]), GuardedStream(saved[1])

    def restore() -> None:
        for guard in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                guard.flush()
        sys.stdout, sys.stderr = saved

    return restore


def _with_write_failure(file: FileResult) -> FileResult:
    """A conversion that could not be written is not converted: its documents are failed
    with a Y106 finding, in every report and on the terminal."""
    if file.write_error is None or file.result is None:
        return file
    from dataclasses import replace  # here: a failed write is rare

    from migrator.batch import writer

    hint = SHARED_OUTPUT_HINT if file.relative.startswith(writer.TAKEN) else WRITE_FAILED_HINT
    finding = Finding("Y106", Severity.ERROR, "", f"cannot write the result: "
                      f"{file.write_error} (the input is unchanged)", hint)
    documents, marked = [], False
    for doc in file.result.documents:
        if doc.reportable and doc.status == "converted":
            doc = replace(doc, status="failed", findings=[*doc.findings, finding])
            marked = True
        documents.append(doc)
    if not marked:
        for index, doc in enumerate(documents):
            if doc.reportable:
                documents[index] = replace(doc, findings=[*doc.findings, finding])
                break
    if not any(doc.changed for doc in documents):  # nothing converted: nothing to compare
        documents = [replace(doc, effective=None) for doc in documents]
    return replace(file, result=replace(file.result, documents=documents), was_changed=False)


def _findings(file: FileResult) -> list[Finding]:
    if file.unreadable is not None:
        return [file.unreadable.finding()]
    return [f for doc in (file.result.documents if file.result else []) if doc.reportable
            for f in doc.findings]


def _runtime_files(found: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """Files of the run that hold a runtime (so TrainJobs can be resolved against them):
    YAML streams only (Markdown pages, shell scripts and snapshots are not: ``routing``)."""
    from migrator.convert.routing import SUFFIXES  # (``routing`` is loaded by every run)

    kinds = [kind.encode() for kind in RUNTIME_KINDS]
    hits = []
    for name, _ in found:
        if name == "-" or name.startswith("helm-chart:") or name.lower().endswith(SUFFIXES):
            continue
        start = sources.head(name, 4 * 1024 * 1024)  # regular files only: a FIFO never blocks
        if start is not None and any(kind in start for kind in kinds):
            hits.append(name)
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


def _destination(settings: RunSettings) -> Destination | None:
    """Where conversions are written (by the process that makes them), if anywhere."""
    if settings.mode not in ("directory", "in-place"):
        return None
    from migrator.batch import writer  # check and validate never write

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
            text = f"---\n# Source: {printable(file.name)}\n{text}"
        write_data(sys.stdout, text if text.endswith("\n") or not text else text + "\n",
                   github=settings.github)
    elif settings.mode == "diff":
        write_data(sys.stdout, diffs.unified(printable(file.name), file.source.text,
                                             file.result.text, color=settings.color),
                   github=settings.github, escaped=settings.color)


def _print(file: FileResult, settings: RunSettings, minimum: Severity,
           lines: terminal.Lines) -> None:
    if file.unreadable is not None:
        lines.print(terminal.unreadable_line(file.name, file.unreadable.message), "error")
        return
    documents = [d for d in (file.result.documents if file.result else []) if d.reportable]
    if settings.mode == "validate":
        if not settings.quiet:
            for doc in documents:
                lines.print(terminal.validate_line(file.name, doc, settings.options.target))
    elif settings.mode == "check":
        for doc in documents:
            if doc.status != "unchanged":
                errors = any(f.severity is Severity.ERROR for f in doc.findings)
                lines.print(terminal.check_line(file.name, doc), "error" if errors else None)
        if settings.terse:
            return
        if not settings.verbose:
            minimum = Severity.ERROR
    elif settings.mode == "in-place" and settings.terse and not settings.verbose:
        line = _fix_hook_line(file, documents)  # pre-commit: one line per file
        if line:
            lines.print(line)
        return
    else:
        if settings.mode == "in-place" and file.written:
            lines.print(printable(f"rewrote {file.name}"))
        if not settings.quiet:
            for doc in documents:
                lines.print(terminal.document_line(file.name, doc))
    rank = minimum.rank
    for doc in documents:  # each document's findings in order (a stable sort: the ones
        # shown are in the order of all of them)
        for finding in terminal.ordered([f for f in doc.findings if f.severity.rank >= rank]):
            lines.print(terminal.finding_line(file.name, finding), finding.severity.value)


def _fix_hook_line(file: FileResult, documents: list[Any]) -> str | None:
    """The fix hook's line for a file: rewritten (with what to check), or why it was not."""
    findings = [f for d in documents for f in d.findings]
    tally = terminal.tally(findings)
    errors = terminal.codes_of(findings, Severity.ERROR)
    warnings = terminal.codes_of(findings, Severity.WARNING)
    label = file_label(file.name)
    if file.written:
        converted = sum(1 for d in documents if d.status == "converted")
        check = f"; check {', '.join(warnings)}" if warnings else ""
        return printable(f"{label}: rewrote {converted} document{'s' if converted != 1 else ''}"
                         f"{f' ({tally})' if tally else ''}{check}")
    if errors:
        return printable(f"{label}: not rewritten, needs manual work ({', '.join(errors)}) — "
                         f"see: trainjob-migrate explain {errors[0]}")
    return None
