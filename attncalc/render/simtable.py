"""The summary table of a similarity problem: one row per pair (a_i, b_j), every measure side by side.

Shared by the terminal view and the sheets; only for rows (two flat vectors need no table).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..derivation import Derivation
from ..derivation.fmt import elide
from ..parse.similarity import labels

ROW_LIMIT = 32
HEADS = {"dots": "a · b", "cosines": "cos(a, b)", "distances": "‖a − b‖"}


def applies(d: Derivation) -> bool:
    return any(np.ndim(s.shown) >= 1 for s in d.steps if s.id in HEADS)


def table(d: Derivation, n: Callable[[Any], str]) -> tuple[tuple[str, ...], list[tuple[str, ...]], str]:
    """(column heads, rows, title); a row of "⋮" stands for elided pairs."""
    p = d.problem
    la, lb = labels(p)
    rows_a = 1 if len(p.given["A"].shape) == 1 else p.given["A"].shape[0]
    B = p.given.get("B", p.given["A"])
    rows_b = 1 if len(B.shape) == 1 else B.shape[0]
    present = [d.step(i) for i in HEADS if i in d.step_ids]
    values = {s.id: np.asarray(s.shown, dtype=float).reshape(rows_a, rows_b) for s in present}
    self_pairs = "B" not in p.given
    pairs = [(i, j) for i in range(rows_a) for j in range(rows_b) if not (self_pairs and j <= i)]
    if not pairs:  # one row compared with itself
        pairs = [(0, 0)]
    best = _most_similar(values, pairs)
    out: list[tuple[str, ...]] = []
    for pair in elide(pairs, ROW_LIMIT):
        if pair is None:
            out.append(("⋮", "", *[""] * len(present), ""))
            continue
        i, j = pair
        mark = "◀ most similar" if pair == best and len(pairs) > 1 else ""
        out.append((la[i], lb[j], *(n(values[s.id][i, j]) for s in present), mark))
    title = "Every pair" + (" (each pair once; a row with itself left out)" if self_pairs else "")
    return ("a", "b", *(HEADS[s.id] for s in present), ""), out, title


def _most_similar(values: dict[str, np.ndarray], pairs: list[tuple[int, int]]) -> tuple[int, int]:
    """By cosine when computed, else by dot product, else by the smallest distance."""
    if "cosines" in values:
        return max(pairs, key=lambda ij: values["cosines"][ij])
    if "dots" in values:
        return max(pairs, key=lambda ij: values["dots"][ij])
    return min(pairs, key=lambda ij: values["distances"][ij])
