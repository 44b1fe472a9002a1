"""LOAD: load a document with libyaml into the very tree ruamel's pure round-trip loader builds.

ruamel's round-trip loader is pure Python because libyaml drops what the round trip keeps:
comments, blank lines, anchor names, explicit tags, the folding of ``>`` scalars. A document
without any of those (but for a header of comment lines, carried over from a pure load of
the header alone) loads the same either way, several times faster with libyaml's parser
feeding ruamel's own round-trip constructor and resolver. Anything else, and any failure, is
left to the pure loader (which then reports the error). Tests hold both loaders to identical
trees: dumps, line/column records, scalar types.

An empty value (``key:`` with nothing under it) is one place where the two parsers differ:
in a block mapping libyaml marks it where its ``:`` ends, the pure loader where the next token
ends (the next key, or the end of the mapping); in a flow mapping libyaml marks it where the
next token starts, the pure loader where the ``:`` ends (if there is one). The builder gives
it the pure loader's mark (``_empty_value_mark``); where that rule may not hold (an empty key,
an explicit ``?`` or ``:`` indicator in a document with an empty block value) the pure loader
loads the document.

A run that needs no comments (``check``: findings only, no output; ``without_comments``)
also hands libyaml documents whose only need of the pure loader was a comment or a blank line
(which the round trip keeps as a comment): comments never change a finding (a test holds check
results over the fixtures and the corpus identical either way), and the pure loader is most
of a cold check's loading time.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

# the header: leading lines that are blank or hold only a comment
_HEADER = re.compile(r"(?:[ ]*(?:#[^\n]*)?\n)*")
# after the header, any of these needs the pure loader; each with a character it cannot match
# without ("": none), so that most are never searched (``_pure_only``)
_COMMENT = ("#", r"#")  # a comment (or a '#' in a value: cheap to be safe)
_BLANK_LINE = ("\n", r"\n[ ]*\n")  # kept by the round trip as a comment: nothing without them
_KEPT = (
    ("&", r"(?:^|[\s\[{,:-])&[\w-]"),             # an anchor (its name is kept)
    ("!", r"(?:^|[\s\[{,:-])!"),                  # a tag (explicit tags are kept as written)
    (">", r"(?:^|[\s:-])>[-+0-9]*[ ]*(?:\n|$)"),  # a folded block scalar (folds are kept)
    ("", r"[\t\r\x85\u2028\u2029\ufeff%]"),        # tabs, other line breaks, BOM, directives
)
# without comments: still the pure loader where a comment stands in place of a value (``key:
# # note``, ``- # note``): the pure loader then places that empty value after the indicator,
# not at the next token as _empty_value_mark does
_IN_PLACE_OF_A_VALUE = ("#", r":[ ]+#|(?:^|\s)-[ ]+#")
# by whether comments are needed
_PURE_ONLY: dict[bool, tuple[tuple[str, re.Pattern[str]], ...]] = {
    needed: tuple((character, re.compile(pattern)) for character, pattern in kinds)
    for needed, kinds in ((True, (_COMMENT, _BLANK_LINE, *_KEPT)),
                          (False, (*_KEPT, _IN_PLACE_OF_A_VALUE)))}
_comments_needed = True


def comments_needed() -> bool:
    """False within ``without_comments``."""
    return _comments_needed


@contextlib.contextmanager
def without_comments() -> Iterator[None]:
    """Within: documents are loaded for their data only (no comments are kept), so one that
    needs the pure loader only for its comments goes to libyaml (see the module docstring)."""
    global _comments_needed
    saved, _comments_needed = _comments_needed, False
    try:
        yield
    finally:
        _comments_needed = saved

# The one-pass builder takes trees at most this deep (a nesting bound): ruamel's construction
# takes some four stack frames a level and fails on deeper trees (RecursionError, then the
# pure loader's own Y104 message); the builder, one frame a level, must not load those
ONE_PASS_DEPTH = 100

# an explicit key or value indicator (``? a``, ``: b`` at the start of a line, after
# indentation, sequence dashes or other indicators): the pure loader places an empty value
# beside one otherwise than at the next key (``_empty_value_mark``)
_EXPLICIT = re.compile(r"(?m)^[ ?:-]*[?:](?:[ ]|$)")


class _Refused(Exception):
    """A document libyaml would load into another tree than the pure loader: ``load`` returns
    None for it (like for any other exception of the load)."""


def load(text: str, pure_load: Callable[[str], Any], bound: int | None = None) -> Any | None:
    """The document loaded with libyaml, or None when it needs the pure loader.

    ``pure_load`` loads the comment header (a few lines) so its comments are kept; ``bound``
    is ``nesting.nesting_bound(text, nesting.MAX_SCANNED_DEPTH)`` when the caller has it.
    """
    loader_class = _loader_class()
    if loader_class is None:
        return None
    from migrator.load import nesting

    if bound is None:
        bound = nesting.nesting_bound(text, nesting.MAX_SCANNED_DEPTH)
    if bound > nesting.MAX_SCANNED_DEPTH:
        return None  # libyaml's recursion would crash; the pure loader reports it (Y104)
    header = _HEADER.match(text)
    body_start = header.end() if header else 0
    body = text[body_start:]
    if _pure_only(body, _comments_needed):
        return None
    try:
        loader = loader_class(str(text))  # libyaml takes exact str only, no subclasses
    except Exception:
        return None
    loader.one_pass, loader.aliases = bound <= ONE_PASS_DEPTH, "*" in text
    try:
        data = loader.get_single_data()
    except Exception:  # any problem, even one of ours: the pure loader decides
        return None
    finally:
        loader.dispose()
    if body_start and hasattr(data, "ca") and _comments_needed:
        try:
            probe = pure_load(text[:body_start] + "x: 1\n")
        except Exception:  # cannot happen for comment lines; if it does, load it purely
            return None
        data.ca.comment = probe.ca.comment
    return data


def _pure_only(body: str, comments: bool) -> bool:
    """Whether ``body`` holds anything that needs the pure loader (``_PURE_ONLY``). Each
    kind is searched alone, and only in a text with the character it needs: one alternation
    of them all, tried at every character, was a tenth of the load of a document."""
    return any((not character or character in body) and pattern.search(body) is not None
               for character, pattern in _PURE_ONLY[comments])


def _empty_value_mark(loader: Any, mapping: Any, index: int) -> Any:
    """The mark the pure loader gives the empty value of pair ``index`` of ``mapping`` (a node
    libyaml made); raises _Refused where it may not be the one given here."""
    key, value = mapping.value[index]
    if mapping.flow_style:
        return _flow_empty_value_mark(loader.text, key.end_mark, value.start_mark)
    if loader.explicit is None:  # (searched once a document, and only in one with an empty value)
        loader.explicit = _EXPLICIT.search(loader.text) is not None
    if loader.explicit:
        raise _Refused  # the next token may be a '?' (marked after it) or the value has no ':'
    pairs = mapping.value
    if index + 1 < len(pairs):
        return pairs[index + 1][0].start_mark  # the next (simple) key: its start
    mark = mapping.end_mark  # the end of the block mapping: where the next token starts
    text = loader.text
    if mark.index >= len(text) and not text.endswith("\n"):  # (libyaml counts characters)
        # the end of a text without a final line break: libyaml adds one, ruamel does not
        line_start = text.rfind("\n") + 1
        return _mark(mark.name, len(text), text.count("\n"), len(text) - line_start)
    return mark


def _flow_empty_value_mark(text: str, key_end: Any, value: Any) -> Any:
    """In a flow mapping libyaml marks an empty value where the next token (``,``, ``}``)
    starts; so does the pure loader when the key has no ``:``, else it marks where the ``:``
    ends."""
    between = text[key_end.index:value.index]
    indicator = between.strip(" \n")
    if not indicator:
        return value
    if indicator != ":":
        raise _Refused  # (a comment, without comments: not looked into)
    offset = between.index(":") + 1
    breaks = between.count("\n", 0, offset)
    column = key_end.column + offset if not breaks \
        else offset - between.rindex("\n", 0, offset) - 1
    return _mark(key_end.name, key_end.index + offset, key_end.line + breaks, column)


def _mark(name: Any, index: int, line: int, column: int) -> Any:
    """A mark of ruamel's (what the constructor reads of it: ``line``, ``column``)."""
    from ruamel.yaml.error import StreamMark

    return StreamMark(name, index, line, column)


