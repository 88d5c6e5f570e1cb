"""Pieces every mechanism shares: the stable softmax steps and conversions between chains."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..derivation import Divide, Map, Softmax, Step, Sum
from ..derivation.arith import Chain, is_exact, to_float
from ..derivation.fmt import ten_to
from ..numbers import to_float as node_float

SHIFT_THRESHOLD = 20.0  # |score| above which exp() is unwieldy by hand; 709 overflows float64
OVERFLOW = 709.78


@dataclass(frozen=True)
class SoftmaxNames:
    """How one softmax is written: ids of its three steps and the symbols of its entries."""

    exps_id: str = "exponentials"
    sum_id: str = "exp_sum"
    out_id: str = "weights"
    arg: str = "e"  # symbol of the argument: scores e_i, logits z_i
    out: str = "α"  # symbol of the result: α_i, p_i
    out_title: str = "Attention weights"


def whole_numbers(chain: Chain, xs: list[int]) -> np.ndarray:
    """Whole numbers (counts, kept flags) in the chain's form: sympy integers when exact, floats otherwise."""
    if chain.mode == "exact" and chain.degraded_at is None:
        import sympy as sp

        out = np.empty(len(xs), dtype=object)
        out[:] = [sp.Integer(x) for x in xs]
        return out
    return np.array(xs, dtype=float)


class NoKeyToAttend(ValueError):
    """A softmax row whose every argument is −∞ (scores that overflowed to −∞ beside the masked
    ones): it has no key to attend to, and its softmax would be 0/0. :func:`attncalc.mechanisms.solve`
    reports it as bad input naming the step and the row, as the parser does for a fully masked row."""

    def __init__(self, step_id: str, row: str, what: str) -> None:
        self.step_id = step_id
        self.row = row
        self.what = what
        super().__init__(f"{step_id}: {row}")


def refuse_empty_rows(scores: np.ndarray, step_id: str, what: str, rows: tuple[str, ...] | None) -> None:
    """Raise :class:`NoKeyToAttend` for the first row (or the vector) of ``scores`` that is −∞ throughout."""
    f = to_float(scores)
    empty = np.isneginf(f).all(axis=-1) if f.size else np.zeros(0, dtype=bool)
    if not np.any(empty):
        return
    if f.ndim == 1:
        raise NoKeyToAttend(step_id, "", what)
    i = int(np.argmax(np.atleast_1d(empty)))
    label = f" ({rows[i]})" if rows is not None and i < len(rows) else ""
    raise NoKeyToAttend(step_id, f"row {i + 1}{label}", what)


def finite_max(x: np.ndarray, axis: int | None = None) -> np.ndarray:
    """Row (or overall) maximum, ignoring −∞ from masks; works for exact arrays too."""
    f = to_float(x)
    f = np.where(np.isneginf(f), np.nan, f)
    if axis is None:
        return np.asarray(x.flat[int(np.nanargmax(f))])
    idx = np.nanargmax(f, axis=-1)
    return np.asarray([x[i, j] for i, j in enumerate(np.atleast_1d(idx))], dtype=x.dtype)


def finite_min(x: np.ndarray) -> np.ndarray:
    """Row minimum (per last axis) ignoring −∞, for exact softmax forms."""
    f = to_float(x)
    f = np.where(np.isneginf(f), np.nan, f)
    idx = np.nanargmin(f, axis=-1)
    if x.ndim == 1:
        return np.asarray(x[int(idx)])
    return np.asarray([x[i, j] for i, j in enumerate(idx)], dtype=x.dtype)


def should_shift(scores: np.ndarray, mode: str) -> bool:
    if mode == "always":
        return True
    if mode == "never":
        return False
    f = to_float(scores)
    finite = f[np.isfinite(f)]
    return bool(finite.size) and float(np.max(np.abs(finite))) > SHIFT_THRESHOLD


