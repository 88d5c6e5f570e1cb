"""Kind ``quantization``'s last steps, with an input row x: the layer's output through the weights and
through the dequantized weights, and what quantization changed in it."""

from __future__ import annotations

import numpy as np

from ..derivation import Formula, Step, hand_formula
from ..derivation.arith import Chain, to_float
from ..derivation.fmt import fmt
from ..parse.quantization import Quantization
from .written import Written


def plain(x: float) -> str:
    """A given as a line writes it: 0.5, -4.3, 1e-05."""
    return f"{x:g}"


def paren(text: str) -> str:
    """A written number in parentheses where it is negative: 2·(-0.5)."""
    return f"({text})" if text.startswith(("-", "−")) else text


def outputs(d: Quantization, chain: Chain, W: np.ndarray, deq: np.ndarray, Wrows: tuple[str, ...]) -> list[Step]:
    assert d.x is not None
    x = chain.given(d.x)
    xs = [paren(plain(v)) for v in d.x.floats]

    def dot(m: np.ndarray) -> Written:
        return Written(
            lambda idx, dec: " + ".join(f"{a}·{paren(fmt(b, dec))}" for a, b in zip(xs, m[idx[0]], strict=True)),
            1,
            chain.decimals,
        )

    with_w = chain.step(
        Formula,
        "output",
        chain.matmul(x, W.T),
        title="Output with the weights",
        symbol="y",
        rows=Wrows,
        latex="",
        formula="y = x · Wᵀ",
        written=dot(d.W.floats),
        explain="One output per row of W.",
    )
    with_deq = chain.step(
        hand_formula,  # its lines write w' rounded: where they sum to another last digit, the views say so
        "output_dequantized",
        chain.matmul(*chain.coerce(x, deq.T)),
        title="Output with the dequantized weights",
        symbol="ŷ",
        rows=Wrows,
        latex="",
        formula="ŷ = x · w'ᵀ",
        written=dot(to_float(deq)),
        explain="The same input through the weights the quantized layer holds.",
    )
    out, outq = with_w.value, with_deq.value
    fo, fq = to_float(out), to_float(outq)
    diff = chain.step(
        Formula,
        "output_error",
        out - outq,
        title="Output error",
        symbol="y − ŷ",
        rows=Wrows,
        latex="",
        formula="y − ŷ",
        explain="What quantization changed in the layer's output.",
        written=Written(lambda idx, dec: f"{fmt(fo[idx[0]], dec)} − {paren(fmt(fq[idx[0]], dec))}", 1, chain.decimals),
    )
    return [with_w, with_deq, diff]  # fmt: skip
