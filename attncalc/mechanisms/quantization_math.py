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
from ..derivation.fmt import fmt
from ..derivation.interval import Iv
from ..derivation.rounding import round_half_up

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


class ScaleText:
    """A scale as the lines that divide or multiply by it write it (zero points, the quantized integers,
    the dequantized weights): at the shown decimals when each line's result follows from the number as
    written, else with as many more decimals (up to ``EXTRA``) as it takes. round(−4.3 / 0.043) is −100,
    while q = round(−4.3 / (5.4/127)) = −101: that line writes 0.0425197, so that what it shows is what
    its numbers give. Under --carry the scale is the rounded one, and the shown decimals do.

    ``scales`` per scale k, ``weights`` per entry in block order (block k is entries k·size to
    (k + 1)·size − 1), ``minima`` each block's min(w, 0) for the zeropoint scheme (None: absmax). The
    results the lines must give are worked here from the scales as floats, so that a line made before
    the later steps (a per-tensor zero point is written at once) is decided alike."""

    EXTRA = 10

    def __init__(self, scales: np.ndarray, weights: np.ndarray, minima: np.ndarray | None, lo: int, hi: int) -> None:
        self.scales, self.weights, self.minima, self.lo, self.hi = scales, weights, minima, lo, hi
        self.size = len(weights) // len(scales)
        self._cache: dict[tuple[int, int], str] = {}

    def __call__(self, k: int, dec: int) -> str:
        if (k, dec) not in self._cache:
            self._cache[k, dec] = self._text(k, dec)
        return self._cache[k, dec]

    def widened(self, dec: int) -> bool:
        """Whether some scale is written with more than ``dec`` decimals."""
        return any(self(k, dec) != fmt(self.scales[k], dec) for k in range(len(self.scales)))

    def note(self, dec: int) -> str:
        """The sentence a step whose lines write a widened scale adds to its explanation ("" if none)."""
        if not self.widened(dec):
            return ""
        return (
            f" The scale is written with more than {dec} decimals where, rounded to {dec}, it would give "
            "another result than the true scale does."
        )

    def _text(self, k: int, dec: int) -> str:
        s = float(self.scales[k])
        if not math.isfinite(s) or s == 0:
            return fmt(s, dec)
        want = self._results(k, s, dec)
        for places in range(dec, dec + self.EXTRA + 1):
            text = fmt(s, places)
            if self._results(k, float(text), dec) == want:
                return text
        return fmt(s, dec)  # (none does: a tie met differently in floats; the shown decimals then)

    def _results(self, k: int, s: float, dec: int) -> tuple[float, ...]:
        """The zero point, each integer and each dequantized weight (rounded as shown) that s gives."""
        z = 0.0 if self.minima is None else float(round(-float(self.minima[k]) / s))
        out = [z]
        for w in self.weights[k * self.size : (k + 1) * self.size]:
            if not math.isfinite(float(w)):
                continue
            q = float(min(max(round(float(w) / s) + z, self.lo), self.hi))
            out += [q, round_half_up((q - z) * s, dec)]
        return tuple(out)
