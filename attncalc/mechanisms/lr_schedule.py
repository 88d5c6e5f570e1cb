"""Kind ``lr-schedule``: the learning rate of a schedule at given steps, each written out, and its peak.

- noam (Vaswani et al. 2017, §5.3): lr = factor · d_model^(−0.5) · min(t^(−0.5), t · warmup^(−1.5)),
  t ≥ 1: a linear rise for warmup steps, then a decay with 1/√t; the peak at t = warmup.
- cosine with linear warmup (the LLaMA / CS336 recipe): t < warmup: lr_max · t / warmup; warmup ≤ t ≤
  total: lr_min + ½(1 + cos(π (t − warmup)/(total − warmup)))(lr_max − lr_min); t > total: lr_min.
- linear: the same warmup, then a straight line down to lr_min at ``total``.

Values are exact where the chain is (sympy: 512^(−1/2) = √2/32, cos(π/4) = √2/2); which branch of a
min applies is decided in floats, where the two sides never tie closely enough to matter (they are equal
at t = warmup, where either is right).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..derivation import Formula, Input, Step
from ..derivation.arith import Chain
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse import Problem
from ..parse.lr_schedule import Decay, LrSchedule, Noam


@dataclass(frozen=True)
class _Num:
    """A number of the problem: its exact value (a thunk: sympy only in the exact chain), its float and
    its text."""

    node: Any

    def get(self, chain: Chain) -> Any:
        return chain.number(lambda: to_exact(self.node), node_float(self.node))

    @property
    def f(self) -> float:
        return node_float(self.node)

    @property
    def text(self) -> str:
        return f"{self.f:g}"


def _exact(chain: Chain) -> bool:
    return chain.mode == "exact" and chain.degraded_at is None


def _power(chain: Chain, base: int, num: int, den: int) -> Any:
    """base^(num/den), exact (sympy) or float."""
    if _exact(chain):
        import sympy as sp

        return sp.Integer(base) ** sp.Rational(num, den)
    return float(base) ** (num / den)


def _cos_pi(chain: Chain, num: int, den: int) -> Any:
    if _exact(chain):
        import sympy as sp

        return sp.cos(sp.pi * sp.Rational(num, den))
    return float(np.cos(np.pi * num / den))


def inputs(p: Problem) -> list[Input]:
    """The steps, then the schedule's constants (one number each)."""
    d = p.payload(LrSchedule)
    out = [Input("steps", "t", np.asarray(d.steps, dtype=float), None, role="the steps the rate is asked at")]
    rule = d.rule
    consts: list[tuple[str, Any, str]] = (
        [("d_model", rule.d_model, "the model width"), ("warmup", d.warmup, "the warmup steps")]
        + ([("factor", node_float(rule.factor), "the factor in front")] if node_float(rule.factor) != 1 else [])
        if isinstance(rule, Noam)
        else [
            ("lr_max", node_float(rule.lr_max), "the peak rate"),
            ("lr_min", node_float(rule.lr_min), "the rate at total and after"),
            ("warmup", d.warmup, "the warmup steps"),
            ("total", rule.total, "the step the decay ends at"),
        ]
    )
    out += [Input(name, name, np.asarray(float(v)), None, role=role) for name, v, role in consts]
    return out


def _noam(chain: Chain, d: LrSchedule, noam: Noam, t: int) -> tuple[Any, str]:
    factor = _Num(noam.factor)
    w, dm = d.warmup, noam.d_model
    exponent = (-1, 2) if chain.mistake == "warmup_exponent" else (-3, 2)  # the slip: warmup^(−0.5)
    front = ("" if factor.f == 1 else f"{factor.text}·") + f"{dm}^(−0.5)"
    w_text = f"{w}^(−{'0.5' if exponent == (-1, 2) else '1.5'})"
    written = f"{front}·min({t}^(−0.5), {t}·{w_text})"
    if t == 0:  # (only under the slip step_from_zero: t^(−0.5) is infinite, t·warmup^(…) is 0)
        return (0 if _exact(chain) else 0.0), written
    rise = t * float(w) ** (exponent[0] / exponent[1])
    fall = float(t) ** -0.5
    part = t * _power(chain, w, *exponent) if rise <= fall else _power(chain, t, -1, 2)
    return factor.get(chain) * _power(chain, dm, -1, 2) * part, written


