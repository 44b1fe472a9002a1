"""Properties over generated input (hypothesis; HYPOTHESIS_PROFILE=fuzz for long runs).

- Conservation: a field injected anywhere in a legacy job is mapped or reported, never lost.
- Round trip: documents that are not converted come out byte-identical, whatever their
  formatting (flow and block style, anchors, comments, quoting, block scalars, CRLF).
- Random bytes never raise and never change.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from migrator import convert_text, paths
from migrator.convert.ledger import Ledger
from migrator.load import yamlio
from tests import goldens

_FULL = sorted(goldens.FIXTURES.glob("*/full.in.yaml"))
_key = st.from_regex(r"x[a-z]{1,8}", fullmatch=True)


def _mapping_paths(node: Any, base: paths.FieldPath = ()) -> list[paths.FieldPath]:
    found = [base] if isinstance(node, dict) else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _mapping_paths(value, (*base, str(key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _mapping_paths(value, (*base, index))
    return found


@given(st.sampled_from(_FULL), st.data(), _key, st.sampled_from(["2.2", "2.3"]))
def test_an_injected_field_is_never_lost(case: Any, data: st.DataObject, key: str,
                                         target: str) -> None:
    text = case.read_text(encoding="utf-8")
    root = yamlio.load(text.split("\n---\n")[0])
    candidates = [p for p in _mapping_paths(root)
                  if p[:1] == ("spec",) and "env" not in p and "labels" not in p and
                  "annotations" not in p and "nodeSelector" not in p and
                  "data" not in p]
    where = data.draw(st.sampled_from(candidates))
    paths.get(root, where)[key] = "injected"
    injected = (*where, key)
    rendered = Ledger(root, {}).render(injected)
    options = goldens.options(text)
    result = convert_text(yamlio.dump(root, yamlio.detect_indent(text)), target=target,
                          **{k: v for k, v in options.items() if k != "target"})
    doc = result.documents[0]
    reported = [f.path for f in doc.findings]
    mapped = [source for source, _ in doc.mappings]
    covered = [p for p in reported + mapped
               if rendered == p or rendered.startswith((p + ".", p + "["))]
    assert covered, (rendered, reported)


_plain = st.one_of(st.integers(-1000, 1000), st.booleans(), st.none(),
                   st.text(alphabet="abcxyz -_:#'\"", max_size=12))
_tree = st.recursive(_plain, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True),
                                                 inner, max_size=3)), max_leaves=10)


@st.composite
def _formatted_document(draw: st.DrawFn) -> str:
    """A YAML document that mentions kubeflow.org (so it is parsed) but is not a legacy job."""
    kind = draw(st.sampled_from(["ConfigMap", "Deployment", "TrainJob", "Experiment"]))
    lines = ["# a comment that must stay", "apiVersion: v1" if kind != "TrainJob" else
             "apiVersion: trainer.kubeflow.org/v1alpha1", f"kind: {kind}",
             "metadata:", "  name: keep-me", "  labels: {owner: kubeflow.org}"]
    style = draw(st.sampled_from(["block", "flow", "anchors", "scalars"]))
    value = draw(_tree)
    if style == "flow":
        lines.append(f"data: {yamlio_flow(value)}")
    elif style == "anchors":
        lines += ["base: &base {a: 1, b: [x, y]}", "copy: *base",
                  "merged:", "  <<: *base", "  c: 'single'  # trailing"]
    elif style == "scalars":
        lines += ["script: |", "  echo kubeflow.org", "  exit 0", "folded: >-", "  one",
                  "  two", 'quoted: "double \\" quote"', "odd:    'spaced'   # c"]
    else:
        lines += ["data:", "  nested:", "    - a", "    -   b", "    - {c: d}"]
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines) + newline


def yamlio_flow(value: Any) -> str:
    import json

    return json.dumps(value)


@given(st.lists(_formatted_document(), min_size=1, max_size=3),
       st.sampled_from(["---\n", "--- # sep\n", "---\n\n"]))
def test_documents_not_converted_are_byte_identical(documents: list[str], separator: str) -> None:
    text = separator.join(documents)
    result = convert_text(text)
    assert not result.changed
    assert result.text == text


@given(st.binary(max_size=400))
def test_random_bytes_never_raise(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    result = convert_text("apiVersion: kubeflow.org/v1\n" + text)
    assert all(f.code != "Y105" for f in result.findings)
