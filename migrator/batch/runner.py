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
from migrator.results import FileResult, Finding, Severity, SourceText, Verdict
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
    problem = _report_folders(settings.reports)  # before anything is written
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    options = settings.options
    if settings.mode == "validate" or options.runtime_files:
        from dataclasses import replace  # here: most runs copy no options

        options = replace(options, local_runtime_files=_runtime_files(found))
    suppressor = Suppressor(tuple(IgnoreRule(paths, codes) for paths, codes in settings.ignore),
                            load_baseline(settings.baseline) if settings.baseline else None)
    bar = settings.progress and _is_terminal(sys.stderr)  # else a line every few seconds
    if bar:  # the bar shows a total
        found = list(found)
    progress = Progress(len(found) if isinstance(found, list) else 0, bar,
                        label="checking" if settings.mode in ("check", "validate") else
                        "converting", color=settings.color_stderr,
                        ticking=settings.progress and not bar)
    wanted = {reports.format_of(str(p)) for p in settings.reports} | \
        ({settings.report_format} if settings.report_format else set())
    reviewing = bool(wanted - {"json", None})
    reviewed: list[Any] = []  # review.ReviewDocument, imported only when needed
    times: dict[tuple[str, int], float] | None = {} if "junit" in wanted else None
    kept = _Kept(listing=bool(wanted & {"json", None}) or settings.github
                 or settings.write_baseline is not None, target=settings.options.target)
    stdout_free = settings.mode not in ("stdout", "diff") and not settings.report_format
    # check and validate: their lines are the results (``check . > out.txt``); convert's
    # lines are a log of what was written, next to the summary on stderr
    to_stdout = stdout_free and settings.mode in ("check", "validate")
    lines = terminal.Lines(sys.stdout if to_stdout else sys.stderr,
                           settings.color if to_stdout else settings.color_stderr)
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
    accepted: dict[tuple[str, str], int] = {}  # waived findings by (waiver, code)
    written = [0]  # files whose conversion was written
    # files named on the command line: said to be empty, broken or without a job when they
    # have no document to report (a walk's files without one are only counted)
    named = _named_files(settings) if not settings.table else {}
    table: list[tuple[str, ...]] | None = [] if settings.table else None
    # without a bar to advance, unchanged files without documents may come as counts
    counting = quick and not progress.enabled

    shared = None
    if options.shared_runtimes is not None:
        from migrator.shared_runtimes.store import Collector

        shared = Collector(Path(options.shared_runtimes), RUNTIME_KINDS[0])

    def take(file: FileResult) -> None:
        """Report, review and count one result."""
        if shared is not None:
            shared.take(file)  # (the runtimes it carries: for the folder, not the reports)
        file = _with_write_failure(suppressor.apply(file))
        written[0] += file.written
        if named and (file.unreadable is not None or file.write_error is not None or any(
                d.reportable for d in (file.result.documents if file.result else ()))):
            named.pop(os.path.normpath(file.name), None)  # said with its documents
        for finding in _findings(file):
            if finding.waived:
                key = finding.waived, finding.code
                accepted[key] = accepted.get(key, 0) + 1
        _show(file, settings)
        _print(file, settings, minimum, lines, table)
        if annotations is not None:
            annotations.add_all(file.name, _findings(file))
        if reviewing:
            from migrator.report import review

            reviewed.extend(review.collect(file))
            if times is not None:  # (measured: for the JUnit report alone)
                from migrator.report import junit

                times.update(junit.timings(file))
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
                progress.advance(file[0])
                continue
            assert isinstance(file, FileResult)
            result = file.result
            if quick and result is not None and not file.written and \
                    file.unreadable is None and file.write_error is None and \
                    not any(d.reportable for d in result.documents) and \
                    os.path.normpath(file.name) not in named:
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
    for name in named:  # named, and nothing in it to report
        note = _named_note(name, settings.max_bytes, settings.mode == "validate")
        if note is not None:
            lines.print(printable(f"{file_label(name)}: {note}"))
    if table is not None:
        for row in terminal.table(table):
            lines.print(row)
    if annotations is not None:
        annotations.close()
    seconds = time.monotonic() - started
    built = kept.report()
    waived = _waivers(settings, accepted, built, lines, kept.verdict)
    context = reports.Context(settings.options.target, seconds, _full_report(settings),
                              settings.sarif_level, waivers=tuple(built.get("waivers", ())),
                              times=times)
    failed = _write_shared(shared) if shared is not None else 0
    written_reports: list[str] = []
    for path in settings.reports:
        text = reports.write(reports.format_of(str(path)), built, reviewed, context)
        unwritten = _write(partial(write_report, path, text))
        failed += unwritten
        if not unwritten:
            written_reports.append(str(path))
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
    extra = f"; {waived}" if waived else ""
    if suppressor.suppressed:
        extra += f"; {suppressor.suppressed} accepted findings suppressed"
    if walk.ignored[0]:  # (files a walk met and passed over: .gitignore, or git ignores)
        extra += f"; {walk.ignored[0]} ignored (.gitignore)"
    extra += _outputs(settings, written[0], written_reports)
    print(printable(terminal.summary_line(
        built["summary"], time.monotonic() - started, check=settings.mode in ("check", "diff"),
        validate=settings.mode == "validate", extra=extra)), file=sys.stderr)
    code = kept.verdict.exit_code(settings.fail_on,
                                  legacy_fails=settings.mode in ("check", "diff"))
    return 2 if failed else code