def _decay(chain: Chain, d: LrSchedule, decay: Decay, t: int) -> tuple[Any, str]:
    hi, lo = _Num(decay.lr_max), _Num(decay.lr_min)
    w, total = d.warmup, decay.total
    if t < w:
        return hi.get(chain) * t / w if _exact(chain) else hi.f * t / w, f"{hi.text}·{t}/{w}"
    if t > total:
        return lo.get(chain), "lr_min (past total)"
    span = total - w
    base = "" if lo.f == 0 else f"{lo.text} + "
    diff = hi.text if lo.f == 0 else f"({hi.text} − {lo.text})"
    width = hi.get(chain) - lo.get(chain)
    if d.schedule == "cosine":
        value = lo.get(chain) + (1 + _cos_pi(chain, t - w, span)) * width / 2
        return value, f"{base}½(1 + cos(π·{t - w}/{span}))·{diff}"
    frac = (total - t) / span if not _exact(chain) else _rational(total - t, span)
    return lo.get(chain) + width * frac, f"{base}{diff}·{total - t}/{span}"


def _rational(a: int, b: int) -> Any:
    import sympy as sp

    return sp.Rational(a, b)


def rate(chain: Chain, d: LrSchedule, t: int) -> tuple[Any, str]:
    """The rate at step t (the step before under the slip ``step_from_zero``) and how it is written."""
    if chain.mistake == "step_from_zero" and t >= 1:
        t -= 1
    return _noam(chain, d, d.rule, t) if isinstance(d.rule, Noam) else _decay(chain, d, d.rule, t)


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(LrSchedule)
    rates, written = zip(*(rate(chain, d, t) for t in d.steps), strict=True)
    dtype = object if _exact(chain) else float
    steps: list[Step] = [
        chain.step(
            Formula,
            "lr",
            np.asarray(list(rates), dtype=dtype),
            title=f"Learning rate ({_NAMES[d.schedule]})",
            formula=_FORMULAS[d.schedule],
            latex="",
            symbol="lr",
            rows=tuple(f"t = {t}" for t in d.steps),
            written=tuple(written),
            explain=_EXPLAIN[d.schedule],
        )
    ]
    steps.append(
        chain.step(
            Formula,
            "peak_step",
            np.asarray(d.warmup, dtype=dtype),
            title="Step of the peak",
            formula="t* = warmup",
            latex="",
            symbol="t*",
            written="warmup",
            explain="The rate rises through the warmup and falls after it: the peak is at its last step.",
        )
    )
    if isinstance(d.rule, Noam):
        factor = _Num(d.rule.factor)
        peak = factor.get(chain) * _power(chain, d.rule.d_model, -1, 2) * _power(chain, d.warmup, -1, 2)
        front = "" if factor.f == 1 else f"{factor.text}·"
        peak_written = f"{front}{d.rule.d_model}^(−0.5)·{d.warmup}^(−0.5)"
    else:
        peak, peak_written = _Num(d.rule.lr_max).get(chain), "lr_max"
    steps.append(
        chain.step(
            Formula,
            "peak_lr",
            np.asarray(peak, dtype=dtype),
            title="Peak learning rate",
            formula="lr* = factor · d_model^(−0.5) · warmup^(−0.5)" if d.schedule == "noam" else "lr* = lr_max",
            latex="",
            symbol="lr*",
            written=peak_written,
            explain="At t = warmup the rising line meets the falling curve: the two sides of the min are equal."
            if d.schedule == "noam"
            else "The warmup ends at lr_max, where the decay starts.",
        )
    )
    return steps


_NAMES = {"noam": "Noam", "cosine": "cosine with linear warmup", "linear": "linear with linear warmup"}
_FORMULAS = {
    "noam": "lr(t) = factor · d_model^(−0.5) · min(t^(−0.5), t · warmup^(−1.5))",
    "cosine": "lr(t) = lr_max·t/warmup (t < warmup); lr_min + ½(1 + cos(π(t − warmup)/(total − warmup)))"
    "(lr_max − lr_min) (up to total); lr_min after",
    "linear": "lr(t) = lr_max·t/warmup (t < warmup); lr_min + (lr_max − lr_min)(total − t)/(total − warmup) "
    "(up to total); lr_min after",
}
_EXPLAIN = {
    "noam": "The Transformer's schedule (Vaswani et al. 2017, §5.3): the rate grows linearly for the first "
    "warmup steps and then falls with the inverse square root of the step.",
    "cosine": "Linear warmup to lr_max, then half a cosine down to lr_min at step total, then lr_min (the "
    "LLaMA and CS336 recipe).",
    "linear": "Linear warmup to lr_max, then a straight line down to lr_min at step total, then lr_min.",
}


def header(p: Problem) -> list[str]:
    d = p.payload(LrSchedule)
    if isinstance(d.rule, Noam):
        return [p.kind, "noam", f"d_model = {d.rule.d_model}", f"warmup = {d.warmup}"]
    return [
        p.kind,
        d.schedule,
        f"lr_max = {_Num(d.rule.lr_max).text}",
        f"warmup = {d.warmup}",
        f"total = {d.rule.total}",
    ]
