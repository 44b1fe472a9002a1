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
