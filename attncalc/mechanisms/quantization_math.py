"""The arithmetic of kind ``quantization`` on the chain's numbers, whichever they are: sympy (exact),
floats (float and hand) or intervals (check). Rounding is half to even (torch.round, torch's
quantize_per_tensor), decided exactly where the numbers are exact; a float within 1e-9 of a half is a
tie (w / scale = 2.5 from exact decimals may come out 2.4999999999999996 in floats)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..derivation import interval
from ..derivation.arith import Chain, round_array
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

    def round_all(self, x: np.ndarray) -> np.ndarray:
        """round() of every float of an array, as :meth:`round` gives each (ties counted alike)."""
        fl = np.floor(x)
        with np.errstate(all="ignore"):
            tie = np.isfinite(x) & (np.abs(x - fl - 0.5) <= TIE * np.maximum(1.0, np.abs(x)))
        self.ties += int(tie.sum())
        at_tie = np.where(x > 0, fl + 1, fl) if self.away else np.where(fl % 2 == 0, fl, fl + 1)
        out = np.where(tie, at_tie, np.where(x - fl - 0.5 > 0, fl + 1, fl))
        return np.where(np.isfinite(x), out, x) + 0.0

    def clamp_all(self, q: np.ndarray, lo: int, hi: int) -> np.ndarray:
        """:meth:`clamp` of every float of an array (clamps counted alike)."""
        with np.errstate(invalid="ignore"):
            outside = np.isfinite(q) & ((q < lo) | (q > hi))
        self.clamped += int(outside.sum())
        if self.chain.mistake == "no_clamp":
            return q
        return np.where(outside, np.where(q < lo, float(lo), float(hi)), q)

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
    if isinstance(items, np.ndarray) and items.dtype == float:
        return items.reshape(shape)
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
    its numbers give. A quotient exactly halfway between two integers (−0.29 / (1/150) = −43.5, rounded
    half to even to −44) is met by no rounded scale: its line writes the scale as the fraction it is,
    round(−0.29 / (1/150)). Under --carry the scale is the rounded one, and the shown decimals do.

    ``scales`` per scale k, ``weights`` per entry in block order (block k is entries k·size to
    (k + 1)·size − 1), ``minima`` each block's min(w, 0) for the zeropoint scheme (None: absmax). The
    results the lines must give are worked here from the scales as floats (a quotient within ``TIE`` of
    a half is the tie it is in exact numbers), so that a line made before the later steps (a per-tensor
    zero point is written at once) is decided alike."""

    EXTRA = 10

    def __init__(self, scales: np.ndarray, weights: np.ndarray, minima: np.ndarray | None, lo: int, hi: int) -> None:
        self.scales, self.weights, self.minima, self.lo, self.hi = scales, weights, minima, lo, hi
        self.size = len(weights) // len(scales)
        self._cache: dict[tuple[int, int], str] = {}
        self._surveys: dict[int, tuple[bool, bool]] = {}

    def __call__(self, k: int, dec: int) -> str:
        """Scale k as the lines with no tie write it (the dequantized weights: every such line)."""
        if (k, dec) not in self._cache:
            self._cache[k, dec] = self._text(k, dec)
        return self._cache[k, dec]

    def zero(self, k: int, dec: int) -> str:
        """Scale k as its zero point's line writes it: the fraction where −min / s is a tie."""
        s = float(self.scales[k])  # (an answered scale may be 0 or infinite: no tie then)
        if self.minima is not None and s != 0 and math.isfinite(s) and _tie(-float(self.minima[k]) / s):
            return self._fraction(k) or self(k, dec)
        return self(k, dec)

    def entry(self, k: int, j: int, dec: int) -> str:
        """Scale k as the line of its block's entry j writes it: the fraction where w / s is a tie."""
        w, s = float(self.weights[k * self.size + j]), float(self.scales[k])
        if math.isfinite(w) and s != 0 and math.isfinite(s) and _tie(w / s):
            return self._fraction(k) or self(k, dec)
        return self(k, dec)

    def clamped(self, k: int, j: int) -> bool:
        """Whether the integer of block k's entry j was clamped (its line then writes the clamp)."""
        s, w = float(self.scales[k]), float(self.weights[k * self.size + j])
        if not (math.isfinite(s) and math.isfinite(w)) or s == 0:
            return False
        z = 0.0 if self.minima is None else float(_half_even(-float(self.minima[k]) / s))
        return not self.lo <= _half_even(w / s) + z <= self.hi

    def widened(self, dec: int) -> bool:
        """Whether some scale is written with more than ``dec`` decimals (or as a fraction)."""
        return self._survey(dec)[0]

    def note(self, dec: int) -> str:
        """The sentence a step whose lines write a widened scale adds to its explanation ("" if none)."""
        widened, ties = self._survey(dec)
        if not widened:
            return ""
        out = (
            f" The scale is written with more than {dec} decimals where, rounded to {dec}, it would give "
            "another result than the true scale does"
        )
        if ties:
            out += ", and as the fraction it is where the quotient is exactly halfway (a tie, half to even)"
        return out + "."

    def _survey(self, dec: int) -> tuple[bool, bool]:
        """Whether some scale is written widened, and whether some line meets a tie: every scale's lines
        at once in numpy (a problem may have 100,000 scales, and a check asks on every rerun); a scale
        whose lines do not all hold at ``dec`` is then written as its lines write it (``_text``)."""
        if dec not in self._surveys:
            self._surveys[dec] = self._find(dec)
        return self._surveys[dec]

    def _find(self, dec: int) -> tuple[bool, bool]:
        s = np.asarray(self.scales, dtype=float)
        w = np.asarray(self.weights, dtype=float).reshape(len(s), self.size)
        valid = np.isfinite(s) & (s != 0)  # (an answered scale of 0 or ∞ is written as it is: no tie)
        with np.errstate(all="ignore"):
            sv = np.where(valid, s, 1.0)[:, None]
            finite = np.isfinite(w)
            ratio = w / sv
            tie_w = finite & _ties_of(ratio)
            if self.minima is None:
                z, zero_tie, m = np.zeros((len(s), 1)), np.zeros(len(s), dtype=bool), None
            else:
                m = -np.asarray(self.minima, dtype=float)[:, None]
                if not np.isfinite(m[valid]).all():  # (a range answered ∞: as each line writes it)
                    return self._find_each(dec)
                zero_tie = _ties_of(m / sv)[:, 0]
                z = _half_even_of(m / sv)
            ties = bool((valid & (zero_tie | tie_w.any(axis=1))).any())
            q = np.clip(_half_even_of(ratio) + z, self.lo, self.hi)
            t = _shown(s, valid, dec)[:, None]
            off = finite & ~tie_w & (np.clip(np.rint(w / t) + z, self.lo, self.hi) != q)
            off |= finite & (round_array((q - z) * t, dec) != round_array((q - z) * sv, dec))
            fails = off.any(axis=1)
            if m is not None:
                fails |= ~zero_tie & (np.rint(m / t) != z)[:, 0]
        return ties or any(
            self(k, dec) != fmt(self.scales[k], dec) for k in np.flatnonzero(valid & fails).tolist()
        ), ties

    def _find_each(self, dec: int) -> tuple[bool, bool]:
        ties = any(self._ties(k) for k in range(len(self.scales)))
        return ties or any(self(k, dec) != fmt(self.scales[k], dec) for k in range(len(self.scales))), ties

    def _fraction(self, k: int) -> str | None:
        """Scale k as a fraction, "(1/150)", when it is one of a modest denominator (None if not)."""
        s = float(self.scales[k])
        if not math.isfinite(s) or s <= 0:
            return None
        f = Fraction(s).limit_denominator(10**9)
        if abs(float(f) - s) > 1e-12 * s:
            return None
        return str(f.numerator) if f.denominator == 1 else f"({f.numerator}/{f.denominator})"

    def _ties(self, k: int) -> bool:
        s = float(self.scales[k])
        if not math.isfinite(s) or s == 0:
            return False
        block = self.weights[k * self.size : (k + 1) * self.size]
        zero_tie = self.minima is not None and _tie(-float(self.minima[k]) / s)
        return zero_tie or any(math.isfinite(float(w)) and _tie(float(w) / s) for w in block)

    def _text(self, k: int, dec: int) -> str:
        s = float(self.scales[k])
        if not math.isfinite(s) or s == 0:
            return fmt(s, dec)
        z, qs = self._truth(k, s)
        for places in range(dec, dec + self.EXTRA + 1):
            text = fmt(s, places)
            if self._lines_hold(k, s, float(text), z, qs, dec):
                return text
        return fmt(s, dec)  # (none does; the shown decimals then)

    def _truth(self, k: int, s: float) -> tuple[float, list[float]]:
        """The zero point and the integers the true scale gives (ties half to even, as exactly)."""
        z = 0.0 if self.minima is None else float(_half_even(-float(self.minima[k]) / s))
        qs = []
        for w in self.weights[k * self.size : (k + 1) * self.size]:
            if math.isfinite(float(w)):
                qs.append(float(min(max(_half_even(float(w) / s) + z, self.lo), self.hi)))
            else:
                qs.append(math.nan)
        return z, qs

    def _lines_hold(self, k: int, s: float, t: float, z: float, qs: list[float], dec: int) -> bool:
        """Whether each line that writes the scale as t (ties aside: those write the fraction) gives
        what the true scale does: the zero point, each integer, each dequantized weight as shown."""
        if self.minima is not None:
            m = -float(self.minima[k])
            if not _tie(m / s) and _round_float(m / t) != z:
                return False
        for w, q in zip(self.weights[k * self.size : (k + 1) * self.size], qs, strict=True):
            if not math.isfinite(float(w)):
                continue
            if not _tie(float(w) / s) and float(min(max(_round_float(float(w) / t) + z, self.lo), self.hi)) != q:
                return False
            if round_half_up((q - z) * t, dec) != round_half_up((q - z) * s, dec):
                return False
        return True