def _outputs(settings: RunSettings, written: int, written_reports: list[str]) -> str:
    """The end of the summary: the target, where the conversions went, the reports written."""
    text = f"; target: Kubeflow Trainer {settings.options.target}"
    files = f"{written} file{'s' if written != 1 else ''}"
    if settings.mode == "directory":
        text += f"; wrote {files} under {settings.output_dir}" if written else \
            f"; no file written under {settings.output_dir}"
    elif settings.mode == "in-place":
        text += f"; rewrote {files} in place" if written else "; no file rewritten"
    elif settings.mode == "stdout":
        text += "; converted stream on standard output"
    if written_reports:
        text += f"; report{'s' if len(written_reports) != 1 else ''}: " \
            f"{', '.join(written_reports)}"
    return text


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _named_files(settings: RunSettings) -> dict[str, None]:
    """The regular files named on the command line, when their lines are wanted (not under
    pre-commit, which names every staged file, nor with --quiet)."""
    if settings.terse or settings.quiet:
        return {}
    return {os.path.normpath(path): None for path in settings.paths
            if path != "-" and os.path.isfile(path)}


def _named_note(name: str, max_bytes: int, validating: bool) -> str | None:
    """What a named file without a document to report holds: empty, not YAML (where it
    breaks), text, YAML without a Kubeflow training job (its kinds), or (``validate``)
    legacy jobs, which ``check`` reads."""
    source = sources.read(name, name, max_bytes)
    if not isinstance(source, SourceText):
        return None  # unreadable: reported as Y102 already
    if not source.text.strip():
        return "the file is empty: nothing to check"
    from migrator.convert.routing import SUFFIXES  # (``routing`` is loaded by every run)

    if name.lower().endswith(SUFFIXES):  # a page or a script: read for embedded jobs
        if validating:
            return ("not validated: validate reads YAML streams, not the manifests shown in "
                    "a page or a script (check reads those)")
        return "no Kubeflow training job found in it"
    import re

    from migrator.load import stream

    kinds: list[str] = []
    for chunk in stream.split(source.text):
        if not chunk.has_content:
            continue
        kind = re.search(r"^kind:[ \t]*[\"']?([\w.-]+)", chunk.body, re.M)
        if kind is not None:  # read as text: most of a repository needs no parser here
            kinds.append(kind[1])
            continue
        from migrator.load import yamlio

        try:
            root = yamlio.load(chunk.body)
        except yamlio.DocumentError as exc:
            where = f"line {exc.line + chunk.line - 1}" if exc.line is not None else \
                f"the document at line {chunk.line}"
            where += f", column {exc.column}" if exc.line is not None and exc.column else ""
            return f"not valid YAML ({where}: {exc}): nothing in it was checked"
        if not isinstance(root, dict):
            return "not YAML manifests (plain text or a bare value): nothing to check"
        kinds.append("no kind")
    if not kinds:
        return "only comments: nothing to check"
    shown = ", ".join(dict.fromkeys(kinds))
    from migrator.load import detect

    legacy = [kind for kind in kinds if kind in detect.legacy_kinds()] if validating else []
    if legacy:
        return (f"{len(legacy)} legacy job{'s' if len(legacy) != 1 else ''} ({shown}): validate "
                "checks TrainJobs and runtimes; run `trainjob-migrate check` on legacy jobs")
    return (f"{len(kinds)} YAML document{'s' if len(kinds) != 1 else ''} ({shown}), no "
            "Kubeflow training job or Trainer object in it")


def _waivers(settings: RunSettings, accepted: dict[tuple[str, str], int], built: dict[str, Any],
             lines: terminal.Lines, verdict: Verdict) -> str:
    """The run's waivers: each, with how many findings it accepted, goes into the report
    (``built["waivers"]``); one that accepted none is an A102 warning. Returns what the
    summary says of them ('' when there are none)."""
    given = settings.options.allow
    if not given and not accepted:
        return ""
    from migrator import waivers

    rows = []
    for waiver in given:
        used = accepted.get((waiver.describe(), waiver.code), 0)
        rows.append({**waiver.to_json(), "used": used})
        if not used:
            finding = Finding(waivers.UNUSED_RUN, Severity.WARNING, "", f"waiver "
                              f"{waiver.spec} ({waiver.origin}) matched no finding of this run",
                              "Remove the waiver, or correct its code.")
            lines.print(terminal.finding_line(waiver.origin, finding), "warning")
            verdict.worst = max(verdict.worst, Severity.WARNING.rank)
    if rows:
        built["waivers"] = rows
    count = sum(accepted.values())
    codes = ", ".join(sorted({code for _, code in accepted}))
    return f"{count} waived finding{'s' if count != 1 else ''} ({codes})" if count else \
        "no finding waived"


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


