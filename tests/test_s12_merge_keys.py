"""LOAD: thousands of YAML merge keys (``<<: *base``) are refused before parsing (Y104):
ruamel's round-trip loader is quadratic in the merges of one anchor (3,000 took 23 s;
hostile-input attack 12), while a document with a few merges loads as before."""

from __future__ import annotations

import pytest

from migrator import convert_text
from migrator.load import yamlio

JOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: merges
  annotations: &base {team: a}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 1
      template:
        metadata:
          labels:
            <<: *base
        spec:
          containers:
            - name: pytorch
              image: example/train:1.0
              command: [torchrun, /app/train.py]
              env:
"""


def _with_merges(count: int) -> str:
    return JOB + "".join(f"                - <<: *base\n                  name: V{i}\n"
                         for i in range(count))


def test_a_document_with_a_few_merge_keys_loads() -> None:
    root = yamlio.load(_with_merges(3))
    assert root["metadata"]["name"] == "merges"


def test_thousands_of_merge_keys_are_refused_before_parsing() -> None:
    with pytest.raises(yamlio.DocumentError) as refused:
        yamlio.load(_with_merges(yamlio.MAX_MERGE_KEYS + 1))
    assert refused.value.code == "Y104"
    assert "merge keys" in str(refused.value)


def test_check_reports_it_as_y104() -> None:
    result = convert_text(_with_merges(3000), render=False)
    assert [f.code for d in result.documents for f in d.findings] == ["Y104"]
    assert result.documents[0].status == "failed"


def test_explicit_merge_keys_count_too() -> None:
    """(review 13) ``? <<`` then ``: *base`` is a merge key as well (as slow to load)."""
    explicit = JOB + "".join(f"                - ? <<\n                  : *base\n"
                             f"                  name: V{i}\n"
                             for i in range(yamlio.MAX_MERGE_KEYS + 1))
    with pytest.raises(yamlio.DocumentError) as refused:
        yamlio.load(explicit)
    assert refused.value.code == "Y104"


def test_a_heredoc_is_no_merge_key() -> None:
    script = "".join(f"      cat <<EOF{i}\n      x\n      EOF{i}\n" for i in range(600))
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata:\n  run.sh: |\n" + script
    assert yamlio.load(text)["metadata"]["name"] == "s"


@pytest.mark.parametrize(("header", "key"), [
    ("", "!!merge '<<': *base"),
    ("", "!!merge \"<<\": *base"),
    ("", "!!merge x: *base"),
    ("", "? !!merge\n                  : *base"),
    ("", "!<tag:yaml.org,2002:merge> x: *base"),
    ("", "!<tag:yaml.org,2002:%6Derge> x: *base"),
    ("%TAG !m! tag:yaml.org,2002:\n---\n", "!m!merge x: *base"),
    ("", "<<: [*base, *base]"),
])
def test_every_spelling_of_a_merge_key_counts(header: str, key: str) -> None:
    """(issue 30, 8) a merge key spelled with a tag (``!!merge '<<'``, the tag URI, a %TAG
    shorthand) is as slow to load as ``<<``: 37 KB of them took 56 s, 79 KB minutes."""
    text = header + JOB + "".join(f"                - {key}\n                  name: V{i}\n"
                                  for i in range(yamlio.MAX_MERGE_KEYS + 1))
    with pytest.raises(yamlio.DocumentError) as refused:
        yamlio.load(text)
    assert refused.value.code == "Y104"
    assert "merge keys" in str(refused.value)


def test_a_few_tagged_merge_keys_load() -> None:
    text = JOB + "".join(f"                - !!merge '<<': *base\n                  name: V{i}\n"
                         for i in range(3))
    assert yamlio.load(text)["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"][
        "containers"][0]["env"][2]["team"] == "a"


def test_many_aliases_without_merge_keys_load() -> None:
    text = JOB + "".join(f"                - !!map {{name: V{i}, value: *base}}\n"
                         for i in range(yamlio.MAX_MERGE_KEYS + 1))
    assert yamlio.load(text)["metadata"]["name"] == "merges"