def _place_empty_values(loader: Any, root: Any) -> None:
    """Give every empty value of the tree under ``root`` the pure loader's mark
    (``_empty_value_mark``), for ruamel's generic construction; raises _Refused as it does."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:  # (an alias)
            continue
        seen.add(id(node))
        if type(node) is MappingNode:
            for index, (key, value) in enumerate(node.value):
                if _is_empty(key, ScalarNode):
                    raise _Refused  # an empty key: explicit or in a flow mapping
                if _is_empty(value, ScalarNode):
                    value.start_mark = value.end_mark = _empty_value_mark(loader, node, index)
                stack += (key, value)
        elif type(node) is SequenceNode:
            stack += node.value


def _is_empty(node: Any, scalar: Any) -> bool:
    """Whether ``node`` is an empty node: a plain scalar of no text."""
    return type(node) is scalar and node.value == "" and not node.style


@functools.cache
def _loader_class() -> type | None:
    """ruamel's round-trip constructor and resolver on top of libyaml's parser (None without
    ruamel.yaml.clib); built once.

    Two shortcuts, each giving exactly what ruamel's own code gives (tests hold the trees
    equal): scalars are resolved against the YAML 1.2 rules looked up once (ruamel looks the
    version up for every scalar, through two caught exceptions: a document with a ``%YAML``
    directive never comes here), and a plain tree (no anchor, explicit tag, comment, merge
    key or complex key: what libyaml gets) is built in one pass over the nodes
    (``_fast_paths``) rather than through ruamel's generic, generator-based construction
    (anything else still is; so is a tree nested deeper than ONE_PASS_DEPTH).
    """
    from ruamel.yaml import main
    from ruamel.yaml.constructor import RoundTripConstructor
    from ruamel.yaml.resolver import VersionedResolver

    parser: Any = getattr(main, "CParser", None)  # None without ruamel.yaml.clib
    if parser is None:
        return None
    fast_resolve, build = _fast_paths(RoundTripConstructor, VersionedResolver)

    class RoundTripCLoader(parser, RoundTripConstructor, VersionedResolver):  # type: ignore[misc]
        def __init__(self, stream: str) -> None:
            parser.__init__(self, stream)
            self._parser = self._composer = self
            RoundTripConstructor.__init__(self, preserve_quotes=True, loader=self)
            self.allow_duplicate_keys = False
            self.comment_handling = None
            VersionedResolver.__init__(self, version=None, loadumper=self)
            self.text = stream  # (for _empty_value_mark)
            self.explicit: bool | None = None  # whether it has explicit indicators (_EXPLICIT)

        resolve = fast_resolve

        one_pass = False  # ``load`` sets it for a document that nests at most ONE_PASS_DEPTH
        aliases = True  # ``load`` clears it for a text without ``*``

        def construct_document(self, node: Any) -> Any:
            if self.one_pass:
                try:
                    return build(self, node, self.aliases)
                except _NotPlain:
                    pass
            _place_empty_values(self, node)
            return RoundTripConstructor.construct_document(self, node)

    return RoundTripCLoader


class _NotPlain(Exception):
    """A node the one-pass builder leaves to ruamel's generic construction."""


