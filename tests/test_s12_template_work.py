"""TEMPLATE: the branch runs of a template shrink with its length (each run converts all of
it): a chart file of many jobs with many ``if`` blocks is refused within a bounded amount of
conversion work (it took minutes: hostile-input attack 12), while the corpus's largest
templates keep their 80 runs."""

from __future__ import annotations

import pytest

from migrator import convert_text
from migrator.template import worlds
from tests.goldens import FIXTURES

JOB = (FIXTURES / "pytorchjob" / "minimal.in.yaml").read_text()
COMMAND = 'command: ["torchrun", "/app/train.py"]'


def _chart(jobs: int, blocks: int) -> str:
    docs = []
    for d in range(jobs):
        env = "".join(
            f"                {{{{- if .Values.v{d}x{i} }}}}\n                - name: V{i}\n"
            f'                  value: "a"\n                {{{{- else }}}}\n'
            f'                - name: V{i}\n                  value: "b"\n'
            f"                {{{{- end }}}}\n" for i in range(blocks))
        docs.append(JOB.replace("name: minimal", f"name: j{d}").replace(
            COMMAND, COMMAND + "\n              env:\n" + env))
    return "---\n".join(docs)


def test_the_runs_a_template_may_take_shrink_with_its_length() -> None:
    assert COMMAND in JOB
    assert worlds.MAX_BRANCH_WORK // (24 * 1024) >= 74  # arena's pytorchjob: 74 runs of 24 KB
    short, long = _chart(1, 10), _chart(10, 60)
    assert len(long) > 100_000

    def limit(text: str) -> int:
        from migrator.template.codec import Codec
        from migrator.template.structure import build
        from migrator.template.tokens import tokenize

        return worlds.max_runs(Codec(build(text, tokenize(text, "go")), "go"))

    assert limit(short) == worlds.MAX_BRANCH_RUNS
    assert limit(long) == worlds.MAX_BRANCH_WORK // len(long) < worlds.MAX_BRANCH_RUNS


def test_a_long_template_of_many_jobs_stops_within_its_work(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = _chart(10, 60)
    from migrator.convert import plain

    calls: list[int] = []
    real = plain.convert_plain

    def counted(world_text: str, *args: object, **kwargs: object) -> object:
        calls.append(len(world_text))
        return real(world_text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(plain, "convert_plain", counted)  # (imported where it is used)
    result = convert_text(text)
    assert [d.status for d in result.documents] == ["skipped"]
    assert result.text == text
    assert calls
    assert sum(calls) <= 2 * worlds.MAX_BRANCH_WORK + 2 * len(text)  # ~4 M characters at most
