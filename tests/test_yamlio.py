"""The shared round-trip instances behave exactly like fresh ones, whatever came before."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from migrator import convert_text
from migrator.load import fastload, stream, yamlio
from tests import corpus
from tests.goldens import FIXTURES
from tests.test_properties import _dump, _job

_TRICKY = [
    "%YAML 1.1\n---\nflag: yes\noctal: 010\n",  # a directive changes resolution
    "flag: yes\noctal: 010\n",
    "a: &anchor {x: 1}\nb: *anchor\n",
    "c: *anchor\n",  # an alias of the previous document must not resolve
    "key: [unclosed\n",  # a failure half-way
    "'quoted': \"double\"  # comment\nblock: |\n  text\n",
    "%TAG !e! tag:example.com,2000:\n---\nv: !e!thing 1\n",
    "!e!thing 1\n",
]


def _documents() -> list[str]:
    texts = list(_TRICKY)
    for path in sorted(FIXTURES.rglob("*.yaml"))[:80]:
        texts += [chunk.body for chunk in stream.split(path.read_text(encoding="utf-8"))
                  if chunk.has_content]
    return texts


_DOCUMENTS = _documents()


def _fresh(text: str) -> str:
    """What a new instance loads: the dump of the tree, or the error."""
    try:
        data = yamlio._rt().load(text)
    except Exception as exc:  # the kind of error is what is compared
        return f"error: {type(exc).__name__}"
    out = io.StringIO()
    dumper = yamlio._rt()
    indent = yamlio.Indent()
    dumper.indent(mapping=indent.mapping, sequence=indent.sequence, offset=indent.offset)
    dumper.dump(data, out)
    return out.getvalue()


def _shared(text: str) -> str:
    try:
        data = yamlio.load(text)
    except yamlio.DocumentError:
        return "error"
    return yamlio.dump(data, yamlio.Indent())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_DOCUMENTS), min_size=2, max_size=12))
def test_shared_instances_match_fresh_ones(order: list[str]) -> None:
    for text in order:
        fresh = _fresh(text)
        shared = _shared(text)
        if fresh.startswith("error"):
            assert shared == "error", text
        else:
            assert shared == fresh, text


def test_a_directive_or_a_failure_does_not_leak_into_the_next_document() -> None:
    for text in _TRICKY * 2:
        fresh, shared = _fresh(text), _shared(text)
        assert shared == ("error" if fresh.startswith("error") else fresh), text


# --- libyaml (fastload) against the pure loader ----------------------------------------------

def _shape(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Everything of a loaded tree that the converter can see: types, values, positions."""
    if isinstance(node, dict | list):
        items = node.items() if isinstance(node, dict) else enumerate(node)
        lc = cast(Any, node).lc  # ruamel's position record of a loaded map or list
        found = [(path, type(node).__name__, repr(lc.data), lc.line, lc.col)]
        for key, value in items:
            found += _shape(value, (*path, key))
        return found
    return [(path, type(node).__name__, repr(node))]


def _pure(text: str) -> Any:
    yamlio._shared.pop("load", None)
    return yamlio._load_pure(text)


def _assert_same_tree(text: str) -> bool:
    """True when libyaml took the document; then its tree equals the pure loader's."""
    fast = fastload.load(text, yamlio._load_pure)
    if fast is None:
        return False
    pure = _pure(text)
    assert yamlio.dump(fast, yamlio.Indent()) == yamlio.dump(pure, yamlio.Indent()), text
    assert _shape(fast) == _shape(pure), text
    return True


def _variants(text: str) -> list[str]:
    """A file's documents, also without their comment lines and without trailing comments
    (so that more of them reach libyaml)."""
    no_lines = re.sub(r"(?m)^[ ]*#.*\n", "", text)
    no_comments = re.sub(r"(?m)[ ]+#.*$", "", no_lines)
    return [chunk.body for variant in (text, no_lines, no_comments)
            for chunk in stream.split(variant) if chunk.has_content]


needs_libyaml = pytest.mark.skipif(fastload._loader_class() is None,
                                   reason="ruamel.yaml.clib (libyaml) is not installed")


@needs_libyaml
def test_libyaml_trees_equal_pure_trees_on_fixtures() -> None:
    taken = [_assert_same_tree(body) for path in sorted(FIXTURES.rglob("*.yaml"))
             for body in _variants(path.read_text(encoding="utf-8"))]
    assert sum(taken) > len(taken) // 2  # most fixture documents go through libyaml


