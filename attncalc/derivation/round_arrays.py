"""Rounding whole arrays half up, the very floats :func:`~.rounding.round_half_up` gives entry by
entry, in numpy: the hand chain rounds every matrix at every step, and a check reruns the chain at
each precision an answer was written with, up to the 17 significant digits of a float.

round_half_up has two regimes (rounding.py):

* **pre-rounded**: a number with ``whole + decimals + 3 <= 17`` (``whole`` the digits before the
  point) is first written to 12 significant digits (more when the decimals ask for them), then
  rounded half up: binary noise next to a tie goes the way a person's would;
* **exact**: otherwise the float's exact binary value is rounded half up at the asked decimals.

Both are decided from |x|·10^d as a float and its exact rounding error (Dekker's two-product;
10^d is an exact double up to 10^22): away from a tie, both are the exact value rounded half up.
Near a tie, the pre-rounded regime is decided here for numbers pre-rounded to 12 digits, and the
exact regime always. The rest (ties pre-rounded to 13 to 17 digits, the exact regime past 22
decimals or 2^53 units, the non-finite) take round_half_up itself.
"""

from __future__ import annotations

import numpy as np

from .rounding import round_half_up

_round_vec = np.vectorize(round_half_up, otypes=[float])

_SPLIT = 134217729.0  # 2^27 + 1: Veltkamp's split of a double into two 26-bit halves
_POW10 = 10.0 ** np.arange(23)  # exact doubles: 5^22 < 2^53
_TWO52 = 2.0**52
_TWO53 = 2.0**53


def round_array(x: np.ndarray, decimals: int) -> np.ndarray:
    """:func:`round_half_up` of every entry, the same floats (see the module's note)."""
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return x
    shape, x = x.shape, x.reshape(-1)
    if decimals <= 9:  # (the hand chain's usual case, often on small arrays: the short way first)
        with np.errstate(all="ignore"):
            out, rest = _short(x, decimals)
        if rest.any():
            out[rest] = _any(x[rest], decimals)
        return out.reshape(shape)
    return _any(x, decimals).reshape(shape)


def _short(x: np.ndarray, decimals: int) -> tuple[np.ndarray, np.ndarray]:
    """Entries with fewer than 9 digits to the asked decimals (at most 9 decimals): pre-rounded to 12
    digits, decided here but for the few next to a tie that only round_half_up can tell; the rest
    (more digits, non-finite, those few) are left to the general way."""
    unit = _POW10[decimals]
    scaled = np.abs(x) * unit
    n = np.floor(scaled)
    up = np.floor(scaled + 0.5)
    rest = ~(scaled < 1e9)  # (also the non-finite)
    near = np.abs(scaled - n - 0.5) <= 1e-6 + 1e-11 * scaled
    if near.any():
        at_tie, decided = _twelve_digits_at_tie(np.abs(x), n, unit)
        up = np.where(near & decided, at_tie, up)
        rest |= near & ~decided
    return np.sign(x) * up / unit + 0.0, rest


def _any(x: np.ndarray, decimals: int) -> np.ndarray:
    """Every entry, in either regime (see the module's note)."""
    with np.errstate(all="ignore"):
        finite = np.isfinite(x)
        a = np.where(finite, np.abs(x), 0.0)
        whole = np.searchsorted(_POW10, np.floor(a), side="right")  # digits before the point (0 below 1)
        exact = finite & (whole + decimals >= 15)  # round_half_up keeps more than 17 digits: exact
        out = np.empty_like(x)
        slow = ~finite
        pre = finite & ~exact
        if pre.any():
            out[pre], slow[pre] = _pre_rounded(x[pre], decimals, whole[pre] + decimals + 3 <= 12)
        if exact.any():
            out[exact], slow[exact] = _exact(x[exact], decimals)
        out += 0.0  # -0.0 → 0.0, as round_half_up
    if slow.any():
        out[slow] = _round_vec(x[slow], decimals)
    return out