def _tie(x: float) -> bool:
    """Whether a quotient is halfway between two integers (within TIE, as the Rounder decides)."""
    if not math.isfinite(x):
        return False
    return abs(x - math.floor(x) - 0.5) <= TIE * max(1.0, abs(x))


def _round_float(x: float) -> float:
    """round(x) (half to even), a non-finite x as it is (Python's round raises on it)."""
    return round(x) if math.isfinite(x) else x


def _ties_of(x: np.ndarray) -> np.ndarray:
    """:func:`_tie` of every entry."""
    return np.asarray(np.isfinite(x) & (np.abs(x - np.floor(x) - 0.5) <= TIE * np.maximum(1.0, np.abs(x))))


def _half_even_of(x: np.ndarray) -> np.ndarray:
    """:func:`_half_even` of every entry (as floats)."""
    fl = np.floor(x)
    return np.asarray(np.where(_ties_of(x), np.where(fl % 2 == 0, fl, fl + 1), np.where(x - fl > 0.5, fl + 1, fl)))


def _shown(s: np.ndarray, valid: np.ndarray, dec: int) -> np.ndarray:
    """float(fmt(s, dec)) of every valid scale (1 elsewhere): round_half_up's value where fmt writes
    it in fixed point at ``dec`` decimals, fmt itself for the rest (tiny, huge, many decimals)."""
    with np.errstate(all="ignore"):
        r = round_array(np.where(valid, s, 1.0), dec)
    plain = valid & (np.abs(s) < 1e12) & (r != 0) & (dec <= 10)
    for k in np.flatnonzero(valid & ~plain):
        r[k] = float(fmt(s[k], dec))
    return np.where(valid, r, 1.0)


def _half_even(x: float) -> float:
    """Round half to even as the Rounder does; a quotient past any double (a weight over an answered
    scale of 1e-320) stays what it is, as there."""
    if not math.isfinite(x):
        return x
    fl = math.floor(x)
    if _tie(x):
        return fl if fl % 2 == 0 else fl + 1
    return fl + 1 if x - fl > 0.5 else fl