@needs_libyaml
def test_libyaml_trees_equal_pure_trees_on_the_corpus(shared: Path) -> None:
    taken = 0
    for path in corpus.sample((shared / "corpus").rglob("*.y*ml")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for body in _variants(text):
            try:
                taken += _assert_same_tree(body)
            except yamlio.DocumentError:
                continue  # the pure loader refuses it (and reports it in a real run)
    assert taken > (100 if corpus.FULL else 30)


@needs_libyaml
@pytest.mark.parametrize("text", [
    "a: 1  # trailing comment\n",
    "a: 1\n\nb: 2\n",
    "a: &x 1\nb: *x\n",
    "a: >\n  folded\n  text\n",
    "a:\tb\n",
    "k: !custom tagged\nl: !!str 12\n",
    "%YAML 1.2\n---\na: 1\n",
])
def test_documents_with_what_libyaml_drops_go_to_the_pure_loader(text: str) -> None:
    assert fastload.load(text, yamlio._load_pure) is None


@needs_libyaml
@pytest.mark.parametrize("text", [
    "# header\n# more\n\napiVersion: v1\nkind: X\n",
    "a:\n- x\n- y\nb: 'q'\nc: \"d\"\nd: |\n  lit\ne: [1, {f: 2}]\n",
    "spec:\n  c:\n    - name: n\n      args: [\"--x\", '--y']\n  d: ~\n  e: null\n",
    "x: 0o17\ny: 0x1f\nz: 1e3\nw: .inf\nv: true\nu: yes\nt: 2024-01-01\n",
    "k: 'it''s'\nl: \"!not a tag\"\nm: a!b\n",
    "n: \"esc\\u00e9\\t\\x41\"\no: é unicode\np: '✓'\nq: 🚀 launch {x}\n",
    "r: a plain\n  scalar on\n  three lines\ns: \"double\n  folded\"\n",
    "? complex key\n: value\n'quoted key': {}\n\"k2\": []\n",
    "- root\n- list\n",
    "just a scalar\n",
    "# header\n- a list\n- with a header\n",
    "key:\n  value on the next line\nother:\n  'quoted'\nflow:\n  [1, {a: 2}]\n",
    "- \n  a: 1\n",
    "a: |2\n    indented literal\nk: \"multi\n  line\"\n? [a, b]\n: v\n",
    # empty values: the pure loader marks each where the next token ends (_empty_value_mark)
    "a:\nb: 1\n",
    "a:   \nb: 1\n",  # spaces after the ':'
    "x:\n  a:\nb: 1\n",  # a less indented key next
    "x:\n  y:\n    a:\nb: 1\n",
    "a: 1\nb:\n",  # the end of the document
    "a: 1\nb:",  # ... without a final line break
    "x:\n  b:   ",
    "x:\n  b:\n  ",
    "- a:\n- b: 1\n",  # inside sequences
    "- a:\n  b:\n- c\n",
    "l:\n- a:\n  b:\n",
    "a:\n  - b:\n    c:\n",
    "- - a:\n  - b\n",
    "root:\n  -   - '00':\n        '0': []\n",
    "'a':\n\"b\":\nc: 1\n",  # quoted keys, and a quoted key next
    "a:\n'b': 1\n",
    "a:\n[b]: 1\n",  # a flow key next (ruamel's generic construction)
    "a:\n{b: 1}: 1\n",
    "<<: {x: 1}\na:\n",  # a merge key (ditto)
    "a:\n...\n",  # a document end marker
    "---\na:\n",
    "é:\nb: 1\n",
    "a: é\nb:\nc: 1\n",
    "a: [1,\n  2]\nb:\nc: 1\n",
    "- \n- a\n-\n",  # empty sequence items (placed alike by both)
    "a: {b: , c}\n",  # in flow mappings: after the ':', else where the next token starts
    "a: {b: }\n",
    "a: {b :  ,\n  c: 1}\n",
    "a: {b:\n  , c: 1}\n",
    "a: {\"b\":\n   }\n",
    "a: [b: , c: ]\n",  # (single pair mappings)
    "a: {b, c}\n",
    "a: [? b]\n",
    "a: {{x}}\nb: {{x}: }\n",  # (flow keys: ruamel's generic construction)
    "a:\n-\n- b\nc:\n",
    "spec:\n  template:\n    metadata:\n      annotations:\n    spec:\n      containers:\n"
    "      - name: x\n        env:\n        resources:\n          limits:\n",
    "\n\n# header after blank lines\n\n   # indented\nk: v\n",
])
def test_documents_libyaml_takes_load_identically(text: str) -> None:
    assert _assert_same_tree(text)


@needs_libyaml
@settings(max_examples=40, deadline=None)
@given(_job)
def test_generated_jobs_load_identically(job: dict[str, Any]) -> None:
    text = _dump(job)
    assume(fastload.load(text, yamlio._load_pure) is not None)  # else the pure loader decides
    assert _assert_same_tree(text)


def test_conversions_are_identical_with_and_without_libyaml(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for path in sorted(FIXTURES.glob("*/*.in.yaml")):
        text = path.read_text(encoding="utf-8")
        fast = convert_text(text)
        monkeypatch.setattr(yamlio, "FAST", False)
        pure = convert_text(text)
        monkeypatch.setattr(yamlio, "FAST", True)
        assert fast.text == pure.text, path
        assert fast.findings == pure.findings, path


def test_corpus_conversions_are_identical_with_and_without_libyaml(
        shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for path in corpus.sample((shared / "corpus").rglob("*.y*ml")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "kubeflow.org" not in text:
            continue
        fast = convert_text(text, companion_runtimes=True)
        monkeypatch.setattr(yamlio, "FAST", False)
        pure = convert_text(text, companion_runtimes=True)
        monkeypatch.setattr(yamlio, "FAST", True)
        assert (fast.text, fast.findings) == (pure.text, pure.findings), path


def _literal(text: str) -> Any:
    from ruamel.yaml.scalarstring import LiteralScalarString

    return LiteralScalarString(text)


_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
              st.text(max_size=12), st.sampled_from(["yes", "no", "on", "0o17", "1e3", "~",
                                                     "null", "- x", "a: b", "'q'", "#x"]),
              st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]),
                      min_size=1, max_size=20).map(lambda t: _literal(t + "\nline\n"))),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=4)),
    max_leaves=20)