def shift_note(scores: np.ndarray, mode: str) -> str:
    f = to_float(scores)
    finite = f[np.isfinite(f)]
    top = float(np.max(finite))
    low = float(np.min(finite))
    if mode == "always":
        why = "as asked (settings.shift_max)"
    elif top > OVERFLOW:
        power = top / math.log(10)  # 10^868588963806503622875788013946188981947322127176848945… for exp(2e300)
        digits = str(int(power)) if power < 1e15 else f"({_g(power)})"
        why = f"exp({_g(top)}) is about {ten_to(digits)}, which overflows double precision (max ≈ 1.8·{ten_to('308')})"
    elif math.exp(top) == 0.0:  # the largest underflows, so does every exponential: 0/0
        why = f"exp({_g(top)}) underflows to 0 in double precision, as does every other exponential, which would leave 0/0"
    else:
        big = top if abs(top) >= abs(low) else low
        if math.exp(big) == 0.0:  # the smallest alone underflows (harmless: its weight is 0 to the last digit)
            power = -big / math.log(10)
            digits = str(int(power)) if power < 1e15 else f"({_g(power)})"
            why = f"exp({_g(big)}) is about {ten_to('-' + digits)}, below what double precision holds"
        else:
            why = f"exp({_g(big)}) ≈ {math.exp(big):.3g} is unwieldy by hand"
    return (
        f"The maximum score was subtracted before exponentiating: {why}. "
        "This changes nothing, since softmax(e) = softmax(e − max e): the factor exp(−max e) cancels "
        "between numerator and denominator."
    )


def _g(x: float) -> str:
    return f"{x:.6g}"


def softmax_steps(
    chain: Chain,
    scores: np.ndarray,
    names: SoftmaxNames,
    shift_mode: str,
    rows: tuple[str, ...] | None,
    cols: tuple[str, ...] | None,
) -> tuple[list[Step], np.ndarray]:
    """exponentials, exp_sum and the normalised weights, row by row for a matrix."""
    refuse_empty_rows(scores, names.out_id, "logit" if names.out_id == "probabilities" else "score", rows)
    shifted = should_shift(scores, shift_mode)
    matrix = scores.ndim == 2
    a, o = names.arg, names.out
    if shifted:
        m = finite_max(scores, axis=-1 if matrix else None)
        arg = scores - (m[:, None] if matrix else m)
        exps = chain.finish(names.exps_id, chain.exp(arg))
        note = shift_note(scores, shift_mode)
        fn = "shift_exp"
        formula = f"exp({a}_i − m), m = max {a}"
        latex = rf"\exp({a}_i - m),\quad m = \max_j {a}_j"
    else:
        m = None
        exps = chain.finish(names.exps_id, chain.exp(scores))
        note = ""
        fn = "exp"
        formula = f"exp({a}_i)"
        latex = rf"\exp({a}_i)"
    # the exponential's argument as the sum and the weights write it: e_j, e_j − m, S'_ij
    ij = "_ij" if matrix else "_i"
    arg_i, arg_j = (
        (f"{a}{ij} − m", f"{a}{ij if matrix else '_j'} − m")
        if shifted
        else (f"{a}{ij}", f"{a}{ij if matrix else '_j'}")
    )
    tex_i, tex_j = (t.replace("_ij", "_{ij}").replace("−", "-") for t in (arg_i, arg_j))
    if matrix:
        formula = formula.replace("_i", "_ij").replace("max ", "max_j ")
        latex = latex.replace("_i", "_{ij}")
    exps_step = Map(
        id=names.exps_id,
        title="Exponentials",
        formula=formula,
        latex=latex,
        symbol=f"exp({a})",
        value=exps,
        rows=rows,
        cols=cols,
        fn=fn,
        arg=scores,
        param=None if m is None else np.asarray(m),
        note=note,
        explain="Softmax turns scores into positive numbers by exponentiating each one.",
    )
    axis_rows = not (matrix and chain.mistake == "softmax_wrong_axis")
    total = (
        np.sum(exps, axis=-1)
        if not matrix
        else np.array([sum(r) for r in (exps if axis_rows else exps.T)], dtype=exps.dtype)
    )
    if not matrix and is_exact(exps):
        total = np.asarray(sum(exps.tolist()), dtype=object)
    sum_step = chain.step(
        Sum,
        names.sum_id,
        np.asarray(total, dtype=exps.dtype),
        title="Sum of exponentials" + (" (per row)" if matrix else ""),
        formula=f"Z_i = Σ_j exp({arg_j})" if matrix else f"Z = Σ_j exp({arg_j})",
        latex=rf"Z_i = \sum_j \exp({tex_j})" if matrix else rf"Z = \sum_j \exp({tex_j})",
        symbol="Z",
        rows=rows if matrix else None,
        arg=exps,
        explain="The normaliser: dividing by it makes the weights sum to 1.",
    )
    total = sum_step.value
    if chain.mistake == "not_normalised":
        weights = exps
    elif not axis_rows:
        weights = exps / total[None, :]
    else:
        weights = _normalise(chain, scores, exps, total, m, matrix)
    out_step = chain.step(
        Divide,
        names.out_id,
        weights,
        title=names.out_title,
        formula=f"{o}_ij = exp({arg_i}) / Z_i" if matrix else f"{o}_i = exp({arg_i}) / Z",
        latex=rf"{_tex(o)}_{{ij}} = \frac{{\exp({tex_i})}}{{Z_i}}"
        if matrix
        else rf"{_tex(o)}_i = \frac{{\exp({tex_i})}}{{Z}}",
        symbol=o,
        rows=rows,
        cols=cols,
        num=exps,
        den=total,
        explain="Each exponential divided by the sum: positive and summing to 1"
        + (" along every row." if matrix else "."),
    )
    weights = out_step.value
    return [exps_step, sum_step, out_step], weights


