"""The mechanism run every way ``check`` needs it: exact truth in floats, the hand chain at a precision,
with the answerer's own answers carried in (all of them, or all but some), with a named slip on.

Work is bounded by what the answers need: the truth run also records which slips the computation
consults (:class:`~attncalc.derivation.arith.SlipProbe`), so only those are ever tried; a run made for one step
(``stop_after``) ends once that step is computed; and only the runs ``check`` reads keep their
steps' operands (the others keep the values alone).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, Literal, Protocol

import numpy as np

from ..derivation import Map, Softmax, Step, interval
from ..derivation.arith import Chain, MistakeNotApplicable, SlipProbe, StopRun
from ..mechanisms import MECHANISMS
from ..parse import Problem
from . import wide
from .answers import Answer
from .wide import FALLBACK, RunStore, WideRuns

Run = tuple[dict[str, np.ndarray], dict[str, Step]]

# what ends a run without a value: a slip that cannot happen here, numbers a computation cannot take
# (a count not whole, an index out of range), a division by zero, and an answer so large that the
# arithmetic overflows (mean_loss = 2000 gives 2^2000 for the perplexity): the run gives nothing, the
# step is judged without it, never a traceback
RUN_FAILURES: tuple[type[Exception], ...] = (
    MistakeNotApplicable,
    ValueError,
    IndexError,
    ZeroDivisionError,
    OverflowError,
)

# and where intervals meet a computation they cannot follow (a float-only function): no interval credit
INTERVAL_FAILURES: tuple[type[Exception], ...] = (*RUN_FAILURES, TypeError, AttributeError)

# the interval chain computes every entry as a Python object: past this many entries in all the steps,
# check does without it (the float runs and the hand chains still decide)
INTERVAL_ENTRIES = 20_000


class Shared(Protocol):
    """Where the runs that no answer changes are kept across checks (:class:`~attncalc.check.prepared.Prepared`)."""

    probe: SlipProbe

    def truth_run(self, key: tuple[Any, ...], make: Callable[[], Run | None]) -> Run | None: ...

    def run(self, key: tuple[Any, ...], make: Callable[[], Run | None]) -> Run | None: ...

    def descendants(self, step_id: str, stop: str | None, make: Callable[[], frozenset[str]]) -> frozenset[str]: ...

    def view(self, key: tuple[Any, ...], make: Callable[[], Any]) -> Any: ...


@dataclasses.dataclass(frozen=True, eq=False)
class _Shape:
    """What a light run keeps of a step: its value's shape (or its label), not its operands."""

    value: Any


