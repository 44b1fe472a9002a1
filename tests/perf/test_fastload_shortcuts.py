"""fastload's shortcuts give exactly what ruamel's own code gives (issue 18: a faster cold
check with identical results): the one-pass builder of a plain tree against ruamel's generic
round-trip construction of the same libyaml nodes, the resolver without the per-scalar
version look-up against ruamel's ``VersionedResolver.resolve``, and the split search for what
needs the pure loader against the one alternation it replaces, the search for keys without
a value against the one pattern it replaces.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from migrator.load import fastload, nesting, stream, yamlio
from migrator.settings import mappings_dir
from tests import corpus
from tests.goldens import FIXTURES

pytestmark = pytest.mark.skipif(fastload._loader_class() is None,
                                reason="ruamel.yaml.clib (libyaml) is not installed")

# the searches as one alternation each, as fastload wrote them before it split them (and
# before a blank line went to libyaml when comments are not needed)
_OLD_KEPT = (r"(?:^|[\s\[{,:-])&[\w-]|(?:^|[\s\[{,:-])!"
             r"|(?:^|[\s:-])>[-+0-9]*[ ]*(?:\n|$)|[\t\r\x85\u2028\u2029\ufeff%]")
_OLD = {True: re.compile(r"#|\n[ ]*\n|" + _OLD_KEPT),
        False: re.compile(_OLD_KEPT + r"|:[ ]+#|(?:^|\s)-[ ]+#")}


def _texts() -> list[str]:
    """Documents of the fixtures, also without their comments (so that more reach libyaml)."""
    texts = []
    for path in sorted(FIXTURES.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        no_lines = re.sub(r"(?m)^[ ]*#.*\n", "", text)
        no_comments = re.sub(r"(?m)[ ]+#.*$", "", no_lines)
        texts += [chunk.body for variant in (text, no_lines, no_comments)
                  for chunk in stream.split(variant) if chunk.has_content]
    return texts


_TEXTS = _texts()

_CASES = [
    "a: 1\nb: x\nc: 'q'\nd: \"dq\"\ne: |\n  lit\nf: [1, {g: null}]\nh: {}\ni: []\n",
    "x: 0o17\ny: 0x1f\nz: 1e3\nw: .inf\nv: true\nu: yes\nt: 2024-01-01\ns: 2024-01-01T10:00:00Z\n",
    "1: int key\ntrue: bool key\n~: null key\n1.5: float key\n2024-01-01: date key\n",
    "<<: {a: 1}\nb: 2\n",               # a merge key: ruamel's construction
    "a: 1\n=: value key\n",              # a value key: ruamel's (which refuses it)
    "? [a, b]\n: complex key\n",         # a complex key: ruamel's
    "? {a: 1}\n: complex key\n",
    "a: 1\na: 2\n",                      # a duplicate key: ruamel's error
    "a: &.x 1\nb: *.x\n",                # an anchor the search does not see: ruamel's
    "a: &x {b: [1]}\nc: *x\nd: &y [2]\ne: [*y, *y]\n",  # aliases: ruamel's (one object)
    "- =\n",                             # a value tag where a value stands: ruamel's error
    "a: !!str 1\nb: !!int '2'\n",
    "a: [b, {c: [d, {e: f}]}]\nflow: {x: [1, 2], y: {}}\n",
    "a: -.inf\nb: +1_000\nc: 0b101\nd: 1_0.5\ne: 0.\nf: -0\ng: 00012\n",
    "just a scalar\n",
    "- a\n- b: c\n  d: [e]\n-\n  - nested\n",
    "k: \"multi\n  line\"\nl: plain\n  continued\n",
]


def _nodes(text: str) -> Any:
    loader = fastload._loader_class()(text)  # type: ignore[misc]
    try:
        return loader, loader.get_single_node()
    except Exception:
        loader.dispose()
        return None, None


def _construct(text: str, one_pass: bool) -> tuple[str, Any]:
    """("ok", tree) or ("error", kind of error) of one construction of ``text``'s nodes."""
    from ruamel.yaml.constructor import RoundTripConstructor

    loader, node = _nodes(text)
    if loader is None:
        return "unparsed", None
    try:
        loader.one_pass = one_pass
        if one_pass:
            return "ok", loader.construct_document(node)
        fastload._place_empty_values(loader, node)  # (as construct_document does before it)
        return "ok", RoundTripConstructor.construct_document(loader, node)
    except Exception as exc:
        return "error", type(exc).__name__
    finally:
        loader.dispose()