def _normalise(
    chain: Chain, scores: np.ndarray, exps: np.ndarray, total: np.ndarray, shift: np.ndarray | None, matrix: bool
) -> np.ndarray:
    if not is_exact(exps) or not is_exact(total):
        e, t = chain.coerce(exps, total)
        ratio: np.ndarray = e / (t[:, None] if matrix else t)
        return ratio
    # Exact: divide top and bottom by exp(reference) so that exp(1)/(exp(1) + 2exp(2)) prints
    # as 1/(1 + 2e). The reference is the smallest finite score, or the maximum already
    # subtracted when the derivation shifted.
    ref = shift if shift is not None else finite_min(scores)
    rel = chain.together(scores - (ref[:, None] if matrix else ref))
    er = chain.exp(rel)
    if matrix:
        den = np.array([sum(r) for r in er], dtype=object)
        return np.asarray(er / den[:, None], dtype=object)
    out: np.ndarray = np.asarray(er / sum(er.tolist()), dtype=object)
    return out


def _tex(symbol: str) -> str:
    return {"α": r"\alpha", "p": "p"}.get(symbol, symbol)


def sqrt_dk_step(
    chain: Chain,
    scores: np.ndarray,
    d_k: int,
    names: tuple[str, str, str],
    rows: tuple[str, ...] | None,
    cols: tuple[str, ...] | None = None,
    step_id: str = "scaled_scores",
    d_name: str = "d_k",
) -> tuple[Map, np.ndarray]:
    """scaled_scores = scores / √d_k; ``names`` = (result entry, argument entry, result symbol)."""
    lhs, rhs, symbol = names
    root = chain.sqrt_dk(d_k)
    step = chain.step(
        Map,
        step_id,
        scores / root,
        title="Scaled scores",
        formula=f"{lhs} = {rhs} / √{d_name}, {d_name} = {d_k}",
        latex=rf"{lhs} = \frac{{{rhs}}}{{\sqrt{{{d_name}}}}},\ {d_name} = {d_k}",
        symbol=symbol,
        rows=rows,
        cols=cols,
        fn="divide",
        arg=scores,
        param=np.asarray(root),
        param_text=f"√{d_k}",
        explain="Dividing by √d_k keeps the dot products of long vectors from saturating the softmax.",
    )
    value = step.value
    return step, value