def _report_folders(paths: tuple[Path, ...]) -> str | None:
    """Why a report could not be written where it is asked for (its folder is missing or
    not writable, or it names a folder), as one line (Y107); None when each can be. Checked
    before the run, so that a run that rewrites files in place never ends unreported."""
    for path in paths:
        folder = path.parent if str(path.parent) else Path(".")
        reason = None
        if path.is_dir():
            reason = "it is a folder"
        elif not folder.is_dir():
            reason = f"the folder {folder} does not exist"
        elif not os.access(folder, os.W_OK | os.X_OK):
            reason = f"the folder {folder} is not writable"
        if reason is not None:
            return printable(f"{path}: error Y107 cannot write the report: {reason}; nothing "
                             "was converted or written")
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


def _write_shared(shared: Any) -> int:
    """Write the --shared-runtimes folder and print its catalog (1 when it cannot be written)."""
    try:
        added, findings = shared.write()
    except OSError as exc:
        print(printable(f"{shared.folder}: error Y106 cannot write the shared runtimes: "
                        f"{exc.strerror or exc}"), file=sys.stderr)
        return 1
    for line in [*(f"warning {f.code} {f.message}" for f in findings), *shared.summary(added)]:
        print(printable(line), file=sys.stderr)
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
    with a Y106 finding (Y120, Y121: a refused rewrite), in every report and on the
    terminal."""
    if file.write_error is None or file.result is None:
        return file
    from dataclasses import replace  # here: a failed write is rare

    from migrator.batch import writer

    code, error = writer.coded(file.write_error)
    hint = writer.HINTS.get(code) or (SHARED_OUTPUT_HINT if file.relative.startswith(
        writer.TAKEN) else WRITE_FAILED_HINT)
    finding = Finding(code, Severity.ERROR, "", f"cannot write the result: "
                      f"{error} (the input is unchanged)", hint)
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
        if settings.options.converted_only:
            text = _converted(file.result.documents)
            if not text:
                return
        if len(settings.paths) > 1 or Path(settings.paths[0]).is_dir():
            text = f"---\n# Source: {printable(file.name)}\n{text}"
        write_data(sys.stdout, text if text.endswith("\n") or not text else text + "\n",
                   github=settings.github)
    elif settings.mode == "diff":
        write_data(sys.stdout, diffs.unified(printable(file.name), file.source.text,
                                             file.result.text, color=settings.color),
                   github=settings.github, escaped=settings.color)


def _fix_options(settings: RunSettings) -> str:
    """The options a ``convert --in-place`` needs to convert as this check did (the config
    file applies by itself): what the command line changed from the defaults."""
    import shlex

    from migrator.settings import DEFAULT_MANAGER

    options, parts = settings.options, []
    if options.target != "2.2":
        parts += ["--target", options.target]
    if options.companion_runtimes:
        parts.append("--companion-runtimes")
    if options.runtime is not None:
        parts += ["--runtime", options.runtime]
    if options.runtime_kind is not None:
        parts += ["--runtime-kind", options.runtime_kind]
    if options.manager != DEFAULT_MANAGER:
        parts += ["--manager", options.manager]
    parts += [f"--runtimes={path}" for path in options.runtime_files]
    parts += [f"--allow={waiver.spec}" + (f" -- {waiver.reason}" if waiver.reason else "")
              for waiver in options.allow if waiver.origin == "--allow"]
    if options.allow_lossy:
        parts.append("--allow-lossy")
    return "".join(f" {shlex.quote(part)}" for part in parts)


def _converted(documents: list[Any]) -> str:
    """--converted-only: the converted documents of a stream, each its own YAML document
    (their comments kept, everything else left out)."""
    texts: list[str] = []
    for doc in documents:
        if doc.status != "converted":
            continue
        text = doc.text if doc.text.endswith("\n") else doc.text + "\n"
        texts.append(text if text.startswith("---") or not texts else "---\n" + text)
    return "".join(texts)


def _print(file: FileResult, settings: RunSettings, minimum: Severity,
           lines: terminal.Lines, table: list[tuple[str, ...]] | None = None) -> None:
    if table is not None:  # check --format table: rows, printed aligned after the run
        table.extend(terminal.table_rows(file))
        return
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
                lines.print(terminal.check_line(file.name, doc, terse=settings.terse,
                                                options=_fix_options(settings)),
                            "error" if errors else None)
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
    if errors:  # placed at the first error, with its message (editors jump to it)
        first = terminal.ordered([f for f in findings
                                  if f.severity is Severity.ERROR and not f.waived])[0]
        return printable(f"{terminal.where(file.name, first.line, first.column)}: not "
                         f"rewritten, needs manual work ({', '.join(errors)}): error "
                         f"{first.code} {first.message} — see: trainjob-migrate explain "
                         f"{first.code}")
    return None