def _pre_rounded(x: np.ndarray, decimals: int, twelve: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pre-rounded regime: the rounded floats and where round_half_up itself must decide.

    Pre-rounding keeps at least 3 digits past the asked decimals, so it moves x by at most 0.0005
    units of the last asked place: further than that from a tie, x's exact value rounded half up is
    the answer. Nearer, the entries pre-rounded to 12 digits (``twelve``) are decided here; with 13 to
    17 digits (where the float's own noise starts to show) round_half_up decides."""
    a = np.abs(x)
    unit = _POW10[decimals]
    s = a * unit  # below 10^14 here (whole + decimals <= 14)
    f = np.floor(s)
    g = (s - f - 0.5) + _product_error(a, unit, s)  # how far the exact a·10^d lies above the tie f + ½
    n = f + (g >= 0)
    near = np.abs(g) <= 1e-3
    slow = near
    if near.any():  # (most arrays have no entry near a tie: then rounding half up is all there is)
        at_tie, decided = _twelve_digits_at_tie(a, f, unit)
        n = np.where(near & decided, at_tie, n)
        slow = near & ~(twelve & decided)
    return np.sign(x) * n / unit, slow


def _twelve_digits_at_tie(a: np.ndarray, f: np.ndarray, unit: float) -> tuple[np.ndarray, np.ndarray]:
    """Near the tie t = (f + ½)/10^d: the 12 significant digits round_half_up keeps first make |x| the
    tie itself when |x| − t is below half their last place (5e-13·t at least), and leave it on its side
    when above it (5e-12·t at most). The whole number of units each entry rounds to, and where these
    bounds decide it (between them, the exact function does)."""
    t = (f + 0.5) / unit
    d = a - t
    tie = np.abs(d) <= 1e-15 * t
    side = np.abs(d) >= 1e-11 * t
    return np.where(tie, f + 1, f + (d > 0)), tie | side


def _exact(x: np.ndarray, decimals: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact regime: |x|·10^d rounded half up as a real number, then divided by 10^d (one
    correctly rounded division, as Decimal → float is correctly rounded); and where round_half_up
    itself must decide."""
    a = np.abs(x)
    out = x.copy()
    # a float is its own rounding when the rounding moves it (by at most half of 10^-d) less than half
    # the gap to its neighbours (the gap below a power of two is half the one above): the nearest
    # float stays x. (With this, every other entry has fewer than 2^53 units: s below.)
    gap = np.spacing(a) / np.where(np.frexp(a)[0] == 0.5, 2, 1)
    same = 10.0**-decimals * (1 + 2.0**-40) < gap
    if decimals > 22:  # 10^d is no longer an exact double: only the floats that stay themselves
        return out, ~same
    unit = _POW10[decimals]
    s = a * unit
    err = _product_error(a, unit, s)  # a·unit = s + err exactly (|err| ≤ half s's spacing)
    f = np.floor(s)
    frac = s - f  # exact
    # below 2^52, frac and 0.5 are multiples of s's spacing and |err| is at most half of it: s's own
    # fraction decides, and a fraction of exactly 0.5 goes up unless err takes it below
    low = f + ((frac > 0.5) | ((frac == 0.5) & (err >= 0)))
    # from 2^52 to 2^53, s is a whole number and err (|err| ≤ 1/2) is rounded half up on its own
    fe = np.floor(err)
    high = s + fe + ((err - fe) >= 0.5)
    n = np.where(s < _TWO52, low, high)
    fits = ~same & (s < _TWO53)
    out[fits] = (np.sign(x) * n / unit)[fits]
    return out, ~same & ~fits


def _product_error(a: np.ndarray, b: float, p: np.ndarray) -> np.ndarray:
    """The exact rounding error of p = fl(a·b) (Dekker's two-product, for finite a below 1e300)."""
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    cb = _SPLIT * b
    bh = cb - (cb - b)
    bl = b - bh
    return np.asarray(((ah * bh - p) + ah * bl + al * bh) + al * bl)
