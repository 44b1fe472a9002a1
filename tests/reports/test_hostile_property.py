"""Property: hostile names, keys, values and file names through every output channel —
terminal lines, each report format (to a file and to stdout), annotations and the step
summary — never add a workflow command, never break a format, never end in a traceback."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.reports.helpers import (
    FORMATS,
    check_html,
    check_json,
    check_markdown,
    check_xml,
    cli,
    injected_commands,
    stop_tokens_are_unguessable,
)
from tests.reports.hostile import FILE_NAME, HOSTILE_TEXT, write_tree

CHECKS = {"json": check_json, "sarif": check_json, "junit": check_xml, "html": check_html,
          "markdown": check_markdown}


def _clean(output: str, hostile: list[str]) -> None:
    assert "Traceback" not in output, output[-2000:]
    assert injected_commands(output) == [], injected_commands(output)
    stop_tokens_are_unguessable(output, hostile)


@settings(max_examples=min(settings().max_examples, 12), deadline=None)
@given(name=HOSTILE_TEXT, key=HOSTILE_TEXT, value=HOSTILE_TEXT, file_name=FILE_NAME,
       stdout_format=st.sampled_from(sorted(FORMATS)))
# a value reading as a stop command, alone on a line of converted YAML inside the tool's own
# stopped region (found in CI: the check then flagged the inert line)
@example(name="::error::pwned", key="::error::pwned", value="::stop-commands::pwned",
         file_name="::error::pwned", stdout_format="html")
def test_hostile_text_through_every_channel(name: str, key: str, value: str, file_name: str,
                                            stdout_format: str) -> None:
    hostile = [name, key, value, file_name]
    work = Path(tempfile.mkdtemp(prefix="hostile-"))
    try:
        tree = work / "in"
        write_tree(tree, name, key, value, file_name)
        summary = work / "summary.md"
        reports: list[str] = []
        for kind, file in FORMATS.items():
            reports += ["--report", str(work / file)]
            del kind
        run = cli("convert", tree, "-o", work / "out", *reports, "--report-format",
                  stdout_format, "-v", github=True, summary=summary)
        assert run.returncode in (0, 1), run.stderr[-2000:]
        _clean(run.stdout + "\n" + run.stderr, hostile)
        for kind, file in FORMATS.items():
            CHECKS[kind]((work / file).read_text(encoding="utf-8"))
        CHECKS[stdout_format](run.stdout)
        check_markdown(summary.read_text(encoding="utf-8"))
        for args in (("convert", "."), ("diff", "."), ("check", "-v", ".")):
            again = cli(*args, github=True, cwd=tree)  # file names start the lines
            assert again.returncode in (0, 1), again.stderr[-2000:]
            _clean(again.stdout + "\n" + again.stderr, hostile)
    finally:
        shutil.rmtree(work, ignore_errors=True)
