"""Every fixture output validates strictly against the upstream Trainer CRDs (../shared)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests import goldens


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_fixture_outputs_match_upstream_crd(target: str, shared: Path,
                                            crdcheck: ModuleType) -> None:
    crd = shared / "crds" / f"trainer-v{target}.0" / "trainer.kubeflow.org_trainjobs.yaml"
    kind, api, validator = crdcheck.load_crd(crd)
    checked = 0
    for case in goldens.cases():
        text, _ = goldens.render(case, target)
        for doc in crdcheck._yaml.load_all(text):
            if isinstance(doc, dict) and doc.get("kind") == kind:
                checked += 1
                assert crdcheck.problems(doc, kind, api, validator) == [], case.name
    assert checked >= 7