def _fast_paths(constructor: Any, resolver: Any) -> tuple[Callable[..., Any],
                                                          Callable[..., Any]]:
    """(resolve, build): ``VersionedResolver.resolve`` for YAML 1.2 without the per-scalar
    version look-up, and a one-pass builder of a plain tree (see ``_loader_class``)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq, Format
    from ruamel.yaml.compat import ordereddict
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
    from ruamel.yaml.tag import Tag

    # first character -> [(tag, pattern)]: ruamel's table for its default version (a resolver
    # of no loader sees no ``%YAML`` directive)
    rules = resolver(version=None).versioned_resolver
    # one Tag per resolved tag (ruamel makes a new, equal one for every scalar; nothing keeps
    # or changes the Tag of an implicitly resolved scalar)
    tags = {tag: Tag(suffix=tag) for entries in rules.values() for tag, _ in entries}
    table = {first: tuple((tags[tag], pattern) for tag, pattern in entries)
             for first, entries in rules.items()}
    extra = table.get(None, ())  # (ruamel's 1.2 rules have none)
    default_scalar = resolver.DEFAULT_SCALAR_TAG
    default_sequence, default_mapping = resolver.DEFAULT_SEQUENCE_TAG, \
        resolver.DEFAULT_MAPPING_TAG

    def resolve(loader: Any, kind: Any, value: Any, implicit: Any) -> Any:
        if loader.yaml_path_resolvers:  # (none are registered; if one ever is: ruamel's)
            return resolver.resolve(loader, kind, value, implicit)
        if kind is ScalarNode:
            if implicit[0]:
                for tag, pattern in table.get(value[:1], ()) + extra:
                    if pattern.match(value):
                        return tag
            return default_scalar
        if kind is SequenceNode:
            return default_sequence
        if kind is MappingNode:
            return default_mapping
        return None

    # the scalar constructors ruamel registers for these tags (none is a generator); the
    # others (merge ``<<``, value ``=``, ``yaml``) and any surprise are left to ruamel
    known = {"str": "construct_yaml_str", "null": "construct_yaml_null",
             "bool": "construct_yaml_sbool", "int": "construct_yaml_int",
             "float": "construct_yaml_float", "timestamp": "construct_yaml_timestamp"}
    scalars: dict[int, Any] = {}
    for tag in (default_scalar, *tags.values()):
        function = constructor.yaml_constructors.get(str(tag))
        if function is not None and function.__name__ == known.get(str(tag).rpartition(":")[2]):
            # (construct_yaml_str is construct_scalar for a tag without a handle)
            scalars[id(tag)] = constructor.construct_scalar if tag is default_scalar \
                else function

    set_item = ordereddict.__setitem__  # (what CommentedMap.__setitem__ calls for a new key)

    def style(collection: Any, flow: Any) -> None:
        """``RoundTripConstructor.set_collection_style`` of a collection with items: its
        format record, as ``fa.set_flow_style()``/``set_block_style()`` make it."""
        if flow is True or flow is False:
            record = Format()
            record._flow_style = flow
            setattr(collection, Format.attrib, record)

    def build(loader: Any, root: Any, aliases: bool = True) -> Any:
        """What ``RoundTripConstructor.construct_document`` makes of a plain tree; raises
        _NotPlain for anything else (before changing any node: ruamel then starts over), and
        _Refused as _empty_value_mark does. ``aliases`` false: the text has no ``*``, so no
        node can be met twice."""
        seen: set[int] = set()  # the nodes met: one met again is an alias (ruamel shares
        # the object it made of it; libyaml names no anchor)

        def construct(node: Any) -> Any:
            if node.anchor is not None or node.comment is not None:
                raise _NotPlain
            if aliases:
                if id(node) in seen:
                    raise _NotPlain
                seen.add(id(node))
            kind = type(node)
            if kind is ScalarNode:
                if node.style == "" and node.ctag is default_scalar:
                    return node.value  # a plain string
                function = scalars.get(id(node.ctag))
                if function is None:
                    raise _NotPlain
                return function(loader, node)
            mark = node.start_mark
            # ruamel's records, made as its _yaml_set_line_col, _yaml_set_kv_line_col and
            # _yaml_set_idx_line_col make them (a position record, its ``data`` only when a
            # collection has items)
            positions: dict[Any, list[int]] = {}
            if kind is MappingNode and node.ctag is default_mapping:
                mapping = CommentedMap()
                record = mapping.lc
                record.line, record.col = mark.line, mark.column
                own = mapping._ok
                for index, (key_node, value_node) in enumerate(node.value):
                    if type(key_node) is not ScalarNode or id(key_node.ctag) not in scalars:
                        raise _NotPlain  # a complex key, a merge key (<<), a value key (=)
                    key = construct(key_node)
                    if key is None and not key_node.value:
                        raise _Refused  # an empty key: explicit or in a flow mapping
                    if key in mapping:
                        raise _NotPlain  # a duplicate key: ruamel raises the error
                    value = construct(value_node)
                    key_mark, value_mark = key_node.start_mark, value_node.start_mark
                    if value is None and not value_node.value:  # an empty value (a null
                        # from a scalar of no text): where the pure loader marks it
                        value_mark = _empty_value_mark(loader, node, index)
                    positions[key] = [key_mark.line, key_mark.column, value_mark.line,
                                      value_mark.column]
                    set_item(mapping, key, value)  # CommentedMap.__setitem__ of a new key
                    own.add(key)
                if positions:
                    record.data = positions
                    style(mapping, node.flow_style)
                return mapping
            if kind is SequenceNode and node.ctag is default_sequence:
                sequence = CommentedSeq()
                record = sequence.lc
                record.line, record.col = mark.line, mark.column
                items = []
                for index, child in enumerate(node.value):
                    items.append(construct(child))
                    child_mark = child.start_mark
                    positions[index] = [child_mark.line, child_mark.column]
                if positions:
                    record.data = positions
                    sequence.extend(items)
                    style(sequence, node.flow_style)
                return sequence
            raise _NotPlain

        return construct(root)

    return resolve, build