class Runs:
    """Runs of one problem's mechanism, cached by how they were run (the runs no answer changes,
    and the dependencies, kept across checks in ``shared``, the problem's :class:`Shared` store)."""

    def __init__(self, problem: Problem, answers: list[Answer], shared: Shared | None = None) -> None:
        self.problem = problem
        self.shared = shared
        self.mech = MECHANISMS[problem.kind]
        self.overrides = {a.id: np.asarray(a.values, dtype=float) for a in answers if not isinstance(a.values, str)}
        self.labels = {a.id: a.values for a in answers if isinstance(a.values, str)}
        # each answer's decimals, for half_unit (worked out when first asked for: most checks never need it)
        self._decimals = {a.id: a.decimals for a in answers if not isinstance(a.values, str) and a.decimals is not None}
        self._half_units: dict[str, np.ndarray] = {}
        # wrong answers with their right entries, and right answers, at the true, unrounded value (set by
        # check as it grades)
        self.patched: dict[str, np.ndarray] = {}
        # right answers, patched to their true value: never moved as numbers written (``nudge``)
        self.settled: set[str] = set()
        # right answers at discrete steps (a flag, a count, a choice: whole numbers written whole), as
        # written: a chain that reaches another value there is not one the answerer followed (:func:`~attncalc.check.agree.follows`)
        self.decided: dict[str, np.ndarray] = {}
        self._wide = WideRuns(self)
        self._cache: RunStore[Run | None] = RunStore()  # (the answerer's own runs to the end: a bounded few)
        self._probe = shared.probe if shared is not None else SlipProbe()
        self._descendants: dict[str, frozenset[str]] = {}
        self._intervals: dict[tuple[Any, ...], dict[str, tuple[np.ndarray, np.ndarray]] | None] = {}
        self.last: str | None = None
        self._index: dict[str, int] = {}
        order = problem_steps(self)
        truth = self.get("float")
        self._index = {k: i for i, k in enumerate(truth[0])} if truth is not None else {}
        answered = [a.id for a in answers]
        # no run need go past the last answered step
        at = {k: i for i, k in enumerate(order)}
        self.last = max(answered, key=at.__getitem__) if answered and set(answered) <= at.keys() else None

    def half_unit(self, step_id: str) -> np.ndarray | float:
        """Half a unit of the last decimal written, per entry of this answer: how far the unrounded
        number an answerer kept may be from the one they wrote. Only for entries written to the
        decimals asked or more: fewer (0.22 where 3 are asked) is where the answerer's own
        arithmetic ended, as exact as 0.220; so are whole numbers and exact forms (0 for those)."""
        if step_id not in self._decimals:
            return 0.0
        if step_id not in self._half_units:
            decs = np.asarray(self._decimals[step_id])
            asked = max(1, self.problem.settings.decimals)
            self._half_units[step_id] = np.where(decs >= asked, 0.5 * 10.0 ** -np.clip(decs, 0, None), 0.0)
        return self._half_units[step_id]

    def own_numbers_reach(self, step_id: str) -> bool:
        """Whether the answerer's own numbers can give this step another value than the runs without
        them do. Not when no answer comes before it in the computation (an answer changes only what
        is computed after it): then, for a prepared problem, ``check`` reads the step's own-numbers
        value from the runs every answerer shares (the same numbers, without a run of this answerer's
        own), once the answerer's own float run has been made without failing (a run a later answer
        makes fail gives no value at all, as before)."""
        if self.shared is None or self.answered_before(step_id):
            return True
        return self.get("float", overrides=True, light=True) is None

    def answered_before(self, step_id: str) -> bool:
        """Whether an answer (numbers or a label) comes before this step in the computation: only then
        can the answerer's own numbers differ from the true ones on the way to it."""
        limit = self._index.get(step_id)
        return limit is None or any(self._index.get(k, -1) < limit for k in (*self.overrides, *self.labels))

    @property
    def slips_consulted(self) -> int:
        """How many usual slips the problem's computation consults (recorded by the truth run)."""
        return len(self._probe.seen)

    def is_label(self, step_id: str) -> bool:
        """Whether the step's value is a label (a prediction), not numbers."""
        truth = self.get("float")
        return truth is not None and step_id in truth[1] and isinstance(truth[1][step_id].value, str)

    def slip_reaches(self, name: str, step_id: str) -> bool:
        """Whether the slip can change this step: the computation consults it at this step or before."""
        truth = self.get("float")
        assert truth is not None
        if name not in self._probe.seen:
            return False
        at = self._index.get(step_id)  # (its place among the truth's values: a table, not a walk)
        return at is None or at >= self._probe.seen[name]

    @functools.cached_property
    def shifts_matter(self) -> bool:
        """Whether the problem takes a softmax (subtracting the row maximum or not changes the hand chain)."""
        truth = self.get("float")
        assert truth is not None
        return any(
            isinstance(s, (Softmax, Map)) and getattr(s, "fn", "exp") in ("exp", "shift_exp") for s in truth[1].values()
        )

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
        stop_after: str | None = None,
        light: bool = False,
        nudge: int = 0,
    ) -> Run | None:
        """One run; ``shift`` overrides settings.shift_max (a student may or may not subtract the maximum);
        ``arg`` is the mistake's argument; ``without`` leaves those answers out of the overrides;
        ``patched`` takes the wrong answers' right entries at their true value; ``stop_after`` ends the
        run after that step; ``light`` keeps the steps' shapes only. A run that does keep its steps
        serves a light request too. ``nudge`` (−1 or 1) moves every entry used as written by half a unit
        of its last decimal, down or up: the ends of what the unrounded numbers behind it may give."""
        if light and stop_after is None:
            stop_after = self.last
        limit = self._index.get(stop_after) if stop_after is not None else None
        used = self._used(overrides, without, patched, limit)
        key = (mode, decimals, mistake, shift, arg, used, nudge)
        cached = self._cached(key, stop_after, light)
        if cached is not False:
            return cached
        full = (*key, stop_after, light)
        if wide.SHARE and light and used and not patched and stop_after not in (None, self.last):
            found = self._wide.value(stop_after, (mode, decimals, mistake, shift, arg, nudge), without, limit)
            if found is not FALLBACK:  # one run serves every step (check/wide.py)
                self._cache[full] = None if found is None else ({stop_after: found}, self._shapes())
                return self._cache[full]
        return self._computed(full, used, stop_after, light)

    def _used(
        self, overrides: bool, without: frozenset[str], patched: bool, limit: int | None
    ) -> tuple[tuple[str, bool], ...]:
        """The answers that can change what this run computes (each with whether it is patched): an
        answer at or after the step the run stops at changes nothing before it, so runs that differ
        only there are one run."""
        if not overrides:  # (the true run: not a look at each of 45,000 answers for every step)
            return ()
        return tuple(
            (k, patched and self._wide.patch_differs(k))
            for k in (*self.overrides, *self.labels)
            if k not in without and (limit is None or self._index.get(k, -1) < limit)
        )

    def _cached(self, key: tuple[Any, ...], stop_after: str | None, light: bool) -> Run | Literal[False] | None:
        """A run already made that serves this request (False when there is none): a run that keeps its
        steps serves a light request too."""
        for look in ((stop_after, light), (None, False), (stop_after, False), (None, True)):
            got = self._cache.get((*key, *look), False)
            if got is not False and (light or not look[1]):
                assert got is None or isinstance(got, tuple)
                return got
        return False

    def _computed(
        self, full: tuple[Any, ...], used: tuple[tuple[str, bool], ...], stop_after: str | None, light: bool
    ) -> Run | None:
        """The run made (shared with every answerer when no answer is in it), and cached."""
        mode, decimals, mistake, shift, arg, _, nudge = full[:7]
        given = self.given(used, nudge)
        labels = {k: self.labels[k] for k, _ in used if k in self.labels}
        truth = mode == "float" and not used and mistake is None and shift is None and not light and stop_after is None
        slip: Any = self._probe if truth else mistake

        def make() -> Run | None:
            chain = Chain(
                mode, decimals, overrides=given, mistake=slip, mistake_arg=arg, stop_after=stop_after, labels=labels
            )
            return self._run(chain, shift, light)

        if self.shared is None or used:
            got = make()
            if wide.SHARE and got is not None and used and light and stop_after != self.last:
                got = ({k: v for k, v in got[0].items() if k == stop_after}, got[1])  # read at its step only
            # the answerer's own runs that keep every step (a label's, read off a finished run, made
            # without the label's own answer: one per label step and slip) or every step's numbers:
            # a bounded few kept
            if not light:
                weight = wide.WHOLE_RUN
            else:
                weight = sum(int(np.size(v)) for v in got[0].values()) if got is not None else 1
            return self._cache.keep(full, got, bool(used) and (not light or stop_after == self.last), weight)
        elif truth:
            self._cache[full] = self.shared.truth_run(full, make)
        else:  # no answer in it: the same run for every answerer
            self._cache[full] = self.shared.run(full, make)
        return self._cache[full]

    def given(self, used: tuple[tuple[str, bool], ...], nudge: int) -> dict[str, np.ndarray] | None:
        """The numbers a run takes for the answers ``used`` (each as written, or patched), nudged."""
        given = {
            k: (self.patched[k] if from_patch else self.overrides[k]) for k, from_patch in used if k in self.overrides
        } or None
        if nudge and given is not None:  # the entries as written (not those patched to their true value)
            given = {
                k: v if k in self.settled else np.where(v == self.overrides[k], v + nudge * self.half_unit(k), v)
                for k, v in given.items()
            }
        return given

    def _run(self, chain: Chain, shift: str | None, light: bool) -> Run | None:
        problem = self.problem
        if shift is not None:
            problem = dataclasses.replace(problem, settings=dataclasses.replace(problem.settings, shift_max=shift))
        steps: list[Step] = []
        try:
            with np.errstate(all="ignore"):
                steps = self.mech.run(problem, chain)
        except StopRun:
            pass  # the steps are not returned: the values computed so far are all a stopped run gives
        except RUN_FAILURES:
            return None
        if light or not steps:
            shapes = self._shapes()
            return chain.computed, {k: v for k, v in shapes.items() if k in chain.computed}
        return chain.computed, {s.id: s for s in steps}

    def _shapes(self) -> dict[str, Step]:
        truth = self.get("float")
        assert truth is not None
        if not hasattr(self, "_shape_cache"):
            self._shape_cache: dict[str, Step] = {
                k: _Shape(s.value if isinstance(s.value, str) else np.broadcast_to(0.0, np.shape(s.value)))  # type: ignore[misc]
                for k, s in truth[1].items()
            }
        return self._shape_cache

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
        stop_after: str | None = None,
        nudge: int = 0,
    ) -> np.ndarray | None:
        got = self.get(
            mode, decimals, overrides, mistake, shift, arg, without, patched, stop_after, light=True, nudge=nudge
        )
        if got is None or step_id not in got[0]:
            return None
        return as_step(got[0][step_id], got[1].get(step_id))

    def interval(self, step_id: str, shift: str | None = None) -> tuple[np.ndarray, np.ndarray] | None:
        """The least and greatest value each entry of the step can take given the answerer's earlier
        answers as written, each standing for every number within half a unit of its last decimal
        (:meth:`half_unit`: what a calculator kept behind it), the step's own answer never used: one
        run of the interval chain (:mod:`attncalc.derivation.interval`) gives every step's bounds at once. None
        where the run fails, a bound is not finite, or the problem is past :data:`INTERVAL_ENTRIES`."""
        key = ("interval", shift)
        if key not in self._intervals:
            self._intervals[key] = self._interval_run(shift)
        got = self._intervals[key]
        if got is None or step_id not in got:
            return None
        return got[step_id]

    def _interval_run(self, shift: str | None) -> dict[str, tuple[np.ndarray, np.ndarray]] | None:
        truth = self.get("float")
        if truth is None or sum(np.size(v) for v in truth[0].values()) > INTERVAL_ENTRIES:
            return None
        given = {k: v for k, v in self.overrides.items() if k in truth[0]}
        widths = {k: self.half_unit(k) for k in given}
        chain = Chain(
            "interval",
            self.problem.settings.decimals,
            overrides=given,
            widths=widths,
            stop_after=self.last,
            labels=self.labels,
        )
        problem = self.problem
        if shift is not None:
            problem = dataclasses.replace(problem, settings=dataclasses.replace(problem.settings, shift_max=shift))
        try:
            with np.errstate(all="ignore"):
                self.mech.run(problem, chain)
        except StopRun:
            pass
        except INTERVAL_FAILURES:
            return None  # (a computation the intervals cannot follow: no interval credit, never a wrong one)
        out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for k, v in chain.computed.items():
            if not interval.is_interval(v):
                continue
            lo, hi = interval.bounds(v)
            shape = np.shape(truth[1][k].value) if k in truth[1] else lo.shape
            if lo.size == int(np.prod(shape)):
                out[k] = (lo.reshape(shape), hi.reshape(shape))
        return out

    def descendants(self, step_id: str) -> frozenset[str]:
        """The steps whose value depends on ``step_id``'s: those that change when it is replaced by
        not-a-number (which every arithmetic operation carries on) or moved by an irregular amount
        (which a comparison, an argmax or a cut notices). Found from the computation itself, so it is
        exactly as fine as the computation: head 2 does not depend on head 1, nor time step 1 on step 2."""
        if step_id in self._descendants:
            return self._descendants[step_id]
        if self.shared is not None:  # the same for every answerer whose last answer is the same step
            got = self.shared.descendants(step_id, self.last, lambda: self._find_descendants(step_id))
        else:
            got = self._find_descendants(step_id)
        self._descendants[step_id] = got
        return got

    def _find_descendants(self, step_id: str) -> frozenset[str]:
        truth = self.get("float")
        assert truth is not None
        base_values, base_steps = truth
        order = list(base_steps)
        later = order[order.index(step_id) + 1 :] if step_id in order else []
        if step_id not in base_values:  # a label (speculative's next token): no number to move; to be safe,
            return frozenset(later)  # every later step
        true = np.asarray(base_values[step_id], dtype=float)
        out: set[str] = set()
        worked = False
        ramp = np.arange(1, true.size + 1, dtype=float).reshape(true.shape) if true.ndim else np.float64(1.0)
        # a prediction is a label, not a finished value: read it from the steps of a run to the end
        labels = any(k not in base_values for k in later)
        with np.errstate(invalid="ignore"):  # a masked −∞ entry (kept as it is below) gives nan here
            moved = true + (0.37 + 0.113 * ramp) * (1.0 + np.abs(true))
        alts = [np.where(np.isneginf(true), true, alt) for alt in (np.full(true.shape, np.nan), moved)]
        if labels and true.size > 1:  # a label (an argmax) kept by both moves: the entries rolled, the largest moved on
            alts.append(np.roll(true.reshape(-1), 1).reshape(true.shape))
        gives_up = getattr(self.mech, "poison_gives_up", None) if wide.SHARE else None  # a kind says so
        if gives_up is not None and gives_up(step_id, alts):
            return frozenset(later)
        for alt in alts:
            stop = None if labels else self.last
            chain = Chain("float", overrides={step_id: alt}, stop_after=stop)
            chain.poison = True
            steps: dict[str, Step] = {}
            try:
                with np.errstate(all="ignore"):
                    steps = {s.id: s for s in self.mech.run(self.problem, chain)}
            except StopRun:
                pass
            except RUN_FAILURES:
                continue
            worked = True
            for k in later:
                if k in steps and isinstance(steps[k].value, str):
                    if steps[k].value != base_steps[k].value:
                        out.add(k)
                elif k not in chain.computed or not _same(chain.computed[k], base_values[k]):
                    out.add(k)  # (a step not reached, or never finished, is counted in: to be safe)
            if wide.SHARE and len(out) == len(later):
                break  # every later step already: the other run cannot add one
        return frozenset(out) if worked else frozenset(later)  # no run: every later step, to be safe


def problem_steps(runs: Runs) -> list[str]:
    """The problem's step ids in order (from the truth run)."""
    truth = runs.get("float")
    return list(truth[1]) if truth is not None else []


def _same(a: Any, b: Any) -> bool:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return x.shape == y.shape and bool(np.array_equal(x, y, equal_nan=True))


def as_step(value: Any, step: Any) -> np.ndarray:
    """A computed value in its step's shape: the chain sees the loss as [L], the step as L."""
    arr = np.asarray(value, dtype=float)
    if step is not None and arr.size == np.size(step.value) and arr.shape != np.shape(step.value):
        return arr.reshape(np.shape(step.value))
    return arr
