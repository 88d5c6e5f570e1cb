"""Interval arithmetic for ``check``: the set of values a step's own formula gives over every input
consistent with the answerer's earlier answers as written.

An answer written 0.155 stands for any number in [0.1545, 0.1555] (half a unit of its last decimal:
the answerer may have kept more digits on the calculator); a step computed from such answers can
take any value in the image of that box under its formula. :class:`Iv` is a closed interval of
floats whose operations round outward (every bound is moved one float away), so the interval a
chain computes contains every value the formula takes on the box: carried credit rests on a bound,
never on a guess. A mechanism runs on intervals unchanged: :class:`~attncalc.derivation.arith.Chain` in mode
``interval`` holds its numbers as numpy object arrays of :class:`Iv`, which numpy's operators and
ufuncs (``np.exp`` calls :meth:`Iv.exp`) carry through; comparisons, which decide a mask, a
maximum or an argmax, compare midpoints (the answerer decides from the numbers written). Where a
computation leaves intervals (a float conversion) the interval shrinks to its midpoint: the bound is
then tighter than the truth, so an answer may miss carried credit but never earns it wrongly.

Element-wise functions are bounded from their values at the interval's ends and at their critical
points inside it (:func:`image`), which attncalc/derivation/elementwise.py declares for each function.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

_INF = math.inf


def _down(x: float) -> float:
    return math.nextafter(x, -_INF) if math.isfinite(x) else x


def _up(x: float) -> float:
    return math.nextafter(x, _INF) if math.isfinite(x) else x


def _num(x: Any) -> Iv:
    if isinstance(x, Iv):
        return x
    v = float(x)
    return Iv(v, v)


def _mul(a: float, b: float) -> float:
    # in interval products 0 · ∞ is 0 (the bound of a zero-width factor times an unbounded one)
    if (a == 0 and math.isinf(b)) or (b == 0 and math.isinf(a)):
        return 0.0
    return a * b


class Iv:
    """A closed interval [lo, hi] of floats; lo = hi for a number known exactly."""

    __slots__ = ("hi", "lo")

    def __init__(self, lo: float, hi: float) -> None:
        if math.isnan(lo) or math.isnan(hi):
            lo, hi = -_INF, _INF  # an undefined result could be anything
        self.lo = float(lo)
        self.hi = float(hi)

    # -- reading ------------------------------------------------------------------------
    @property
    def mid(self) -> float:
        if self.lo == self.hi:
            return self.lo
        if math.isinf(self.lo) or math.isinf(self.hi):
            return (
                self.lo
                if math.isinf(self.hi) and not math.isinf(self.lo)
                else self.hi
                if not math.isinf(self.hi)
                else 0.0
            )
        return self.lo + (self.hi - self.lo) / 2

    def __float__(self) -> float:
        return self.mid

    def __repr__(self) -> str:
        return f"Iv({self.lo!r}, {self.hi!r})"

    def bounded(self) -> bool:
        return math.isfinite(self.lo) and math.isfinite(self.hi)

    # -- comparisons decide as the answerer does: by the numbers written (the midpoints) --
    def __lt__(self, o: Any) -> bool:
        return self.mid < float(o)

    def __le__(self, o: Any) -> bool:
        return self.mid <= float(o)

    def __gt__(self, o: Any) -> bool:
        return self.mid > float(o)

    def __ge__(self, o: Any) -> bool:
        return self.mid >= float(o)

    def __eq__(self, o: object) -> bool:
        try:
            return self.mid == float(o)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return NotImplemented

    def __ne__(self, o: object) -> bool:
        eq = self.__eq__(o)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        return self.mid != 0

    # -- arithmetic, rounded outward ------------------------------------------------------
    def __add__(self, o: Any) -> Iv:
        b = _num(o)
        return Iv(_down(self.lo + b.lo), _up(self.hi + b.hi))

    __radd__ = __add__

    def __sub__(self, o: Any) -> Iv:
        b = _num(o)
        return Iv(_down(self.lo - b.hi), _up(self.hi - b.lo))

    def __rsub__(self, o: Any) -> Iv:
        return _num(o) - self

    def __neg__(self) -> Iv:
        return Iv(-self.hi, -self.lo)

    def __pos__(self) -> Iv:
        return self

    def __abs__(self) -> Iv:
        if self.lo >= 0:
            return self
        if self.hi <= 0:
            return -self
        return Iv(0.0, max(-self.lo, self.hi))

    def __mul__(self, o: Any) -> Iv:
        b = _num(o)
        ps = [_mul(self.lo, b.lo), _mul(self.lo, b.hi), _mul(self.hi, b.lo), _mul(self.hi, b.hi)]
        return Iv(_down(min(ps)), _up(max(ps)))

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> Iv:
        b = _num(o)
        if b.lo <= 0 <= b.hi:
            if b.lo == b.hi == 0 and self.lo == self.hi and self.lo != 0:
                v = math.copysign(_INF, self.lo)  # x / 0: ±∞ as numpy gives it
                return Iv(v, v)
            return Iv(-_INF, _INF)
        return self * Iv(_down(1.0 / b.hi), _up(1.0 / b.lo))

    def __rtruediv__(self, o: Any) -> Iv:
        return _num(o) / self

    def __pow__(self, o: Any) -> Iv:
        if isinstance(o, Iv):
            if o.lo != o.hi:
                return (self.log() * o).exp()
            o = o.lo
        n = float(o)
        if n == 0.5:
            return self.sqrt()
        if n.is_integer():
            k = int(n)
            if k < 0:
                return Iv(1.0, 1.0) / (self ** (-k))
            if k == 0:
                return Iv(1.0, 1.0)
            ends = [self.lo**k, self.hi**k]
            lo, hi = min(ends), max(ends)
            if k % 2 == 0 and self.lo < 0 < self.hi:
                lo = 0.0
            return Iv(_down(lo), _up(hi))
        if self.lo < 0:
            return Iv(-_INF, _INF)
        return (self.log() * n).exp()

    def __rpow__(self, o: Any) -> Iv:
        return _num(o) ** self

    # -- functions numpy's ufuncs call on object arrays ----------------------------------
    def exp(self) -> Iv:
        return _monotone(self, _safe(math.exp), increasing=True)

    def log(self) -> Iv:
        if self.hi < 0:
            return Iv(-_INF, _INF)
        return _monotone(Iv(max(self.lo, 0.0), self.hi), _safe(_log), increasing=True)

    def sqrt(self) -> Iv:
        if self.hi < 0:
            return Iv(-_INF, _INF)
        return _monotone(Iv(max(self.lo, 0.0), self.hi), _safe(math.sqrt), increasing=True)

    def tanh(self) -> Iv:
        return _monotone(self, _safe(math.tanh), increasing=True)

    def sin(self) -> Iv:
        if _whole_period(self):
            return Iv(-1.0, 1.0)
        return image(self, _safe(math.sin), _periodic(self, math.pi / 2, math.pi))

    def cos(self) -> Iv:
        if _whole_period(self):
            return Iv(-1.0, 1.0)
        return image(self, _safe(math.cos), _periodic(self, 0.0, math.pi))


def _log(x: float) -> float:
    return -_INF if x == 0 else math.log(x)


def _safe(f: Callable[[float], float]) -> Callable[[float], float]:
    def g(x: float) -> float:
        if math.isinf(x):
            try:
                return f(x)
            except (OverflowError, ValueError):
                return _INF if x > 0 else -_INF
        try:
            return f(x)
        except OverflowError:
            return _INF

    return g


def _monotone(x: Iv, f: Callable[[float], float], increasing: bool) -> Iv:
    a, b = f(x.lo), f(x.hi)
    if not increasing:
        a, b = b, a
    # a library function is within an ulp or two of the true value: widen by three
    return Iv(_widen(a, -1), _widen(b, 1))


def _widen(v: float, direction: int, ulps: int = 3) -> float:
    for _ in range(ulps):
        v = _down(v) if direction < 0 else _up(v)
    return v


def _whole_period(x: Iv) -> bool:
    """Whether sin or cos takes every value of [-1, 1] over x: x spans a whole period, or its ends are
    so large that floats a period apart are not told apart (an answer of 1e25: every number within
    half a unit of it is as good, and they go round the circle many times)."""
    if not x.bounded():
        return False
    return x.hi - x.lo >= 2 * math.pi or math.ulp(max(abs(x.lo), abs(x.hi))) >= 1.0


def _periodic(x: Iv, first: float, period: float) -> list[float]:
    """The critical points first + k·period inside x (all of sin's or cos's extrema), for an x narrower
    than a whole period of sin (:func:`_whole_period` answers the rest): at most three."""
    if not x.bounded():
        return []
    k0 = math.ceil((x.lo - first) / period)
    # (bounded: where first + k·period rounds to the same float for several k, a loop until it passes
    # x.hi never ended)
    return [first + k * period for k in range(k0, k0 + 6) if first + k * period <= x.hi]


def image(x: Iv, f: Callable[[float], float], critical: Iterable[float]) -> Iv:
    """The range of a function over x that is monotone between its critical points: the least and
    greatest of its values at x's ends and at the critical points inside x."""
    if not x.bounded() and x.lo != x.hi:
        return Iv(-_INF, _INF)
    points = [x.lo, x.hi, *(c for c in critical if x.lo < c < x.hi)]
    values = [f(p) for p in points]
    return Iv(_widen(min(values), -1), _widen(max(values), 1))


