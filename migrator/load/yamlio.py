"""LOAD: the only place that builds ruamel.yaml objects and touches comment internals."""

from __future__ import annotations

import contextlib
import contextvars
import copy
import io
import re
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import (
    Comment,
    CommentedBase,
    CommentedMap,
    CommentedSeq,
    Format,
    LineCol,
    merge_attrib,
)
from ruamel.yaml.error import MarkedYAMLError, YAMLError, YAMLWarning
from ruamel.yaml.nodes import MappingNode
from ruamel.yaml.tag import Tag

from migrator.load.nesting import MAX_DEPTH, MAX_SCANNED_DEPTH
from migrator.results import Finding, FrozenValue, _set, replaced

if TYPE_CHECKING:  # as in migrator.results
    from dataclasses import dataclass as fields_only
else:
    from migrator.results import fields_only

MAX_EXPANDED_NODES = 1_000_000
# merge keys (``<<: *base``) in one document: ruamel's round-trip loader records each merge
# of an anchor in a list it searches every time (quadratic: 3,000 merges took 23 s)
MAX_MERGE_KEYS = 500
# MAX_DEPTH (deepest nesting loaded) and MAX_SCANNED_DEPTH (refused before parsing) live in
# nesting.py, which fastload shares (no import circle between yamlio and fastload).
FAST = True  # libyaml for the documents it loads identically (see fastload); False: pure only


def _one_line(exc: Any) -> str:
    """A parser error in one line: ``while parsing a flow sequence (line 1, column 9);
    expected ',' or ']', but got ':'`` (the problem's place is the error's line and column)."""
    parts = []
    if exc.context and exc.problem:  # the problem's place is the error's line and column
        mark = exc.context_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        parts.append(f"{str(exc.context).strip()}{where}")
    parts.append(str(exc.problem or exc.context or "invalid YAML").strip())
    return "; ".join(parts)


class DocumentError(Exception):
    """A document could not be loaded; carries a 1-based line/column when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 code: str = "Y101") -> None:
        super().__init__(message)
        self.line, self.column, self.code = line, column, code


@fields_only
class Indent(FrozenValue):
    """Block indentation of a document: mapping indent, sequence indent, dash offset (a frozen
    value written by hand: see migrator/results.py)."""

    FIELDS = ("mapping", "sequence", "offset")
    mapping: int = 2
    sequence: int = 4
    offset: int = 2

    def __init__(self, mapping: int = 2, sequence: int = 4, offset: int = 2) -> None:
        _set(self, "mapping", mapping)
        _set(self, "sequence", sequence)
        _set(self, "offset", offset)


def _rt() -> YAML:
    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.allow_duplicate_keys = False
    return yaml


_shared: dict[str, YAML] = {}


def _instance(purpose: str) -> YAML:
    """One round-trip instance per purpose, reused: building one costs more than a small
    document's load. (ruamel resets its reader, scanner and parser after every load.)"""
    yaml = _shared.get(purpose)
    if yaml is None:
        yaml = _shared[purpose] = _rt()
    return yaml


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Within: the YAML library's warnings (a reused anchor's, which quotes the input as it
    is, control characters included) are dropped instead of printed on standard error."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=YAMLWarning)
        warnings.filterwarnings("ignore", module=r"ruamel\.yaml")
        yield


def load(text: str) -> Any:
    """Load one document with round-trip fidelity; raise DocumentError on bad input.

    Documents that libyaml reads without losing anything the round trip keeps are parsed by
    it into the same tree (``fastload`` says which); the others, and every error, by ruamel's
    pure loader.
    """
    from migrator.load import fastload

    bound = bounded(text)
    with quiet():
        data = fastload.load(text, _load_pure, bound) if FAST else None
        if data is None:
            data = _load_pure(text)
    # the bound is never below the depth of the tree the text spells; only aliases (``*``)
    # can make the loaded tree deeper than the text
    if (bound > MAX_DEPTH or "*" in text) and _depth_exceeds(data, MAX_DEPTH):
        raise DocumentError(f"document nests deeper than {MAX_DEPTH} levels", code="Y104")
    if "*" in text and expanded_size(data) > MAX_EXPANDED_NODES:
        raise DocumentError(
            f"aliases expand to more than {MAX_EXPANDED_NODES} nodes (alias bomb?)", code="Y104")
    return data


