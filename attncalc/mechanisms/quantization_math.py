"""The arithmetic of kind ``quantization`` on the chain's numbers, whichever they are: sympy (exact),
floats (float and hand) or intervals (check). Rounding is half to even (torch.round, torch's
quantize_per_tensor), decided exactly where the numbers are exact; a float within 1e-9 of a half is a
tie (w / scale = 2.5 from exact decimals may come out 2.4999999999999996 in floats)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..derivation import interval
from ..derivation.arith import Chain
from ..derivation.interval import Iv

TIE = 1e-9


class Rounder:
    """round() as the chain's numbers need it, half to even (half away from zero under the slip
    ``round_half_away``); records whether any tie was met, and whether any clamp bit."""

    def __init__(self, chain: Chain) -> None:
        self.chain = chain
        self.away = chain.mistake == "round_half_away"
        self.ties = 0
        self.clamped = 0

    def round(self, v: Any) -> Any:
        if self.chain.mode == "exact" and self.chain.degraded_at is None and not isinstance(v, float | Iv):
            n = self._exact(v)
        else:
            f = float(v)
            if not math.isfinite(f):  # (a check run that carries a student's scale of 0 on: no integer)
                return self.like(f)
            n = self._float(f)
        return self.like(n)

    def _exact(self, v: Any) -> int:
        import sympy as sp

        v = sp.sympify(v)
        fl = int(sp.floor(v))
        half = v - fl - sp.Rational(1, 2)
        if half.is_zero:
            return self._tie(fl, v > 0)
        return fl + 1 if half > 0 else fl

    def _float(self, f: float) -> int:
        fl = math.floor(f)
        half = f - fl - 0.5
        if abs(half) <= TIE * max(1.0, abs(f)):
            return self._tie(fl, f > 0)
        return fl + 1 if half > 0 else fl

    def _tie(self, fl: int, positive: bool) -> int:
        self.ties += 1
        if self.away:
            return fl + 1 if positive else fl
        return fl if fl % 2 == 0 else fl + 1

    def like(self, n: int | float) -> Any:
        """A whole number as the chain holds numbers."""
        if self.chain.mode == "interval":
            return interval.point(np.asarray(float(n))).item()  # (a whole number is known exactly)
        if self.chain.mode == "exact" and self.chain.degraded_at is None:
            import sympy as sp

            return sp.Integer(int(n))
        return float(n)

    def clamp(self, q: Any, lo: int, hi: int) -> Any:
        f = float(q)
        if not math.isfinite(f) or lo <= f <= hi:
            return q
        self.clamped += 1
        if self.chain.mistake == "no_clamp":
            return q
        return self.like(lo if f < lo else hi)


def largest(items: list[Any]) -> Any:
    """The largest item itself (an exact one stays exact), compared as floats."""
    best = items[0]
    for v in items[1:]:
        if float(v) > float(best):
            best = v
    return best


def smallest(items: list[Any]) -> Any:
    best = items[0]
    for v in items[1:]:
        if float(v) < float(best):
            best = v
    return best


def array(items: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Nested entries as an array of the chain's numbers: floats stay a float array, anything else objects."""
    flat = list(np.asarray(items, dtype=object).reshape(-1)) if shape else [items]
    if all(isinstance(v, float | int) and not isinstance(v, bool) for v in flat):
        return np.asarray(flat, dtype=float).reshape(shape)
    out = np.empty(len(flat), dtype=object)
    for i, v in enumerate(flat):
        out[i] = v
    return out.reshape(shape)
