"""LOAD: load a document with libyaml into the very tree ruamel's pure round-trip loader builds.

ruamel's round-trip loader is pure Python because libyaml drops what the round trip keeps:
comments, blank lines, anchor names, explicit tags, the folding of ``>`` scalars. A document
without any of those (but for a header of comment lines, carried over from a pure load of
the header alone) loads the same either way, several times faster with libyaml's parser
feeding ruamel's own round-trip constructor and resolver. Anything else, and any failure, is
left to the pure loader (which then reports the error). Tests hold both loaders to identical
trees: dumps, line/column records, scalar types.

A run that needs no comments (``check``: findings only, no output; ``without_comments``)
also hands libyaml documents whose only need of the pure loader was a comment: comments never
change a finding (a test holds check results over the fixtures and the corpus identical
either way), and the pure loader is most of a cold check's loading time.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

# the header: leading lines that are blank or hold only a comment
_HEADER = re.compile(r"(?:[ ]*(?:#[^\n]*)?\n)*")
# after the header, any of these needs the pure loader:
_COMMENT = r"#"  # a comment (or a '#' in a value: cheap to be safe)
_KEPT = (
    r"\n[ ]*\n"                            # a blank line (kept by the round trip)
    r"|(?:^|[\s\[{,:-])&[\w-]"             # an anchor (its name is kept by the round trip)
    r"|(?:^|[\s\[{,:-])!"                   # a tag (explicit tags are kept as written)
    r"|(?:^|[\s:-])>[-+0-9]*[ ]*(?:\n|$)"  # a folded block scalar (folds are kept)
    r"|[\t\r\x85\u2028\u2029\ufeff%]"      # tabs, other line breaks, BOM, directives
)
_PURE_ONLY = re.compile(_COMMENT + "|" + _KEPT)
# without comments: still the pure loader where a comment stands in place of a value (``key:
# # note``, ``- # note``): libyaml may place that empty value elsewhere (_has_empty_value)
_PURE_ONLY_UNCOMMENTED = re.compile(_KEPT + r"|:[ ]+#|(?:^|\s)-[ ]+#")
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

# a key with nothing after it on its line (its value starts on a later line, or it is empty);
# group 1 is what stands before the key: indentation and sequence dashes
_KEY_ONLY = re.compile(r"(?m)^((?:[ ]*-[ ]+)*[ ]*)[^\n]*:[ ]*$")

def load(text: str, pure_load: Callable[[str], Any]) -> Any | None:
    """The document loaded with libyaml, or None when it needs the pure loader.

    ``pure_load`` loads the comment header (a few lines) so its comments are kept.
    """
    loader_class = _loader_class()
    if loader_class is None:
        return None
    from migrator.load import nesting

    if nesting.nesting_bound(text, nesting.MAX_SCANNED_DEPTH) > nesting.MAX_SCANNED_DEPTH:
        return None  # libyaml's recursion would crash; the pure loader reports it (Y104)
    header = _HEADER.match(text)
    body_start = header.end() if header else 0
    body = text[body_start:]
    pure_only = _PURE_ONLY if _comments_needed else _PURE_ONLY_UNCOMMENTED
    if pure_only.search(body) or _has_empty_value(body):
        return None
    try:
        loader = loader_class(str(text))  # libyaml takes exact str only, no subclasses
    except Exception:
        return None
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


def _has_empty_value(body: str) -> bool:
    """True when a key has no value at all (libyaml marks that null where the key's line
    ends, the pure loader at the next token). Keys whose value starts on the next line (a
    nested block, or a sequence at the key's indentation) are fine."""
    for match in _KEY_ONLY.finditer(body):
        column = len(match.group(1))
        start = match.end() + 1
        end = body.find("\n", start)
        following = body[start:] if end < 0 else body[start:end]  # the next line only (a
        # slice to the end of the body for every key would be quadratic in its size)
        content = following.lstrip(" ")
        indent = len(following) - len(content)
        if content and (indent > column or (indent == column and content.startswith("- "))):
            continue
        return True
    return False


@functools.cache
def _loader_class() -> type | None:
    """ruamel's round-trip constructor and resolver on top of libyaml's parser (None without
    ruamel.yaml.clib); built once."""
    from ruamel.yaml import main
    from ruamel.yaml.constructor import RoundTripConstructor
    from ruamel.yaml.resolver import VersionedResolver

    parser: Any = getattr(main, "CParser", None)  # None without ruamel.yaml.clib
    if parser is None:
        return None

    class RoundTripCLoader(parser, RoundTripConstructor, VersionedResolver):  # type: ignore[misc]
        def __init__(self, stream: str) -> None:
            parser.__init__(self, stream)
            self._parser = self._composer = self
            RoundTripConstructor.__init__(self, preserve_quotes=True, loader=self)
            self.allow_duplicate_keys = False
            self.comment_handling = None
            VersionedResolver.__init__(self, version=None, loadumper=self)

    return RoundTripCLoader