@needs_libyaml
@settings(max_examples=150, deadline=None)
@given(_VALUES, st.sampled_from([None, True, False]), st.integers(2, 4))
def test_generated_documents_load_identically(value: Any, flow: bool | None,
                                              indent: int) -> None:
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.default_flow_style = flow
    yaml.indent(mapping=indent, sequence=indent + 2, offset=indent)
    out = io.StringIO()
    yaml.dump({"root": value}, out)
    text = out.getvalue()
    assume(fastload.load(text, yamlio._load_pure) is not None)  # else the pure loader decides
    assert _assert_same_tree(text)


@needs_libyaml
@pytest.mark.parametrize("text", [
    "? a\n:\nb: 1\n",  # explicit indicators beside an empty value
    "a:\n? b\n: 1\n",
    "? a\nb: 1\n",
    "? \n: \n",  # an empty key
    "?\n: v\n",
    "a: {? : v}\n",
])
def test_empty_values_libyaml_may_place_otherwise_go_to_the_pure_loader(text: str) -> None:
    assert fastload.load(text, yamlio._load_pure) is None
    with fastload.without_comments():
        assert fastload.load(text, yamlio._load_pure) is None
        # a comment between a flow key's ':' and the next token: not looked into
        assert fastload.load("a: {b: # c\n  , c: 1}\n", yamlio._load_pure) is None


@needs_libyaml
@pytest.mark.parametrize("text", [
    "a:\n\nb: 1\n",
    "a:\n\n",
    "a:\n  # c\nb: 1\n",
    "a:\n# c\nb: 1\n",
    "x:\n  a:\n# c\nb: 1\n",
    "x:\n  a:\n      # c\n  b: 1\n",
    "a: 1  # c\nb:\n# c\n",
])
def test_without_comments_empty_values_load_as_the_pure_loader_loads_them(text: str) -> None:
    """Comments and blank lines after an empty value do not move it (the pure loader marks the
    next token still); one in its place does (``key: # c``: left to the pure loader)."""
    with fastload.without_comments():
        fast = fastload.load(text, yamlio._load_pure)
        assert fast is not None, text
        assert _shape(fast) == _shape(_pure(text)), text
        assert fastload.load("a: # c\nb: 1\n", yamlio._load_pure) is None


# YAML-like texts of few characters, many of them with empty values: what libyaml takes must
# load as the pure loader loads it
_FUZZ = st.text(alphabet=" -:\nab#'?{}[],\"é", max_size=40)


