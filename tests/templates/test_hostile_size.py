"""Hostile sizes for the template stage (attack notes #10, #11): work is counted, never timed."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from migrator.template import route, worlds

SLOW = os.environ.get("TRAINJOB_SLOW_TEMPLATE_TESTS") == "1"

JOB = (Path(__file__).resolve().parents[2] / "fixtures" / "pytorchjob" / "minimal.in.yaml"
       ).read_text(encoding="utf-8")
COMMAND = '              command: ["torchrun", "/app/train.py"]\n'


def _script_job(lines: int, every_line_dollar: bool = False) -> str:
    """Attack #10: an ordinary job whose bash script has ``lines`` lines and one ``$``."""
    word = "$HOME" if every_line_dollar else "step"
    script = "".join(f"                  echo {word} {i}\n" for i in range(lines))
    assert COMMAND in JOB
    return JOB.replace(COMMAND, "              command:\n                - bash\n"
                       "                - -c\n                - |\n" + script
                       + "                  echo $HOME\n")


def _label_ifs(blocks: int) -> str:
    """Attack #11: ``blocks`` independent ``{{ if }}`` blocks of one label each."""
    body = "".join(f'{{{{- if .Values.e{i} }}}}\n    l{i}: "v"\n{{{{- end }}}}\n'
                   for i in range(blocks))
    return JOB.replace("  name: minimal\n", "  name: minimal\n  labels:\n" + body)


def _env_ifs(blocks: int) -> str:
    body = "".join(f"                  {{{{- if .Values.e{i} }}}}\n"
                   f"                - name: E{i}\n                  value: \"v\"\n"
                   "                  {{- end }}\n" for i in range(blocks))
    return JOB.replace(COMMAND, COMMAND + "              env:\n" + body)


class _Counting:
    """A compiled pattern that records the text of every call."""

    def __init__(self, pattern: re.Pattern[str], seen: list[str]) -> None:
        self.pattern = pattern
        self.seen = seen

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.pattern, name)

        def call(text: str, *args: Any) -> Any:
            self.seen.append(text)
            return method(text, *args)
        return call


_PATTERNS = {name: getattr(route, name) for name in ("_WHOLE_VAR", "_LONE_VAR", "_OPEN_KEY")}


