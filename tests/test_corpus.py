"""Real public manifests from ../shared/corpus: no crash, every TrainJob written is valid."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from migrator import convert_text
from migrator.sources import SourceText, read


def _legacy_files(shared: Path) -> list[Path]:
    index = json.loads((shared / "corpus" / "index.json").read_text())
    return sorted({shared / "corpus" / e["slug"] / e["path"] for e in index
                   if e.get("kinds") and not e.get("support_only") and not e.get("in_markdown")})


def trainer_objects(node: Any) -> Iterator[Any]:
    """Every Trainer object in ``node``, including jobs embedded in Katib or AppWrapper."""
    if isinstance(node, dict):
        if str(node.get("apiVersion", "")).startswith("trainer.kubeflow.org/"):
            yield node
            return
        for value in node.values():
            yield from trainer_objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from trainer_objects(value)


CRD_FILES = {"TrainJob": "trainer.kubeflow.org_trainjobs.yaml",
             "TrainingRuntime": "trainer.kubeflow.org_trainingruntimes.yaml",
             "ClusterTrainingRuntime": "trainer.kubeflow.org_clustertrainingruntimes.yaml"}


@pytest.mark.parametrize("companions", [False, True], ids=["builtin", "companion"])
@pytest.mark.parametrize("target", ["2.2", "2.3"])
def test_corpus_converts_and_validates(target: str, companions: bool, shared: Path,
                                       crdcheck: ModuleType) -> None:
    validators = {kind: crdcheck.load_crd(shared / "crds" / f"trainer-v{target}.0" / name)
                  for kind, name in CRD_FILES.items()}
    converted = 0
    for path in _legacy_files(shared):
        source = read(str(path))
        assert isinstance(source, SourceText), path
        result = convert_text(source.text, target=target, allow_lossy=True,
                              companion_runtimes=companions)
        assert all(f.code != "Y105" for f in result.findings), (path, result.findings)
        again = convert_text(result.text, target=target, companion_runtimes=companions)
        assert again.text == result.text, path
        for doc in result.documents:
            if doc.status == "converted":
                converted += 1
                for loaded in crdcheck._yaml.load_all(doc.text):
                    for obj in trainer_objects(loaded):
                        kind, api, validator = validators[obj["kind"]]
                        assert crdcheck.problems(obj, kind, api, validator) == [], path
            if doc.reportable and doc.status in ("skipped", "failed"):
                assert doc.findings, path
    assert converted >= (40 if companions else 25), converted
