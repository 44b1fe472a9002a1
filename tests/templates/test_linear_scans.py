"""Template stage: the scans of template lines are linear on hostile lines (found by the attack
pass: a long blank run or a line of unclosed openers hung a run) and agree with the patterns
they replaced (a Jinja opener counts when its closer follows on the line where it ends)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from migrator import convert_text
from migrator.template import route, structure

# the patterns used before (quadratic on a line of unclosed openers)
OLD_JINJA = re.compile(r"(?<!\{)\{%-?\s*(?:if|for|set|macro|include|import|from|block|raw|filter|"
                       r"with|call|elif|else|end\w+)\b.*?%\}|(?<!\$)\{#.*?#\}")
OLD_EXPRESSION = re.compile(r"\{\{.*?\}\}")

_PIECES = st.sampled_from(["{%", "%}", "{#", "#}", "{{", "}}", "{", "}", "$", "-", " ", "\n",
                           "\t", "if", "endfor", "x", "iffy", "%", "#"])


def _old(pattern: re.Pattern[str], text: str) -> tuple[int, int] | None:
    found = pattern.search(text)
    return None if found is None else found.span()


@given(st.lists(_PIECES, max_size=40).map("".join))
def test_the_scan_finds_what_the_lazy_patterns_found(text: str) -> None:
    assert route.first_closed(text, route._JINJA_OPEN) == _old(OLD_JINJA, text)
    assert route.first_closed(text, route._EXPRESSION_OPEN) == _old(OLD_EXPRESSION, text)


def test_a_line_of_unclosed_openers_is_scanned_once() -> None:
    """Hostile input (attack: 72 KB of `{#` took 36 s, 1 MB hours): each of these lines is
    hundreds of thousands of openers with no closer; the scan passes each over at once."""
    for opener in ("{% if ", "{#", "{{"):
        line = opener * 200_000
        assert route.first_closed(line, route._JINJA_OPEN) is None
        assert route.first_closed(line, route._EXPRESSION_OPEN) is None
    job = ("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: $X\n"
           "  annotations:\n    note: \"" + "{#" * 100_000 + "\"\n")
    result = convert_text(job)
    assert result.documents


OLD_ENUM_KEY = re.compile(r"^( *)(\{\{ *(.*?) *\}\}):\s*$")
OLD_INDENT_TAIL = re.compile(r"\s*\|\s*indent\s+(\d+)\s*$")
_LINE = st.lists(st.sampled_from(["{{", "}}", ":", " ", "x", "\t", "|", " indent 4", "indent",
                                  "2"]), max_size=14).map("".join)


@given(_LINE)
def test_role_key_patterns_match_what_they_matched(line: str) -> None:
    old, new = OLD_ENUM_KEY.match(line), structure._ENUM_KEY.match(line)
    assert (old and old.group(1, 2)) == (new and new.group(1, 2))
    old_tail, new_tail = OLD_INDENT_TAIL.search(line), structure._INDENT_TAIL.search(line)
    assert (old_tail and (line[:old_tail.start()], old_tail.group(1))) == \
        (new_tail and (line[:new_tail.start()].rstrip(), new_tail.group(1)))


def test_a_long_blank_run_in_a_role_key_line() -> None:
    """`{{ <40,000 blanks> x }}y:` under labels: the old role-key pattern split the blank run
    n^2 ways (8,000 blanks: 224 s); the whole template converts or is refused at once."""
    job = ("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n"
           "  name: {{ .Release.Name }}\n  labels:\n    {{ " + " " * 40_000 + "x }}y:\n"
           "spec:\n  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n"
           "      template: {spec: {containers: [{name: pytorch, image: i}]}}\n")
    assert structure._ENUM_KEY.match("    {{ " + " " * 200_000 + "x }}:") is not None
    assert structure._ENUM_KEY.match("    {{ " + " " * 200_000 + "x }}y:") is None
    assert structure._INDENT_TAIL.search("{{ x " + " " * 200_000 + "y }}") is None
    result = convert_text(job)
    assert result.documents


def test_the_fold_stops_at_the_cap_when_batched_worlds_disagree(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Neighbouring `if/else` env blocks whose flips collide (duplicate names) defeat the
    batches, and each block would be converted alone: the fold refuses (Y110) at the cap of
    branch conversions instead (attack pass: 120 blocks took 160 conversions, 14 s)."""
    from migrator.convert import plain
    from migrator.template import worlds

    monkeypatch.setattr(worlds, "MAX_BRANCH_RUNS", 20)
    calls = [0]
    convert = plain.convert_plain

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return convert(*args, **kwargs)

    monkeypatch.setattr(plain, "convert_plain", counted)
    head = ("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n"
            "  name: {{ .Release.Name }}\nspec:\n  pytorchReplicaSpecs:\n    Master:\n"
            "      replicas: 1\n      template:\n        spec:\n          containers:\n"
            "          - name: pytorch\n            image: img\n            env:\n")
    body = "".join(f"{{{{- if .Values.e{i} }}}}\n            - name: A{i + 1}\n"
                   f"              value: \"x\"\n{{{{- else }}}}\n            - name: A{i}\n"
                   f"              value: \"y\"\n{{{{- end }}}}\n" for i in range(30))
    result = convert_text(head + body)
    assert [f.code for f in result.findings] == ["Y110"]
    # (the fallback may take twice the planned cap: a block-by-block retry of disagreeing batches)
    assert "more than 40 branch conversions" in result.findings[0].message
    assert result.text == head + body
    assert calls[0] <= 41


def test_two_worlds_are_compared_only_where_they_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack pass (a 47 KB template whose annotation is a block scalar of 15,000 equal lines
    took 176 s, difflib being quadratic in runs of equal lines): the lines both worlds start
    and end with are not handed to difflib."""
    import difflib

    from migrator.template import worlds

    sizes: list[int] = []
    real = difflib.SequenceMatcher

    def recorded(junk: Any, a: Any, b: Any, autojunk: bool = True) -> Any:
        sizes.append(len(a) + len(b))
        return real(junk, a, b, autojunk=autojunk)

    monkeypatch.setattr(difflib, "SequenceMatcher", recorded)
    ref = ["x"] * 20_000 + ["a: 1"] + ["x"] * 20_000
    out = ["x"] * 20_000 + ["a: 2", "b: 3"] + ["x"] * 20_000
    assert worlds._changes(ref, out) == [(20_000, 20_001, 20_000, 20_002)]
    assert max(sizes) == 3


def test_a_bare_value_is_found_on_its_own_line() -> None:
    """The pattern ran on over the lines before a value (`\\s`, `[^:#]` take newlines too):
    quadratic over a block scalar of lines without a colon (12 s of the 176 above)."""
    from migrator.template.convert import _BARE_VALUE

    text = "big: |\n" + "  x\n" * 5 + "  y\nkey: tjmz0001z\n"
    found = _BARE_VALUE.search(text)
    assert found is not None
    assert text[found.start():found.end()] == "key: tjmz0001z"
    assert _BARE_VALUE.search("  x\n  y tjmz0001z\n") is None  # (not a whole value)