def _scanned(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[str | None, list[str]]:
    seen: list[str] = []
    for name, pattern in _PATTERNS.items():
        monkeypatch.setattr(route, name, _Counting(pattern, seen))
    return route.dialect(text), seen


@pytest.mark.parametrize("every_line", [False, True], ids=["one-dollar", "dollar-every-line"])
def test_variable_detection_is_linear_in_the_lines(monkeypatch: pytest.MonkeyPatch,
                                                   every_line: bool) -> None:
    small, large = _script_job(1_000, every_line), _script_job(10_000, every_line)
    found_small, seen_small = _scanned(monkeypatch, small)
    found_large, seen_large = _scanned(monkeypatch, large)
    assert found_small is None
    assert found_large is None
    for seen, text in ((seen_small, small), (seen_large, large)):
        # each pattern call sees one line, and only lines holding a `$`: never the rest of
        # the text from a line start (that was quadratic: 10k lines took 46 s)
        assert all("\n" not in s and "$" in s for s in seen)
        assert sum(len(s) for s in seen) <= 3 * len(text)  # at most three patterns a line
    if not every_line:
        assert len(seen_large) == len(seen_small) <= 3
    else:
        assert len(seen_large) <= 10 * len(seen_small) + 10


@pytest.mark.parametrize(("text", "expected"), [
    ("kind: PyTorchJob\nspec:\n  replicas: $N\n", "envsubst"),
    ("kind: PyTorchJob\nimage: \"${IMAGE}\"  # the image\n", "envsubst"),
    ("kind: PyTorchJob\nargs:\n  - ${ARG}\n", "envsubst"),
    ("kind: PyTorchJob\nimage:\n\n    $IMAGE\n", "envsubst"),
    ("kind: PyTorchJob\r\nreplicas: $N\r\n", "envsubst"),
    ("kind: PyTorchJob\n# replicas: $N\n", None),
    ("kind: PyTorchJob\ncommand: echo $HOME\n", None),
    ("kind: PyTorchJob\n- bash\n  $HOME\n", None),
    ("kind: Deployment\nreplicas: $N\n", None),
])
def test_variable_detection_keeps_its_meaning(text: str, expected: str | None) -> None:
    assert route.dialect(text) == expected


def _runs(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[Any, int]:
    from migrator.convert import plain
    from migrator.template import convert_template

    calls = [0]
    original = plain.convert_plain

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(plain, "convert_plain", counted)
    return convert_template(text), calls[0]


def _label_ranges(blocks: int) -> str:
    """``blocks`` independent ``{{ range }}`` blocks (two branch runs each, never batched)."""
    body = "".join(f"{{{{- range $k, $v := .Values.m{i} }}}}\n    {{{{ $k }}}}{i}: \"v\"\n"
                   "{{- end }}\n" for i in range(blocks))
    return JOB.replace("  name: minimal\n", "  name: minimal\n  labels:\n" + body)


def _label_chains(blocks: int) -> str:
    """``blocks`` ``if``/``else if``/``else`` chains of one label each (three choices)."""
    body = "".join(f'{{{{- if .Values.a{i} }}}}\n    l{i}: "a"\n{{{{- else if .Values.b{i} }}}}\n'
                   f'    l{i}: "b"\n{{{{- else }}}}\n    l{i}: "c"\n{{{{- end }}}}\n'
                   for i in range(blocks))
    return JOB.replace("  name: minimal\n", "  name: minimal\n  labels:\n" + body)


@pytest.mark.parametrize("make", [_label_ranges, _label_chains], ids=["label-ranges", "chains"])
def test_too_many_blocks_are_refused_before_converting(monkeypatch: pytest.MonkeyPatch,
                                                       make: Any) -> None:
    """Blocks that cannot be batched (ranges, chains of three choices) still cost a branch run
    each: past the cap the document is refused after one run, the reference world's (so that
    a construct failing on its own is named rather than the block count)."""
    for blocks in (worlds.MAX_BRANCH_RUNS // 2 + 1, 300):  # 300 label blocks took 95 s
        source = make(blocks)
        outcome, runs = _runs(monkeypatch, source)
        assert runs == 1
        assert outcome is not None
        assert outcome.status == "skipped"
        assert outcome.text == source  # byte-identical
        assert [n.code for n in outcome.notes] == ["Y110"]
        message = outcome.notes[0].message
        assert f"{blocks} conditional/range blocks" in message
        limit = min(worlds.MAX_BRANCH_RUNS, worlds.MAX_BRANCH_WORK // len(source))
        assert f"limit of {limit} per document" in message  # (fewer for a long template)
        assert "decide" in message
        first = next(i for i, line in enumerate(source.split("\n")) if "{{- " in line)
        assert outcome.notes[0].line == first + 1


def test_over_the_cap_a_construct_that_fails_alone_is_named(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """arena tfjob's case: the block count is over the cap, but what stops the template is a
    named template writing pod fields the converter cannot know; that is what is reported."""
    source = _label_ranges(worlds.MAX_BRANCH_RUNS).replace(
        "          containers:\n",
        '          {{- include "x.affinity" . | nindent 10 }}\n          containers:\n', 1)
    outcome, runs = _runs(monkeypatch, source)
    assert runs == 1
    assert outcome is not None
    assert outcome.status == "skipped"
    assert outcome.text == source
    [note] = outcome.notes
    assert note.code == "Y110"
    assert 'which fields {{- include "x.affinity" . | nindent 10 }} writes' in note.message
    assert note.line == next(i for i, line in enumerate(source.split("\n"), start=1)
                             if "x.affinity" in line)


@pytest.mark.parametrize("make", [_label_ifs, _env_ifs], ids=["label-ifs", "env-ifs"])
def test_leaf_blocks_cost_the_log_of_their_number(monkeypatch: pytest.MonkeyPatch,
                                                  make: Any) -> None:
    """Independent leaf ``if`` blocks are converted in batches: code_length(n) worlds (about
    log2(n) + 2) instead of one per block. Counted in converter runs, never timed. Larger
    sizes (256 labels, 120 env entries) under TRAINJOB_SLOW_TEMPLATE_TESTS=1."""
    sizes = [8, 16, 32] + ([256 if make is _label_ifs else 120] if SLOW else [])
    extra = set()
    for blocks in sizes:
        source = make(blocks)
        outcome, runs = _runs(monkeypatch, source)
        assert outcome is not None
        assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
        assert worlds.planned_runs(_codec(source)) == 1 + worlds.code_length(blocks)
        extra.add(runs - worlds.code_length(blocks))
        assert runs < blocks or blocks < 16  # fewer runs than blocks from 16 on
    # the reference world and a fixed number of combination checks on top of the batches
    assert len(extra) == 1, extra
    assert extra.pop() <= 4
    assert worlds.code_length(1000) == 13  # a thousand blocks: 13 batched worlds


def test_small_documents_still_convert_one_block_at_a_time(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    counts = {}
    # (the check of every combination, worlds.EXHAUSTIVE_WORLDS, is counted apart, below)
    monkeypatch.setattr(worlds, "EXHAUSTIVE_WORLDS", 0)
    for blocks in (4, 6):
        outcome, runs = _runs(monkeypatch, _label_ifs(blocks))
        assert outcome is not None
        assert outcome.status == "converted"
        assert worlds.planned_runs(_codec(_label_ifs(blocks))) == blocks + 1
        counts[blocks] = runs
    assert counts[6] - counts[4] == 2, counts
    monkeypatch.undo()
    outcome, runs = _runs(monkeypatch, _label_ifs(4))
    assert outcome is not None
    assert outcome.status == "converted"
    # four independent blocks: every one of their 16 combinations is converted once
    assert counts[4] < runs <= counts[4] + worlds.EXHAUSTIVE_WORLDS


@pytest.mark.parametrize("make", [_label_ifs, _env_ifs], ids=["label-ifs", "env-ifs"])
def test_batched_and_single_folds_agree(monkeypatch: pytest.MonkeyPatch, make: Any) -> None:
    from migrator.template import convert_template

    source = make(9)
    batched = convert_template(source)
    monkeypatch.setattr(worlds, "BATCH_MIN", 10**6)
    single = convert_template(source)
    assert batched is not None
    assert single is not None
    assert batched.text == single.text
    assert sorted((n.code, n.path, n.line, n.message) for n in batched.notes) == \
        sorted((n.code, n.path, n.line, n.message) for n in single.notes)
    assert batched.worlds < single.worlds


def test_blocks_that_fail_only_together_are_batched_in_halves(monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """A toleration whose every field sits in an ``if`` is an empty item when all are off,
    which does not convert: a batched world switching them together fails although no block
    fails alone. The batch is split in halves (template order) instead of given up."""
    from migrator.template import convert_template

    item = ("          tolerations:\n          {{- range $t := .Values.tolerations }}\n"
            "          - {{- if $t.key }}\n"
            "            key: {{ $t.key }}\n            {{- end }}\n"
            "            {{- if $t.operator }}\n            operator: {{ $t.operator }}\n"
            "            {{- end }}\n          {{- end }}\n")
    source = _label_ifs(16).replace("          containers:\n", item + "          containers:\n")
    halves = []
    original = worlds._batched

    def spy(ref: Any, batch: list[int], base: Any, run: Any) -> Any:
        found = original(ref, batch, base, run)
        halves.append((len(batch), found is not None))
        return found

    monkeypatch.setattr(worlds, "_batched", spy)
    outcome, _runs_made = _runs(monkeypatch, source)
    assert outcome is not None
    assert outcome.status == "converted", [(n.code, n.message) for n in outcome.notes]
    assert halves[0] == (18, False)  # the whole batch: a world fails
    assert any(ok for _, ok in halves[1:]), halves  # a half is batched
    monkeypatch.setattr(worlds, "BATCH_MIN", 10**6)
    single = convert_template(source)
    assert single is not None
    assert outcome.text == single.text


def test_unattributed_blocks_fall_back_to_single_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks whose region a batched world cannot name are converted alone, with the same
    result (here: every block, by making every region unnameable)."""
    from migrator.template import convert_template

    source = _label_ifs(9)
    expected = convert_template(source)
    monkeypatch.setattr(worlds, "_alternative", lambda *args: None)
    outcome, runs = _runs(monkeypatch, source)
    assert expected is not None
    assert outcome is not None
    assert outcome.text == expected.text
    assert runs >= 9 + worlds.code_length(9)


def test_the_cap_is_documented() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "templates.md").read_text("utf-8")
    assert f"more than {worlds.MAX_BRANCH_RUNS} branch" in docs


def _codec(text: str) -> Any:
    from migrator.template import structure
    from migrator.template.codec import Codec
    from migrator.template.tokens import tokenize

    return Codec(structure.build(text, tokenize(text, "go"), enums=True), "go")


def test_the_budget_counts_every_fold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refolds (a branch kept legacy) draw on the same budget as the first fold."""
    from migrator.template import convert as convert_module

    monkeypatch.setattr(convert_module, "MAX_TOTAL_RUNS", 3)
    outcome, runs = _runs(monkeypatch, _label_ifs(8))
    assert runs == 3
    assert outcome is not None
    assert outcome.status == "skipped"
    assert "more than 3 branch conversions" in outcome.notes[0].message
