"""A count's answer as written (kind accounting): a memory answer may carry a unit ("145.5 GiB",
"156 GB", "327,680 B"; KiB, MiB, TiB, KB, MB, TB too), judged after conversion to bytes at the precision
written (145.5 GiB: to ±0.05 GiB); a count in e-notation ("5.88e23") is judged at its mantissa's
precision (±0.005e23); a plain whole number is compared with the exact count as an integer, at any size
(float64 cannot tell 2^53 + 1 from 2^53)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

import numpy as np

from ..errors import ProblemError

UNITS = {
    "B": 1,
    "byte": 1,
    "bytes": 1,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
    "KB": 10**3,
    "kB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
}
_WITH_UNIT = re.compile(r"\s*(\S.*?)\s*(bytes|byte|B|[KMGT]iB|[kKMGT]B)\s*")
_E = re.compile(r"\s*[-+−]?(?:\d+\.?(\d*)|\.(\d+))[eE]([-+−]?\d+)\s*")
# 75,497,472: a whole number with its digits grouped by commas in threes, as the views print counts
# (read only for a count; a leading 0, as in 0,155, is a decimal comma and stays an error)
GROUPED = re.compile(r"\s*(-?[1-9][0-9]{0,2}(?:,[0-9]{3})+)\s*")
_GROUPED = re.compile(r"-?[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]+)?")
_INTEGER = re.compile(r"\s*(-?[0-9]+)\s*")
# the units a bare number of bytes may have been meant in (a hint when it is wrong as bytes)
MEANT = ("GiB", "GB", "MiB", "MB", "TiB", "TB", "KiB", "KB")


@dataclass(frozen=True)
class Written:
    """A count's answer read: the number (the unit taken off), the bytes its unit stands for, the
    scale of its precision's unit beyond that (10^21 for 5.88e23), and the integer written, exactly."""

    number: Any
    factor: int = 1
    e_scale: int = 1
    exact: int | None = None
    unit: str | None = None

    @property
    def scale(self) -> int:
        """The bytes (or the power of ten) one unit of the last place written stands for, over 10^-decimals."""
        return self.factor * self.e_scale

    def judged(self, vals: np.ndarray, decs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The answer in bytes and the decimals it is judged at: an exact form (3·97216102400) as a whole
        number, to the unit; 5.88e23 to ±0.005e23, its mantissa's last place; 1,028 GiB to ±0.5 GiB."""
        decs = np.where(decs == -1, 0, decs)
        if self.e_scale > 1 or (self.factor > 1 and "." not in str(self.number)):
            decs = np.zeros_like(decs)
        return vals * self.factor, decs

    def fields(self) -> dict[str, Any]:
        """The :class:`~attncalc.check.answers.Answer` fields of a count."""
        return {"scale": float(self.scale), "exact": self.exact, "unit": self.unit}


def ungrouped(value: Any) -> Any:
    """A count written with thousands separators ("75,497,472") as its digits ("75497472"); anything
    else as it is (a list "1,2" is not a grouping in threes, and stays an error)."""
    if isinstance(value, list):
        return [ungrouped(v) for v in value]
    if isinstance(value, str):
        m = GROUPED.fullmatch(value)
        if m:
            return m.group(1).replace(",", "")
    return value


def read_count(value: Any, step_unit: str, file: str, key: str) -> Written:
    """A count's answer: its unit (a memory answer only) and how precisely it is written."""
    if isinstance(value, (bool, list)):
        return Written(value)
    if isinstance(value, int):
        return Written(value, exact=value)
    if not isinstance(value, str):
        return Written(value)
    number, factor, unit = value, 1, None
    m = _WITH_UNIT.fullmatch(value)
    if m is not None and not m.group(1).endswith(("e", "E")):
        if step_unit != "bytes":
            raise ProblemError(
                file,
                key,
                f"{value.strip()!r}: this step counts {step_unit}, not bytes; a unit such as "
                f"{m.group(2)!r} belongs to a memory answer: write the number alone",
            )
        number, unit = m.group(1), m.group(2)
        if _GROUPED.fullmatch(number):  # "1,027.8 GiB": thousands grouped, a decimal part
            number = number.replace(",", "")
        factor = UNITS[unit]
    e = _E.fullmatch(number)
    if e is not None:
        places = len(e.group(1) or e.group(2) or "") - int(e.group(3).replace("−", "-"))
        return Written(number, factor, 10 ** (-places) if places < 0 else 1, None, unit)
    i = _INTEGER.fullmatch(number)
    exact = int(i.group(1)) * factor if i is not None and factor == 1 else None
    return Written(number, factor, 1, exact, unit)


def meant_unit(given: float, decimals: int, whole: int | None) -> str | None:
    """A bare number that, read as bytes, is wrong, but is the true count in a larger unit at the
    precision written (145.5 for 156,206,702,592 bytes: GiB): that unit, else None."""
    if whole is None or decimals < 0 or given <= 0:
        return None
    for unit in MEANT:
        f = UNITS[unit]
        if abs(given * f - whole) <= 0.5 * 10.0**-decimals * f * (1 + 1e-9):
            return unit
    return None


def exact_miss(ans: Any, step: Any) -> str | None:
    """The note for a whole number written in full that is not the count, though float64 holds both as
    one number (past 2^53: 2^53 + 1 is 2^53 to it); None when the integers agree or the floats differ
    (the usual judging, slips and all, then sees the difference)."""
    whole = getattr(step, "whole", None)
    if ans.exact is None or whole is None or ans.exact == whole or float(ans.exact) != float(whole):
        return None
    return f"{whole:,}, not {ans.exact:,}: off by {ans.exact - whole:+,} (every digit of a count is judged)."


def unit_hint(ans: Any, step: Any) -> str:
    """A memory answer wrong with its unit: the true size in that unit and the precision judged at; a
    bare number, wrong as bytes, that is the memory in a larger unit: say which, and how to write it."""
    if getattr(step, "unit", None) != "bytes" or ans.decimals is None or getattr(step, "whole", None) is None:
        return ""
    if ans.unit is not None:
        return in_unit(step.whole, ans.unit, int(ans.decimals))
    given, decs = float(ans.values), int(ans.decimals)
    unit = meant_unit(given, decs, step.whole)
    if unit is None:
        return ""
    number = ans.written if isinstance(ans.written, str) else str(ans.written)
    return f' A bare number is read as bytes; as {unit}, {number} is right: write the unit, "{number.strip()} {unit}".'


def in_unit(whole: int, unit: str, decimals: int) -> str:
    """ " In GiB it is 1,027.832 (judged to ±0.05 GiB, as written)." for a wrong answer in GiB."""
    factor = UNITS[unit]
    if factor == 1:
        return ""
    places = max(decimals + 2, 3)
    with localcontext() as ctx:
        ctx.prec = 60
        x = (Decimal(whole) / Decimal(factor)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    half = Decimal(5).scaleb(-decimals - 1)
    return f" In {unit} it is {x:,f} (judged to ±{half:f} {unit}, as written)."
