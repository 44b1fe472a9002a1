"""LOAD: the text checks that decide whether a document that does not load is a legacy job
read it however it is spelled: JSON (flow style, quoted keys, as ``kubectl get -o json``
prints), tags, escapes (``"PyTorch\\u004aob"``). A broken job is reported (Y101/Y104) in
every spelling, never "0 documents" (issue 30, 6)."""

from __future__ import annotations

import pytest

from migrator import convert_text
from migrator.load import detect, textscan

SPEC = '"spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 1}}}'
BROKEN = {
    "json duplicate key": ('{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob",'
                           '"metadata":{"name":"a","name":"b"},' + SPEC + '}\n', "Y101"),
    "json escaped kind": ('{"apiVersion":"kubeflow.org/v1","kind":"PyTorch\\u004aob",'
                          '"metadata":{"name":"a","name":"b"},' + SPEC + '}\n', "Y101"),
    "json escaped group": ('{"apiVersion":"kubeflow\\u002eorg\\/v1","kind":"\\x50yTorchJob",'
                           '"metadata":{"name":"a","name":"b"},' + SPEC + '}\n', "Y101"),
    "json deep": ('{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","x":'
                  + "[" * 1000 + "]" * 1000 + "}\n", "Y104"),
    "json pretty": ('{\n  "apiVersion": "kubeflow.org/v1",\n  "kind": "PyTorchJob",\n'
                    '  "metadata": {"name": "a", "name": "b"}\n}\n', "Y101"),
    "yaml tagged kind": ("apiVersion: kubeflow.org/v1\nkind: !!str PyTorchJob\n"
                         "metadata: {name: a, name: b}\n", "Y101"),
    "yaml escaped line break": ('apiVersion: kubeflow.org/v1\nkind: "PyTorch\\\n  Job"\n'
                                "metadata: {name: a, name: b}\n", "Y101"),
    "yaml flow": ("{apiVersion: kubeflow.org/v1, kind: &k PyTorchJob, metadata: "
                  "{name: a, name: b}}\n", "Y101"),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_broken_job_is_reported_in_every_spelling(name: str) -> None:
    text, code = BROKEN[name]
    result = convert_text(text, render=False)
    assert [d.status for d in result.documents] == ["failed"], name
    assert [f.code for d in result.documents for f in d.findings] == [code]
    assert result.documents[0].source.get("kind") == "PyTorchJob"


def test_the_escaped_kind_is_the_kind_to_every_text_check() -> None:
    text = '{"kind": "PyTorch\\u004aob", "x": "a\\\\u004a"}'
    assert detect.training_kind(text) == "PyTorchJob"
    assert detect.embeds_legacy_job(text) == "PyTorchJob"
    assert detect.unescaped(text) == '{"kind": "PyTorchJob", "x": "a\\\\u004a"}'
    assert detect.unescaped('"a\\u0022b\\n"') == '"a\\u0022b\\n"'  # not a name's character


def test_a_json_job_in_a_heredoc_is_found() -> None:
    script = ("kubectl apply -f - <<EOF\n"
              '{"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"t"}}\n'
              "EOF\n")
    assert textscan.legacy_jobs(script) == [(1, "TFJob")]
    pretty = '{\n  "apiVersion": "kubeflow.org/v1",\n  "kind": "MPIJob",\n  "spec": {}\n}\n'
    assert textscan.legacy_jobs(pretty) == [(2, "MPIJob")]


def test_other_kinds_stay_unnoticed() -> None:
    text = ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"},'
            '"data":{"k":"kubeflow.org/v1 PyTorchJob"}}\n')
    result = convert_text(text, render=False)
    assert [d.status for d in result.documents if d.reportable] == []
    assert textscan.legacy_jobs(text) == []


def test_an_escaped_line_break_moves_no_job_of_a_script() -> None:
    script = ("kubectl apply \\\n  -f - <<EOF\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\n"
              "EOF\n")
    assert textscan.legacy_jobs(script) == [(3, "PyTorchJob")]