def softmax_inline(
    chain: Chain,
    z: np.ndarray,
    step_id: str,
    title: str,
    arg: str,
    out: str,
    shift_mode: str,
    rows: tuple[str, ...] | None,
) -> Softmax:
    """A softmax written as one step (exponentials and their sum shown inline): output layers."""
    refuse_empty_rows(z, step_id, "logit", None)
    shifted = should_shift(z, shift_mode)
    m = finite_max(z) if shifted else None
    exps = chain.exp(z - m if m is not None else z)
    if chain.mode == "hand":
        exps = chain.finish(step_id + ".exp", exps)
    total = np.asarray(sum(exps.tolist()), dtype=exps.dtype)
    if chain.mode == "hand":
        total = chain.finish(step_id + ".sum", total)
    p = chain.finish(step_id, _normalise(chain, z, exps, total, m, False))
    o_i, a_i, a_j = entry(out, "i"), entry(arg, "i"), entry(arg, "j")
    return Softmax(
        id=step_id,
        title=title,
        formula=f"{o_i} = exp({a_i}) / Σ_j exp({a_j})",
        latex=rf"{tex_entry(out, 'i')} = \frac{{\exp({tex_entry(arg, 'i')})}}{{\sum_j \exp({tex_entry(arg, 'j')})}}",
        symbol=out,
        value=p,
        rows=rows,
        arg=z,
        exps=exps,
        total=float(to_float(np.asarray(total))),
        shift=float(to_float(np.asarray(m))) if m is not None else 0.0,
        note=shift_note(z, shift_mode) if shifted else "",
        explain="Softmax over the vocabulary turns the logits into probabilities.",
    )


def simplify_log(x: np.ndarray) -> np.ndarray:
    """ln of exact products and quotients expanded (−ln(3/10) prints as −ln 3 + ln 10)."""
    if not is_exact(x):
        return x
    import sympy as sp

    out = np.empty(x.shape, dtype=object)
    for idx, e in np.ndenumerate(x):
        out[idx] = sp.expand_log(e, force=True)
    return out


def simplify_radicals(x: np.ndarray) -> np.ndarray:
    """Quotients of square roots with the radicals out of the denominator: 3/√10 as 3√10/10."""
    if not is_exact(x):
        return x
    import sympy as sp

    out = np.empty(x.shape, dtype=object)
    for idx, e in np.ndenumerate(x):
        out[idx] = sp.radsimp(e)
    return out


_TIMED = re.compile(r"_(\d+)$")


def entry(symbol: str, index: str) -> str:
    """An entry of a symbol in formulas: p_i, or p_1,i for a state at time step 1."""
    return f"{symbol},{index}" if _TIMED.search(symbol) else f"{symbol}_{index}"


def tex_entry(symbol: str, index: str) -> str:
    """The same in LaTeX: p_i, or p_{1,i}."""
    return _TIMED.sub(rf"_{{\1,{index}}}", symbol) if _TIMED.search(symbol) else f"{symbol}_{index}"


def temperature_step(chain: Chain, z: np.ndarray, T: Any, T_float: float, labels: Any, explain: str) -> Map:
    """The logits divided by the temperature (softmax and decode): z_i / T, as step ``scaled_logits``."""
    return chain.step(
        Map,
        "scaled_logits",
        z / T,
        title="Logits divided by the temperature",
        formula=f"z_i / T, T = {T_float:g}",
        latex=rf"z_i / T,\ T = {T_float:g}",
        symbol="z/T",
        rows=labels,
        fn="divide",
        arg=z,
        param=np.asarray(T),
        param_text=f"{T_float:g}",
        explain=explain,
    )


def convention_words(p: Any) -> str:
    """A header's words for the convention (the header: a mechanism's ``header(problem)``)."""
    return "row convention (x W)" if p.row_convention else "column convention (W x)"


def temperature_bits(p: Any) -> list[str]:
    """A header's words for ``settings.temperature``: none when it is not set."""
    temperature = getattr(p.settings, "temperature", None)
    return [] if temperature is None else [f"temperature T = {node_float(temperature):g}"]
