"""The mechanism run every way ``check`` needs it: exact truth in floats, the hand chain at a precision,
with the answerer's own answers carried in (all of them, or all but some), with a named slip on."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .arith import Chain, MistakeNotApplicable
from .check_answers import Answer
from .derivation import Step
from .mechanisms import MECHANISMS
from .problem import Problem

Run = tuple[dict[str, np.ndarray], dict[str, Step]]


class Runs:
    """Runs of one problem's mechanism, cached by how they were run."""

    def __init__(self, problem: Problem, answers: list[Answer]) -> None:
        self.problem = problem
        self.mech = MECHANISMS[problem.kind]
        self.overrides = {a.id: np.asarray(a.values, dtype=float) for a in answers if not isinstance(a.values, str)}
        # wrong answers with their right entries at the true, unrounded value (set by check as it grades)
        self.patched: dict[str, np.ndarray] = {}
        self._cache: dict[tuple[Any, ...], Run | None] = {}

    def get(
        self,
        mode: str,
        decimals: int = 3,
        overrides: bool = False,
        mistake: str | None = None,
        shift: str | None = None,
        arg: int | None = None,
        without: frozenset[str] = frozenset(),
        patched: bool = False,
    ) -> Run | None:
        """One run; ``shift`` overrides settings.shift_max (a student may or may not subtract the maximum);
        ``arg`` is the mistake's argument; ``without`` leaves those answers out of the overrides;
        ``patched`` takes the wrong answers' right entries at their true value."""
        key = (mode, decimals, overrides, mistake, shift, arg, without, patched and tuple(sorted(self.patched)))
        if key not in self._cache:
            given = {k: v for k, v in self.overrides.items() if k not in without} if overrides else None
            if given is not None and patched:
                given = {k: self.patched.get(k, v) for k, v in given.items()}
            chain = Chain(mode, decimals, overrides=given, mistake=mistake, mistake_arg=arg)
            problem = self.problem
            if shift is not None:
                problem = dataclasses.replace(problem, settings=dataclasses.replace(problem.settings, shift_max=shift))
            try:
                with np.errstate(all="ignore"):
                    steps = self.mech.run(problem, chain)
                self._cache[key] = (chain.computed, {s.id: s for s in steps})
            except (MistakeNotApplicable, ValueError, IndexError):
                self._cache[key] = None
        return self._cache[key]

    def value(
        self,
        step_id: str,
        mode: str,
        decimals: int = 3,
        overrides: bool = False,
        mistake: str | None = None,
        shift: str | None = None,
        arg: int | None = None,
        without: frozenset[str] = frozenset(),
        patched: bool = False,
    ) -> np.ndarray | None:
        got = self.get(mode, decimals, overrides, mistake, shift, arg, without, patched)
        if got is None or step_id not in got[0]:
            return None
        return as_step(got[0][step_id], got[1].get(step_id))


def as_step(value: Any, step: Step | None) -> np.ndarray:
    """A computed value in its step's shape: the chain sees the loss as [L], the step as L."""
    arr = np.asarray(value, dtype=float)
    if step is not None and arr.size == np.size(step.value) and arr.shape != np.shape(step.value):
        return arr.reshape(np.shape(step.value))
    return arr
