"""The modern block's pieces of kind ``transformer-layer``: RMSNorm and the SwiGLU feed-forward network
(as LLaMA), and the SiLU both use.

RMSNorm (Zhang & Sennrich 2019; PyTorch's nn.RMSNorm): over each row, the mean of the squares
ms_i = (1/d_model) Σ_j x_ij², then z_ij = x_ij / √(ms_i + ε), then y_ij = γ_j z_ij. No mean is
subtracted and there is no shift β.

SwiGLU (Shazeer 2020, "GLU Variants Improve Transformer"; LLaMA's FeedForward): the gate x W_1, its
SiLU, the up projection x W_3, their product entry by entry, then W_2 back to d_model:
FFN(x) = (silu(x W_1) ⊙ x W_3) W_2, with silu(a) = a · σ(a) = a / (1 + e^(−a)). No biases by default.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Formula, Map, Product, Step, interval
from ..derivation.arith import Chain, apply_elementwise, is_exact, to_float
from ..derivation.fmt import fmt
from ..derivation.interval import is_interval
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse import Problem
from ..parse.types import Layer, SwiGLU
from .layer_written import Lazy, num, paren


def silu(a: np.ndarray) -> np.ndarray:
    """silu(a) = a / (1 + e^(−a)) entry by entry: exact forms as sympy writes them, or floats."""
    if is_interval(a):
        return interval.apply("silu", a)
    return apply_elementwise("silu", a if is_exact(a) else to_float(a))


def rms_norm(
    chain: Chain,
    steps: list[Step],
    k: int,
    x: np.ndarray,
    gamma_given: Any,
    eps_node: Any,
    tok: tuple[str, ...],
) -> np.ndarray:
    """RMSNorm k's three steps (mean_square, normalized, output) over the rows of ``x``."""
    n, d = x.shape
    dec = chain.decimals
    rows = [x[i, :] for i in range(n)]
    centred = chain.mistake == "rms_mean_subtracted"  # the slip: LayerNorm's centring and variance instead
    mean = np.zeros(n, dtype=x.dtype)
    if centred:
        mean = np.asarray([sum(v.tolist()) / d for v in rows], dtype=x.dtype)
        rows = [v - m for v, m in zip(rows, mean, strict=True)]
    steps.append(
        chain.step(
            Formula,
            f"norm{k}.mean_square",
            np.asarray([sum((v * v).tolist()) / d for v in rows], dtype=x.dtype),
            title=f"RMSNorm {k}: mean of the squares of each row",
            formula=f"ms_i = (1/d_model) Σ_j x_ij², d_model = {d}",
            latex=rf"\mathrm{{ms}}_i = \frac{{1}}{{{d}}} \sum_j x_{{ij}}^2",
            symbol="ms",
            rows=tok,
            written=Lazy(
                lambda i, dec: "(" + " + ".join(f"{_sq(x[i[0], j], dec)}" for j in range(d)) + f") / {d}", 1, dec
            ),
            explain="RMSNorm scales each token's row by its root mean square: no mean is subtracted (unlike LayerNorm).",
        )
    )
    ms = steps[-1].value
    eps = chain.number(lambda: to_exact(eps_node), node_float(eps_node))
    eps_text = fmt(node_float(eps_node), 12)
    if chain.mistake == "rms_eps_outside":  # the slip: x / (√ms + ε)
        root = chain.sqrt(ms)
        root, eps_c = chain.coerce(root, np.asarray([eps] * n, dtype=root.dtype))
        den = np.asarray(root + eps_c, dtype=root.dtype)
    else:
        den = chain.sqrt(np.asarray(ms + eps, dtype=ms.dtype))
    top = np.asarray(x - mean[:, None], dtype=x.dtype) if centred else x
    steps.append(
        chain.step(
            Formula,
            f"norm{k}.normalized",
            np.asarray(top / den[:, None], dtype=x.dtype),
            title=f"RMSNorm {k}: normalised",
            formula=f"z_ij = x_ij / √(ms_i + ε), ε = {eps_text}",
            latex=r"z_{ij} = \frac{x_{ij}}{\sqrt{\mathrm{ms}_i + \varepsilon}}",
            symbol="z",
            rows=tok,
            written=Lazy(lambda ij, dec: f"{num(x[ij], dec)} / √({num(ms[ij[0]], dec)} + {eps_text})", 2, dec),
            explain="Each row now has root mean square about 1 (ε keeps the root away from 0).",
        )
    )
    z = steps[-1].value
    z_c, gamma = chain.coerce(z, chain.given(gamma_given))
    steps.append(
        chain.step(
            Formula,
            f"norm{k}.output",
            np.asarray(z_c * gamma[None, :], dtype=z_c.dtype),
            title=f"RMSNorm {k}: scaled",
            formula="y_ij = γ_j z_ij",
            latex=r"y_{ij} = \gamma_j z_{ij}",
            symbol=f"n{k}",
            rows=tok,
            written=Lazy(lambda ij, dec: f"{num(gamma[ij[1]], dec)}·{paren(num(z_c[ij], dec))}", 2, dec),
            explain="γ is learned per feature (RMSNorm has no shift β); with γ = 1 this step changes nothing.",
        )
    )
    y: np.ndarray = steps[-1].value
    return y