def _assert_same_if_taken(text: str) -> None:
    for comments in (True, False):
        with contextlib.nullcontext() if comments else fastload.without_comments():
            fast = fastload.load(text, yamlio._load_pure)
        if fast is None:
            continue
        pure = _pure(text)
        assert _shape(fast) == _shape(pure), (comments, text)
        if comments:
            assert _dumped(fast) == _dumped(pure), text


def _dumped(tree: Any) -> str:
    """The tree written back, or the name of the error ruamel's writer raises on it (a header
    comment before a top-level `[]` crashes its emitter, whichever loader made the tree)."""
    try:
        return yamlio.dump(tree, yamlio.Indent())
    except Exception as exc:  # (the same failure on both trees is agreement)
        return type(exc).__name__


# a quoted or flow key in a flow sequence with its ':' and no space after it (`['':a]`,
# `[{}:]`, `['' :x]`): libyaml reads it (YAML 1.2's JSON-like keys), ruamel's parser refuses
# it. Known since libyaml first loaded documents; a search for it would also send every JSON
# string (`last-applied-configuration`) to the pure loader, so the fuzz leaves it out
_JSON_LIKE_KEY = re.compile(r"(?:[\]}\"'][ ]*|[ ]):[^ \n]")


@needs_libyaml
@settings(max_examples=300, deadline=None)
@given(_FUZZ)
def test_small_texts_libyaml_takes_load_identically(text: str) -> None:
    assume(not _JSON_LIKE_KEY.search(text))
    _assert_same_if_taken(text)


_KEYS = st.sampled_from(["a{}", "b{}", "'q{}'", "\"d{}\"", "é{}", "[k{}]", "x y{}"])
_SPACES = st.sampled_from(["", "", " ", "   "])
_FLOW = st.sampled_from(["[1, 2]", "{a: 1}", "[]", "{a: , b}", "[c: , d]", "{e:}"])


@st.composite
def _block(draw: st.DrawFn, indent: int = 0, depth: int = 0) -> str:
    """A block mapping or sequence at ``indent``, many of its values empty."""
    lines = []
    sequence = draw(st.booleans())
    for index in range(draw(st.integers(1, 4))):
        pad = " " * indent
        lead = f"{pad}- " if sequence else pad
        kind = draw(st.sampled_from(["empty", "empty", "scalar", "flow", "block", "seq0"]
                                    if depth < 3 else ["empty", "scalar"]))
        key = draw(_KEYS).format(index)
        if sequence and kind == "empty" and draw(st.booleans()):
            lines.append(f"{pad}-{draw(_SPACES)}")  # an empty item
            continue
        if kind == "empty":
            lines.append(f"{lead}{key}:{draw(_SPACES)}")
        elif kind == "scalar":
            lines.append(f"{lead}{key}: {draw(st.sampled_from(['1', 'v', '~', 'null', '']))}")
        elif kind == "flow":
            lines.append(f"{lead}{key}: {draw(_FLOW)}")
        else:  # a nested block; "seq0": a sequence at the key's indentation
            lines.append(f"{lead}{key}:")
            inner = indent + (2 if sequence else 0) + (0 if kind == "seq0" else 2)
            lines.append(draw(_block(inner, depth + 1)).rstrip("\n"))
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from(["", "  ", "# c", f"{pad}  # c"])))
    return "\n".join(lines) + "\n"


@needs_libyaml
@settings(max_examples=300, deadline=None)
@given(_block(), st.booleans())
def test_generated_empty_values_load_identically(text: str, final_break: bool) -> None:
    _assert_same_if_taken(text if final_break else text.rstrip("\n"))


@needs_libyaml
def test_an_empty_value_after_an_explicit_key_goes_to_the_pure_loader() -> None:
    """libyaml marks the empty value of '0' where its line ends, the pure loader on the next
    line: the key follows `: ` (an explicit key's value), which the empty-value scan must see
    as what stands before the key, as it sees sequence dashes (found by the property above)."""
    text = ("apiVersion: kubeflow.org/v1\nkind: JAXJob\nmetadata:\n  name: a0\nspec:\n  x:\n"
            "    weird:\n      ? \"\\n\"\n      : '0':\n        '': []\n")
    assert fastload.load(text, yamlio._load_pure) is None
    _assert_same_tree(text.replace("      : '0':", "      : '0': 1"))  # a value: libyaml's