# ------------------------------------------------------------------------------ arrays


def is_interval(x: Any) -> bool:
    """Whether a numpy array holds intervals (an object array whose first entry is an :class:`Iv`)."""
    return isinstance(x, np.ndarray) and x.dtype == object and x.size > 0 and isinstance(x.flat[0], Iv)


def point(x: Any) -> np.ndarray:
    """Every entry as an interval (numbers as zero-width intervals)."""
    a = np.asarray(x, dtype=object)
    out = np.empty(a.shape, dtype=object)
    for idx, v in np.ndenumerate(a):
        out[idx] = _num(v)
    return out


def around(x: np.ndarray, half: np.ndarray | float) -> np.ndarray:
    """Each number give or take ``half`` (per entry): what an answer written to some decimals stands for."""
    a = np.asarray(x, dtype=float)
    h = np.broadcast_to(np.asarray(half, dtype=float), a.shape)
    out = np.empty(a.shape, dtype=object)
    for idx, v in np.ndenumerate(a):
        w = float(h[idx])
        out[idx] = Iv(_down(v - w), _up(v + w)) if w > 0 else Iv(v, v)
    return out


def meet(computed: np.ndarray, written: np.ndarray, numbers: np.ndarray) -> np.ndarray:
    """Per entry, what an answer (``numbers`` as written, ``written`` the interval they stand for) may
    have been behind it: the part of its interval its own formula can give (``computed``: a student
    who kept the calculator's digits), or the number as written (one who rounded it and worked on with
    the rounded number); so an answer worked from exact numbers, 0.565 from 0.22 and 0.7, has no digits
    behind it to round away. Where the two do not meet (the answer is not its formula's), the answer's
    whole interval."""
    out = np.empty(written.shape, dtype=object)
    for idx, w in np.ndenumerate(written):
        c = computed[idx] if computed.shape == written.shape else None
        if isinstance(c, Iv) and max(c.lo, w.lo) <= min(c.hi, w.hi):
            v = float(numbers[idx])
            out[idx] = Iv(min(max(c.lo, w.lo), v), max(min(c.hi, w.hi), v))
        else:
            out[idx] = w
    return out


