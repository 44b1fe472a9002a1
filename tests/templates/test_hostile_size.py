"""Hostile sizes for the template stage (attack notes #10, #11): work is counted, never timed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from migrator.template import route, worlds

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


@pytest.mark.parametrize("make", [_label_ifs, _env_ifs], ids=["label-ifs", "env-ifs"])
def test_too_many_blocks_are_refused_before_converting(monkeypatch: pytest.MonkeyPatch,
                                                       make: Any) -> None:
    for blocks in (worlds.MAX_BRANCH_RUNS, 300):  # 300 label blocks took 95 s
        source = make(blocks)
        outcome, runs = _runs(monkeypatch, source)
        assert runs == 0
        assert outcome is not None
        assert outcome.status == "skipped"
        assert outcome.text == source  # byte-identical
        assert [n.code for n in outcome.notes] == ["Y110"]
        message = outcome.notes[0].message
        assert f"{blocks} conditional/range blocks" in message
        assert f"limit of {worlds.MAX_BRANCH_RUNS}" in message
        assert "decide" in message
        first_if = next(i for i, line in enumerate(source.split("\n")) if "{{- if" in line)
        assert outcome.notes[0].line == first_if + 1


def test_branch_runs_grow_linearly_up_to_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = {}
    for blocks in (4, 8, 16):
        outcome, runs = _runs(monkeypatch, _label_ifs(blocks))
        assert outcome is not None
        assert outcome.status == "converted"
        assert worlds.planned_runs(_codec(_label_ifs(blocks))) == blocks + 1
        counts[blocks] = runs
    # one run per block plus a fixed number of reference and combination checks
    assert len({runs - blocks for blocks, runs in counts.items()}) == 1, counts
    assert counts[4] - 4 <= 4, counts


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
