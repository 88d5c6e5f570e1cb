"""Kind self-attention: the input rows X, the projections W_Q, W_K, W_V, the mask.

The declaration reads the keys (X is n × d, a mask matrix n × n); the rules here are the ones it
cannot say: each projection acts on rows of width d from the side the convention says, W_Q and W_K
give queries and keys of one width, a mask matrix is 0/1 with a 1 in every row, and at most
MAX_SCORES scores are computed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..schema.attention import SELF_ATTENTION_GIVEN
from .data import SelfAttention
from .declared import Dims, read_declared
from .limits import MAX_SCORES
from .reader import Reader, check_tokens, shape_text
from .types import Given, Problem, Settings
from .window import band


def _projections(r: Reader, X: Given, given: dict[str, Any], row: bool) -> dict[str, Given]:
    """The projections the file gives, each acting on rows of width d; W_Q and W_K of one output width."""
    d = X.shape[1]
    conv = "row" if row else "column"
    widths: dict[str, int] = {}
    W: dict[str, Given] = {}
    for name in ("W_Q", "W_K", "W_V"):
        M: Given | None = given[name]
        if M is None:
            widths[name] = d
            continue
        have = M.shape[0] if row else M.shape[1]
        if have != d:
            want = f"{d}×k" if row else f"k×{d}"
            raise r.fail(
                f"given.{name}", f"is {shape_text(M)}, but X has width {d}: the {conv} convention needs {want}"
            )
        widths[name] = M.shape[1] if row else M.shape[0]
        W[name] = M
    if widths["W_Q"] != widths["W_K"]:
        raise r.fail(
            "given.W_K",
            f"gives keys of width {widths['W_K']} but W_Q gives queries of width {widths['W_Q']}; Q Kᵀ needs them equal",
        )
    return W


def _mask(r: Reader, raw: Given | str | None, n: int) -> tuple[np.ndarray | None, str | None]:
    """The mask as booleans (True = may attend) and its name ("causal"), or (None, None)."""
    if raw is None:
        return None, None
    if isinstance(raw, str):
        return np.tril(np.ones((n, n), dtype=bool)), raw
    if not np.all((raw.floats == 0) | (raw.floats == 1)):
        raise r.fail("given.mask", "entries must be 0 or 1 (1 = may attend)")
    mask = raw.floats == 1
    empty = [i + 1 for i in range(n) if not mask[i].any()]
    if empty:
        raise r.fail("given.mask", f"row {empty[0]} lets the position attend to nothing; every row needs a 1")
    return mask, None


def read(r: Reader, t: Any, settings: Settings) -> SelfAttention:
    dims = Dims()
    given = read_declared(r, t, SELF_ATTENTION_GIVEN, "given", dims, skip=("mask",))
    X: Given = given["X"]
    n = X.shape[0]
    if n * n > MAX_SCORES:
        raise r.fail(
            "given.X",
            f"{n:,} rows make {n:,} × {n:,} = {n * n:,} scores: at most {MAX_SCORES:,} (256 × 256) are computed",
        )
    W = _projections(r, X, given, settings.convention != "column")
    mask_raw = read_declared(r, t, SELF_ATTENTION_GIVEN, "given", dims, only=("mask",))["mask"]  # n × n, bound by X
    mask, mask_text = _mask(r, mask_raw, n)
    window = given["window"]
    if window is not None:  # the sliding window (issue 30) narrows the causal mask
        if mask is not None and mask_text != "causal":
            raise r.fail("given.window", "slides with a causal mask: leave the mask out, or make it causal")
        mask, mask_text = band(n, n, window, 0), "causal"
    return SelfAttention(X, W, mask, mask_text, window)


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind self-attention, past the top level."""
    d = read(r, raw["given"], common["settings"])
    check_tokens(r, common["tokens"], d.X.shape[0], "given.X has")
    return Problem(given={"X": d.X, **d.W}, data=d, **common)