def safe_documents(text: str, limit: int = MAX_EXPANDED_NODES) -> list[Any]:
    """The documents of a YAML stream as plain data (ruamel's safe loader: no round trip),
    within the bounds every parse of the tool keeps: nesting and merge keys checked before
    parsing (``bounded``), aliases expanding to at most ``limit`` nodes (checked without
    expanding them). For the files read besides the documents converted: the config,
    ``--runtimes``, ``--crd``. Raises DocumentError (with a Y104 code for a bound)."""
    from ruamel.yaml import YAML

    bounded(text)
    try:
        with quiet():
            documents = list(YAML(typ="safe", pure=True).load_all(text))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise DocumentError(_one_line(exc), mark.line + 1 if mark else None,
                            mark.column + 1 if mark else None) from None
    except (YAMLError, ValueError) as exc:  # ValueError: an int of 4,300+ digits
        raise DocumentError(str(exc).splitlines()[0] if str(exc) else "invalid YAML") from None
    except RecursionError:
        raise DocumentError("document nests too deeply", code="Y104") from None
    if "*" in text and expanded_size(documents) > limit:
        raise DocumentError(f"aliases expand to more than {limit} values (alias bomb?)",
                            code="Y104")
    if "*" in text and _depth_exceeds(documents, MAX_DEPTH + 1):
        raise DocumentError(f"document nests deeper than {MAX_DEPTH} levels", code="Y104")
    return documents


def read_text(path: str, max_bytes: int) -> str:
    """A YAML file's text read as every input is (``sources.read_bytes``: a regular file only,
    opened non-blocking, at most ``max_bytes``), for ``safe_documents``. Raises OSError
    (NotRegular for a FIFO or a device), UnicodeDecodeError, or DocumentError (too large)."""
    from migrator.load import sources

    data = sources.read_bytes(path, max_bytes)
    if data is None:
        raise DocumentError(f"larger than the {max_bytes}-byte cap (--max-file-size)",
                            code="Y102")
    return data.decode("utf-8")


def bounded(text: str) -> int:
    """The nesting bound of a YAML text (``nesting.nesting_bound``) once the text is known to
    load in bounded time: a DocumentError (Y104) for a text nested too deeply or holding too
    many merge keys, before any parser builds anything. For every YAML text the tool parses
    (documents, the config, --runtimes and --crd files)."""
    from migrator.load import nesting

    bound = nesting.nesting_bound(text, MAX_SCANNED_DEPTH)
    if bound > MAX_SCANNED_DEPTH:
        raise DocumentError(f"document nests deeper than {MAX_DEPTH} levels (refused before "
                            "parsing)", code="Y104")
    # a slow merge takes an alias; a merge key is spelled ``<<`` or with a tag (``!!merge``,
    # ``!<tag:yaml.org,2002:merge>``, a %TAG shorthand): only such a text is composed to count
    if text.count("*") > MAX_MERGE_KEYS and ("!" in text or text.count("<<") > MAX_MERGE_KEYS) \
            and _merges(text) > MAX_MERGE_KEYS:
        raise DocumentError(f"document has more than {MAX_MERGE_KEYS} merge keys (<<), which "
                            "would take too long to load (refused before parsing)", code="Y104")
    return bound


def _merges(text: str) -> int:
    """How many mappings the merge keys of ``text`` merge, however each key is spelled: the
    text is composed (parsed into nodes, linear: no alias is expanded, nothing is built) and
    each key is counted by its resolved tag. A text that does not compose counts 0 (the load
    reports it)."""
    try:
        with quiet():
            root = _rt().compose(text)
    except (YAMLError, ValueError, RecursionError):
        return 0
    if root is None:
        return 0
    count = 0
    seen: set[int] = set()
    stack = [root]
    while stack and count <= MAX_MERGE_KEYS:
        node = stack.pop()
        if id(node) in seen or not isinstance(node.value, list):
            continue
        seen.add(id(node))
        for item in node.value:
            pairs = item if isinstance(item, tuple) else (item,)
            if isinstance(item, tuple) and item[0].tag == "tag:yaml.org,2002:merge":
                value = item[1].value
                count += len(value) if isinstance(value, list) and \
                    not isinstance(item[1], MappingNode) else 1
            stack.extend(pairs)
    return count


def _load_pure(text: str) -> Any:
    # a %YAML directive changes how later documents resolve, and a failure may leave state
    # half-way: such an instance is not reused
    reusable = not (text.startswith("%") or "\n%" in text)
    try:
        try:
            data = _instance("load").load(text)
        except BaseException:
            reusable = False
            raise
        finally:
            if not reusable:
                _shared.pop("load", None)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise DocumentError(str(problem).strip(), line, column) from None
    except (YAMLError, ValueError) as exc:
        raise DocumentError(str(exc).splitlines()[0] if str(exc) else "invalid YAML") from None
    except RecursionError:
        raise DocumentError("document nests too deeply", code="Y104") from None
    return data


