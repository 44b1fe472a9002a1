"""Real public manifests from ../shared/corpus: no crash, every TrainJob written is valid."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from migrator import convert_text
from migrator.sources import SourceText, read


def _legacy_files(shared: Path) -> list[Path]:
    index = json.loads((shared / "corpus" / "index.json").read_text())
    return sorted({shared / "corpus" / e["slug"] / e["path"] for e in index
                   if e.get("kinds") and not e.get("support_only") and not e.get("in_markdown")})


@pytest.mark.parametrize("target", ["2.2", "2.3"])
def test_corpus_converts_and_validates(target: str, shared: Path, crdcheck: ModuleType) -> None:
    crd = shared / "crds" / f"trainer-v{target}.0" / "trainer.kubeflow.org_trainjobs.yaml"
    kind, api, validator = crdcheck.load_crd(crd)
    converted = 0
    for path in _legacy_files(shared):
        source = read(str(path))
        assert isinstance(source, SourceText), path
        result = convert_text(source.text, target=target, allow_lossy=True)
        assert all(f.code != "Y105" for f in result.findings), (path, result.findings)
        assert convert_text(result.text, target=target).text == result.text
        for doc in result.documents:
            if doc.status == "converted":
                converted += 1
                for loaded in crdcheck._yaml.load_all(doc.text):
                    assert crdcheck.problems(loaded, kind, api, validator) == [], path
            if doc.reportable and doc.status in ("skipped", "failed"):
                assert doc.findings, path
    assert converted >= 15
