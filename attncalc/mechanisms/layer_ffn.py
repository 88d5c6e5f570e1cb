"""Kind ``transformer-layer``'s position-wise feed-forward network (ReLU, GELU, its tanh approximation
or SiLU): x W_1 + b_1, the activation entry by entry, then h W_2 + b_2. SwiGLU is in
:mod:`attncalc.mechanisms.layer_modern`."""

from __future__ import annotations

import numpy as np

from ..derivation import Map, Product, Step
from ..derivation.arith import Chain, MistakeNotApplicable, holds_objects, to_float
from ..derivation.elementwise import GELU_C
from ..parse import Problem
from ..parse.types import Layer
from . import layer_modern as modern


def ffn(p: Problem, chain: Chain, steps: list[Step], h: np.ndarray, tok: tuple[str, ...]) -> np.ndarray:
    L = p.payload(Layer)
    pre, W1, b1 = modern.affine(chain, h, L.W_1, L.b_1)
    steps.append(
        chain.step(
            Product,
            "ffn.hidden_pre",
            np.asarray(pre),
            title="Feed-forward: first layer",
            formula="a = x W_1" + (" + b_1" if b1 is not None else ""),
            latex=r"a = x W_1" + (" + b_1" if b1 is not None else ""),
            symbol="a",
            rows=tok,
            left=h,
            right=W1,
            bias=b1,
            explain="The same two-layer network is applied to every row (position) on its own.",
        )
    )
    pre = steps[-1].value
    act = L.activation
    if chain.mistake == "relu_for_gelu":
        if act in ("relu", "silu"):
            raise MistakeNotApplicable
        act = "relu"
    words = {
        "relu": ("ReLU", "relu(a) = max(a, 0)"),
        "gelu": ("GELU", "GELU(a) = a/2 (1 + erf(a/√2)), exact (a times the normal CDF)"),
        "gelu-tanh": ("GELU, tanh approximation", f"a/2 (1 + tanh(√(2/π) (a + {GELU_C} a³)))"),
        "silu": ("SiLU", "silu(a) = a · σ(a) = a / (1 + e^(−a))"),
    }[L.activation]
    steps.append(
        chain.step(
            Map,
            "ffn.hidden",
            _activate(chain, pre, act),
            title=f"Feed-forward: {words[0]}",
            formula=words[1],
            latex="",
            symbol="h",
            rows=tok,
            fn={"relu": "relu", "gelu": "gelu", "gelu-tanh": "gelu_tanh", "silu": "silu"}[L.activation],
            arg=pre,
            explain="The activation is applied entry by entry.",
        )
    )
    hidden = steps[-1].value
    out, W2, b2 = modern.affine(chain, hidden, L.W_2, L.b_2)
    steps.append(
        chain.step(
            Product,
            "ffn.output",
            np.asarray(out),
            title="Feed-forward: second layer",
            formula="f = h W_2" + (" + b_2" if b2 is not None else ""),
            latex=r"f = h W_2" + (" + b_2" if b2 is not None else ""),
            symbol="f",
            rows=tok,
            left=hidden,
            right=W2,
            bias=b2,
            explain="Back to d_model columns.",
        )
    )
    result: np.ndarray = steps[-1].value
    return result


def _activate(chain: Chain, a: np.ndarray, act: str) -> np.ndarray:
    if act == "relu":
        return chain.relu(a)
    if act == "silu":
        return modern.silu(a)
    return chain.apply("gelu" if act == "gelu" else "gelu_tanh", a if holds_objects(a) else to_float(a))
