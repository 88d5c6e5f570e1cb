"""Sliding-window attention (Beltagy et al. 2020; Mistral's sliding window): with a causal mask, query
i attends the keys k with i − w < k ≤ i, its w last keys including its own. With a KV cache the queries
stand at the end (lower-right, as the causal mask): the query of row i is at position t + i."""

from __future__ import annotations

from typing import Any

import numpy as np

from .reader import Reader, describe_raw


def read_window(r: Reader, t: dict[str, Any], key: str = "given.window") -> int | None:
    """``window`` of the table ``t``: a whole number of at least 1, or None when absent."""
    if "window" not in t:
        return None
    w = t["window"]
    if isinstance(w, bool) or not isinstance(w, int) or w < 1:
        raise r.fail(key, f"expected a whole number of at least 1 (the keys each query sees), got {describe_raw(w)}")
    return w


def band(n: int, m: int, w: int, offset: int) -> np.ndarray:
    """n × m booleans: query i (at position offset + i) may attend key k when offset + i − w < k ≤ offset + i."""
    w = min(w, offset + n)  # a window wider than every key before the last query is the causal mask (and fits an int64)
    q = offset + np.arange(n)[:, None]
    k = np.arange(m)[None, :]
    return (k <= q) & (k > q - w)


def words(w: int) -> str:
    return f"sliding window w = {w}: query i sees keys i − {w} < k ≤ i"
