"""REPORT stage: every report format, registered once in ``REPORTERS`` (name → writer).

The registry feeds the CLI's ``--report-format`` choices and the ``--report FILE`` suffixes;
the writers import their modules only when used. The JSON report (the machine contract) is
``report.jsonreport``; the others are for reviewers and tools (Markdown, HTML, SARIF 2.1.0,
JUnit XML, GitLab Code Quality) and read ``review.ReviewDocument`` values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from migrator.results import FrozenValue

if TYPE_CHECKING:
    from migrator.report.review import ReviewDocument


class Context(FrozenValue):
    """What a writer knows about the run besides its documents."""

    FIELDS = ("target", "seconds", "full_report", "sarif_level", "waivers", "times")
    target: str
    seconds: float
    full_report: str | None  # where this run's full report is (for shortened ones)
    sarif_level: str  # the lowest severity the SARIF report lists (--sarif-level)
    waivers: tuple[dict[str, Any], ...]  # the run's waivers (JSON report "waivers")
    # each reported document's measured time, ((file, index), seconds) pairs in order
    # (``junit.timings``): the JUnit report's alone (every other report is the same from run
    # to run)
    times: tuple[tuple[tuple[str, int], float], ...]

    def __init__(self, target: str, seconds: float = 0.0, full_report: str | None = None,
                 sarif_level: str = "info", waivers: tuple[dict[str, Any], ...] = (),
                 times: Mapping[tuple[str, int], float] | None = None) -> None:
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "seconds", seconds)
        object.__setattr__(self, "full_report", full_report)
        object.__setattr__(self, "sarif_level", sarif_level)
        object.__setattr__(self, "waivers", waivers)
        object.__setattr__(self, "times", tuple(sorted((times or {}).items())))


# built: the JSON report (``jsonreport.build``); reviewed: the review documents of the run.
Writer = Callable[[dict[str, Any], list["ReviewDocument"], Context], str]


def _codes() -> dict[str, Any]:
    from migrator.knowledge.catalog import load

    return dict(load().codes)


def _json(built: dict[str, Any], reviewed: list[ReviewDocument], context: Context) -> str:
    from migrator.report import jsonreport

    return jsonreport.to_json(built)


def _markdown(built: dict[str, Any], reviewed: list[ReviewDocument], context: Context) -> str:
    from migrator.report import markdown

    return markdown.render(reviewed, built["summary"], context.target, _codes(),
                           full_report=context.full_report, waivers=context.waivers)


def _html(built: dict[str, Any], reviewed: list[ReviewDocument], context: Context) -> str:
    from migrator.report import html

    return html.render(reviewed, built["summary"], context.target, _codes(),
                       waivers=context.waivers)


def _sarif(built: dict[str, Any], reviewed: list[ReviewDocument], context: Context) -> str:
    from migrator.report import sarif

    return sarif.render(reviewed, _codes(), context.sarif_level)


def _junit(built: dict[str, Any], reviewed: list[ReviewDocument], context: Context) -> str:
    from migrator.report import junit

    return junit.render(reviewed, context.seconds, dict(context.times))


def _gitlab(built: dict[str, Any], reviewed: list[ReviewDocument], context: Context) -> str:
    from migrator.report import gitlab

    return gitlab.render(reviewed)


REPORTERS: dict[str, Writer] = {
    "json": _json, "markdown": _markdown, "html": _html, "sarif": _sarif, "junit": _junit,
    "gitlab": _gitlab,
}

# file-name suffix → format (the first suffix of each format is the one the CLI names)
SUFFIXES = {".json": "json", ".md": "markdown", ".markdown": "markdown", ".html": "html",
            ".htm": "html", ".sarif": "sarif", ".xml": "junit", "code-quality.json": "gitlab"}
# whole-name endings read before SUFFIXES (``x.sarif.json`` is SARIF, GitLab's usual names)
NAMES = {".sarif.json": "sarif", "code-quality.json": "gitlab",
         "code-quality-report.json": "gitlab", "codequality.json": "gitlab"}


def format_of(name: str) -> str | None:
    """The report format a file name asks for (``x.sarif.json`` is SARIF,
    ``gl-code-quality.json`` GitLab Code Quality)."""
    lowered = name.lower()
    for ending, kind in NAMES.items():
        if lowered.endswith(ending):
            return kind
    for suffix, kind in SUFFIXES.items():
        if lowered.endswith(suffix):
            return kind
    return None


def suffix_list() -> str:
    """The main suffixes in words: ``.json, .md, .html, .sarif, .xml or code-quality.json``."""
    firsts = [next(s for s, k in SUFFIXES.items() if k == kind) for kind in REPORTERS]
    return ", ".join(firsts[:-1]) + " or " + firsts[-1]


def write(kind: str | None, built: dict[str, Any], reviewed: list[ReviewDocument],
          context: Context) -> str:
    """One report in format ``kind`` (an unknown or missing kind writes the JSON report)."""
    return REPORTERS.get(kind or "json", _json)(built, reviewed, context)