def expanded_size(root: Any) -> int:
    """Node count of the tree with every alias expanded, computed without expanding (2**62
    for a recursive alias, which never ends). Any loader's tree: dicts and lists."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if not isinstance(node, (dict, list)) or (id(node) in sizes and not children_done):
            continue
        values = list(node.values()) if isinstance(node, dict) else list(node)
        if children_done:
            sizes[id(node)] = 1 + sum(sizes.get(id(v), 1) for v in values)
            open_nodes.discard(id(node))
        elif id(node) in open_nodes:
            return 1 << 62  # a recursive alias never ends
        else:
            open_nodes.add(id(node))
            stack.append((node, True))
            stack.extend((v, False) for v in values if isinstance(v, (dict, list)))
    return sizes.get(id(root), 1)


def _depth_exceeds(node: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(node, 0)]
    seen: set[int] = set()
    while stack:
        current, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(current, (dict, list)):
            if id(current) in seen:
                continue
            seen.add(id(current))
            values = current.values() if isinstance(current, dict) else current
            stack.extend((value, depth + 1) for value in values)
    return False


def dump(node: Any, indent: Indent) -> str:
    """Dump one document with the given indentation."""
    yaml = _instance("dump")
    yaml.indent(mapping=indent.mapping, sequence=indent.sequence, offset=indent.offset)
    buffer = io.StringIO()
    try:
        yaml.dump(node, buffer)
    except BaseException:
        _shared.pop("dump", None)
        raise
    return buffer.getvalue()


_KEY_LINE = re.compile(r"^( *)[^\s#-][^:#]*:\s*(?:#.*)?$")
_DASH_LINE = re.compile(r"^( *)- ")


# the indentation every document is written with, whatever its source's (the template stage
# compares the outputs of its branch worlds line by line: one layout for all of them)
LAYOUT: contextvars.ContextVar[Indent | None] = contextvars.ContextVar("LAYOUT", default=None)


def detect_indent(text: str) -> Indent:
    """Guess a document's block indentation from its first nested mapping and sequence."""
    fixed = LAYOUT.get()
    if fixed is not None:
        return fixed
    mapping = sequence = offset = None
    previous: tuple[int, bool] | None = None
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        width = len(raw) - len(raw.lstrip(" "))
        dash = _DASH_LINE.match(raw)
        if previous is not None and previous[1]:
            if dash and offset is None:
                offset = width - previous[0]
                sequence = offset + 2
            elif not dash and mapping is None and width > previous[0]:
                mapping = width - previous[0]
        previous = (width, bool(_KEY_LINE.match(raw)))
        if mapping is not None and offset is not None:
            break
    mapping = mapping if mapping in (2, 3, 4) else 2
    if offset is None or offset < 0 or offset > 4:
        return Indent(mapping, mapping + 2, 2)
    return Indent(mapping, max(sequence or 2, offset + 2), offset)


def clone(node: Any) -> Any:
    """Deep-copy a loaded subtree, keeping comments and flow style but not anchors.

    Linear in the size of the subtree: ruamel's own ``CommentedSeq.__deepcopy__`` copies the
    sequence's comment and position records once per item (quadratic: a 10,000-item list
    took minutes), so collections are copied here, their records once each.
    """
    duplicate = _clone(node, {})
    _strip_anchors(duplicate)
    return duplicate


_RECORDS = (Comment.attrib, Format.attrib, LineCol.attrib, Tag.attrib, merge_attrib)


def _clone(node: Any, memo: dict[int, Any]) -> Any:
    """``copy.deepcopy`` for a loaded tree (shared nodes stay shared, as with its memo)."""
    if type(node) in (CommentedMap, CommentedSeq):
        done = memo.get(id(node))
        if done is not None:
            return done
        duplicate = type(node)()
        memo[id(node)] = duplicate
        if isinstance(node, CommentedMap):
            for key, value in node.items():
                duplicate[key] = _clone(value, memo)
        else:
            duplicate.extend(_clone(value, memo) for value in node)
        for record in _RECORDS:
            if hasattr(node, record):
                setattr(duplicate, record, _copy_record(getattr(node, record)))
        return duplicate
    if type(node) in (str, int, float, bool) or node is None:
        return node
    return copy.deepcopy(node, memo)


