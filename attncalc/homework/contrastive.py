"""Homework for kind contrastive: --tokens pairs of --dim-wide queries and keys, CLIP's loss (rows
normalised, symmetric) at a temperature drawn from 0.5, 0.25, 0.2 and 2. With --dim 2 the rows are drawn
from vectors whose lengths are whole numbers ((3, 4), (0, 2), ...), so the normalised rows come out
exactly by hand. A variant is unfit when two entries of a row or of a column of the logits tie (the
softmax would not tell the keys apart), when the logits are symmetric (the column softmax would repeat
the row's, and the wrong-axis slip would not show), when a probability rounds to 0 at the decimals shown
(−ln of the written 0 is no number), or when two queries or two keys point the same way."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from .base import Draw, Drawer, only
from .options import Options

# 2-D rows of whole-number length, and their sign flips
_PYTHAGOREAN = ((3, 4), (4, 3), (1, 0), (0, 1), (0, 2), (2, 0), (6, 8), (8, 6), (5, 12), (12, 5))
ROWS_2D = tuple(sorted({(sx * x, sy * y) for x, y in _PYTHAGOREAN for sx in (1, -1) for sy in (1, -1)}))
TEMPERATURES = (0.5, 0.25, 0.2, 2)


def _check(o: Options) -> None:
    only(o, set(), "contrastive")


def _rows(d: Draw, rng: random.Random, n: int, dim: int) -> list[list[int | float]]:
    if dim == 2 and d.values == "int":
        return [list(rng.choice(ROWS_2D)) for _ in range(n)]
    return d.inputs(n, dim)


def _draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    d = Draw(rng, o.values)
    given: dict[str, Any] = {
        "queries": _rows(d, rng, o.tokens, o.dim),
        "keys": _rows(d, rng, o.tokens, o.dim),
        "temperature": rng.choice(TEMPERATURES),
    }
    return {
        "title": f"Variant {number}",
        "kind": "contrastive",
        "given": given,
        "settings": {"decimals": o.decimals},
    }


def _apart(x: np.ndarray, apart: float) -> bool:
    """No two entries of any row of x within ``apart`` of each other."""
    return all(np.all(np.diff(np.sort(row)) >= apart) for row in x)


def _fine(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    Z = np.asarray(d["logits"], dtype=float)
    apart = 10.0**-o.decimals
    if not o.allow_ties and not (_apart(Z, apart) and _apart(Z.T, apart)):
        return "tied logits"
    if np.allclose(Z, Z.T, atol=apart):
        return "symmetric logits (the column softmax repeats the row's)"
    probs = [np.asarray(d[k], dtype=float) for k in ("row_probabilities", "column_probabilities") if k in d]
    if any(float(P.min()) < apart for P in probs):  # written 0.000: its −ln is no number to work on from
        return "a probability that rounds to 0"
    for name in ("normalized_queries", "normalized_keys"):
        U = np.round(np.asarray(d[name], dtype=float), 9)
        if len({tuple(r) for r in U}) < len(U):
            return "two rows pointing the same way"
    return None


def _reject(o: Options, raw: dict[str, Any]) -> str | None:
    for name in ("queries", "keys"):
        if any(not any(x != 0 for x in row) for row in raw["given"][name]):
            return "a row of zeros (it has no direction to normalise)"
    return None


DRAWER = Drawer(
    "Contrastive-loss homework", _check, _draw, _fine, reject=_reject, min_tokens=2, max_tokens=8, default_dim=2
)
