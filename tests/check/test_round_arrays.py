"""The hand chain's whole-array rounding against round_half_up entry by entry, in both of
round_half_up's regimes: the 12-digit one and the exact one (a float's binary value rounded half up,
where the asked decimals and the digits before the point pass 17 significant digits: answers written
at full float precision make hand chains at 16 or more decimals)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attncalc.derivation import round_arrays
from attncalc.derivation.rounding import round_half_up


def _same(values: np.ndarray, decimals: int) -> None:
    fast = round_arrays.round_array(values, decimals)
    slow = np.array([round_half_up(float(v), decimals) for v in values])
    bad = ~((fast == slow) | (np.isnan(fast) & np.isnan(slow)))
    assert not bad.any(), (decimals, values[bad][:5], fast[bad][:5], slow[bad][:5])
    assert not np.signbit(fast[fast == 0]).any()


def _hard_values(rng: np.random.Generator, decimals: int) -> np.ndarray:
    """Exact decimal ties at the asked decimals (k + 1/2 units) and the floats either side of them,
    whole numbers, powers of two (where the gap below a float halves), full-precision values over
    many magnitudes, and the values of a softmax at full precision."""
    unit = 10.0**decimals
    k = rng.integers(-(10**6), 10**6, 300).astype(float)
    ties = (k + 0.5) / unit
    big_ties = (rng.integers(2**40, 2**52, 200).astype(float) + 0.5) / unit
    powers = 2.0 ** rng.integers(-60, 60, 200).astype(float)
    spread = rng.normal(size=400) * 10.0 ** rng.integers(-20, 20, 400)
    logits = rng.normal(size=300) * 8
    soft = np.exp(logits - logits.max())
    soft /= soft.sum()
    parts = [ties, big_ties, powers, spread, soft, soft * 190, k]
    parts += [np.nextafter(p, np.inf) for p in parts] + [np.nextafter(p, -np.inf) for p in parts]
    return np.concatenate([*parts, -np.concatenate(parts), np.array([0.0, -0.0, np.inf, -np.inf, np.nan])])


def test_every_regime_at_every_precision_is_round_half_up() -> None:
    rng = np.random.default_rng(38)
    for decimals in range(0, 31):
        _same(_hard_values(rng, decimals), decimals)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=20),
    st.integers(min_value=0, max_value=40),
)
def test_any_floats_at_any_precision_are_round_half_up(values: list[float], decimals: int) -> None:
    _same(np.array(values, dtype=float), decimals)


def test_full_precision_chains_are_rounded_in_numpy(monkeypatch) -> None:
    """At 10 to 20 decimals (answers written with up to 17 significant digits) a softmax's 65,536 values are
    rounded without calling round_half_up for each: it was every entry (tryout 32's contrastive file,
    11 million calls in one check)."""
    calls = []

    def counted(x, decimals):
        calls.append(len(np.ravel(x)))
        return np.array([round_half_up(float(v), decimals) for v in np.ravel(x)])

    monkeypatch.setattr(round_arrays, "_round_vec", counted)
    rng = np.random.default_rng(5)
    logits = rng.normal(size=65536) * 8
    soft = np.exp(logits - logits.max())
    soft /= soft.sum()
    rounded = 0
    for decimals in (10, 13, 14, 16, 17, 20):
        for values in (soft, soft * 190 - 3, logits):
            round_arrays.round_array(values, decimals)
            rounded += values.size
    # (only entries within a thousandth of a unit of a tie, or in the binade where the exact regime's
    # units pass 2^53, are left to round_half_up: a few in ten thousand here)
    assert sum(calls) < rounded / 1000, (sum(calls), rounded)