def _copy_record(record: Any) -> Any:
    """``copy.deepcopy`` of a node's record; the two every node has (its position and its
    flow style) are copied directly (a generic deep copy of each was ~half of ``clone``)."""
    kind = type(record)
    if kind is Format:
        duplicate = Format()
        duplicate._flow_style = record._flow_style
        return duplicate
    if kind is LineCol and record.__dict__.keys() == _LINE_COL_FIELDS:
        positions = LineCol()
        positions.line, positions.col = record.line, record.col
        if record.data is not None:
            positions.data = {
                key if type(key) in _ATOMS else copy.deepcopy(key):
                value[:] if type(value) is list and all(type(x) is int for x in value)
                else copy.deepcopy(value)
                for key, value in record.data.items()}
        return positions
    return copy.deepcopy(record)


_LINE_COL_FIELDS = frozenset(LineCol().__dict__)
_ATOMS = (str, int)


def _strip_anchors(node: Any) -> None:
    if isinstance(node, CommentedBase) and hasattr(node, "anchor"):
        anchor = node.anchor
        if anchor.value is not None:
            anchor.value = None
            anchor.always_dump = False
    if isinstance(node, dict):
        for value in node.values():
            _strip_anchors(value)
    elif isinstance(node, list):
        for value in node:
            _strip_anchors(value)


def new_map(items: list[tuple[str, Any]] | None = None) -> CommentedMap:
    out = CommentedMap()
    for key, value in items or []:
        out[key] = value
    return out


def new_seq(items: list[Any] | None = None) -> CommentedSeq:
    return CommentedSeq(items or [])


def flow_seq(items: list[Any]) -> CommentedSeq:
    """A sequence that dumps in flow style (``[1, 2, 3]``), for long lists of scalars."""
    seq = CommentedSeq(items)
    seq.fa.set_flow_style()
    return seq


def from_plain(node: Any) -> Any:
    """Plain dicts and lists (possibly holding loaded nodes) as ruamel maps and sequences."""
    if isinstance(node, CommentedMap | CommentedSeq):
        return node
    if isinstance(node, dict):
        return new_map([(str(k), from_plain(v)) for k, v in node.items()])
    if isinstance(node, list):
        return new_seq([from_plain(v) for v in node])
    return node


def position(node: Any, key: str | int) -> tuple[int | None, int | None]:
    """1-based (line, column) of ``key`` in a loaded map or sequence (document-relative)."""
    try:
        if isinstance(node, CommentedMap):
            line, column = node.lc.key(key)
        elif isinstance(node, CommentedSeq) and isinstance(key, int):
            line, column = node.lc.item(key)
        else:
            return None, None
    except (KeyError, IndexError, TypeError, AttributeError):
        return None, None
    return int(line) + 1, int(column) + 1


def carry_key_comment(source: Any, key: str, target: CommentedMap, new_key: str) -> None:
    """Move the end-of-line comment of ``source[key]`` onto ``target[new_key]``."""
    if not isinstance(source, CommentedMap):
        return
    entry = source.ca.items.get(key)
    if not entry or len(entry) < 3 or entry[2] is None:
        return
    token = entry[2]
    value = getattr(token, "value", "")
    if not value.lstrip().startswith("#"):
        return
    inline = value.split("\n", 1)[0]
    if inline.strip():
        target.yaml_add_eol_comment(inline.strip(), new_key)


def scalar(value: Any) -> Any:
    """A plain bool/int/float/str (ruamel's scalar subclasses unwrapped); others unchanged."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def plain(node: Any) -> Any:
    """A comment-free plain-Python copy of a loaded subtree (for comparisons and checks)."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    return node


def quoted(text: str) -> Any:
    """A string that dumps double-quoted (for values such as "1" that must stay strings)."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    return DoubleQuotedScalarString(text)


def located(finding: Finding, root: Any, line_offset: int, *, exact: bool = False) -> Finding:
    """``finding`` with the line and column of its field in the document ``root`` when it has
    none (``locate``: the deepest known ancestor; with ``exact``, only the field itself)."""
    from migrator import paths

    path = paths.parse_rendered(finding.path) if finding.path else ()
    if finding.line is not None or not path or any(isinstance(s, tuple) for s in path) or \
            (exact and not paths.has(root, path)):
        return finding
    line, column = locate(root, path, line_offset)
    return finding if line is None else replaced(finding, line=line, column=column)


def locate(root: Any, path: tuple[Any, ...], line_offset: int = 0) -> tuple[int | None, int | None]:
    """1-based line and column of the field ``path`` in the document ``root`` (the deepest
    known ancestor; list selectors stop the walk), shifted by ``line_offset`` lines."""
    from migrator import paths

    node: Any = root
    best: tuple[int | None, int | None] = (None, None)
    for seg in path:
        if isinstance(seg, tuple):
            break
        line, column = position(node, seg)
        if line is None:
            break
        best = (line, column)
        node = paths.get(node, (seg,))
    if best[0] is None:
        return None, None
    return best[0] + line_offset, best[1]
