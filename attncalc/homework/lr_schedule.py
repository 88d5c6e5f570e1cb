"""Homework for kind lr-schedule: the schedule of --schedule, or one drawn per variant (noam, cosine,
linear), with constants that come out by hand, the rate asked at --tokens steps before, at and after
the warmup (cosine and linear: at least one strictly inside the decay, between warmup and total).

Noam: d_model and warmup are perfect squares (d_model^(−0.5) = 1/8, warmup^(−1.5) = 1/1000), and the
steps past the warmup too. Cosine and linear: the decay's span divides into sixths and quarters, so
that the cosines are those of π/6, π/4, π/3, π/2, … . The rates are small: the sheets show at least
6 decimals (more with --decimals).
"""

from __future__ import annotations

import random
from typing import Any

from ..derivation import Derivation
from .base import Drawer, choose, only
from .options import Options

SCHEDULES = ("noam", "cosine", "linear")
MIN_DECIMALS = 6


def _check(o: Options) -> None:
    if o.schedule is not None:
        choose(o, "schedule", o.schedule, SCHEDULES)
    only(o, {"schedule"}, "lr-schedule")


def _pick(rng: random.Random, pool: list[int], n: int) -> list[int]:
    return sorted(rng.sample(pool, min(n, len(pool))))


def _noam(rng: random.Random, n: int) -> dict[str, Any]:
    d_model = rng.choice((64, 256, 1024))
    root = rng.choice((10, 20, 50, 100))  # warmup = root²
    warmup = root * root
    before = [warmup * k // 10 for k in range(1, 10)]
    after = [(root * k) ** 2 for k in (2, 3, 4, 5, 10)]
    steps = [*_pick(rng, before, max(1, (n - 1) // 2)), warmup]
    steps += _pick(rng, after, max(0, n - len(steps)))
    return {"d_model": d_model, "warmup": warmup, "steps": steps[:n]}


def _decay(rng: random.Random, n: int) -> dict[str, Any]:
    warmup = rng.choice((10, 20, 50, 100))
    span = rng.choice((60, 120, 240))
    total = warmup + span
    lr_max = rng.choice((0.001, 0.003, 0.0006))
    given: dict[str, Any] = {"lr_max": lr_max, "warmup": warmup, "total": total}
    if rng.random() < 0.5:
        given["lr_min"] = round(lr_max / 10, 6)
    before = [warmup * k // 5 for k in range(0, 5)]
    during = [warmup + span * k // 12 for k in (2, 3, 4, 6, 8, 9, 10)]  # sixths and quarters of the span
    # the peak and at least one step inside the decay (the cosine/linear formula) come first, then one
    # before the warmup, then one past total, then more inside the decay
    steps = [warmup, *_pick(rng, during, max(1, n - 3))]
    if n >= 3:
        steps += _pick(rng, before, 1)
    if n >= 4:
        steps.append(total + span // 4)
    given["steps"] = sorted(set(steps))
    return given


def _draw(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    schedule = o.schedule or rng.choice(SCHEDULES)
    given = _noam(rng, o.tokens) if schedule == "noam" else _decay(rng, o.tokens)
    return {
        "title": f"Variant {number}",
        "kind": "lr-schedule",
        "schedule": schedule,
        "settings": {"decimals": max(o.decimals, MIN_DECIMALS)},
        "given": given,
    }


def _fine(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    return None


DRAWER = Drawer(
    "Learning-rate schedule homework",
    _check,
    _draw,
    _fine,
    min_tokens=2,
    max_tokens=8,
    reads=frozenset({"tokens", "decimals"}),
    min_decimals=MIN_DECIMALS,
)