def _fingerprint(node: Any, path: tuple[Any, ...] = (),
                 met: dict[int, tuple[Any, ...]] | None = None) -> list[Any]:
    """Everything of a loaded tree: types, values, every attribute and record, positions,
    and which collections are one object met twice (an alias)."""
    met = {} if met is None else met
    if isinstance(node, dict | list):
        if id(node) in met:
            return [path, "the object met at", met[id(node)]]
        met[id(node)] = path
    found: list[Any] = [path, type(node).__name__, repr(node)]
    state = getattr(node, "__dict__", None)
    if state is not None:
        found.append(sorted((key, repr(value)) for key, value in state.items()))
    for kind in type(node).__mro__:
        for slot in getattr(kind, "__slots__", ()):
            if isinstance(slot, str) and slot != "__weakref__" and hasattr(node, slot):
                value = getattr(node, slot)
                found.append((slot, repr(vars(value)) if hasattr(value, "__dict__")
                               else repr(value)))
    if isinstance(node, dict | list):
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        for key, value in items:
            found.append(("key", type(key).__name__, repr(key)))
            found += _fingerprint(value, (*path, repr(key)), met)
    return found


def _assert_built_alike(text: str) -> bool:
    """The one-pass builder and ruamel's construction agree on ``text`` (same tree, or both
    fail); True when it was a tree."""
    fast, slow = _construct(text, True), _construct(text, False)
    if fast[0] != "ok" or slow[0] != "ok":
        assert fast[0] == slow[0], text  # both fail (each may name its own error)
        return False
    assert _fingerprint(fast[1]) == _fingerprint(slow[1]), text
    assert yamlio.dump(fast[1], yamlio.Indent()) == yamlio.dump(slow[1], yamlio.Indent()), text
    return True


@pytest.mark.parametrize("text", _CASES)
def test_the_one_pass_builder_builds_what_ruamel_builds(text: str) -> None:
    _assert_built_alike(text)


def test_the_one_pass_builder_builds_the_fixtures_as_ruamel_does() -> None:
    built = sum(_assert_built_alike(text) for text in _TEXTS)
    assert built > len(_TEXTS) // 2


