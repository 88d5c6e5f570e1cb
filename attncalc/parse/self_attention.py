"""Kind self-attention: the input rows X, the projections W_Q, W_K, W_V, the mask."""

from __future__ import annotations

from typing import Any

import numpy as np

from .limits import MAX_SCORES
from .reader import Reader, check_tokens, require, shape_text
from .types import Given, Problem, Settings
from .window import band, read_window


def read(r: Reader, t: dict[str, Any], settings: Settings) -> tuple[dict[str, Given], np.ndarray | None, str | None]:
    X = r.matrix(require(r, t, "X", "the input rows x_i"), "given.X")
    n, d = X.shape
    if n * n > MAX_SCORES:
        raise r.fail(
            "given.X",
            f"{n:,} rows make {n:,} × {n:,} = {n * n:,} scores: at most {MAX_SCORES:,} (256 × 256) are computed",
        )
    g = {"X": X}
    row = settings.convention != "column"
    widths: dict[str, int] = {}
    for name in ("W_Q", "W_K", "W_V"):
        if name not in t:
            widths[name] = d
            continue
        M = r.matrix(t[name], f"given.{name}")
        have = M.shape[0] if row else M.shape[1]
        if have != d:
            want = f"{d}×k" if row else f"k×{d}"
            conv = "row" if row else "column"
            raise r.fail(
                f"given.{name}", f"is {shape_text(M)}, but X has width {d}: the {conv} convention needs {want}"
            )
        widths[name] = M.shape[1] if row else M.shape[0]
        g[name] = M
    if widths["W_Q"] != widths["W_K"]:
        raise r.fail(
            "given.W_K",
            f"gives keys of width {widths['W_K']} but W_Q gives queries of width {widths['W_Q']}; Q Kᵀ needs them equal",
        )
    mask = None
    mask_text = None
    if "mask" in t:
        raw = t["mask"]
        if isinstance(raw, str):
            mask_text = r.string(raw, "given.mask", ("causal",))
            mask = np.tril(np.ones((n, n), dtype=bool))
        else:
            M = r.matrix(raw, "given.mask")
            if M.shape != (n, n):
                raise r.fail("given.mask", f"is {shape_text(M)} but X has {n} rows: the mask must be {n}×{n}")
            if not np.all((M.floats == 0) | (M.floats == 1)):
                raise r.fail("given.mask", "entries must be 0 or 1 (1 = may attend)")
            mask = M.floats == 1
            empty = [i + 1 for i in range(n) if not mask[i].any()]
            if empty:
                raise r.fail("given.mask", f"row {empty[0]} lets the position attend to nothing; every row needs a 1")
    return g, mask, mask_text


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind self-attention, past the top level."""
    given, mask, mask_text = read(r, raw["given"], common["settings"])
    check_tokens(r, common["tokens"], given["X"].shape[0], "given.X has")
    window = read_window(r, raw["given"])
    if window is not None:  # the sliding window (issue 30) narrows the causal mask
        if mask is not None and mask_text != "causal":
            raise r.fail("given.window", "slides with a causal mask: leave the mask out, or make it causal")
        n = given["X"].shape[0]
        mask, mask_text = band(n, n, window, 0), "causal"
    return Problem(given=given, head=None, mask=mask, mask_text=mask_text, window=window, **common)
