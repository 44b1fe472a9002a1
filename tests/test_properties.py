"""Properties over generated input: never raises, deterministic, idempotent, byte-preserving."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from migrator import convert_text
from migrator.knowledge import catalog

_names = st.from_regex(r"[a-z][a-z0-9-]{0,20}[a-z0-9]", fullmatch=True)
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 10), st.text(max_size=8), _names)
_junk = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8)

_KINDS = [(spec.source.api_version, spec.source.kind, spec.replica_specs.path.split(".")[-1],
           [*spec.replica_specs.roles, "worker", "Bogus"], spec.main_container.name or "main",
           [rule.source.split(".")[-1] for rule in spec.rules if rule.source.count(".") == 1])
          for spec in catalog.load().legacy.values()]


def _container(main: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"name": st.sampled_from([main, "main"]), "image": _names},
        optional={"command": st.lists(st.sampled_from(["torchrun", "python", "mpirun",
                                                       "train.py", "--x=1"]), max_size=4),
                  "env": st.lists(st.fixed_dictionaries({"name": _names,
                                                         "value": st.text(max_size=5)}),
                                  max_size=3),
                  "resources": st.fixed_dictionaries({}, optional={
                      "limits": st.dictionaries(
                          st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]),
                          st.sampled_from(["1", "2", "500m", "4Gi", 2, 0.5]))}),
                  "imagePullPolicy": st.sampled_from(["Always", "IfNotPresent"]),
                  "extra": _junk})


def _replica(main: str) -> st.SearchStrategy[dict[str, Any]]:
    pod = st.fixed_dictionaries(
        {"containers": st.lists(_container(main), min_size=1, max_size=2)},
        optional={"nodeSelector": st.dictionaries(_names, _names, max_size=2),
                  "priorityClassName": _names, "hostNetwork": st.booleans(), "weird": _junk,
                  "initContainers": st.lists(_container("init"), max_size=1)})
    return st.fixed_dictionaries(
        {"template": st.fixed_dictionaries({"spec": pod})},
        optional={"replicas": st.one_of(st.integers(-1, 4), st.just("two")),
                  "restartPolicy": st.sampled_from(["OnFailure", "Never", "Always", "ExitCode",
                                                    "X"])})


def _job_of(kind: tuple[str, str, str, list[str], str, list[str]]) -> st.SearchStrategy[Any]:
    api, name, specs_key, roles, main, fields = kind
    extra = st.dictionaries(st.sampled_from([*fields, "nprocPerNode", "slotsPerWorker",
                                             "bogus"]), _scalars | _junk, max_size=3)
    return st.fixed_dictionaries({
        "apiVersion": st.just(api), "kind": st.just(name),
        "metadata": st.fixed_dictionaries({"name": _names}, optional={
            "labels": st.dictionaries(_names, _names, max_size=2),
            "annotations": st.dictionaries(st.sampled_from(["kueue.x-k8s.io/queue-name", "a"]),
                                           _names, max_size=2)}),
        "spec": st.tuples(st.dictionaries(st.sampled_from(roles), _replica(main), min_size=1,
                                          max_size=3), extra).map(
            lambda parts: {specs_key: parts[0], **parts[1]}),
    })


_job = st.sampled_from(_KINDS).flatmap(_job_of)


def _dump(doc: Any) -> str:
    import io

    out = io.StringIO()
    YAML().dump(doc, out)
    return out.getvalue()


@given(_job, st.sampled_from(["2.2", "2.3"]), st.booleans(), st.booleans())
def test_generated_jobs_convert_deterministically_and_idempotently(
        job: dict[str, Any], target: str, lossy: bool, companions: bool) -> None:
    text = _dump(job)
    options: dict[str, Any] = {"target": target, "allow_lossy": lossy,
                               "companion_runtimes": companions}
    first = convert_text(text, **options)
    assert all(f.code != "Y105" for f in first.findings), first.findings
    second = convert_text(text, **options)
    assert first.text == second.text
    assert convert_text(first.text, **options).text == first.text
    for doc in first.documents:
        if doc.status != "converted":
            assert doc.text in text


@given(st.text(max_size=300))
def test_arbitrary_text_never_raises_and_is_kept(text: str) -> None:
    result = convert_text(text)
    assert all(f.code != "Y105" for f in result.findings)
    assert result.text == text or result.changed


@given(st.lists(_junk, max_size=3), st.sampled_from(["kubeflow.org/v1", "v1", "apps/v1"]))
def test_non_legacy_documents_stay_byte_identical(docs: list[Any], api: str) -> None:
    parts = []
    for doc in docs:
        body = {"apiVersion": api, "kind": "ConfigMap", "data": doc}
        parts.append("# keep me\n" + _dump(body))
    text = "---\n".join(parts)
    assert convert_text(text).text == text
