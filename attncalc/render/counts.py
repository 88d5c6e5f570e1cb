"""How the views write a :class:`~attncalc.derivation.Count`: the whole number with thousands
separators, and bytes also in GiB, as an exact fraction of 2^30 and its decimal."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

import numpy as np

from ..derivation import Count
from ..derivation.fmt import fmt

GIB = 2**30
MAX_PLACES = 12  # a tiny GiB is shown to at most this many decimals


def whole_text(s: Count) -> str:
    """The count with thousands separators ("124,439,808"), or the float where it is not whole."""
    if s.whole is not None:
        return f"{s.whole:,}"
    return fmt(float(np.asarray(s.value, dtype=float)), 6)


def gib(s: Count, decimals: int) -> tuple[str, str] | None:
    """Bytes in GiB: ("15,189/32,768", "0.464"), the exact fraction and its decimal (at ``decimals``
    places, more where that would show 0); None for a count of something else."""
    if s.unit != "bytes" or s.whole is None:
        return None
    q = Fraction(s.whole, GIB)
    exact = f"{q.numerator:,}" if q.denominator == 1 else f"{q.numerator:,}/{q.denominator:,}"
    return exact, gib_decimal(q, decimals)


SIGNIFICANT = 3  # a GiB decimal below 1 shows at least this many significant digits: 0.0000687, not 0.0001


def gib_decimal(q: Fraction, decimals: int) -> str:
    """The fraction rounded half up, to ``decimals`` places or, for a value below 1 that would show fewer
    than three significant digits there (a per-token cache, 0.0000687 GiB), to the first places that
    show three."""
    with localcontext() as ctx:
        ctx.prec = 60
        x = Decimal(q.numerator) / Decimal(q.denominator)
        places = decimals
        while True:
            r = x.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
            enough = r != 0 and (abs(x) >= 1 or len(r.as_tuple().digits) >= SIGNIFICANT)
            if x == 0 or r == x or enough or places >= MAX_PLACES:
                return f"{r:,f}"
            places += 1


def gib_text(s: Count, decimals: int) -> str:
    """ "= 15,189/32,768 GiB ≈ 0.464 GiB" ("= 2 GiB" when whole), or "" for a count of something else."""
    g = gib(s, decimals)
    if g is None:
        return ""
    exact, dec = g
    text = f"= {exact} GiB" if "/" not in exact else f"= {exact} GiB ≈ {dec} GiB"
    return text + smaller_unit(s, decimals)


SMALLER = (("MiB", 2**20), ("KiB", 2**10))


def smaller_unit(s: Count, decimals: int) -> str:
    """Below 1 GiB, the size also in the largest binary unit that shows it as at least 1 (a per-token
    cache: "= 1/2,048 GiB ≈ 0.000488 GiB = 512 KiB"); "" at 1 GiB or more, or below 1 KiB (the bytes say it)."""
    if s.whole is None or not 0 < s.whole < GIB:
        return ""
    for unit, size in SMALLER:
        if s.whole >= size:
            q = Fraction(s.whole, size)
            if q.denominator == 1:
                return f" = {q.numerator:,} {unit}"
            return f" ≈ {gib_decimal(q, decimals)} {unit}"
    return ""


def line(s: Count) -> str:
    """ "N = 50,257 · 768 = 38,597,376": the formula's numbers put in, then the count."""
    value = whole_text(s)
    if not s.written or s.written == value:
        return f"{s.symbol} = {value}"
    return f"{s.symbol} = {s.written} = {value}"
