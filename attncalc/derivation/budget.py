"""How much exact arithmetic a derivation may do before its exact forms stop.

Exact forms teach only while they stay small, and sympy's cost grows with them faster than the
page does: a 20 × 20 self-attention took 13-19 s, a GRU with entries of 1e150 over a minute (in
mpmath), a 50-step seq2seq past two minutes. So the exact pass of a derivation works within a
budget, and a step that would exceed it is computed numerically from then on, with the usual note
(:class:`attncalc.derivation.arith.Chain`). The budget counts work, not time, so the same problem stops at
the same step on every machine:

* :data:`MAX_EXACT_SIZE` nodes in one entry's exact form, nested at most :data:`MAX_EXACT_DEPTH`
  deep (sympy's own simplifications evaluate a form numerically, at a cost that grows with its depth
  far faster than with its size: an LSTM whose cell state nests e(…e((1 + e)^k …)) one level a step
  took 0.2 s at step 9 and 1.2 s at step 13);
* :data:`MAX_EXACT_STEP` nodes in one step's exact forms together, and a matrix product is not
  formed exactly when its entries would have more than :data:`MAX_EXACT_PRODUCT` before sympy
  collects terms (an estimate from its operands);
* :data:`MAX_EXACT_WORK` nodes in all the exact forms of the derivation;
* no number larger than :data:`MAX_EXACT_VALUE` in size, written in an exact form or as the
  value of one or of a term in it (sympy evaluates tanh(1e150 …) or exp(100)/(1 + exp(100)) at
  growing precision, and its simplifications ask for signs the same way); inputs that large skip
  exact forms from the start;

and only as a backstop for what these do not foresee, :data:`MAX_EXACT_SECONDS` of wall-clock time,
checked at every step. The step where exact forms stop, and every later one, take their values
from a numeric pass (:func:`attncalc.mechanisms.solve`); meanwhile the exact pass goes on in
floats, the stopped step evaluated by :func:`fast_float`, one pass over its expression tree,
never by sympy's arbitrary-precision evalf.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

MAX_EXACT_ENTRIES = 400  # input entries above which exact mode is skipped altogether
MAX_EXACT_SIZE = 200  # nodes in one entry's exact form
MAX_EXACT_DEPTH = 20  # levels of nesting in one entry's exact form (the examples reach 17)
MAX_EXACT_STEP = 4000  # nodes in one step's exact forms, all entries together
MAX_EXACT_PRODUCT = 20000  # nodes a matrix product's exact entries would have before sympy collects terms
MAX_EXACT_WORK = 12000  # nodes in all the exact forms of one derivation
MAX_EXACT_VALUE = 10**12  # a number in an exact form, its value, or an input larger than this in size
MAX_EXACT_SECONDS = 5.0  # wall clock: a backstop only


def expr_size(e: Any) -> int:
    """Nodes in an expression tree: a cheap stand-in for sympy's count_ops."""
    size, stack = 0, [e]
    while stack:
        node = stack.pop()
        size += 1
        stack.extend(getattr(node, "args", ()))  # a plain int in an object array: one node
    return size


