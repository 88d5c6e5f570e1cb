"""Rounding as people do by hand (half up, not banker's): one function that the number formatting
and the hand chains share, below both."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal

# Enough digits for any double (309 before the point) at any number of decimals an answer can be
# written with (a literal has at most 40 digits and an exponent of at most 400): quantize never
# needs more, and with no traps it could not raise if it did.
_ROUNDING = Context(prec=1000, rounding=ROUND_HALF_UP, traps=[])


def round_half_up(x: float, decimals: int) -> float:
    """Round as people do by hand: 0.0625 -> 0.063 at 3 decimals (not banker's rounding)."""
    if not math.isfinite(x):
        return x
    # 12 significant digits first, to absorb binary noise: sums of decimals carry it (0.1645 is
    # stored as 0.16449999999999998), and by hand 0.1645 rounds up. Never fewer than 3 digits past
    # the asked decimals, so the pre-rounding can only move a value lying within noise of a tie
    # (3.003366813946857 at 10 decimals is 3.0033668139, not 3.0033668140 via 3.00336681395); where
    # that would take more digits than a double holds (17), the float's exact decimal is rounded.
    whole = len(str(int(abs(x)))) if abs(x) >= 1 else 0
    digits = max(12, whole + decimals + 3)
    exact = Decimal(x) if digits > 17 else Decimal(f"{x:.{digits}g}")
    q = _ROUNDING.quantize(exact, Decimal(1).scaleb(-decimals))
    return float(q) + 0.0  # + 0.0 turns -0.0 into 0.0
