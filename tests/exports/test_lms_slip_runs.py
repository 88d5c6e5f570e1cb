"""The LMS exports name every slip check names for each entry; each slip's run (the true values of the
earlier steps carried in, the slip made) is made once per variant and read at every step, not remade
for every step: Runs keeps only the last few such runs, so reading them step by step remade each of
them at every step (4,595 mechanism runs for one attention-backward variant of 51 steps and 115 slip
runs; 18 of 19 s of a two-variant Moodle quiz). Counted here, never timed."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import attncalc
from attncalc.check.runs import Runs
from attncalc.check.slips import mistake_args
from attncalc.kinds.mistakes import every_mistake
from attncalc.reports.lms import questions


@pytest.mark.parametrize("kind", ["attention-backward", "softmax", "transformer-layer"])
def test_each_slip_run_is_made_once_per_variant(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    d = attncalc.generate(kind=kind, count=1, seed=1)[0].derivation
    made: Counter[tuple[Any, ...]] = Counter()
    original = Runs._run

    def counting(self: Runs, chain: Any, shift: str | None, light: bool) -> Any:
        if isinstance(chain.mistake, str):  # a slip's run: the same one twice is one remade
            key = (id(self), chain.mode, chain.decimals, chain.mistake, chain.mistake_arg, chain.stop_after, shift)
            made[(*key, tuple(chain.overrides))] += 1
        return original(self, chain, shift, light)

    monkeypatch.setattr(Runs, "_run", counting)
    asked = questions(d, 1)
    slips = {(m, a) for m in every_mistake() for a in mistake_args(d.problem, m)}
    assert asked and slips
    assert made and max(made.values()) == 1, made.most_common(3)