def test_the_one_pass_builder_builds_the_corpus_as_ruamel_does(shared: Path) -> None:
    built = 0
    for path in corpus.sample((shared / "corpus").rglob("*.y*ml")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        built += sum(_assert_built_alike(chunk.body) for chunk in stream.split(text)
                     if chunk.has_content)
    assert built > (100 if corpus.FULL else 20)


def test_the_one_pass_builder_is_what_loads_a_plain_document() -> None:
    from ruamel.yaml.constructor import RoundTripConstructor

    calls: list[str] = []
    real = RoundTripConstructor.construct_document

    def spy(self: Any, node: Any) -> Any:
        calls.append("ruamel")
        return real(self, node)

    try:
        RoundTripConstructor.construct_document = spy  # type: ignore[method-assign]
        assert yamlio.plain(fastload.load("a: [1, {b: c}]\n", yamlio._load_pure)) == \
            {"a": [1, {"b": "c"}]}
        assert calls == []
        assert fastload.load("<<: {a: 1}\nb: 2\n", yamlio._load_pure) is not None
        assert calls == ["ruamel"]  # a merge key: ruamel's construction
    finally:
        RoundTripConstructor.construct_document = real  # type: ignore[method-assign]


@pytest.mark.parametrize("depth", [fastload.ONE_PASS_DEPTH, 150, 250, 300])
def test_a_deep_document_loads_or_fails_as_ruamel_makes_it(depth: int) -> None:
    """ruamel's construction runs out of stack on deep trees, and the pure loader's error
    (Y104, its own message) is what the user sees: the one-pass builder, which would go
    deeper, takes no tree deeper than ONE_PASS_DEPTH."""
    text = "".join("  " * level + f"k{level}:\n" for level in range(depth)) + \
        "  " * depth + "v: 1\n"
    assert nesting.nesting_bound(text, nesting.MAX_SCANNED_DEPTH) > fastload.ONE_PASS_DEPTH \
        or depth <= fastload.ONE_PASS_DEPTH

    def outcome() -> str:
        try:
            return repr(yamlio.plain(yamlio.load(text)))[:40]
        except yamlio.DocumentError as exc:
            return f"{exc.code} {exc}"

    with fastload.without_comments():
        fast = outcome()
    saved = fastload.ONE_PASS_DEPTH
    try:
        fastload.ONE_PASS_DEPTH = -1  # ruamel's construction for every document
        with fastload.without_comments():
            assert outcome() == fast
    finally:
        fastload.ONE_PASS_DEPTH = saved


_SCALARS = st.one_of(
    st.text(max_size=12),
    st.text(alphabet="0123456789+-._eEoxXabcdefTtFfNnulrsY:~ ", max_size=14),
    st.sampled_from(["", "~", "null", "Null", "NULL", "true", "True", "yes", "no", "on",
                     "0o17", "0x1F", "0b1", "1_000", "1e3", "1.5e-3", ".inf", "-.Inf",
                     ".nan", "2024-01-01", "2024-01-01T10:00:00Z", "2024-1-1 1:00:00 +1",
                     "<<", "=", "!", "&a", "*a", "010", "+12", "-0", "0.", "._5"]))


@settings(max_examples=300, deadline=None)
@given(_SCALARS, st.booleans(), st.booleans())
def test_the_resolver_resolves_as_ruamel_does(value: str, plain: bool, quoted: bool) -> None:
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
    from ruamel.yaml.resolver import VersionedResolver

    loader = fastload._loader_class()("a: 1\n")  # type: ignore[misc]
    try:
        reference = VersionedResolver(version=None)
        for kind in (ScalarNode, SequenceNode, MappingNode):
            implicit = (plain, quoted) if kind is ScalarNode else plain
            assert str(loader.resolve(kind, value, implicit)) == \
                str(reference.resolve(kind, value, implicit)), (kind, value, implicit)
    finally:
        loader.dispose()


_SEARCHED = st.text(alphabet=" \n\t\r#&!>%:-[{,|xa0+\u2028\ufeff", max_size=40)


@settings(max_examples=500, deadline=None)
@given(_SEARCHED, st.booleans())
def test_the_split_search_finds_what_the_alternation_found(body: str, comments: bool) -> None:
    assert fastload._pure_only(body, comments) == (_OLD[comments].search(body) is not None)


def test_the_split_search_agrees_on_the_fixtures() -> None:
    for text in _TEXTS:
        for comments in (True, False):
            assert fastload._pure_only(text, comments) == \
                (_OLD[comments].search(text) is not None), text


_EMPTY_VALUES = ["a:\nb: 1\n", "x:\n  a:\nb:\n", "- a:\n  b:\n- c:", "a: 1\nb:   ",
                 "k:\n  - x:\n    y:\n  -\n", "<<: {m: 1}\na:\n[b]: 1\nc:\n"]


@pytest.mark.parametrize("text", _EMPTY_VALUES)
def test_ruamels_construction_gets_the_empty_values_the_builder_gets(text: str) -> None:
    """A tree left to ruamel's generic construction (too deep for the one-pass builder, a
    merge or complex key) has its empty values placed as the builder places them."""
    from tests.test_yamlio import _pure, _shape

    saved = fastload.ONE_PASS_DEPTH
    try:
        for depth in (saved, -1):  # -1: ruamel's construction for every document
            fastload.ONE_PASS_DEPTH = depth
            fast = fastload.load(text, yamlio._load_pure)
            assert fast is not None, text
            assert _shape(fast) == _shape(_pure(text)), (depth, text)
    finally:
        fastload.ONE_PASS_DEPTH = saved


def _parsed(name: str) -> Any:
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load((mappings_dir() / name).read_text(encoding="utf-8"))


def test_the_legacy_groups_read_as_text_are_the_parsed_ones() -> None:
    from migrator.load import detect

    assert detect.legacy_groups() == tuple(_parsed("kinds.yaml")["legacyGroups"])
    assert detect.legacy_groups()  # read as text (one line), as the catalog requires


def test_mapping_files_read_by_libyaml_are_the_pure_parse() -> None:
    """detect reads kinds.yaml and the legacy mapping files with libyaml (ruamel's pure
    loader only when libyaml refuses a file): the same values as the pure parse."""
    from migrator.load import detect

    paths = sorted(mappings_dir().rglob("*.yaml"))
    assert len(paths) > 10
    for path in paths:
        assert detect._data_file(path) == _parsed(path.relative_to(mappings_dir()).as_posix())
    assert detect._kinds_file() == _parsed("kinds.yaml")


def test_a_file_libyaml_refuses_is_read_by_the_pure_loader(tmp_path: Path) -> None:
    from migrator.load import detect

    path = tmp_path / "kinds.yaml"
    path.write_text("markers: [spec.a, spec.b:string]\n", encoding="utf-8")
    assert detect._data_file(path) == {"markers": ["spec.a", "spec.b:string"]}


@pytest.mark.parametrize("body", [
    "deep: " + "[" * 60_000 + "]" * 60_000 + "\n",
    "deep:\n" + "- " * 60_000 + "x\n",
    "deep:\n" + "".join(" " * i + "a:\n" for i in range(3_000)),
    "a: [unclosed\n",
    "a: \udcff\n",
], ids=["flow", "sequences", "mappings", "unclosed", "not-utf8"])
def test_a_mapping_file_that_cannot_be_parsed_is_one_mapping_file_error(
        tmp_path: Path, body: str) -> None:
    """A broken or hostile mappings file (TRAINJOB_MIGRATE_MAPPINGS) ends the run with one
    line naming it: never a crash of libyaml's C recursion nor a RecursionError."""
    from migrator.errors import MappingFileError
    from migrator.knowledge import catalog
    from migrator.load import detect

    path = tmp_path / "kinds.yaml"
    path.write_bytes(body.encode("utf-8", "surrogateescape"))
    with pytest.raises(MappingFileError, match=r"kinds\.yaml"):
        detect._data_file(path)
    with pytest.raises(MappingFileError, match=r"kinds\.yaml"):
        catalog._read_yaml(path)


def _has_blank_line(text: str) -> bool:
    return re.search(r"\n[ ]*\n", text.strip("\n")) is not None


def test_without_comments_documents_with_blank_lines_load_as_the_pure_loader_loads_them(
        ) -> None:
    """A blank line needs the pure loader only for its comment record: without comments
    libyaml loads such documents into the pure loader's tree (but for comments)."""
    from tests.test_yamlio import _pure, _shape

    taken = 0
    with fastload.without_comments():
        for text in [t for t in _TEXTS if _has_blank_line(t)] + [
                "a: 1\n\nb:\n  c: |\n    x\n\n    y\n\n  d: [1,\n\n    2]\n",
                "k: |+\n  kept\n\n\nl: 2\n", "- a\n\n-\n\n  b\n"]:
            fast = fastload.load(text, yamlio._load_pure)
            if fast is None:
                continue
            taken += 1
            assert _shape(fast) == _shape(_pure(text)), text
    assert taken >= 3  # (most fixtures with blank lines need the pure loader for more)


def test_a_mappings_file_that_is_not_utf8_is_a_mapping_file_error_when_read_as_text(
        tmp_path: Path) -> None:
    """The lists read as text at start-up (``settings.flow_list``) name a broken file too,
    rather than reading it as "no list" (or raising UnicodeDecodeError)."""
    from migrator.errors import MappingFileError
    from migrator.settings import flow_list

    path = tmp_path / "kinds.yaml"
    path.write_bytes(b"\xff\xfe candidateMarkers: [a]\n")
    with pytest.raises(MappingFileError, match=r"kinds\.yaml"):
        flow_list(path, "candidateMarkers")
    assert flow_list(tmp_path / "missing.yaml", "candidateMarkers") == ()
