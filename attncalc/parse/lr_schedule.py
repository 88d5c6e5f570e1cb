"""Kind lr-schedule, past the top level: the schedule, the steps and the schedule's constants."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..numbers import parse_number, to_float
from ..schema.lr_schedule import LR_SCHEDULE, LR_SCHEDULE_GIVEN, SCHEDULE_GIVEN
from .declared import read_declared
from .reader import Reader
from .types import Problem

MAX_STEP = 10**12  # a step past this is no training run (and its powers would leave exact arithmetic)


@dataclass(frozen=True)
class Noam:
    """Schedule noam's own constants."""

    d_model: int
    factor: Any  # number tree (1 when not given)


@dataclass(frozen=True)
class Decay:
    """Schedules cosine and linear: the warmup's peak, the floor, the step the decay ends at."""

    lr_max: Any  # number trees
    lr_min: Any  # (0 when not given)
    total: int


@dataclass(frozen=True)
class LrSchedule:
    """What the mechanism reads (``problem.data``): numbers as number trees, steps as ints, and the
    schedule's own constants (``Noam`` for noam, ``Decay`` for cosine and linear)."""

    schedule: str  # noam | cosine | linear
    steps: tuple[int, ...]
    warmup: int
    rule: Noam | Decay


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    key = LR_SCHEDULE.top["schedule"]
    schedule = r.string(raw.get("schedule", key.default), "schedule", key.choices)
    given = read_declared(r, raw["given"], LR_SCHEDULE_GIVEN, "given")
    own = SCHEDULE_GIVEN[schedule]
    for k in LR_SCHEDULE_GIVEN.names:
        if k == "steps" or k not in raw["given"]:
            continue
        if k not in own:
            takers = [s for s, t in SCHEDULE_GIVEN.items() if k in t]
            raise r.fail(f"given.{k}", f"belongs to schedule {' and '.join(map(repr, takers))}, not {schedule!r}")
    for needed in own.keys:
        if needed.required and given[needed.name] is None:
            raise r.fail(f"given.{needed.name}", f"missing: {needed.doc} (schedule {schedule!r})")
    steps = _steps(r, given["steps"], 1 if schedule == "noam" else 0)
    warmup = int(given["warmup"])
    if schedule == "noam":
        if warmup < 1:
            raise r.fail("given.warmup", "must be at least 1 for noam (the rate divides by warmup^1.5)")
        factor = given["factor"] if given["factor"] is not None else parse_number(1)
        if not to_float(factor) > 0:
            raise r.fail("given.factor", "must be greater than 0")
        data = LrSchedule(schedule, steps, warmup, Noam(int(given["d_model"]), factor))
    else:
        lr_max, lr_min, total = given["lr_max"], given["lr_min"], int(given["total"])
        lr_min = lr_min if lr_min is not None else parse_number(0)
        if not to_float(lr_max) > 0:
            raise r.fail("given.lr_max", "must be greater than 0")
        if not 0 <= to_float(lr_min) <= to_float(lr_max):
            raise r.fail("given.lr_min", f"must be from 0 to lr_max = {to_float(lr_max):g}")
        if total <= warmup:
            raise r.fail("given.total", f"is {total}: must be past the warmup ({warmup}), where the decay begins")
        data = LrSchedule(schedule, steps, warmup, Decay(lr_max, lr_min, total))
    return Problem(given={"steps": given["steps"]}, data=data, **common)


def _steps(r: Reader, g: Any, low: int) -> tuple[int, ...]:
    out = []
    for k, x in enumerate(g.floats.tolist(), 1):
        if not (math.isfinite(x) and x == int(x) and low <= x <= MAX_STEP):
            raise r.fail(
                "given.steps",
                f"entry {k} is {x:g}: expected a whole-number step from {low} to {MAX_STEP:.0e}"
                + (" (noam's rate needs t ≥ 1: t^(−0.5))" if low == 1 else ""),
            )
        out.append(int(x))
    return tuple(out)
