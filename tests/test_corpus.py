"""Real public manifests from ../shared/corpus: no crash, every TrainJob written is valid."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from migrator import convert_text
from migrator.load.sources import SourceText, read
from tests import corpus


def _legacy_files(shared: Path) -> list[Path]:
    """The corpus's legacy files: all in the local profile, a fixed sample in CI."""
    return corpus.sample(corpus.legacy_files(shared))


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
        again = convert_text(result.text, target=target, allow_lossy=True,
                             companion_runtimes=companions)
        assert again.text == result.text, path
        for doc in result.documents:
            if doc.status == "converted" and any(f.code == "Y113" for f in doc.findings):
                # a converted template: it is validated after rendering, by the chart and
                # envsubst contract tests in tests/templates/
                converted += 1
            elif doc.status == "converted":
                converted += 1
                for loaded in crdcheck._yaml.load_all(doc.text):
                    for obj in trainer_objects(loaded):
                        kind, api, validator = validators[obj["kind"]]
                        assert crdcheck.problems(obj, kind, api, validator) == [], path
            if doc.reportable and doc.status in ("skipped", "failed"):
                assert doc.findings, path
    if corpus.FULL:
        assert converted >= (40 if companions else 25), converted
    else:
        assert converted >= (8 if companions else 5), converted


def test_corpus_batch_in_place_twice(shared: Path, tmp_path: Path) -> None:
    """A repository-wide --in-place run on a copy: converts what it can, leaves files with a
    failed document byte-identical, and a second run finds nothing left to convert."""
    import subprocess
    import sys

    from tests.goldens import ROOT

    copy = corpus.copy_sample(shared / "corpus", tmp_path / "corpus")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}

    def convert(report: str) -> dict[str, Any]:
        subprocess.run([sys.executable, "-m", "migrator", "convert", str(copy), "--jobs", "2",
                        "--in-place", "-q", "--report", str(tmp_path / report)], env=env,
                       capture_output=True, check=False, timeout=600)
        return dict(json.loads((tmp_path / report).read_text()))

    first = convert("first.json")
    assert first["summary"]["documents"]["converted"] >= (25 if corpus.FULL else 5)
    failed = {d["file"] for d in first["documents"] if d["status"] == "failed"}
    for name in failed:
        original = shared / "corpus" / Path(name).relative_to(copy)
        assert Path(name).read_bytes() == original.read_bytes(), name
    second = convert("second.json")
    assert second["summary"]["documents"]["converted"] == 0
    assert second["summary"]["filesChanged"] == 0
