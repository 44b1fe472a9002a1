"""Every fixture output validates strictly against the upstream Trainer CRDs (../shared)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests import goldens
from tests.test_corpus import CRD_FILES, trainer_objects


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_fixture_outputs_match_upstream_crd(target: str, shared: Path,
                                            crdcheck: ModuleType) -> None:
    validators = {kind: crdcheck.load_crd(shared / "crds" / f"trainer-v{target}.0" / name)
                  for kind, name in CRD_FILES.items()}
    checked: set[str] = set()
    for case in goldens.cases():
        for document in goldens.convert(case, target).documents:
            if document.status != "converted":
                continue
            for doc in crdcheck._yaml.load_all(document.text):
                for obj in trainer_objects(doc):
                    kind, api, validator = validators[obj["kind"]]
                    checked.add(kind)
                    assert crdcheck.problems(obj, kind, api, validator) == [], case.name
    assert checked == set(CRD_FILES)


NULL_RESOURCES = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: x
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: img
            resources:
              limits:
              requests: %s
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: img
            resources: %s
"""


@pytest.mark.parametrize(("requests", "worker"), [
    ("", None), ("", "{}"), ("", "{limits: {cpu: 2}}"),
    ("{cpu: 1}", "{limits: {cpu: 2}, requests:}")],
    ids=["master-only", "only-nulls", "worker-limits", "mixed"])
@pytest.mark.parametrize("companions", [False, True], ids=["builtin", "companion"])
def test_null_resource_sections_are_unset_not_written(
        requests: str, worker: str | None, companions: bool, shared: Path,
        crdcheck: ModuleType) -> None:
    """`limits:` with nothing under it (a rendered Helm chart with empty values) means unset:
    the output carries no null section, which the TrainJob CRD rejects."""
    from migrator import convert_text

    text = NULL_RESOURCES % (requests, worker)
    if worker is None:
        text = text[:text.index("    Worker:")]
    result = convert_text(text, companion_runtimes=companions)
    assert [d.status for d in result.documents] == ["converted"]
    validators = {kind: crdcheck.load_crd(shared / "crds" / "trainer-v2.2.0" / name)
                  for kind, name in CRD_FILES.items()}
    objects = [obj for doc in crdcheck._yaml.load_all(result.text)
               for obj in trainer_objects(doc)]
    assert objects
    for obj in objects:
        kind, api, validator = validators[obj["kind"]]
        assert crdcheck.problems(obj, kind, api, validator) == [], obj