def expr_depth(e: Any) -> int:
    """Levels of nesting in an expression tree (a number: 1)."""
    deepest, stack = 0, [(e, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((a, depth + 1) for a in getattr(node, "args", ()))
    return deepest


def _has_huge_number(e: Any) -> bool:
    stack = [e]
    while stack:
        node = stack.pop()
        if getattr(node, "is_Rational", False) and (abs(node.p) > MAX_EXACT_VALUE * node.q):
            return True
        stack.extend(getattr(node, "args", ()))
    return False


class Budget:
    """The exact work a chain has done, and whether one more step's result fits."""

    def __init__(self) -> None:
        self.work = 0
        self.started = time.monotonic()

    def exceeded_by(self, x: np.ndarray) -> str | None:
        """Why the exact step result x does not fit (then nothing is counted), or None (it is)."""
        sizes = [expr_size(e) for e in x.flat]
        total = sum(sizes)
        if max(sizes, default=0) > MAX_EXACT_SIZE:
            return f"an entry grew past {MAX_EXACT_SIZE} terms"
        if max((expr_depth(e) for e in x.flat), default=0) > MAX_EXACT_DEPTH:
            return f"an entry nested past {MAX_EXACT_DEPTH} levels"
        if total > MAX_EXACT_STEP:
            return f"its entries grew past {MAX_EXACT_STEP} terms together"
        if self.work + total > MAX_EXACT_WORK:
            return f"the exact forms grew past {MAX_EXACT_WORK} terms in all"
        values = fast_float(x)
        if any(_has_huge_number(e) for e in x.flat) or not np.all(
            np.abs(values[~np.isneginf(values)]) <= MAX_EXACT_VALUE
        ):
            return "numbers in them grew past 10^12 in size"
        if time.monotonic() - self.started > MAX_EXACT_SECONDS:
            return f"they took more than {MAX_EXACT_SECONDS:g} seconds"
        self.work += total
        return None


def matmul_size(a: np.ndarray, b: np.ndarray) -> int:
    """The nodes of the exact product a @ b before sympy collects terms, estimated from its operands:
    each output entry sums a_ik · b_kj over k, and a product of two numbers is one number (so an
    identity matrix adds nothing) while a zero drops out."""
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    sa, za = _symbolic_sizes(a2)
    sb, zb = _symbolic_sizes(b2)
    live = ~za[:, :, None] & ~zb[None, :, :]
    sym = sa[:, :, None] + sb[None, :, :]
    return int(np.where(live & (sym > 0), sym + 1, 0).sum() + a2.shape[0] * b2.shape[1])


def _symbolic_sizes(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nodes of each entry that is not a plain number (0 for a number), and which entries are 0."""
    sizes = np.zeros(x.shape, dtype=int)
    zeros = np.zeros(x.shape, dtype=bool)
    for idx, e in np.ndenumerate(x):
        if e.is_Number:
            zeros[idx] = e == 0
        else:
            sizes[idx] = expr_size(e)
    return sizes, zeros


FAST_FLOAT_DIGITS = 40
CANCELLED = 10.0 ** -(FAST_FLOAT_DIGITS - 5)  # a sum this much smaller than its largest term is 0


def fast_float(x: np.ndarray) -> np.ndarray:
    """Each exact entry evaluated to a float in one pass over its tree (shared subtrees once), with
    mpmath at a fixed 40 significant digits: the result is the exact value correctly rounded unless
    a sum cancels more than 20 digits, and no term overflows (exp(11300) is an mpf like any other).
    A sum that cancels to within 5 digits of that precision is 0: the exact value, which sympy
    need not see (the terms' forms differ).

    sympy's own evalf instead raises its precision until every digit is certain, which for nested
    tanh forms takes a tenth of a second per entry and for huge numbers minutes.
    """
    import mpmath

    out = np.empty(x.shape, dtype=float)
    memo: dict[Any, Any] = {}
    with mpmath.workdps(FAST_FLOAT_DIGITS):
        for idx, e in np.ndenumerate(x):
            out[idx] = _to_double(_evaluate(e, memo))
    return out


def _to_double(v: Any) -> float:
    try:
        return float(v)  # an mpf beyond the doubles' range is ±inf
    except (TypeError, ValueError):  # complex
        return math.nan


def _evaluate(e: Any, memo: dict[Any, Any]) -> Any:
    stack: list[tuple[Any, bool]] = [(e, False)]
    while stack:
        node, ready = stack.pop()
        if node in memo:
            continue
        if not getattr(node, "args", ()):
            memo[node] = _atom(node)
        elif ready:
            memo[node] = _apply(node, [memo[a] for a in node.args])
        else:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a not in memo)
    return memo[e]


def _atom(node: Any) -> Any:
    import mpmath

    if isinstance(node, (int, float)):  # a plain number in an object array
        return mpmath.mpf(node)
    if node.is_Rational:
        return mpmath.mpf(node.p) / node.q
    if node.is_infinite:  # −∞: a masked score
        return mpmath.inf if node.is_extended_positive else -mpmath.inf if node.is_extended_negative else mpmath.nan
    if node.is_Float:
        return mpmath.mpf(node._mpf_)
    try:
        return mpmath.mpf(node.evalf(45)._mpf_)  # e, pi
    except (AttributeError, TypeError, ValueError):  # a symbol: not in a mechanism's forms
        return mpmath.nan


def _apply(node: Any, args: list[Any]) -> Any:
    import mpmath
    import sympy as sp

    try:
        if isinstance(node, sp.Add):
            total = mpmath.fsum(args)
            # terms that cancel to within the last digits of the working precision: an exact 0
            # (0.055·1 + (−0.055)·1 with the 0.055 an exact form came out 1.43e-42, not 0)
            largest = max((abs(a) for a in args), default=mpmath.mpf(0))
            return mpmath.mpf(0) if mpmath.isfinite(largest) and abs(total) <= largest * CANCELLED else total
        if isinstance(node, sp.Mul):
            return mpmath.fprod(args)
        if isinstance(node, sp.Pow):
            base, power = args
            if base == 0:
                return mpmath.inf if power < 0 else mpmath.mpf(0) if power > 0 else mpmath.mpf(1)
            value = mpmath.power(base, power)
            return value if not isinstance(value, mpmath.mpc) else mpmath.nan
        name = type(node).__name__
        if name in ("exp", "tanh"):
            return getattr(mpmath, name)(args[0])
        if name == "log":
            return mpmath.log(args[0]) if args[0] > 0 else mpmath.nan
        if name in ("Max", "Min"):
            return max(args) if name == "Max" else min(args)
        if name == "Abs":
            return abs(args[0])
    except (ValueError, ZeroDivisionError):
        return mpmath.nan
    return mpmath.mpf(float(node.evalf()))  # anything else: sympy, once, at the default precision
