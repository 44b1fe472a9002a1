"""Every object the tool writes passes the strict CRD check of its target (../shared CRDs),
runtimes and their nested pod templates included, for generated jobs of every kind in both
runtime modes (15 per kind and mode in the ci profile; 2,000 in the local ``fuzz`` profile:
``HYPOTHESIS_PROFILE=fuzz``); the tool's own validation agrees (it never writes what the CRD
rejects)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from migrator import convert_text
from tests import goldens
from tests.fidelity.helpers import MODES
from tests.fidelity.test_oracle import EXAMPLES, KINDS, jobs
from tests.test_corpus import CRD_FILES, trainer_objects


@pytest.fixture(scope="module")
def validators(shared: Path, crdcheck: ModuleType) -> dict[tuple[str, str], Any]:
    return {(target, kind): crdcheck.load_crd(shared / "crds" / f"trainer-v{target}.0" / name)
            for target in goldens.TARGETS for kind, name in CRD_FILES.items()}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(database=None, max_examples=EXAMPLES)
@given(data=st.data())
def test_generated_outputs_pass_the_strict_crd(kind: str, mode: str, data: st.DataObject,
                                               validators: dict[tuple[str, str], Any],
                                               crdcheck: ModuleType) -> None:
    text = data.draw(jobs(kind), label="job")
    target = data.draw(st.sampled_from(goldens.TARGETS), label="target")
    lossy = data.draw(st.booleans(), label="allow_lossy")
    result = convert_text(text, target=target, allow_lossy=lossy, **MODES[mode])
    for document in result.documents:
        if document.status != "converted":
            continue
        for doc in crdcheck._yaml.load_all(document.text):
            for obj in trainer_objects(doc):
                name, api, validator = validators[(target, obj["kind"])]
                problems = crdcheck.problems(obj, name, api, validator)
                assert problems == [], (text, problems)
