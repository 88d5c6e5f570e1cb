"""The sliding window's slips: the causal band one key too wide (w + 1 keys) or too narrow (w − 1)."""

from __future__ import annotations

import numpy as np

from ..derivation.arith import Chain, MistakeNotApplicable
from ..parse.window import band


def allowed(
    chain: Chain, given: np.ndarray | None, window: int | None, offset: int, padding: np.ndarray | None
) -> np.ndarray | None:
    """Which keys each query may attend: the problem's own (``given``), or under a window slip the band
    of the slipped width (with the key padding, if any)."""
    if window is None or given is None:
        return given
    if chain.mistake == "window_too_wide":
        w = window + 1
    elif chain.mistake == "window_too_narrow":
        if window == 1:
            raise MistakeNotApplicable
        w = window - 1
    else:
        return given
    n, m = given.shape
    out = band(n, m, w, offset)
    if padding is not None:
        out &= padding[None, :]
    if np.array_equal(out, given) or not out.any(axis=1).all():
        raise MistakeNotApplicable  # the slip changes nothing here, or leaves a query no key
    return out


def words(window: int) -> str:
    return f"sliding window of {window} keys: query i sees keys k with i − {window} < k ≤ i"
