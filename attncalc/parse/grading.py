"""The optional ``[grading]`` table: points per step id or group, and the shares of credit.

The step ids are checked against the problem's steps when ``check`` grades (the derivation knows them);
here only the types and ranges.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ..numbers import to_float
from ..schema.common import GRADING_TABLE
from ..schema.validate import names
from .reader import Reader, describe_raw
from .types import Grading


def _flat(raw: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Dotted step ids written as TOML dotted keys (1.f = 2) come back nested: flatten them."""
    out: list[tuple[str, Any]] = []
    for k, v in raw.items():
        key = f"{prefix}{k}"
        out += _flat(v, key + ".") if isinstance(v, dict) else [(key, v)]
    return out


def _amount(r: Reader, raw: Any, key: str, most: float | None = None) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float, Decimal, str)):
        raise r.fail(key, f"expected a number, got {describe_raw(raw)}")
    v = to_float(r.number(raw, key))
    if v < 0 or (most is not None and v > most):
        raise r.fail(key, f"must be from 0 to {most:g}" if most is not None else "must not be negative")
    return v


def parse_grading(r: Reader, raw: Any) -> Grading:
    t = r.table(raw, "grading", names(GRADING_TABLE))
    points: list[tuple[str, float]] = []
    if "points" in t:
        if not isinstance(t["points"], dict):
            raise r.fail("grading.points", f"expected a table of step ids and points, got {describe_raw(t['points'])}")
        for key, value in _flat(t["points"]):
            points.append((key, _amount(r, value, f"grading.points.{key}")))
    partial = t.get("partial", True)
    if not isinstance(partial, bool):
        raise r.fail("grading.partial", f"expected true or false, got {describe_raw(partial)}")
    degenerate = t.get("degenerate", "no-credit")
    if degenerate not in ("no-credit", "credit"):
        raise r.fail("grading.degenerate", f'expected "no-credit" or "credit", got {describe_raw(degenerate)}')
    return Grading(
        points=tuple(points),
        default=_amount(r, t["default"], "grading.default") if "default" in t else 1.0,
        copies=_amount(r, t["copies"], "grading.copies") if "copies" in t else 0.0,
        carried=_amount(r, t["carried"], "grading.carried", 1.0) if "carried" in t else 1.0,
        partial=partial,
        slip=_amount(r, t["slip"], "grading.slip", 1.0) if "slip" in t else 0.0,
        degenerate=degenerate,
    )
