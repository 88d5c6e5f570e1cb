"""The element-wise functions a :class:`~attncalc.derivation.Map` step applies, each in one place: how
one entry is written out ("exp(0.5)", "(2) / 1.414"), its value as a hand calculation computes it
from the written (rounded) numbers, and, for a function of the entry alone, its exact form (one
sympy expression) and its float value (a numpy array), which :meth:`attncalc.derivation.arith.Chain.apply`
computes: a new function is added here once and a mechanism calls ``chain.apply("name", x)``.

A Map step naming a function not listed here is refused when the step is built, so a new function
fails in its mechanism's test, never as a traceback in a sheet. (Functions of a parameter or of
the column, divide, scale, shift_exp, sinusoid, clip_scale, are computed by their mechanisms; the
homework's saturation guards are in :mod:`attncalc.homework.guards`.)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .fmt import paren

GELU_C = "0.044715"  # the tanh approximation's cubic coefficient (Hendrycks & Gimpel), exact as written


@dataclass(frozen=True)
class Elementwise:
    """One function: ``written(x, param)`` writes an entry from its argument and parameter as text;
    ``hand(x, param, column)`` is its value from the numbers as written (param is 0 when unused)."""

    written: Callable[[str, str, int], str]
    hand: Callable[[float, float, int], float]
    per_row: bool = False  # the parameter holds one number per row (the row maxima of shift_exp)
    exact: Callable[[Any], Any] | None = None  # a sympy expression -> the function's exact form
    numeric: Callable[[np.ndarray], np.ndarray] | None = None  # float64 array -> float64 array
    # where the function turns (its derivative is 0), () for a monotone one: check bounds it over an
    # interval from its values at the ends and at these (attncalc/derivation/interval.py); None: not declared,
    # and check gives no interval credit through it
    critical: tuple[float, ...] | None = None
    # the open interval (low, high) of arguments it is defined on: −ln x on (0, ∞); a test of its values
    # takes its points there
    domain: tuple[float, float] = (-math.inf, math.inf)


def _sp() -> Any:
    import sympy as sp  # only the exact chain imports sympy

    return sp


def _exact_gelu(e: Any) -> Any:
    sp = _sp()
    return e / 2 * (1 + sp.erf(e / sp.sqrt(2)))


def _exact_gelu_tanh(e: Any) -> Any:
    sp = _sp()
    return e / 2 * (1 + sp.tanh(sp.sqrt(2 / sp.pi) * (e + sp.Rational(GELU_C) * e**3)))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.asarray(1.0 / (1.0 + np.exp(-x)), dtype=float)


def _silu_array(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.asarray(x / (1.0 + np.exp(-x)), dtype=float)


def _gelu(x: float) -> float:
    return 0.5 * x * (1 + math.erf(x / math.sqrt(2)))


def _gelu_tanh(x: float) -> float:
    return 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + float(GELU_C) * x**3)))


def _silu(x: float) -> float:
    return x / (1.0 + math.exp(-x)) if x > -700 else 0.0  # e^700 is near the largest double


ELEMENTWISE: dict[str, Elementwise] = {
    "exp": Elementwise(
        lambda x, p, j: f"exp({x})",
        lambda x, p, j: math.exp(x),
        exact=lambda e: _sp().exp(e),
        numeric=np.exp,
        critical=(),
    ),
    # exp of the argument minus its row's maximum (softmax with the maximum subtracted)
    "shift_exp": Elementwise(lambda x, p, j: f"exp({x} − {paren(p)})", lambda x, p, j: math.exp(x - p), per_row=True),
    "tanh": Elementwise(
        lambda x, p, j: f"tanh({x})",
        lambda x, p, j: math.tanh(x),
        exact=lambda e: _sp().tanh(e),
        numeric=np.tanh,
        critical=(),
    ),
    "relu": Elementwise(
        lambda x, p, j: f"relu({x})",
        lambda x, p, j: max(x, 0.0),
        exact=lambda e: _sp().Max(e, 0),
        numeric=lambda x: np.maximum(x, 0.0),
        critical=(),
    ),
    # a transformer layer's feed-forward activations: exact erf, and the tanh approximation
    "gelu": Elementwise(
        lambda x, p, j: f"GELU({x})",
        lambda x, p, j: _gelu(x),
        exact=_exact_gelu,
        numeric=np.vectorize(_gelu, otypes=[float]),
        critical=(-0.7517915246935645,),  # the minimum (mpmath: the root of the derivative)
    ),
    "gelu_tanh": Elementwise(
        lambda x, p, j: f"GELU_tanh({x})",
        lambda x, p, j: _gelu_tanh(x),
        exact=_exact_gelu_tanh,
        numeric=np.vectorize(_gelu_tanh, otypes=[float]),
        critical=(-0.7524614220710163,),
    ),
    # sinusoidal positions: sin in the even columns, cos in the odd ones
    "sinusoid": Elementwise(
        lambda x, p, j: f"{'sin' if j % 2 == 0 else 'cos'}({x})",
        lambda x, p, j: math.sin(x) if j % 2 == 0 else math.cos(x),
    ),
    "sigmoid": Elementwise(
        lambda x, p, j: f"σ({x})",
        lambda x, p, j: 1.0 / (1.0 + math.exp(-x)),
        exact=lambda e: 1 / (1 + _sp().exp(-e)),
        numeric=_sigmoid,
        critical=(),
    ),
    "divide": Elementwise(lambda x, p, j: f"{paren(x)} / {p}", lambda x, p, j: x / p),
    "scale": Elementwise(lambda x, p, j: f"{paren(x)} · {p}", lambda x, p, j: x * p),
    # the modern layer (issue 30): SiLU, x · σ(x), of the SiLU and SwiGLU feed-forward networks
    "silu": Elementwise(
        lambda x, p, j: f"silu({x})",
        lambda x, p, j: _silu(x),
        exact=lambda e: e / (1 + _sp().exp(-e)),
        numeric=_silu_array,
        critical=(-1.2784645427610738,),
    ),
}


def elementwise(fn: str) -> Elementwise:
    """The function named ``fn``; ValueError naming the known ones otherwise."""
    if fn in ELEMENTWISE:
        return ELEMENTWISE[fn]
    known = every_elementwise()
    if fn in known:
        return known[fn]
    raise ValueError(f"unknown element-wise function {fn!r}; known: {', '.join(known)}")


def every_elementwise() -> dict[str, Elementwise]:
    """:data:`ELEMENTWISE` and then the functions the registry's kinds declare (``KindEntry.elementwise``:
    a plugin kind's own); a shared function is never replaced."""
    from ..kinds import declared

    out = dict(ELEMENTWISE)
    for name, fn in declared("elementwise").items():
        out.setdefault(name, fn)
    return out


# [training] clip_norm: the factor of torch.nn.utils.clip_grad_norm_ from the norm (x) and the maximum (p)
ELEMENTWISE["clip_scale"] = Elementwise(
    lambda x, p, j: f"min(1, {p} / ({x} + 10⁻⁶))", lambda x, p, j: min(1.0, p / (x + 1e-6))
)
