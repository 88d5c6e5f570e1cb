"""One run of the mechanism that serves many steps' "recomputed from the answerer's earlier answers".

``check`` asks, step after step, for the step recomputed from the answerer's own earlier answers (with a
slip on, in the hand chain at a precision, ...), each time in a run that stops after that step
(:meth:`~attncalc.check.runs.Runs.get` with ``stop_after``). Those runs differ only in where they stop:
an answer changes only what is computed after its step, and a chain records a step's value before its
answer replaces it, so one run carrying every answer, to the last answered step, holds each step's
value as the run stopped after it does. Made once, it replaces one run per answered step (which grew
as answered steps × the problem's size) by one run in all.

The run records the order in which steps were finished, so that a value is read from it only where
the stopped run gives the very same: not a step finished twice with another step between (the
stopped run ends at the other step, before the second finish), and, when the run fails, not the last
step it finished (a stopped run fails there too, before it reaches the next step).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, TypeVar

import numpy as np

from ..derivation.arith import Chain, MistakeNotApplicable


class RecordingChain(Chain):
    """A chain that records the order of the steps it finishes (each finish, in order)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.finished: list[str] = []
        self.finishing: str | None = None  # the step being finished (where a failure inside a finish was)

    def finish(self, step_id: str, x: np.ndarray) -> np.ndarray:
        self.finishing = step_id
        out = super().finish(step_id, x)
        self.finished.append(step_id)  # (after the stop check: a StopRun records nothing)
        self.finishing = None
        return out


SHARE = True  # off: every run made as asked, one per step (the reports are the same; tests compare them)

# the failures a run is given up for (Runs._run returns None for them); any other error is raised
GIVEN_UP = (MistakeNotApplicable, ValueError, IndexError, ZeroDivisionError, OverflowError)
FALLBACK = object()  # the wide run cannot say: make the stopped run itself


class Wide:
    """A finished wide run: its computed values, and for which steps a run stopped after the step
    gives alike (that value, or no run at all where the stopped run fails)."""

    def __init__(self, chain: RecordingChain, error: BaseException | None, index: dict[str, int]) -> None:
        self.computed = chain.computed
        self.index = index
        order = chain.finished
        self.gave_up = isinstance(error, GIVEN_UP)
        self.failed = error is not None
        self._first: dict[str, int] = {}
        last: dict[str, int] = {}
        count: dict[str, int] = {}
        # the latest step, in the problem's own order, whose answer the run had used so far: a stopped
        # run uses only the answers before its step, so a step finished after a later one's answer
        # (a slip that reorders the work) is not served
        self._reach: dict[str, int] = {}
        reach = -1
        for i, k in enumerate(order):
            if k not in self._first:
                self._first[k] = i
                self._reach[k] = reach
            last[k] = i
            count[k] = count.get(k, 0) + 1
            if k in chain.overrides:
                reach = max(reach, index.get(k, len(index)))
        # a run that failed finishing a step with an answer may have failed on that answer (a table of
        # another shape than the step's): a run stopped after the step leaves its answer out
        failing = chain.finishing if error is not None else None
        if failing is not None and failing in chain.overrides:
            reach = max(reach, index.get(failing, len(index)))
        self._reach_end = reach
        self._last = order[-1] if order else None
        # a step finished again after another step: the stopped run ends before the second finish; and
        # a step finished twice that has an answer (the late mask: softmax, then the mask applied to
        # what the first finish gave): here the second finish worked on the step's own answer, which
        # a stopped run leaves out
        self._whole = {
            k
            for k in self._first
            if last[k] - self._first[k] + 1 == count[k] and not (count[k] > 1 and k in chain.overrides)
        }

    def lookup(self, step_id: str) -> Any:
        """The stopped run's value of the step, None where it fails, or :data:`FALLBACK`."""
        at = self.index.get(step_id)
        if at is None:
            return FALLBACK
        finished = step_id in self._first and self._reach[step_id] < at and step_id in self._whole
        if finished and not (self.failed and step_id == self._last):
            return self.computed[step_id]
        if self.gave_up and self._reach_end < at and (step_id == self._last or step_id not in self._first):
            return None  # the stopped run does the same work up to the failure, and gives up there too
        return FALLBACK


