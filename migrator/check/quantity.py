"""CHECK: Kubernetes resource quantities (``500m``, ``64Gi``, ``1e3``) as exact decimals."""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

_SUFFIX = {
    "": Decimal(1), "m": Decimal("0.001"), "k": Decimal(10) ** 3, "M": Decimal(10) ** 6,
    "G": Decimal(10) ** 9, "T": Decimal(10) ** 12, "P": Decimal(10) ** 15, "E": Decimal(10) ** 18,
    "Ki": Decimal(2) ** 10, "Mi": Decimal(2) ** 20, "Gi": Decimal(2) ** 30, "Ti": Decimal(2) ** 40,
    "Pi": Decimal(2) ** 50, "Ei": Decimal(2) ** 60,
}
_QUANTITY = re.compile(
    r"^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|[mkMGTPE])?$")


def parse(value: object) -> Decimal | None:
    """The quantity's value, or None when it is not a valid quantity."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value.strip())
    if not match:
        return None
    try:
        return Decimal(match.group(1)) * _SUFFIX[match.group(2) or ""]
    except InvalidOperation:
        return None


def ceil_count(value: object) -> int | None:
    """ceil() of a quantity as a process count (at least 1), e.g. CPU ``2500m`` → 3."""
    amount = parse(value)
    if amount is None:
        return None
    return max(1, math.ceil(amount))


def as_api_values(resources: object) -> None:
    """Rewrite float quantities (``cpu: 0.5``) in a resources map as strings, in place.

    The Trainer CRDs type quantities as int-or-string, so a YAML float would be rejected;
    the string spells the same quantity.
    """
    if not isinstance(resources, dict):
        return
    for section in ("limits", "requests"):
        values = resources.get(section)
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            if isinstance(value, float):
                values[key] = repr(float(value))