def _sq(v: Any, dec: int) -> str:
    text = num(v, dec)
    return f"({text})²" if text.startswith(("−", "-")) else f"{text}²"


def affine(chain: Chain, x: np.ndarray, W: Any, b: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """x W (+ b on every row), with the weights and bias as the chain holds them."""
    Wc = chain.given(W)
    bc = chain.given(b) if b is not None else None
    out = chain.matmul(x, Wc)
    if bc is not None:
        out, bc = chain.coerce(out, bc)
        out = out + bc[None, :]
    return out, Wc, bc


def _linear(
    chain: Chain,
    steps: list[Step],
    sid: str,
    title: str,
    h: np.ndarray,
    W: Any,
    b: Any,
    names: tuple[str, str, str, str],
    tok: tuple[str, ...],
    explain: str,
) -> np.ndarray:
    """h W (+ b) as a Product step; ``names`` are the result's symbol, h's, W's and b's."""
    out, Wc, bc = affine(chain, h, W, b)
    sym, hname, wname, bname = names
    bias = f" + {bname}" if bc is not None else ""
    steps.append(
        chain.step(
            Product,
            sid,
            np.asarray(out),
            title=title,
            formula=f"{sym} = {hname} {wname}{bias}",
            latex=f"{sym} = {hname} {wname}{bias}",
            symbol=sym,
            rows=tok,
            left=h,
            right=Wc,
            bias=bc,
            explain=explain,
        )
    )
    done: np.ndarray = steps[-1].value
    return done


def swiglu(p: Problem, chain: Chain, steps: list[Step], h: np.ndarray, tok: tuple[str, ...], up: SwiGLU) -> np.ndarray:
    """The SwiGLU network's five steps: gate_pre, gate, up, hidden, output (``up``: the layer's W_3, b_3)."""
    L = p.payload(Layer)
    swapped = chain.mistake == "swiglu_swapped"  # the slip: W_1 and W_3 exchanged
    gate_w, gate_b, up_w, up_b = (up.W_3, up.b_3, L.W_1, L.b_1) if swapped else (L.W_1, L.b_1, up.W_3, up.b_3)
    a = _linear(
        chain,
        steps,
        "ffn.gate_pre",
        "SwiGLU: the gate's pre-activation",
        h,
        gate_w,
        gate_b,
        ("a", "x", "W_1", "b_1"),
        tok,
        "The same network is applied to every row (position) on its own: first the gate, x W_1.",
    )
    wrong_branch = chain.mistake == "silu_wrong_branch"  # the slip: SiLU on the up branch, not the gate
    steps.append(
        chain.step(
            Map,
            "ffn.gate",
            a if wrong_branch else silu(a),
            title="SwiGLU: the gate, through SiLU",
            formula="g = silu(a) = a · σ(a) = a / (1 + e^(−a))",
            latex=r"g = \mathrm{silu}(a) = \frac{a}{1 + e^{-a}}",
            symbol="g",
            rows=tok,
            fn="silu",
            arg=a,
            explain="SiLU (the swish with β = 1) is applied entry by entry to the gate only.",
        )
    )
    g = steps[-1].value
    u = _linear(
        chain,
        steps,
        "ffn.up",
        "SwiGLU: the up projection",
        h,
        up_w,
        up_b,
        ("u", "x", "W_3", "b_3"),
        tok,
        "The second projection of x, W_3, is not activated: the gate scales it.",
    )
    if wrong_branch:
        u = chain.finish("ffn.up", silu(u))
    g_c, u_c = chain.coerce(g, u)
    steps.append(
        chain.step(
            Formula,
            "ffn.hidden",
            np.asarray(g_c * u_c, dtype=g_c.dtype),
            title="SwiGLU: the gated hidden layer",
            formula="h = g ⊙ u  (entry by entry)",
            latex=r"h = g \odot u",
            symbol="h",
            rows=tok,
            written=Lazy(lambda ij, dec: f"{num(g_c[ij], dec)}·{paren(num(u_c[ij], dec))}", 2, chain.decimals),
            explain="The gate decides, entry by entry, how much of the up projection passes.",
        )
    )
    hidden = steps[-1].value
    return _linear(
        chain,
        steps,
        "ffn.output",
        "SwiGLU: the down projection",
        hidden,
        L.W_2,
        L.b_2,
        ("f", "h", "W_2", "b_2"),
        tok,
        "Back to d_model columns.",
    )
