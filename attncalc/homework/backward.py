"""Homework for kind attention-backward: the forward pass of multi-head attention, then its gradients.

Drawn like multi-head's variants (hand-friendly numbers, no row of zeros, no tied or extreme weights,
heads that differ), with a small upstream gradient (−1, 0, 1) and W_O when there are two or more
heads; a variant is refused when a head is dead in the backward pass: a head whose output gradient
or whose score gradient is all zeros teaches nothing about the softmax's backward.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from .base import TOKENS, Draw, Drawer, only
from .guards import zero_row
from .options import Options
from .transformer import check_heads, degeneracy_mh, sparse_matrix


def _check(o: Options) -> None:
    check_heads(o, "attention-backward")
    only(o, {"score", "mask", "heads", "kv_heads"}, "attention-backward")


def _draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    d = Draw(rng, o.values, "cell")  # small numbers: the scores stay out of saturation
    n, dm = o.tokens, o.dim
    kv = o.kv_heads or o.heads
    d_k = dm // o.heads
    proj = d.matrix if dm <= 4 else lambda r, c: sparse_matrix(d, rng, r, c, 2)  # as multi-head's: few saturated rows
    g: dict[str, Any] = {
        "X": d.inputs(n, dm),
        "heads": o.heads,
        "W_Q": proj(dm, dm),
        "W_K": proj(dm, kv * d_k),
        "W_V": d.matrix(dm, kv * d_k),
    }
    if kv != o.heads:
        g["kv_heads"] = kv
    if o.heads > 1:
        g["W_O"] = d.matrix(dm, dm)
    if o.mask:
        g["mask"] = o.mask
    g["grad_output"] = [[rng.choice((-1, 0, 1, 1)) for _ in range(dm)] for _ in range(n)]
    return {
        "title": f"Variant {number}",
        "kind": "attention-backward",
        "score": o.score or "scaled-dot",
        "tokens": list(TOKENS[:n]),
        "given": g,
        "settings": {"decimals": o.decimals, "exact": False},
    }


def _reject(o: Options, raw: dict[str, Any]) -> str | None:
    g = raw["given"]
    columns = (list(map(list, zip(*g[k], strict=True))) for k in ("W_Q", "W_K", "W_V"))
    return zero_row(g["X"], g.get("W_O"), g["grad_output"], *columns)


def _degeneracy(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    why = degeneracy_mh(o, raw, d)
    if why:
        return why
    small = 10.0 ** (-o.decimals) / 2
    for j in range(1, o.heads + 1):
        for step, what in (("grad_output", "output gradient"), ("grad_scores", "score gradient")):
            if np.all(np.abs(np.asarray(d[f"head.{j}.{step}"], dtype=float)) < small):
                return f"a dead head (head {j}'s {what} is all zeros)"
    return None


DRAWER = Drawer(
    "Attention backward-pass homework",
    _check,
    _draw,
    _degeneracy,
    _reject,
    max_tokens=5,
    default_dim=4,
)
