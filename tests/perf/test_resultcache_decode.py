"""A results-cache record whose values have other types than ``_encode`` writes (a damaged
entry, a hand edit, another build) is a miss: never a traceback, never a changed result."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from migrator import convert_text
from migrator.batch import resultcache
from migrator.results import FileResult

ROOT = Path(__file__).resolve().parents[2]
# a fixture whose conversion has findings, mappings and values
SOURCE = (ROOT / "fixtures" / "pytorchjob" / "minimal.in.yaml").read_text(encoding="utf-8")
WRONG: tuple[Any, ...] = (None, True, -1.5, "x", [], {}, [1], {"a": 1})


STRINGS = resultcache.Strings()


def _payload() -> tuple[FileResult, list[Any]]:
    file = FileResult("job.yaml", "job.yaml", result=convert_text(SOURCE), scanned=1,
                      was_changed=False)
    payload = resultcache._encode(file, STRINGS)
    assert payload is not None, "a cacheable result"
    assert payload[2], "with documents"
    assert payload[2][0][7], "with findings"
    return file.slim(), json.loads(json.dumps(payload))


def _places(payload: list[Any]) -> list[tuple[int | str, ...]]:
    """Every position of the payload down to the fields of documents, mappings, findings."""
    places: list[tuple[int | str, ...]] = [(0,), (1,)]
    for i, doc in enumerate(payload[2]):
        places += [(2, i, j) for j in range(len(doc))]
        places += [(2, i, 5, k) for k in range(len(doc[5]))]  # mappings: flat pairs
        places += [(2, i, 7, k) for k in range(len(doc[7]))]  # findings: 7 fields each
    return places


def _set(payload: list[Any], place: tuple[int | str, ...], value: Any) -> list[Any]:
    changed = copy.deepcopy(payload)
    target: Any = changed
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    return changed


def test_the_record_of_a_real_result_decodes_to_it() -> None:
    slim, payload = _payload()
    assert resultcache._decode("job.yaml", "job.yaml", payload, STRINGS.table) == slim


@pytest.mark.parametrize("value", WRONG, ids=repr)
def test_a_value_of_another_type_anywhere_is_a_miss(value: Any) -> None:
    _, payload = _payload()
    places = _places(payload)
    assert len(places) > 20
    for place in places:
        decoded = resultcache._decode("job.yaml", "job.yaml", _set(payload, place, value),
                                      STRINGS.table)
        original: Any = payload
        for key in place:
            original = original[key]
        if type(original) is type(value) or (value is None and _optional(place)):
            continue  # a value of the field's own type may well be a record
        assert decoded is None, (place, value)


def test_a_text_outside_the_table_is_a_miss() -> None:
    """Texts (finding codes, severities, paths, messages, hints; mappings) are places in
    the entry's table: a place that is not in it, or negative, is a miss."""
    _, payload = _payload()
    outside = len(STRINGS.table)
    for place in [p for p in _places(payload) if len(p) == 4 and
                  (p[2] == 5 or (p[2] == 7 and int(p[3]) % 7 < 5))]:
        for value in (outside, -1):
            assert resultcache._decode("job.yaml", "job.yaml", _set(payload, place, value),
                                       STRINGS.table) is None, (place, value)


def _optional(place: tuple[int | str, ...]) -> bool:
    """A document's output, a finding's line and column may be null."""
    output = len(place) == 3 and place[-1] == 4
    position = len(place) == 4 and place[2] == 7 and int(place[3]) % 7 in (5, 6)
    return output or position


def test_records_of_another_length_are_misses() -> None:
    _, payload = _payload()
    for broken in ([*payload, 1], payload[:1], _set(payload, (2, 0), payload[2][0][:8]),
                   _set(payload, (2, 0, 7), payload[2][0][7][:-1]),
                   _set(payload, (2, 0, 5), payload[2][0][5][:-1])):
        assert resultcache._decode("job.yaml", "job.yaml", broken, STRINGS.table) is None
