"""LOAD (textscan): finding the legacy jobs written out in a long text reads it once, not once
per job (review R: 20,000 ``kind:`` lines in a 1 MB script took 16 s). Characters scanned are
counted, never timed."""

from __future__ import annotations

from migrator.load import textscan


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
