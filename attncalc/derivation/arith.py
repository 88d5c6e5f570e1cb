"""The three ways a mechanism's arithmetic is carried out.

A mechanism is written once against :class:`Chain` and run in up to two passes:

* ``exact``: inputs are sympy expressions in numpy object arrays; each step's result is
  simplified a little and checked against the exact budget (:mod:`attncalc.derivation.budget`: size, work,
  magnitude); a result that exceeds it ends the pass (:class:`ExactStopped`, with a one-line
  note), and that step and every later one are computed numerically.
* ``float``: plain float64 numpy arrays (exact mode off, or too large a problem).
* ``hand``: float64, but every step's result is rounded to ``decimals`` (half away from zero) and
  carried forward, the way a worked example is done with a pen.
* ``interval``: object arrays of :class:`~attncalc.derivation.interval.Iv` (``check`` only): each answer
  carried in stands for every number it may have been rounded from, and every step's result is
  (a superset of) the set its formula gives over them (:mod:`attncalc.derivation.interval`).

An array's dtype says what it is: ``object`` holds exact values, ``float64`` holds numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ..kinds.mistakes import every_mistake
from ..parse import Given
from . import interval as iv
from .budget import (
    MAX_EXACT_ENTRIES,
    MAX_EXACT_PRODUCT,
    MAX_EXACT_SIZE,
    Budget,
    expr_size,
    fast_float,
    matmul_size,
)
from .elementwise import elementwise
from .interval import is_interval, midpoints
from .round_arrays import round_array
from .rounding import round_half_up

S = TypeVar("S")  # a step class of attncalc.derivation (Chain.step builds one)

__all__ = [
    "MAX_EXACT_ENTRIES",
    "MAX_EXACT_SIZE",
    "Chain",
    "expr_size",
    "holds_objects",
    "is_exact",
    "round_array",
    "round_half_up",
    "to_float",
]


def is_exact(x: np.ndarray) -> bool:
    """Whether an array holds exact (sympy) values; an array of intervals (check's interval chain) is
    numbers, and takes the numeric paths."""
    return x.dtype == object and not is_interval(x)


def holds_objects(x: np.ndarray) -> bool:
    """Whether an array's entries are objects computed one by one: exact values, or check's intervals
    (a mechanism's loop over entries serves both; numpy's float paths would lose the intervals)."""
    return x.dtype == object


def to_float(x: np.ndarray) -> np.ndarray:
    """Evaluate an array (exact or not) to float64: exact entries at 40 digits (budget.fast_float),
    intervals at their midpoints."""
    if is_interval(x):
        return midpoints(x)
    if not is_exact(x):
        return np.asarray(x, dtype=float)
    return fast_float(x)


def exact_sqrt(n: int) -> Any:
    """√n as an exact sympy number (imports sympy)."""
    import sympy as sp

    return sp.sqrt(n)


def _has_fraction_terms(e: Any) -> bool:
    """True for a sum with a term like x/(1 + 2e), whose terms together() can combine."""
    import sympy as sp

    if not isinstance(e, sp.Add):
        return any(_has_fraction_terms(a) for a in getattr(e, "args", ()))
    return any(isinstance(sp.fraction(t)[1], sp.Add) for t in e.args)


class ExactStopped(Exception):
    """The exact pass went over its budget at a step (the chain's notes say which and why); the
    values found before it are in ``computed``, and a numeric pass gives the rest."""


class MistakeNotApplicable(Exception):
    """A named mistake that cannot happen in this problem (e.g. transposing a non-square W)."""


class SlipProbe(str):
    """Stands for "no slip" in a chain while recording every slip name the mechanism compares it with:
    the slips this problem's computation consults, the only ones ``check`` need try (a slip the
    mechanism never asks about cannot change any step)."""

    seen: dict[str, int]  # each slip consulted, and how many steps were done when it first was
    clock: Callable[[], int]

    def __new__(cls) -> SlipProbe:
        obj = super().__new__(cls, "")
        obj.seen = {}
        obj.clock = lambda: 0
        return obj

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str) and not isinstance(other, SlipProbe):
            self.seen.setdefault(other, self.clock())
        return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = str.__hash__


class StopRun(Exception):
    """Raised by a chain once the step it was asked to stop after is computed (``check`` needs no more)."""


def apply_elementwise(fn: str, x: np.ndarray) -> np.ndarray:
    """``fn`` of attncalc/derivation/elementwise.py on every entry of x: exact forms for an exact array, floats
    otherwise (an overflow is inf, as numpy gives it). A function without both forms is refused."""
    f = elementwise(fn)
    if f.exact is None or f.numeric is None:
        raise ValueError(f"element-wise function {fn!r} has no exact and float form (Elementwise exact=, numeric=)")
    if is_exact(x):
        out = np.empty(x.shape, dtype=object)
        for idx, e in np.ndenumerate(x):
            out[idx] = f.exact(e)
        return out
    with np.errstate(over="ignore", divide="ignore"):
        return np.asarray(f.numeric(np.asarray(x, dtype=float)), dtype=float)


class Chain:
    """One pass of arithmetic: exact, float or hand (rounded and carried).

    ``overrides`` replaces a step's result by given numbers (a student's answers) for everything
    after it, while ``computed`` keeps what the step itself gave; ``mistake`` switches on one of
    the usual slips of :func:`~attncalc.kinds.mistakes.every_mistake` so that ``check`` can see whether it reproduces an answer
    (``mistake_arg``: the vocabulary row of ``wrong_vocab_row``); ``stop_after`` ends the run once
    that step is computed.
    """

    def __init__(
        self,
        mode: str,
        decimals: int = 3,
        overrides: dict[str, np.ndarray] | None = None,
        mistake: str | None = None,
        mistake_arg: int | None = None,
        stop_after: str | None = None,
        widths: dict[str, np.ndarray | float] | None = None,
        labels: dict[str, str] | None = None,
    ) -> None:
        assert mode in ("exact", "float", "hand", "interval")
        assert mistake is None or mistake in every_mistake() or isinstance(mistake, SlipProbe)
        self.mode = mode
        self.decimals = decimals
        self.notes: list[str] = []
        self.degraded_at: str | None = None
        self.overrides = overrides or {}
        self.computed: dict[str, np.ndarray] = {}
        self.mistake = mistake
        self.mistake_arg = mistake_arg
        self.stop_after = stop_after  # end the run (StopRun) once this step is computed
        self.poison = False  # an override's not-a-number entries are carried on, not read as "?"
        # interval mode: how far each override's entries may be from the numbers given (half a unit of
        # the last decimal written)
        self.widths = widths or {}
        # answers that are labels (a merge's pair), which a mechanism that chooses one may follow
        self.labels = labels or {}
        if isinstance(mistake, SlipProbe):
            mistake.clock = lambda: len(self.computed)
        self.budget = Budget()
        self._gave_up: str | None = None  # why an operation of the current step was done in floats

    # -- inputs ------------------------------------------------------------------------
    def chosen(self, step_id: str, options: list[str]) -> int | None:
        """The option an answer chose at a step that chooses one (a merge's pair): its position among
        ``options``, or None when the step is not answered with one of them (spacing aside)."""
        if step_id not in self.labels:
            return None
        said = " ".join(str(self.labels[step_id]).split())
        return options.index(said) if said in options else None

    def given(self, g: Given) -> np.ndarray:
        if self.mode == "exact" and self.degraded_at is None:
            return g.exact()
        if self.mode == "interval":
            return iv.point(g.floats)
        return g.floats.copy()

    def weight(self, g: Given) -> np.ndarray:
        """A weight matrix (transposed under the mistake ``w_transposed``)."""
        W = self.given(g)
        if self.mistake == "w_transposed":
            if W.ndim != 2 or W.shape[0] != W.shape[1] or np.array_equal(to_float(W), to_float(W).T):
                raise MistakeNotApplicable
            return W.T
        return W

    def sqrt_dk(self, d_k: int) -> Any:
        """√d_k (d_k under the mistake ``dk_not_sqrt``, 1 under ``no_scale``)."""
        if self.mistake == "no_scale":
            return 1
        if self.mistake == "dk_not_sqrt":
            return d_k
        return self.const(lambda: exact_sqrt(d_k), math.sqrt(d_k))

    def const(self, exact: Callable[[], Any], float_value: float) -> Any:
        """A derived constant such as sqrt(d_k): exact when exact, rounded in the hand chain.

        ``exact`` is a thunk so that sympy is imported only by the exact chain.
        """
        if self.mode == "exact" and self.degraded_at is None:
            return exact()
        if self.mode == "hand":
            return round_half_up(float_value, self.decimals)
        return float_value

    # -- elementwise ---------------------------------------------------------------------
    def apply(self, fn: str, x: np.ndarray) -> np.ndarray:
        """An element-wise function of attncalc/derivation/elementwise.py, entry by entry: its exact form when x
        is exact, else its float value (the one place each function is defined)."""
        if self.mode == "interval":
            return iv.apply(fn, x)
        return apply_elementwise(fn, x)

    def exp(self, x: np.ndarray) -> np.ndarray:
        return self.apply("exp", x)

    def tanh(self, x: np.ndarray) -> np.ndarray:
        if self.mistake == "no_tanh":
            return x
        return self.apply("tanh", x)

    def sin(self, x: np.ndarray) -> np.ndarray:
        return self._map(x, "sin", np.sin)

    def cos(self, x: np.ndarray) -> np.ndarray:
        return self._map(x, "cos", np.cos)

    def log(self, x: np.ndarray) -> np.ndarray:
        return self._map(x, "log", np.log)

    def sigmoid(self, x: np.ndarray) -> np.ndarray:
        """σ(x) = 1 / (1 + e^(−x)); exact forms as sympy writes them."""
        return self.apply("sigmoid", x)

    def relu(self, x: np.ndarray) -> np.ndarray:
        return self.apply("relu", x)

    def sqrt(self, x: np.ndarray) -> np.ndarray:
        return self._map(x, "sqrt", np.sqrt)

    def number(self, exact: Callable[[], Any], float_value: float) -> Any:
        """A number given by the problem's settings (a learning rate): exact when exact, never rounded."""
        if self.mode == "exact" and self.degraded_at is None:
            return exact()
        return float_value

    def _map(self, x: np.ndarray, name: str, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        if self.mode == "interval":
            a = iv.point(x)
            out_iv = np.empty(a.shape, dtype=object)
            for idx, e in np.ndenumerate(a):
                out_iv[idx] = getattr(e, name)()
            return out_iv
        if is_exact(x):
            import sympy as sp

            f = getattr(sp, name)
            out = np.empty(x.shape, dtype=object)
            for idx, e in np.ndenumerate(x):
                out[idx] = f(e)
            return out
        with np.errstate(over="ignore", divide="ignore"):
            return fn(np.asarray(x, dtype=float))

    # -- linear algebra ------------------------------------------------------------------
    def coerce(self, *xs: np.ndarray) -> list[np.ndarray]:
        """All exact, or (if any is a float array) all float; in the interval chain, all intervals."""
        if self.mode == "interval":
            return [iv.point(x) for x in xs]
        if all(is_exact(x) for x in xs):
            return list(xs)
        return [to_float(x) for x in xs]

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a, b = self.coerce(a, b)
        if self.mode == "interval":
            return np.asarray(a @ b, dtype=object)
        if is_exact(a) and matmul_size(a, b) > MAX_EXACT_PRODUCT:  # too large to form exactly at all
            self._gave_up = f"its entries would grow past {MAX_EXACT_PRODUCT} terms together"
            a, b = fast_float(a), fast_float(b)
        out = a @ b
        if is_exact(a):
            return np.asarray(out, dtype=object)
        # terms that cancel exactly leave float noise (0.916·(−0.762) + 0.916·0.762 = −5e−17): that is 0
        with np.errstate(all="ignore"):
            scale = np.abs(a) @ np.abs(b)
            noise = np.isfinite(scale) & (np.abs(out) <= 1e-14 * scale)  # an overflow is no noise
            return np.where(noise, 0.0, out)

    def together(self, x: np.ndarray) -> np.ndarray:
        """Combine sums of fractions over one denominator, where that stays small."""
        if not is_exact(x) or self.mode == "interval":
            return x
        import sympy as sp

        out = np.empty(x.shape, dtype=object)
        for idx, e in np.ndenumerate(x):
            out[idx] = sp.together(e) if _has_fraction_terms(e) and expr_size(e) <= MAX_EXACT_SIZE else e
        return out

    # -- step boundary -------------------------------------------------------------------
    def step(
        self, cls: Callable[..., S], step_id: str, x: np.ndarray, *, shape: tuple[int, ...] | None = None, **fields: Any
    ) -> S:
        """The step ``cls`` of value ``x`` finished under ``step_id`` (:meth:`finish`): the id is written
        once, so the id the step is shown and graded by is the one its value (or an answer) is read under.
        ``shape``: the finished value reshaped for the step (a loss of one entry shown as one number)."""
        value = self.finish(step_id, x)
        return cls(id=step_id, value=value if shape is None else value.reshape(shape), **fields)

    def finish(self, step_id: str, x: np.ndarray) -> np.ndarray:
        """Called on every step's result: rounds (hand) or checks size (exact), then applies overrides."""
        if self.stop_after is not None and step_id != self.stop_after and self.stop_after in self.computed:
            raise StopRun(step_id)  # (at the next step: a slip may finish its step twice, as the late mask does)
        x = self._finish(step_id, x)
        self.computed[step_id] = x
        if self.mode == "interval":
            return self._carry_interval(step_id, x)
        if step_id in self.overrides:
            given = np.asarray(self.overrides[step_id], dtype=float).reshape(np.shape(x))
            open_ = np.isnan(given)  # entries the answer left out ("?") keep the computed value
            if self.poison:  # (unless not-a-number is the point: check tracing what depends on a step)
                return given
            return np.where(open_, to_float(x), given) if open_.any() else given
        return x

    def _carry_interval(self, step_id: str, x: np.ndarray) -> np.ndarray:
        """What the interval chain carries on from a step: an answer as the interval of numbers it may
        have been rounded from, as far as the step's formula can give them from the earlier answers
        (:func:`~attncalc.derivation.interval.meet`; entries written "?" keep the computed interval); a step not
        answered as its computed interval. (A hand chain, every step rounded, is a run of its own.)"""
        if step_id not in self.overrides:
            return x
        given = np.asarray(self.overrides[step_id], dtype=float).reshape(np.shape(x))
        width = self.widths.get(step_id, 0.0)
        numbers = np.where(np.isnan(given), 0.0, given)
        written = iv.meet(x, iv.around(numbers, width), numbers)
        return np.asarray(np.where(np.isnan(given), x, written), dtype=object)

    def _finish(self, step_id: str, x: np.ndarray) -> np.ndarray:
        if self.mode == "interval":
            return iv.point(x)
        if self.mode == "hand":
            return round_array(x, self.decimals)
        if self.mode != "exact":
            return x
        if self.degraded_at is not None:  # skipped from the start: floats throughout
            return x
        reason, self._gave_up = self._gave_up, None
        if is_exact(x):
            x = self.together(x)
            reason = reason or self.budget.exceeded_by(x)
        if reason is None:
            return x
        self.degraded_at = step_id
        self.notes.append(
            f"Exact forms stop at '{step_id}': {reason}, so it and the later steps are computed numerically."
        )
        raise ExactStopped(step_id)

    def skip_exact(self, reason: str) -> None:
        """Give up exact forms before starting (called before the first input is read)."""
        self.degraded_at = "start"
        self.notes.append(reason)