def bounds(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lower and upper ends of every entry, as float arrays."""
    a = point(x)
    lo = np.empty(a.shape, dtype=float)
    hi = np.empty(a.shape, dtype=float)
    for idx, v in np.ndenumerate(a):
        lo[idx], hi[idx] = v.lo, v.hi
    return lo, hi


def midpoints(x: np.ndarray) -> np.ndarray:
    out = np.empty(x.shape, dtype=float)
    for idx, v in np.ndenumerate(x):
        out[idx] = float(v)
    return out


def apply(fn: str, x: np.ndarray) -> np.ndarray:
    """An element-wise function of attncalc/derivation/elementwise.py over intervals: from its values at the ends
    and at its declared critical points. A function that declares none is refused (ValueError: the
    run gives no interval, and check no interval credit through it)."""
    from .elementwise import elementwise

    f = elementwise(fn)
    if f.numeric is None or f.critical is None:
        raise ValueError(f"element-wise function {fn!r} declares no critical points")
    numeric = f.numeric

    def scalar(p: float) -> float:
        with np.errstate(all="ignore"):
            return float(np.asarray(numeric(np.asarray([p], dtype=float)), dtype=float)[0])

    a = point(x)
    out = np.empty(a.shape, dtype=object)
    for idx, v in np.ndenumerate(a):
        out[idx] = image(v, scalar, f.critical)
    return out