class WideRuns:
    """One answerer's wide runs (:class:`~attncalc.check.runs.Runs` makes one): a run with every answer,
    to the last answered step, for each way of running (mode, precision, slip, shift, nudge)."""

    def __init__(self, runs: Any) -> None:
        self.runs = runs
        self._made: dict[tuple[Any, ...], Wide] = {}
        self._patch_seen: dict[str, tuple[np.ndarray, bool]] = {}

    def value(self, step_id: str, how: tuple[Any, ...], without: frozenset[str], limit: int | None) -> Any:
        """The step's value in the run stopped after it made ``how`` with every answer before it but
        those of ``without`` (None where it fails), or :data:`FALLBACK`: not when an answer before the
        step is left out (that run serves no other step), or when the wide run cannot say."""
        runs = self.runs
        if any(k in runs.overrides and (limit is None or runs._index.get(k, -1) < limit) for k in without):
            return FALLBACK
        if how not in self._made:
            mode, decimals, mistake, shift, arg, nudge = how
            every = tuple((k, False) for k in runs.overrides)
            chain = RecordingChain(
                mode,
                decimals,
                overrides=runs.given(every, nudge),
                mistake=mistake,
                mistake_arg=arg,
                stop_after=runs.last,
                labels=runs.labels,
            )
            self._made[how] = wide_run(runs.mech, runs.problem, chain, shift, runs._index)
        return self._made[how].lookup(step_id)

    def patch_differs(self, step_id: str) -> bool:
        """Whether the answer patched to its true value (``runs.patched``) has other numbers than as
        written: a run that takes the patched answer is the run that takes the answer, when not (a
        count right where it is right, a wrong answer with no right entry)."""
        patch = self.runs.patched.get(step_id)
        if patch is None or not SHARE:
            return patch is not None
        seen = self._patch_seen.get(step_id)
        if seen is None or seen[0] is not patch:
            seen = (patch, not np.array_equal(patch, self.runs.overrides[step_id], equal_nan=True))
            self._patch_seen[step_id] = seen
        return seen[1]


def wide_run(mech: Any, problem: Any, chain: RecordingChain, shift: str | None, index: dict[str, int]) -> Wide:
    """Run the mechanism on ``chain`` (``index``: each step's place in the problem's order): whatever
    stops it (the last answered step, or a failure), what it finished is kept."""
    import dataclasses

    from ..derivation.arith import StopRun

    if shift is not None:
        problem = dataclasses.replace(problem, settings=dataclasses.replace(problem.settings, shift_max=shift))
    error: BaseException | None = None
    try:
        with np.errstate(all="ignore"):
            mech.run(problem, chain)
    except StopRun:
        pass
    except Exception as exc:  # kept: which steps it leaves the stopped runs to (Wide.lookup)
        error = exc
    return Wide(chain, error, index)


RECENT = 12  # the answerer's own runs to the last step kept at once, at least (each holds every step's numbers)
MOST = 256  # and at most, while the numbers they hold are within KEPT_NUMBERS
KEPT_NUMBERS = 2_000_000  # numbers held by the bounded runs beyond the first RECENT (a whole run counts WHOLE_RUN)
WHOLE_RUN = KEPT_NUMBERS // RECENT  # what a whole run (every step, its operands and labels) counts


V = TypeVar("V")


class RunStore(dict[tuple[Any, ...], V]):
    """Runs by key. A run carrying the answerer's numbers to the last answered step holds every step's
    numbers, and a whole run (a label is read off its finished steps) every step; most serve one step's
    grading only (they leave out the answers graded so far, or the step's own). Of those, the least
    recently used are dropped (made again if asked for again) once more than :data:`RECENT` are kept
    and they hold more than :data:`KEPT_NUMBERS` numbers, or more than :data:`MOST` are kept: memory
    stays within a dozen large runs whatever the number of answered steps, and a problem of small runs
    keeps the several kinds of run each step asks for (each precision of the hand chain, with the
    maximum subtracted and not; an 8-head, 12-token backward pass answered true + 1 made its runs
    again and again with a dozen kept: 39 s, and 9 s with them kept)."""

    def __init__(self) -> None:
        super().__init__()
        self._recent: OrderedDict[tuple[Any, ...], int] = OrderedDict()
        self._numbers = 0

    def get(self, key: tuple[Any, ...], default: Any = None) -> Any:
        if key in self._recent:
            self._recent.move_to_end(key)
        return super().get(key, default)

    def keep(self, key: tuple[Any, ...], run: V, bounded: bool, weight: int = 1) -> V:
        """Store ``run`` under ``key`` (among the bounded few when ``bounded``, holding ``weight``
        numbers) and return it."""
        self[key] = run
        if bounded and SHARE:
            self._numbers += weight - self._recent.pop(key, 0)
            self._recent[key] = weight
            while len(self._recent) > RECENT and (len(self._recent) > MOST or self._numbers > KEPT_NUMBERS):
                old, w = self._recent.popitem(last=False)
                self._numbers -= w
                self.pop(old, None)
        return run
