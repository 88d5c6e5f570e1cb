"""Homework for kind moe: --tokens rows of --dim-wide inputs routed over 3 or 4 linear experts (d × d
each), whole numbers throughout. A variant is top-2 with renormalised gates (Mixtral) or top-1 with the
probability as its gate (Switch), --top-k choosing; every second variant adds a capacity factor of 1
(each expert takes ceil(n · top_k / E) assignments, in token order). An LMS quiz (``one_shape``) takes
the number of experts, top_k and whether there is a capacity from the seed, so that every variant asks
the same questions.

A variant is unfit when two of a token's probabilities that decide its top k (the chosen experts' order,
and the k-th against the next) are within two units of the last decimal shown (the answer would hang on a
tie or on rounding), when a capacity drops nothing (the step would change
nothing), or when every token picks the same experts (the fractions would say nothing of the balance).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from .base import Draw, Drawer, only, refuse
from .options import Options

WEIGHTS = (-1, 0, 0, 1, 1, 2)  # the experts'
ROUTER = (-2, -1, 0, 1, 2, 3)  # the router's: more distinct logits, fewer ties


def _check(o: Options) -> None:
    only(o, {"top_k"}, "moe")
    if o.top_k is not None and o.top_k not in (1, 2):
        raise refuse(
            "--top-k", f"--top-k {o.top_k}: moe homework routes each token to 1 (Switch) or 2 (Mixtral) experts"
        )


def _shape(o: Options, rng: random.Random, number: int) -> tuple[int, int, bool]:
    """The number of experts, top_k and whether a capacity applies: per variant, or from the seed for a quiz."""
    if o.one_shape:
        pick = random.Random(o.seed)
        E, k, cap = pick.choice((3, 4)), pick.choice((1, 2)), pick.random() < 0.5
    else:
        E, k, cap = rng.choice((3, 4)), rng.choice((1, 2)), number % 2 == 0
    return E, (o.top_k if o.top_k is not None else k), cap


def _draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    d = Draw(rng, "int")
    E, k, cap = _shape(o, rng, number)
    n, dim = o.tokens, o.dim
    given: dict[str, Any] = {
        "X": d.inputs(n, dim),
        "W_router": [[rng.choice(ROUTER) for _ in range(E)] for _ in range(dim)],
        "experts": [[[rng.choice(WEIGHTS) for _ in range(dim)] for _ in range(dim)] for _ in range(E)],
        "top_k": k,
    }
    if k == 1:
        given["renormalize"] = False
    if cap:
        given["capacity_factor"] = 1
    return {
        "title": f"Variant {number}",
        "kind": "moe",
        "tokens": [f"t{i}" for i in range(1, n + 1)],
        "given": given,
        "settings": {"decimals": o.decimals},
    }


def _fine(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    P = np.asarray(d["probabilities"], dtype=float)
    apart = 10.0**-o.decimals
    k = int(raw["given"]["top_k"])
    # the ranks that decide the answer: the chosen experts' order, and the cut after the k-th
    gaps = [-np.diff(np.sort(row)[::-1])[: min(k, len(row) - 1)] for row in P]
    if not o.allow_ties and any(np.any(g < 2 * apart) for g in gaps):
        return "two probabilities of a token within rounding of each other"
    if "kept" in d.step_ids and np.all(np.asarray(d["kept"]) == 1):
        return "a capacity that drops nothing"
    top = np.asarray(d["top_k"], dtype=int)
    if len({tuple(sorted(row)) for row in top}) == 1 and len(top) > 1:
        return "every token routed to the same experts"
    Y = np.asarray(d["expert_outputs"], dtype=float)
    if np.any(np.all(Y == 0, axis=-1)):
        return "an expert output of zeros"
    return None


DRAWER = Drawer(
    "Mixture-of-experts homework",
    _check,
    _draw,
    _fine,
    min_tokens=2,
    max_tokens=8,
    reads=frozenset({"tokens", "dim", "allow_ties", "decimals"}),
)
