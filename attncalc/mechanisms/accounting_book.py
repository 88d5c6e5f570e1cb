"""The bookkeeping of kind accounting's mechanism: each count goes through the chain (where check puts
a student's answer in) as a float, and comes back as the exact number the later counts use."""

from __future__ import annotations

import math

import numpy as np

from ..derivation import Count, Step
from ..derivation.arith import Chain
from ..derivation.fmt import count_text

Num = int | float  # an int, or a float where a student's answer (put in by check) is not whole


def c(x: Num) -> str:
    """A number as the views write it: thousands separators for a whole number."""
    if isinstance(x, float) and not x.is_integer():
        return count_text(x) if math.isfinite(x) else str(x)
    return f"{int(x):,}" if isinstance(x, int) or math.isfinite(x) else str(x)


def _whole(x: Num) -> int | None:
    if isinstance(x, int):
        return x
    return int(x) if math.isfinite(x) and x.is_integer() else None


class Book:
    """The steps as they are counted: each result goes through the chain (where check puts a student's
    answer in) and comes back as the number the later steps use."""

    def __init__(self, chain: Chain) -> None:
        self.chain = chain
        self.steps: list[Step] = []

    def slip(self, name: str, applies: bool = True) -> bool:
        """Whether check has switched this slip on (asked only where the slip can happen)."""
        return applies and self.chain.mistake == name

    def count(
        self,
        step_id: str,
        title: str,
        symbol: str,
        formula: str,
        written: str,
        value: Num,
        unit: str,
        explain: str = "",
        note: str = "",
        defines: tuple[str, ...] = (),
    ) -> Num:
        shown = value
        if unit == "bytes" and self.slip("gib_for_gb"):  # the count written in the other unit: not carried on
            shown = value * unit_ratio(self.chain.mistake_arg)
        arr = self.chain.finish(step_id, np.asarray(float(shown)))
        used: Num = value
        if step_id in self.chain.overrides:
            f = float(np.asarray(arr, dtype=float))
            used = int(f) if math.isfinite(f) and f.is_integer() else f
        self.steps.append(
            Count(
                id=step_id,
                title=title,
                formula=formula,
                latex="",
                symbol=symbol,
                value=arr,
                whole=_whole(used if step_id in self.chain.overrides else shown),
                written=written,
                unit=unit,
                explain=explain,
                note=note,
                defines=defines,
            )
        )
        return used


def unit_ratio(arg: int | None) -> float:
    """gib_for_gb: the bytes a number of one unit stands for under the other unit's name, over the true
    bytes (None: a GB number written as GiB, × 2^30/10^9)."""
    k, direction = divmod(6 if arg is None else arg, 2)
    binary, decimal = 1 << (10 * k), 1000**k
    return float(binary / decimal if direction == 0 else decimal / binary)
