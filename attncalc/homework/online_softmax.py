"""Homework for kind online-softmax: one row of --tokens whole-number (or half) scores in blocks of 2, with
values V of width --dim; or, with --score dot | scaled-dot, two queries and --tokens keys whose scores are
computed first. No two scores of a row tie, and the running maximum rises after the first block in some row
(so the rescale is neither 0 nor 1 somewhere, and the rescaling slips show); no column of V or K is all
zeros or the same for every key (a dead unit: an output column that is constant, a feature that cancels)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from .base import Draw, Drawer, choose, only
from .options import Options

# scores by --values: whole numbers (their exponentials are short exact forms e⁻²) or halves
SCORES = {
    "int": tuple(range(-3, 9)),
    "decimal": tuple(x / 2 for x in range(-4, 12)),
}


def _check(o: Options) -> None:
    if o.score is not None:
        choose(o, "score", o.score, ("scaled-dot", "dot"))
    only(o, {"score"}, "online-softmax")


def _draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    m = o.tokens
    style = o.values if o.values != "mixed" else rng.choice(("int", "decimal"))
    pool = SCORES[style]
    d = Draw(rng, o.values)
    given: dict[str, Any] = {}
    raw: dict[str, Any] = {"title": f"Variant {number}", "kind": "online-softmax"}
    if o.score is None:
        given["scores"] = rng.sample(pool, m)  # distinct: no ties
    else:
        raw["score"] = o.score
        given["Q"] = d.inputs(2, o.dim)
        given["K"] = d.inputs(m, o.dim)  # no column of K all zeros or the same for every key (it would cancel)
    given["V"] = d.inputs(m, o.dim)  # no column of V all zeros or the same for every key: no dead output unit
    given["block"] = 2 if m > 2 else 1
    raw["given"] = given
    raw["settings"] = {"decimals": o.decimals}
    return raw


def _fine(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    S = np.atleast_2d(np.asarray(d["scores"] if "scores" in d else raw["given"]["scores"], dtype=float))
    apart = 10.0**-o.decimals
    for row in S:
        s = np.sort(row)
        if not o.allow_ties and np.any(np.diff(s) < apart):
            return "tied scores"
    block = int(raw["given"]["block"])
    rises = any(max(row[block:], default=-np.inf) > max(row[:block]) for row in S)
    return None if rises else "the running maximum never rises after the first block (every later rescale is 1)"


DRAWER = Drawer("Online-softmax homework", _check, _draw, _fine, min_tokens=3, max_tokens=12, default_dim=2)
