"""Homework for kind quantization: a --tokens × --dim weight matrix of one-decimal entries (none zero),
quantized to 3, 4 or 8 bits by a scheme (absmax or zeropoint) and a granularity (tensor, row, or groups
of half a row when --dim is even) drawn per variant; every other variant has an input row x.

A variant is unfit when a rounding is close to a tie (w / scale, or −min / scale, within 0.05 of a half),
when the scales written to the sheet's decimals (4, or 6 at 8 bits) give other integers than the true
ones (a student carries the written scale), when a row or group granularity gives every block the
same scale, or when every weight lies on the grid (every rounding error 0 at the sheet's decimals: the
errors teach nothing, and an answer of zeros would be right).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from .base import Drawer, only, refuse
from .options import Options

MIN_DECIMALS = 4
NEAR_TIE = 0.05


def _check(o: Options) -> None:
    only(o, set(), "quantization")
    if o.tokens * o.dim < 2:  # one weight is its own range: every variant would be on the grid
        raise refuse(
            "--dim",
            "quantization needs at least 2 weights (--tokens × --dim): a single weight is always on the grid, "
            "its rounding error 0",
        )


def _entry(rng: random.Random) -> float:
    return rng.choice([-1, 1]) * rng.randint(1, 30) / 10


def _draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    rows, cols = o.tokens, o.dim
    grans = ["tensor", "row"] + (["group"] if cols % 2 == 0 and cols >= 4 else [])
    given: dict[str, Any] = {
        "W": [[_entry(rng) for _ in range(cols)] for _ in range(rows)],
        "bits": rng.choice((3, 4, 8)),
        "scheme": rng.choice(("absmax", "zeropoint")),
        "granularity": rng.choice(grans),
    }
    if o.one_shape:  # a quiz's variants ask the same questions (an LMS draws one per student): one
        # scheme, granularity and bit width for the set, from the seed, and no input row; only a pair
        # that can leave a weight off the grid (a set of one shape cannot redraw it)
        pick = random.Random(o.seed)
        given["bits"] = pick.choice((3, 4, 8))
        given["scheme"], given["granularity"] = pick.choice(_teaching(rows, cols, grans))
    if given["granularity"] == "group":
        given["group"] = cols // 2
    if number % 2 == 0 and not o.one_shape:
        given["x"] = [rng.choice([-2, -1, 1, 2]) for _ in range(cols)]
    return {
        "title": f"Variant {number}",
        "kind": "quantization",
        # 8 bits: 255 steps, so a scale needs more digits for w / scale to keep its integer
        "settings": {"decimals": max(o.decimals, MIN_DECIMALS + (2 if given["bits"] == 8 else 0))},
        "given": given,
    }


def _teaching(rows: int, cols: int, grans: list[str]) -> list[tuple[str, str]]:
    """The (scheme, granularity) pairs whose blocks can hold a weight off the grid: absmax puts a block's
    largest |w| on it, zeropoint its least and greatest, so a block needs 2 or 3 weights; and one row
    by rows has a single scale, which the row granularity is there to vary."""
    size = {"tensor": rows * cols, "row": cols if rows > 1 else 0, "group": cols // 2}
    return [
        (scheme, g)
        for scheme in ("absmax", "zeropoint")
        for g in grans
        if size[g] >= (3 if scheme == "zeropoint" else 2)
    ]


def _near_tie(values: np.ndarray) -> bool:
    frac = np.abs(values - np.floor(values) - 0.5)
    return bool(np.any(frac < NEAR_TIE))  # (an exact half too: frac 0)


def _fine(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    g = raw["given"]
    W = np.asarray(g["W"], dtype=float)
    scales = np.asarray(d["scales"], dtype=float)
    outer_groups = scales.reshape(-1).size
    per = np.repeat(scales.reshape(-1), W.size // outer_groups).reshape(W.shape)
    if _near_tie(W / per):
        return "a rounding close to a tie"
    if g["scheme"] == "zeropoint":
        lows = np.asarray(d["ranges"], dtype=float).reshape(-1, 2)[:, 0]
        if _near_tie(-lows / scales.reshape(-1)):
            return "a zero point close to a tie"
    if g["granularity"] != "tensor" and np.unique(scales).size == 1:
        return "every scale the same"
    dec = raw["settings"]["decimals"]
    if np.all(np.abs(np.asarray(d["errors"], dtype=float)) < 0.5 * 10.0**-dec):
        return "every weight on the grid (every rounding error 0: an answer of zeros would be right)"
    # a student carries the scale as the sheet writes it: the integers must come out the same from it
    hand = np.floor(np.abs(scales) * 10**dec + 0.5) / 10**dec
    if np.any(hand == 0):
        return "a scale that rounds to 0 on the sheet"
    zp = np.asarray(d["zero_points"], dtype=float) if g["scheme"] == "zeropoint" else np.zeros(scales.shape)
    if g["scheme"] == "zeropoint":
        lows = np.asarray(d["ranges"], dtype=float).reshape(-1, 2)[:, 0]
        if not np.array_equal(np.round(-lows / hand.reshape(-1)), zp.reshape(-1)):
            return "a zero point that the sheet's rounded scale turns"
    hand_per = np.repeat(hand.reshape(-1), W.size // outer_groups).reshape(W.shape)
    zp_per = np.repeat(zp.reshape(-1), W.size // outer_groups).reshape(W.shape)
    hi = 2 ** g["bits"] - 1 if g["scheme"] == "zeropoint" else 2 ** (g["bits"] - 1) - 1
    lo = 0 if g["scheme"] == "zeropoint" else -hi
    q_hand = np.clip(np.round(W / hand_per) + zp_per, lo, hi)
    if not np.array_equal(q_hand, np.asarray(d["quantized"], dtype=float)):
        return "an integer that the sheet's rounded scale turns"
    return None


DRAWER = Drawer(
    "Quantization homework",
    _check,
    _draw,
    _fine,
    min_tokens=1,
    max_tokens=4,
    default_dim=4,
    reads=frozenset({"tokens", "dim", "decimals"}),
    min_decimals=MIN_DECIMALS,  # (8-bit variants: 2 more)
)
