"""Golden fixtures: every fixtures/<kind>/<case>.in.yaml against its expected outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrator import convert_text
from tests import goldens

CASES = [pytest.param(case, target, id=f"{case.parent.name}/{case.name[:-8]}@{target}")
         for case in goldens.cases() for target in goldens.TARGETS]


def test_every_legacy_kind_has_fixtures() -> None:
    """Each mapping in mappings/legacy/ has a fixture folder with a ``full`` case."""
    from migrator.knowledge import catalog

    ids = sorted(spec.id for spec in catalog.load().legacy.values())
    missing = [i for i in ids if not (goldens.FIXTURES / i / "full.in.yaml").is_file()]
    assert ids, "no legacy mappings"
    assert missing == []


@pytest.mark.parametrize(("case", "target"), CASES)
def test_golden_output(case: Path, target: str) -> None:
    text, findings = goldens.render(case, target)
    want_text, want_findings = goldens.expected(case, target)
    assert text == want_text, "output drifted: run scripts/regen_fixtures.py and review the diff"
    assert findings == want_findings


@pytest.mark.parametrize(("case", "target"), CASES)
def test_converting_twice_changes_nothing(case: Path, target: str) -> None:
    once = goldens.convert(case, target).text
    options = goldens.options(case.read_text(encoding="utf-8"))
    assert convert_text(once, target=target, **options).text == once


@pytest.mark.parametrize("target", goldens.TARGETS)
def test_full_fixture_has_no_unknown_field(target: str) -> None:
    full = [case for case in goldens.cases() if case.name.startswith("full.")]
    assert full, "no full.in.yaml fixture"
    for case in full:
        result = goldens.convert(case, target)
        assert [f for f in result.findings if f.code == "U901"] == [], case
        assert all(d.status == "converted" for d in result.documents if d.reportable), case


def test_every_kind_has_a_full_fixture() -> None:
    from migrator.knowledge import catalog

    for spec in catalog.load().legacy.values():
        assert (goldens.FIXTURES / spec.id / "full.in.yaml").is_file(), spec.id


def test_every_mapping_rule_is_exercised_by_a_fixture() -> None:
    from migrator import paths
    from migrator.knowledge import catalog

    loaded = catalog.load()
    inputs = [goldens.convert(c) for c in goldens.cases()]
    sources = {m[0] for result in inputs for d in result.documents for m in d.mappings}
    sources |= {f.path for result in inputs for f in result.findings}
    for spec in loaded.legacy.values():
        for rule in spec.rules:
            assert any(s.startswith(rule.source) for s in sources), rule.source
    texts = "".join(c.read_text(encoding="utf-8") for c in goldens.cases())
    for group in (loaded.pod.pod_spec, loaded.pod.container, loaded.pod.pod_metadata):
        for field in group.fields:
            assert f"{field}:" in texts, f"no fixture sets {field}"
    assert paths.render(("a", 0, ("name", "x"))) == "a[0][name=x]"


def test_non_converted_documents_are_byte_identical() -> None:
    case = goldens.FIXTURES / "pytorchjob" / "multi-document.in.yaml"
    source = case.read_text(encoding="utf-8")
    result = convert_text(source)
    kept = [d.text for d in result.documents if not d.changed]
    assert sum(1 for d in result.documents if d.changed) == 1
    assert len(kept) == 3
    for text in kept:
        assert text in source
