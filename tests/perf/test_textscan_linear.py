"""LOAD (textscan): finding the legacy jobs written out in a long text reads it once, not once
per job (review R: 20,000 ``kind:`` lines in a 1 MB script took 16 s). Characters scanned are
counted, never timed."""

from __future__ import annotations

import re

from migrator.load import detect, textscan


class _Counted(str):
    """A text that counts the characters ``count`` scans."""

    scanned = 0

    def count(self, sub: str, start: int | None = None,  # type: ignore[override]
              end: int | None = None) -> int:
        lo = 0 if start is None else start
        hi = len(self) if end is None else end
        _Counted.scanned += max(hi - lo, 0)
        return str.count(self, sub, start, end)


def _script(jobs: int) -> str:
    return "apiVersion: kubeflow.org/v1\n" + "".join(
        f"echo {i}\nkind: PyTorchJob\n" if i % 2 else f"# {i}\n  - kind: 'TFJob'  # x\n"
        for i in range(jobs))


def test_lines_of_many_jobs() -> None:
    text = _script(7)
    assert textscan.legacy_jobs(text) == [
        (2 * i + 2, "TFJob" if i % 2 == 0 else "PyTorchJob") for i in range(7)]


def test_text_is_scanned_once_whatever_the_number_of_jobs() -> None:
    for jobs in (100, 2_000):
        text = _Counted(_script(jobs))
        _Counted.scanned = 0
        found = textscan.legacy_jobs(text)
        assert len(found) == jobs
        assert found[-1][0] == 2 * jobs
        assert _Counted.scanned <= len(text), (jobs, _Counted.scanned, len(text))


# The line patterns once read ``^[ \t]*-?[ \t]*kind:``: two blank runs around an optional dash
# let a long blank line be split n ways at every start (20,000 blanks: 1.2 s; 1 MB: ~50 min).
# They now read ``^[ \t]*(?:-[ \t]*)?``, which matches the same lines (checked against the old
# form below) with one way to split.
_OLD_PREFIX = r"^[ \t]*-?[ \t]*"
_NEW_PREFIX = r"^[ \t]*(?:-[ \t]*)?"


def _patterns() -> list[re.Pattern[str]]:
    return [detect.legacy_kind_line(), textscan._api()]


def test_line_patterns_have_one_way_to_read_blanks() -> None:
    for pattern in _patterns():
        assert pattern.pattern.startswith("(?:" + _NEW_PREFIX), pattern.pattern  # (or a
        # flow mapping's entry, JSON: issue 30)
        assert "-?[ \\t]*" not in pattern.pattern, pattern.pattern


def test_line_patterns_match_what_the_old_form_matched() -> None:
    prefixes = ["", " ", "\t", "  - ", "-", "- \t", "\t-\t", " -  ", "--", "- -", " x", "-x"]
    bodies = ["kind: PyTorchJob", "kind:'TFJob' # c", "kind: JAXJobs",
              "apiVersion: kubeflow.org/v1", "apiVersion: 'xgboostjob.kubeflow.org/v1'",
              "apiVersion: example.org/v1"]
    for pattern in _patterns():
        old = re.compile(pattern.pattern.replace(_NEW_PREFIX, _OLD_PREFIX, 1), pattern.flags)
        for prefix in prefixes:
            for body in bodies:
                line = f"a: 1\n{prefix}{body}\n"
                assert [m.group(0) for m in pattern.finditer(line)] == \
                    [m.group(0) for m in old.finditer(line)], (pattern.pattern, line)


def test_a_long_blank_line_is_no_legacy_job() -> None:
    text = "apiVersion: kubeflow.org/v1\n" + " \t" * 50_000 + "-" + " " * 50_000 + "x\n"
    assert textscan.legacy_jobs(text) == []
