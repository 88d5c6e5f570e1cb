"""The written-out right-hand side of one entry of a step: "1·0 + 1·2", "2.718 / 17.496".

Plain text, shared by the terminal view and by ``check``'s notes (which write a step out from the
answerer's own numbers). Each step type has an ``_rhs_<TypeName>`` function; types whose entries
are not written out one by one (Concat, Mask, Argmax) have none.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..derivation import (
    Add,
    Combine,
    Cosine,
    Count,
    Divide,
    Formula,
    Gradient,
    Loss,
    Map,
    Norm,
    Product,
    Softmax,
    Step,
    Sum,
    Update,
)
from ..derivation.arith import round_half_up
from ..derivation.elementwise import elementwise
from ..derivation.fmt import TERM_LIMIT, elide, fmt, paren
from . import hand_eval

Num = Callable[[Any], str]
Rnd = Callable[[Any], float]


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
    f = elementwise(s.fn)
    param = None if s.param is None else np.asarray(s.param, dtype=float)
    if param is not None and f.per_row and param.ndim == 1:
        param = param[idx[0]]
    return f.written(n(s.arg[idx]), n(param) if param is not None else "", idx[-1] if idx else 0)


def _rhs_Formula(s: Formula, idx: tuple[int, ...], n: Num, decimals: int | None = None) -> str:
    out: Any = s.written
    if decimals is not None and hasattr(out, "at_decimals"):  # written lazily: at the precision asked for
        out = out.at_decimals(decimals)
    for i in idx:
        out = out[i]
    return str(out)


def _rhs_Count(s: Count, idx: tuple[int, ...], n: Num) -> str:
    return s.written or n(s.value)


def _rhs_Sum(s: Sum, idx: tuple[int, ...], n: Num) -> str:
    arg = np.asarray(s.arg)
    row = arg if arg.ndim == 1 else arg[idx[0]]
    return sum_text([n(x) for x in row])


def _rhs_Divide(s: Divide, idx: tuple[int, ...], n: Num) -> str:
    den = np.asarray(s.den)
    z = den[idx[0]] if den.ndim == 1 else den
    return f"{n(s.num[idx])} / {n(z)}"


def _rhs_Add(s: Add, idx: tuple[int, ...], n: Num) -> str:
    if not s.signs or all(k > 0 for k in s.signs):
        return sum_text([n(np.asarray(p)[idx]) for p in s.parts])
    text = ""
    for k, (p, sign) in enumerate(zip(s.parts, s.signs, strict=True)):
        shown = n(np.asarray(p)[idx])
        if sign > 0:
            text += shown if k == 0 else " + " + shown
        else:
            text += ("−" if k == 0 else " − ") + paren(shown)
    return text.replace("+ -", "- ")


def _rhs_Softmax(s: Softmax, idx: tuple[int, ...], n: Num) -> str:
    return f"{n(s.exps[idx])} / {n(s.total)}"


def _rhs_Loss(s: Loss, idx: tuple[int, ...], n: Num) -> str:
    return f"−ln({n(_at(s.prob, idx))})"


def _at(x: Any, idx: tuple[int, ...]) -> Any:
    a = np.asarray(x)
    return a[idx] if a.ndim else a


def _factors(s: Combine, k: int, idx: tuple[int, ...]) -> list[tuple[Any, bool]]:
    """The factors of term k at one entry, each with its (1 − x) flag."""
    if s.scalar_product:
        return [(x, False) for x in np.asarray(s.terms[0][0]).ravel()]
    return [(_at(f, idx), c) for f, c in zip(s.terms[k], s.complement[k], strict=True)]


def _rhs_Combine(s: Combine, idx: tuple[int, ...], n: Num) -> str:
    terms = []
    for k in range(len(s.terms)):
        parts = [f"(1 − {n(x)})" if c else paren(n(x)) for x, c in _factors(s, k, idx)]
        terms.append("·".join(parts))
    return sum_text(terms)


def _rhs_Update(s: Update, idx: tuple[int, ...], n: Num) -> str:
    g = n(_at(s.grad, idx))
    start = f"{n(_at(s.param, idx))} − " if s.param is not None else "−"
    if s.decay is not None and s.param is not None:  # AdamW: the decay first
        start += f"{paren(n(_at(s.decay, idx)))} − "
    if s.optimizer == "adam" and s.m_hat is not None and s.v_hat is not None:
        root = math.sqrt(float(_at(s.v_hat, idx)))
        return f"{start}{s.lr:g}·{paren(n(_at(s.m_hat, idx)))} / ({n(root)} + {s.eps:g})"
    return f"{start}{s.lr:g}·{paren(g)}"


def update_decimals(s: Update, decimals: int) -> int:
    """Enough decimals to see an update: a step of 0.000476 needs 6 even when the sheet shows 2."""
    before = np.asarray(s.param, dtype=float) if s.param is not None else 0.0
    delta = np.abs(np.asarray(s.shown, dtype=float) - before)
    delta = delta[delta > 0]
    if not delta.size:
        return decimals
    need = -math.floor(math.log10(float(np.min(delta)))) + 2
    return int(min(max(decimals, need), 10))


def _rhs_Gradient(s: Gradient, idx: tuple[int, ...], n: Num) -> str:
    core = f"{n(s.probs[idx])} − {n(s.onehot[idx])}"
    return f"({core}) / {n(s.temperature)}" if s.temperature != 1 else core


def _rhs_Norm(s: Norm, idx: tuple[int, ...], n: Num) -> str:
    vec = np.asarray(s.arg, dtype=float)[idx]
    squares = sum_text([f"{paren(n(x))}²" for x in vec])
    with np.errstate(over="ignore"):  # squares past the largest double: the line stops before their sum
        total = float(np.sum(vec * vec))
    return f"√({squares}) = √{paren(n(total))}" if math.isfinite(total) else f"√({squares})"


def _rhs_Cosine(s: Cosine, idx: tuple[int, ...], n: Num) -> str:
    return f"{n(_at(s.num, idx))} / ({n(_at(s.den_a, idx))}·{n(_at(s.den_b, idx))})"


# -- the same right-hand sides evaluated with the numbers as written ---------------------------


def _val_Product(s: Product, idx: tuple[int, ...], r: Rnd) -> float:
    b = s.bias_at(idx)
    return sum(r(a) * r(c) for a, c in s.pairs(idx)) + (r(b) if b is not None else 0.0)


def _val_Map(s: Map, idx: tuple[int, ...], r: Rnd) -> float:
    f = elementwise(s.fn)
    param = None if s.param is None else np.asarray(s.param, dtype=float)
    if param is not None and f.per_row and param.ndim == 1:
        param = param[idx[0]]
    return f.hand(r(s.arg[idx]), r(param) if param is not None else 0.0, idx[-1] if idx else 0)


def _val_Sum(s: Sum, idx: tuple[int, ...], r: Rnd) -> float:
    arg = np.asarray(s.arg)
    return sum(r(x) for x in (arg if arg.ndim == 1 else arg[idx[0]]))


def _val_Divide(s: Divide, idx: tuple[int, ...], r: Rnd) -> float:
    den = np.asarray(s.den)
    return r(s.num[idx]) / r(den[idx[0]] if den.ndim == 1 else den)


def _val_Add(s: Add, idx: tuple[int, ...], r: Rnd) -> float:
    signs = s.signs or (1,) * len(s.parts)
    return sum(k * r(np.asarray(p)[idx]) for p, k in zip(s.parts, signs, strict=True))


def _val_Softmax(s: Softmax, idx: tuple[int, ...], r: Rnd) -> float:
    return r(s.exps[idx]) / r(s.total)


def _val_Loss(s: Loss, idx: tuple[int, ...], r: Rnd) -> float:
    return -math.log(r(_at(s.prob, idx)))


def _val_Combine(s: Combine, idx: tuple[int, ...], r: Rnd) -> float:
    total = 0.0
    for k in range(len(s.terms)):
        term = 1.0
        for x, c in _factors(s, k, idx):
            term *= (1.0 - r(x)) if c else r(x)
        total += term
    return total


def _val_Update(s: Update, idx: tuple[int, ...], r: Rnd) -> float:
    theta = r(_at(s.param, idx)) if s.param is not None else 0.0
    if s.decay is not None and s.param is not None:
        theta -= r(_at(s.decay, idx))
    if s.optimizer == "adam" and s.m_hat is not None and s.v_hat is not None:
        root = math.sqrt(float(_at(s.v_hat, idx)))
        return theta - s.lr * r(_at(s.m_hat, idx)) / (r(root) + s.eps)
    return theta - s.lr * r(_at(s.grad, idx))


def _val_Gradient(s: Gradient, idx: tuple[int, ...], r: Rnd) -> float:
    return (r(s.probs[idx]) - r(s.onehot[idx])) / s.temperature


def _val_Norm(s: Norm, idx: tuple[int, ...], r: Rnd) -> float:
    return math.sqrt(sum(r(x) ** 2 for x in np.asarray(s.arg)[idx]))


def _val_Cosine(s: Cosine, idx: tuple[int, ...], r: Rnd) -> float:
    return r(_at(s.num, idx)) / (r(_at(s.den_a, idx)) * r(_at(s.den_b, idx)))


def rounded_gives(step: Step, idx: tuple[int, ...], shown: float, decimals: int) -> str | None:
    """When the written-out numbers (rounded as shown) do not give the shown result, what they give.

    Without carry_rounded a step's result comes from the unrounded values, so "0.155 + 0.422 = 0.578"
    can appear; the views say so on the line instead of leaving the reader to find a slip that is not there.
    """
    if isinstance(step, Formula):  # a line of rounded numbers is read as the arithmetic it shows
        if not step.hand or not math.isfinite(shown):
            return None
        try:
            with np.errstate(all="ignore"):
                got = hand_eval.evaluate(_rhs_Formula(step, idx, lambda x: fmt(x, decimals), decimals))
        except (ValueError, ZeroDivisionError, OverflowError, TypeError, IndexError):
            return None
        return None if not math.isfinite(got) or _same(got, shown, decimals) else written(got, decimals)
    fn = globals().get(f"_val_{type(step).__name__}")
    if fn is None or not math.isfinite(shown):
        return None

    def r(x: Any) -> float:
        v = float(x)  # the number as the line shows it: 0.16 at 0 decimals is written 0.16, not 0
        return float(fmt(v, decimals)) if math.isfinite(v) else v

    try:
        with np.errstate(all="ignore"):
            value = float(fn(step, idx, r))
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return None if _same(value, shown, decimals) else written(value, decimals)


def written(x: float, decimals: int) -> str:
    """A hand-rounded number at the shown precision, with all its decimals: 15.80, not 15.8 (fmt drops
    trailing zeros of a value that is exact at that precision, but "as written" is a rounded result)."""
    r = round_half_up(x, decimals)
    if decimals < 0 or not math.isfinite(r) or abs(r) >= 1e12:
        return fmt(r, max(decimals, 0))
    text = f"{r:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


def _same(a: float, b: float, decimals: int) -> bool:
    """Equal once both are rounded as shown (0.69 and 0.6899 are; formatting may drop zeros)."""
    return abs(round_half_up(a, decimals) - round_half_up(b, decimals)) < 0.5 * 10.0**-decimals


def aside(step: Step, idx: tuple[int, ...], shown: float, decimals: int) -> str:
    """The remark a view appends to a line whose written numbers do not give its result ("" if they do)."""
    got = rounded_gives(step, idx, shown, decimals)
    return f"as written: {got}" if got else ""


def softmax_exp_aside(s: Softmax, i: int, decimals: int) -> str:
    """The same remark for a Softmax step's inline line "exp(z_i) = …"."""
    x = round_half_up(float(s.arg[i]), decimals) - round_half_up(s.shift, decimals)
    try:
        value = math.exp(x)
    except OverflowError:  # a rounded score far above the rounded shift: no remark to make
        return ""
    if _same(value, float(s.exps[i]), decimals):
        return ""
    return f"as written: {written(value, decimals)}"


def rhs(step: Step, idx: tuple[int, ...], decimals: int) -> str | None:
    """The written-out computation of one entry, or None for a step type without one."""
    fn = globals().get(f"_rhs_{type(step).__name__}")
    if fn is None:
        return None
    if isinstance(step, Formula):
        return _rhs_Formula(step, idx, lambda x: fmt(x, decimals), decimals)
    with np.errstate(all="ignore"):  # a value past the largest double is written ∞, never numpy's warning
        return str(fn(step, idx, lambda x: fmt(x, decimals)))
