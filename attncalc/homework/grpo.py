"""Homework for kind grpo: a group of --tokens completions (2 to 6) of one to three tokens each, rewards
binary (0 or 1) or in quarters from 0 to 1, log-probabilities in tenths, old log-probabilities a few
tenths away (so some ratios leave [1 − ε, 1 + ε] and the clip binds), ε of 0.1 or 0.2, and per variant
the standard deviation (unbiased or population) and the normalisation (sequence or token); two variants
in three take a reference (the KL term, β 0.04 or 0.1).

A quiz's variants (``o.one_shape``) share the completions' lengths, the reference's presence, the std
and the normalisation, from the seed, so that every variant asks the same questions.

A variant is unfit when every reward is the same (every advantage is 0: nothing to learn), or when a
ratio comes within 0.005 of a clip bound (its rounded value would not say which side it is on).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from .base import Drawer, only
from .options import Options

NEAR = 0.005  # how close a ratio may come to 1 − ε or 1 + ε
_SHIFTS = (-0.3, -0.2, -0.1, 0, 0, 0, 0.1, 0.2, 0.3)


def _check(o: Options) -> None:
    only(o, set(), "grpo")


def _tenths(rng: random.Random, lo: int, hi: int) -> float:
    return rng.randint(lo, hi) / 10


def _shape(o: Options, rng: random.Random, number: int) -> tuple[list[int], bool, str, str]:
    """The completions' lengths, whether a reference is given, the std and the normalisation."""
    pick = random.Random(o.seed) if o.one_shape else rng
    lengths = [pick.randint(1, 3) for _ in range(o.tokens)]
    ref = pick.random() < 2 / 3 if o.one_shape else number % 3 != 0
    return lengths, ref, pick.choice(("unbiased", "population")), pick.choice(("sequence", "token"))


def _draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    lengths, ref, std, normalize = _shape(o, rng, number)
    if rng.random() < 0.5:
        rewards: list[float] = [rng.choice((0, 1)) for _ in lengths]
    else:
        rewards = [rng.randint(0, 4) / 4 for _ in lengths]
    logprobs = [[_tenths(rng, -20, -1) for _ in range(n)] for n in lengths]
    old = [[min(-0.1, round(x + rng.choice(_SHIFTS), 1)) for x in row] for row in logprobs]
    given: dict[str, Any] = {"rewards": rewards, "logprobs": logprobs, "old_logprobs": old}
    given["epsilon"] = rng.choice((0.1, 0.2))
    if ref:
        given["ref_logprobs"] = [[min(-0.1, round(x + rng.choice((-0.2, -0.1, 0, 0.1, 0.2)), 1)) for x in row]
                                 for row in logprobs]  # fmt: skip
        given["beta"] = rng.choice((0.04, 0.1))
    if std != "unbiased":
        given["std"] = std
    if normalize != "sequence":
        given["normalize"] = normalize
    return {
        "title": f"Variant {number}",
        "kind": "grpo",
        "settings": {"decimals": max(o.decimals, 4)},
        "given": given,
    }


def _fine(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    g = raw["given"]
    if len(set(g["rewards"])) == 1:
        return "every reward the same (every advantage 0)"
    eps = float(g["epsilon"])
    ratios = np.asarray(d["ratios"], dtype=float)
    if np.any(np.abs(ratios - (1 - eps)) < NEAR) or np.any(np.abs(ratios - (1 + eps)) < NEAR):
        return "a ratio at a clip bound"
    return None


DRAWER = Drawer(
    "GRPO homework",
    _check,
    _draw,
    _fine,
    min_tokens=2,
    max_tokens=6,
    reads=frozenset({"tokens", "decimals"}),
    min_decimals=4,
)
