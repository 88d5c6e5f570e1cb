"""Homework for kind dpo: --tokens preference pairs (1 to 4) of log-probabilities in quarters, a β of 0.1,
0.2 or 0.5 and a loss (sigmoid, ipo or hinge) drawn per variant; a sigmoid variant in three takes cDPO's
label smoothing ε = 0.1, and every third variant gives the policy's log-probabilities per token (two or
three tokens a response, summed in the derivation).

A variant is unfit when a pair's logit h is 0 (the rewards tie: the pair says nothing, and the chosen
and rejected could be swapped unseen), when an IPO logit sits at its target 1/(2β) or a hinge's β h at 1
(the loss's kink), or when every hinge loss is 0 (nothing to compute past the margin).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from .base import Drawer, only
from .options import Options

NEAR = 0.05  # how close to a tie or a kink a variant may come (in units of h or β h)


def _check(o: Options) -> None:
    only(o, set(), "dpo")


def _quarter(rng: random.Random, lo: int, hi: int) -> float:
    return rng.randint(lo * 4, hi * 4) / 4


def _draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    pairs = o.tokens
    loss = rng.choice(("sigmoid", "ipo", "hinge"))
    # a quiz's variants ask the same questions (the LMS draws one per student): one loss for the set,
    # from the seed, and no token lists or smoothing, which add or change steps
    same = o.one_shape
    if same:
        loss = ("sigmoid", "ipo", "hinge")[o.seed % 3]
    given: dict[str, Any] = {"beta": rng.choice((0.1, 0.2, 0.5))}
    per_token = number % 3 == 0 and not same
    for side in ("chosen", "rejected"):
        ref = [_quarter(rng, -20, -4) for _ in range(pairs)]
        policy = [r + _quarter(rng, -2, 2) for r in ref]
        given[f"reference_{side}"] = ref
        if per_token:  # the policy's sum split into two or three tokens
            rows = []
            for total in policy:
                n = rng.choice((2, 3))
                parts = [_quarter(rng, -3, 0) - 0.25 for _ in range(n - 1)]
                while total - sum(parts) > -0.25:  # every token's log-probability below 0
                    parts = [p / 2 for p in parts]
                rows.append([*parts, total - sum(parts)])
            given[f"policy_{side}"] = rows
        else:
            given[f"policy_{side}"] = policy
    if loss != "sigmoid":
        given["loss"] = loss
    elif number % 3 == 1 and not same:
        given["label_smoothing"] = 0.1
    return {
        "title": f"Variant {number}",
        "kind": "dpo",
        "settings": {"decimals": max(o.decimals, 4)},
        "given": given,
    }


def _fine(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    g = raw["given"]
    beta = float(g["beta"])
    h = np.asarray(d["logits"], dtype=float)
    if np.any(np.abs(h) < NEAR):
        return "a pair whose logit is 0 (the rewards tie)"
    loss = g.get("loss", "sigmoid")
    if loss == "ipo" and np.any(np.abs(h - 1 / (2 * beta)) < NEAR):
        return "an IPO logit at its target 1/(2β)"
    if loss == "hinge":
        if np.any(np.abs(beta * h - 1) < NEAR * beta):
            return "a hinge at its kink, β h = 1"
        if np.all(np.asarray(d["losses"], dtype=float) == 0):
            return "every hinge loss 0"
    return None


DRAWER = Drawer(
    "DPO homework",
    _check,
    _draw,
    _fine,
    min_tokens=1,
    max_tokens=4,
    reads=frozenset({"tokens", "decimals"}),
    min_decimals=4,
)
