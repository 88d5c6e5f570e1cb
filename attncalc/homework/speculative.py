"""Homework for kind speculative: --tokens drafted tokens (1 to 4) over a vocabulary of --dim tokens
(2 to 6, default 4). The draft's and the target's distributions are in tenths (the target's last row
sometimes in quarters); each drafted token is drawn from its draft row, and the uniforms and the
resample draw are multiples of 0.05. Every variant is one round that rejects a drafted token at some
position: a round that accepts every draft leaves the residual (the rejection path, what the method
is about) untaught, and a student who wrote "all accepted" would not be tested on it.

Left to chance, most rounds would end at the first or second draft (each test passes with
probability α < 1, so a run of γ − 1 passes is rare). So each variant's uniforms are drawn for a number
of accepted drafts: variant k of a set with seed s accepts (s + k − 1) mod γ, so a set of γ or more
variants has every count from 0 to γ − 1 (the first rejection at every position), and so do the first
variants of successive seeds.

A variant is unfit when a uniform lies within 0.02 of its acceptance probability or the resample draw
within 0.02 of a running sum (a tie: a rounded number would decide it), or when a draft row equals its
target row (α = 1: nothing can be rejected), or when every draft is accepted. In a quiz (one shape),
every variant accepts the same number of drafted tokens (seed mod γ), so that each asks for an output
of the same length.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..derivation import Derivation
from .base import Drawer, only, refuse
from .options import Options

LETTERS = ("a", "b", "c", "d", "e", "f")
APART = 0.02  # how close a draw may come to the number it is compared with


def _check(o: Options) -> None:
    only(o, set(), "speculative")
    if not 2 <= o.dim <= len(LETTERS):
        raise refuse("--dim", f"is the vocabulary's size for speculative: from 2 to {len(LETTERS)}")


def _row(rng: random.Random, v: int, parts: int = 10) -> list[float]:
    """A distribution over v tokens in 1/parts steps (at most one entry 0)."""
    while True:
        cuts = sorted(rng.randint(0, parts) for _ in range(v - 1))
        counts = [b - a for a, b in zip([0, *cuts], [*cuts, parts], strict=True)]
        if counts.count(0) <= 1:
            return [c / parts for c in counts]


def _pick(rng: random.Random, row: list[float]) -> int:
    return rng.choices(range(len(row)), weights=row)[0]


def accepted_count(o: Options, number: int) -> int:
    """How many drafts variant ``number`` accepts, fewer than γ (a later draft is rejected): a quiz's
    every variant the same (seed mod γ), a set's in turn from there."""
    return (o.seed + (0 if o.one_shape else number - 1)) % o.tokens


def _uniforms(rng: random.Random, accept: list[float], n: int) -> list[float] | None:
    """Uniforms (multiples of 0.05) with which the first n tests pass and test n + 1 fails, each at
    least APART from its acceptance probability; None when an acceptance probability leaves no room."""
    out = []
    for i, a in enumerate(accept):
        grid = [k / 20 for k in range(1, 20)]
        if i < n:
            grid = [r for r in grid if r <= a - APART]
        elif i == n:
            grid = [r for r in grid if r >= a + APART]
        if not grid:
            return None
        out.append(rng.choice(grid))
    return out


def _draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    gamma, v = o.tokens, o.dim
    vocab = list(LETTERS[:v])
    uniforms = None
    while uniforms is None:
        draft = [_row(rng, v) for _ in range(gamma)]
        target = [_row(rng, v) for _ in range(gamma)]
        target.append(_row(rng, v, 4) if number % 2 == 0 and v <= 4 else _row(rng, v))
        picked = [_pick(rng, q) for q in draft]
        accept = [min(1.0, target[i][x] / draft[i][x]) for i, x in enumerate(picked)]
        uniforms = _uniforms(rng, accept, accepted_count(o, number))
    drafted = [vocab[x] for x in picked]
    return {
        "title": f"Variant {number}",
        "kind": "speculative",
        "vocab": vocab,
        "given": {
            "draft": draft,
            "target": target,
            "drafted": drafted,
            "uniforms": uniforms,
            "resample": rng.randint(1, 19) / 20,
        },
        "settings": {"decimals": o.decimals},
    }


def _fine(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    g = raw["given"]
    r = np.asarray(g["uniforms"], dtype=float)
    a = np.asarray(d["accept_probabilities"], dtype=float)
    if np.any(np.abs(r - a) < APART):
        return "a uniform at its acceptance probability (a tie)"
    F = np.asarray(d["residual_cumulative"], dtype=float)
    if np.any(np.abs(F - float(g["resample"])) < APART):
        return "the resample draw at a running sum (a tie)"
    if np.any(np.asarray(d["acceptance_rates"], dtype=float) > 1 - APART):
        return "a draft row equal to its target row (α = 1)"
    n = round(float(np.asarray(d["n_accepted"], dtype=float)))
    if n >= o.tokens:
        return "every drafted token accepted (the rejection and the residual untaught)"
    if o.one_shape and n != o.seed % o.tokens:
        return "another number of accepted tokens than the quiz's (its output would be another length)"
    return None


def _reject(o: Options, raw: dict[str, Any]) -> str | None:
    g = raw["given"]
    for i, (q, x) in enumerate(zip(g["draft"], g["drafted"], strict=True)):
        if q[LETTERS.index(x)] == 0:
            return f"drafted token {i + 1} has draft probability 0"
    return None


DRAWER = Drawer(
    "Speculative-decoding homework",
    _check,
    _draw,
    _fine,
    reject=_reject,
    min_tokens=1,
    max_tokens=4,
    default_dim=4,
    reads=frozenset({"tokens", "dim", "decimals"}),
)
