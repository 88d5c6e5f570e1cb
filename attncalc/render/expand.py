"""The written-out right-hand side of one entry of a step: "1·0 + 1·2", "2.718 / 17.496".

Plain text, shared by the terminal view and by ``check``'s notes (which write a step out from the
answerer's own numbers). Each step type has an ``_rhs_<TypeName>`` function; types whose entries
are not written out one by one (Concat, Mask, Argmax) have none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..derivation import Add, Divide, Gradient, Loss, Map, Product, Softmax, Step, Sum
from .fmt import TERM_LIMIT, elide, fmt, paren

Num = Callable[[Any], str]


def sum_text(terms: list[str]) -> str:
    shown = [t if t is not None else "…" for t in elide(terms, TERM_LIMIT)]
    return " + ".join(shown).replace("+ -", "- ")


def _rhs_Product(s: Product, idx: tuple[int, ...], n: Num) -> str:
    terms = [f"{paren(n(a))}·{paren(n(b))}" for a, b in s.pairs(idx)]
    b = s.bias_at(idx)
    if b is not None:
        terms.append(n(b))
    return sum_text(terms)


def _rhs_Map(s: Map, idx: tuple[int, ...], n: Num) -> str:
    x = n(s.arg[idx])
    param = None if s.param is None else np.asarray(s.param, dtype=float)
    if s.fn == "exp":
        return f"exp({x})"
    if s.fn == "shift_exp":
        m = param[idx[0]] if param is not None and param.ndim == 1 else param
        return f"exp({x} − {paren(n(m))})"
    if s.fn == "tanh":
        return f"tanh({x})"
    if s.fn == "divide":
        return f"{paren(x)} / {n(param)}"
    return f"{paren(x)} · {n(param)}"


def _rhs_Sum(s: Sum, idx: tuple[int, ...], n: Num) -> str:
    arg = np.asarray(s.arg)
    row = arg if arg.ndim == 1 else arg[idx[0]]
    return sum_text([n(x) for x in row])


def _rhs_Divide(s: Divide, idx: tuple[int, ...], n: Num) -> str:
    den = np.asarray(s.den)
    z = den[idx[0]] if den.ndim == 1 else den
    return f"{n(s.num[idx])} / {n(z)}"


def _rhs_Add(s: Add, idx: tuple[int, ...], n: Num) -> str:
    return sum_text([n(np.asarray(p)[idx]) for p in s.parts])


def _rhs_Softmax(s: Softmax, idx: tuple[int, ...], n: Num) -> str:
    return f"{n(s.exps[idx])} / {n(s.total)}"


def _rhs_Loss(s: Loss, idx: tuple[int, ...], n: Num) -> str:
    return f"−ln({n(s.prob)})"


def _rhs_Gradient(s: Gradient, idx: tuple[int, ...], n: Num) -> str:
    core = f"{n(s.probs[idx])} − {n(s.onehot[idx])}"
    return f"({core}) / {n(s.temperature)}" if s.temperature != 1 else core


def rhs(step: Step, idx: tuple[int, ...], decimals: int) -> str | None:
    """The written-out computation of one entry, or None for a step type without one."""
    fn = globals().get(f"_rhs_{type(step).__name__}")
    if fn is None:
        return None
    return str(fn(step, idx, lambda x: fmt(x, decimals)))
