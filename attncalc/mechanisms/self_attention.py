"""Kind ``self-attention``: Q = X W_Q, K = X W_K, V = X W_V, A = softmax(Q Kᵀ / √d_k), output A V.

Row convention by default (as in "Attention Is All You Need"); the column convention computes
q_i = W_Q x_i, i.e. Q = X W_Qᵀ.
"""

from __future__ import annotations

import numpy as np

from ..derivation import Input, Mask, Product, Step
from ..derivation.arith import Chain, MistakeNotApplicable, is_exact
from ..parse import Problem
from ..parse.data import SelfAttention
from . import sliding_window
from .common import SoftmaxNames, convention_words, softmax_steps, sqrt_dk_step


def inputs(p: Problem) -> list[Input]:
    d = p.payload(SelfAttention)
    out = [Input("X", "X", d.X.floats, None, rows=p.tokens, role="input rows x_i")]
    for key, W in d.W.items():
        out.append(Input(key, key, W.floats, None, role=f"{key[-1]} projection"))
    return out


def run(p: Problem, chain: Chain) -> list[Step]:
    tok = p.tokens
    row = p.row_convention
    data = p.payload(SelfAttention)
    mask = data.mask
    X = chain.given(data.X)  # (n, d)
    d = X.shape[1]
    steps: list[Step] = []
    proj: dict[str, np.ndarray] = {}
    for name in ("Q", "K", "V"):
        key = f"W_{name}"
        if key in data.W:
            W = chain.weight(data.W[key])
            Wm = W if row else W.T
            note = ""
        else:
            Wm = np.eye(d, dtype=X.dtype) if X.dtype != object else _identity_exact(d)
            note = f"{key} is not given, so it is the identity and {name} = X."
        M = chain.finish(name, chain.matmul(X, Wm))  # (n, d_name)
        proj[name] = M
        formula = f"{name} = X {key}" if row else f"{name} = X {key}ᵀ  (row i: {key} x_i)"
        latex = f"{name} = X W_{name}" if row else rf"{name} = X W_{name}^\top"
        steps.append(
            Product(
                id=name,
                title={"Q": "Queries", "K": "Keys", "V": "Values"}[name],
                formula=formula,
                latex=latex,
                symbol=name,
                value=M,
                rows=tok,
                left=X,
                right=Wm,
                first="left",
                note=note,
                explain=f"Row i of {name} is token i's {({'Q': 'query', 'K': 'key', 'V': 'value'})[name]} vector.",
            )
        )
    Q, K, V = proj["Q"], proj["K"], proj["V"]
    d_k = K.shape[1]
    S = chain.matmul(K, Q.T) if chain.mistake == "qk_transposed" else chain.matmul(Q, K.T)
    steps.append(
        chain.step(
            Product,
            "scores",
            S,
            title="Scores",
            formula="S = Q Kᵀ  (S_ij = q_i · k_j)",
            latex=r"S = Q K^\top",
            symbol="S",
            rows=tok,
            cols=tok,
            left=Q,
            right=K.T,
            first="left",
            explain="Entry (i, j) is the dot product of token i's query with token j's key.",
        )
    )
    S = steps[-1].value
    if p.score == "scaled-dot":
        step, S = sqrt_dk_step(chain, S, d_k, ("S'", "S", "S'"), tok, tok)
        steps.append(step)
    late = chain.mistake == "mask_after_softmax"  # the slip: softmax over every score, then zeros
    if late and mask is None:
        raise MistakeNotApplicable
    mask = sliding_window.allowed(chain, mask, data.window, 0, None)
    if mask is not None and not late:
        before = S
        what = "causal: token i sees tokens 1..i" if data.mask_text == "causal" else "1 = may attend"
        if data.window is not None:
            what = "causal, " + sliding_window.words(data.window)
        steps.append(
            chain.step(
                Mask,
                "masked_scores",
                apply_mask(S, mask),
                title="Masked scores",
                formula=f"−∞ where the mask is 0 ({what})",
                latex=r"S'_{ij} = -\infty \text{ where } M_{ij} = 0",
                symbol="S'",
                rows=tok,
                cols=tok,
                arg=before,
                allowed=mask,
                explain="A masked position gets score −∞, so its exponential is 0 and it receives no weight.",
            )
        )
        S = steps[-1].value
    arg = "S'" if p.score == "scaled-dot" or mask is not None else "S"
    names = SoftmaxNames(arg=arg, out="A", out_title="Attention weights (row-wise softmax)")
    soft, A = softmax_steps(chain, S, names, p.settings.shift_max, tok, tok)
    if late and mask is not None:  # (a late slip without a mask was refused above)
        A = chain.finish("weights", np.where(mask, A, 0.0 if not is_exact(A) else 0))
    steps.extend(soft)
    steps.append(
        chain.step(
            Product,
            "output",
            chain.matmul(A, K if chain.mistake == "keys_not_values" else V),
            title="Output",
            formula="O = A V  (o_i = Σ_j A_ij v_j)",
            latex=r"O = A V",
            symbol="o",
            rows=tok,
            left=A,
            right=V,
            first="left",
            explain="Each output row is the weighted average of the value vectors, weighted by that row of A.",
        )
    )
    return steps


def _identity_exact(d: int) -> np.ndarray:
    import sympy as sp

    out = np.empty((d, d), dtype=object)
    for i in range(d):
        for j in range(d):
            out[i, j] = sp.Integer(1 if i == j else 0)
    return out


def apply_mask(S: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """−∞ (exact or float) where ``allowed`` is False: a masked score gets no weight."""
    if S.dtype == object:
        import sympy as sp

        out = S.copy()
        out[~allowed] = -sp.oo
        return out
    return np.where(allowed, S, -np.inf)


def header(p: Problem) -> list[str]:
    """The words of the line under the title: the score and the convention."""
    return [p.kind, *([f"{p.score} score"] if p.score else []), convention_words(p)]
