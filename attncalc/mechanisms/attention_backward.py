"""Kind ``attention-backward``: backpropagation through (multi-head) self-attention, row convention.

The forward pass is kind multi-head's (:func:`attncalc.mechanisms.multihead.run`, its steps and step
ids); the backward pass starts from the given upstream gradient dY = ∂L/∂output:

    dW_O = concatᵀ dY,  db_O = Σ_rows dY,  dC = dY W_Oᵀ,  dO_j = head j's columns of dC,
    dV_j = A_jᵀ dO_j,  dA_j = dO_j V_jᵀ,  D_i = Σ_k A_ik dA_ik,  dS'_j = A_j ∘ (dA_j − D),
    dS_j = dS'_j / √d_k,  dQ_j = dS_j K_j,  dK_j = dS_jᵀ Q_j,
    dQ, dK, dV: the heads side by side (a shared key/value head sums its query heads' gradients),
    dW_Q = Xᵀ dQ,  db_Q = Σ_rows dQ (K, V likewise),  dX = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ.

The row softmax's Jacobian J = diag(a) − a aᵀ (``settings.jacobian``) gives dS'_i = J dA_i, which the
row dot D shortens to a ∘ (dA_i − D_i). A masked score gets no gradient: its weight is 0.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..derivation import Add, Arrange, Input, Product, Step, Sum
from ..derivation.arith import Chain, MistakeNotApplicable, is_exact
from ..parse import Problem
from ..parse.attention_backward import AttentionBackward
from . import multihead
from .attention_backward_head import head_steps

# the forward slips of kind multi-head that change its shape of steps (heads, W_O, a second finish
# of the weights): the backward is not written for them
_FORWARD_SHAPE_SLIPS = ("one_head", "heads_reversed", "no_W_O", "mask_after_softmax")


def forward(p: Problem) -> Problem:
    """The forward pass's problem: kind multi-head's mechanism reads its payload."""
    return dataclasses.replace(p, data=p.payload(AttentionBackward).mh)


def inputs(p: Problem) -> list[Input]:
    d = p.payload(AttentionBackward)
    tok = p.tokens
    what = "output" if "W_O" in d.mh.W else ("head's output" if d.mh.heads == 1 else "concatenated heads")
    return [
        *multihead.inputs(forward(p)),
        Input("grad_output", "dY", d.grad_output.floats, None, rows=tok, role=f"upstream gradient ∂L/∂({what})"),
    ]


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(AttentionBackward)
    mh = d.mh
    for slip in _FORWARD_SHAPE_SLIPS:
        if chain.mistake == slip:
            raise MistakeNotApplicable
    steps = multihead.run(forward(p), chain)
    fwd = {s.id: s.value for s in steps}  # the carried values (an answerer's own, under check)
    n = mh.X.shape[0]
    tok = p.tokens or tuple(f"x{i + 1}" for i in range(n))
    keys = mh.key_labels
    H, G = mh.heads, mh.kv_heads
    X = chain.given(mh.X)
    dY = chain.given(d.grad_output)

    if "W_O" in mh.W:
        C = fwd["concat"]
        W_O = chain.given(mh.W["W_O"])
        C, dY_c = chain.coerce(C, dY)
        steps.append(
            chain.step(
                Product,
                "grad_W_O",
                chain.matmul(C.T, dY_c),
                title="Backward: gradient of W_O",
                formula="dW_O = concatᵀ dY  (entry (r, c): Σ_i C_ir dY_ic)",
                latex=r"\frac{\partial L}{\partial W_O} = \mathrm{concat}^\top\, dY",
                symbol="dW_O",
                left=C.T,
                right=dY_c,
                explain="output = concat W_O: each weight's gradient sums, over the tokens, its input times the "
                "upstream gradient of its output column.",
                intro="The backward pass: from the upstream gradient dY = ∂L/∂output back to the weights and X.",
            )
        )
        if "b_O" in mh.b:
            steps.append(_colsum(chain, "grad_b_O", dY, "db_O", "dY", "Backward: gradient of b_O"))
        steps.append(
            chain.step(
                Product,
                "grad_concat",
                chain.matmul(dY, W_O.T),
                title="Backward: gradient of the concatenation",
                formula="dC = dY W_Oᵀ",
                latex=r"dC = dY\, W_O^\top",
                symbol="dC",
                rows=tok,
                left=dY,
                right=W_O.T,
                explain="The gradient flows back through W_O transposed: row i of dC is what concat's row i owes the loss.",
            )
        )
        dC = steps[-1].value
        intro = ""
    else:
        dC = dY
        intro = "The backward pass: from the upstream gradient dY = ∂L/∂output back to the weights and X."

    grads: dict[str, list[np.ndarray]] = {"Q": [], "K": [], "V": []}
    for j in range(1, H + 1):
        dQj, dKj, dVj = head_steps(p, chain, steps, j, fwd, dC, intro)
        grads["Q"].append(dQj)
        grads["K"].append(dKj)
        grads["V"].append(dVj)

    total: dict[str, np.ndarray] = {}
    for name in ("Q", "K", "V"):
        total[name] = _gather(chain, steps, name, grads[name], H if name == "Q" else G, H, tok if name == "Q" else keys)
    for name in ("Q", "K", "V"):
        grad = total[name]
        Xc, grad = chain.coerce(X, grad)
        steps.append(
            chain.step(
                Product,
                f"grad_W_{name}",
                chain.matmul(Xc.T, grad),
                title=f"Gradient of W_{name}",
                formula=f"dW_{name} = Xᵀ d{name}",
                latex=rf"\frac{{\partial L}}{{\partial W_{name}}} = X^\top d{name}",
                symbol=f"dW_{name}",
                left=Xc.T,
                right=grad,
                explain=f"{name} = X W_{name}: a weight's gradient sums, over the tokens, its input times the "
                f"gradient of its column of {name}.",
            )
        )
    for name in ("Q", "K", "V"):
        if f"b_{name}" in mh.b:
            steps.append(
                _colsum(chain, f"grad_b_{name}", total[name], f"db_{name}", f"d{name}", f"Gradient of b_{name}")
            )
    paths = []
    for name in ("Q", "K", "V"):
        W = chain.given(mh.W[f"W_{name}"])
        grad, W = chain.coerce(total[name], W)
        steps.append(
            chain.step(
                Product,
                f"grad_X_{name}",
                chain.matmul(grad, W.T),
                title=f"Gradient of X through the {({'Q': 'queries', 'K': 'keys', 'V': 'values'})[name]}",
                formula=f"dX_{name} = d{name} W_{name}ᵀ",
                latex=rf"dX_{name} = d{name}\, W_{name}^\top",
                symbol=f"dX_{name}",
                rows=tok,
                left=grad,
                right=W.T,
                explain=f"X made the {({'Q': 'queries', 'K': 'keys', 'V': 'values'})[name]} through W_{name}: "
                "the gradient goes back through it transposed.",
            )
        )
        part = steps[-1].value
        paths.append(part)
    parts = chain.coerce(*paths)
    dX = parts[0] if chain.mistake == "grad_X_query_path_only" else parts[0] + parts[1] + parts[2]
    steps.append(
        chain.step(
            Add,
            "grad_X",
            dX,
            title="Gradient of X: its three paths added",
            formula="dX = dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ",
            latex=r"\frac{\partial L}{\partial X} = dQ\, W_Q^\top + dK\, W_K^\top + dV\, W_V^\top",
            symbol="dX",
            rows=tok,
            parts=tuple(parts),
            part_names=("dQ W_Qᵀ", "dK W_Kᵀ", "dV W_Vᵀ"),
            explain="X feeds the queries, the keys and the values: its gradient is the sum of the three paths.",
        )
    )
    return steps


def _gather(
    chain: Chain,
    steps: list[Step],
    name: str,
    per_head: list[np.ndarray],
    groups: int,
    H: int,
    rows: tuple[str, ...],
) -> np.ndarray:
    """dQ (or dK, dV): the heads' gradients side by side; a key/value head shared by s query heads
    sums their gradients (written as s matrices added: the r-th query head of every group)."""
    per_head = chain.coerce(*per_head)
    s = H // groups
    title = {"Q": "Gradient of Q", "K": "Gradient of K", "V": "Gradient of V"}[name]
    if s == 1:
        steps.append(
            chain.step(
                Arrange,
                f"grad_{name}",
                np.concatenate(per_head, axis=1),
                title=title + ": the heads side by side",
                formula=f"d{name} = [d{name}_1 … d{name}_h]"
                if H > 2
                else f"d{name} = " + " ".join(f"d{name}_{j}" for j in range(1, H + 1)),
                latex=rf"d{name}",
                symbol=f"d{name}",
                rows=rows,
                source=", ".join(f"columns of head {j}: d{name}_{j}" for j in range(1, H + 1)),
                explain=f"Each head used its own block of {name}'s columns: its gradient fills that block.",
            )
        )
        value: np.ndarray = steps[-1].value
        return value
    parts = [
        np.concatenate([per_head[(g - 1) * s + r - 1] for g in range(1, groups + 1)], axis=1) for r in range(1, s + 1)
    ]
    value = parts[0]
    for part in parts[1:]:
        value = value + part
    names = tuple(
        "[" + " ".join(f"d{name}_{(g - 1) * s + r}" for g in range(1, groups + 1)) + "]" for r in range(1, s + 1)
    )
    steps.append(
        chain.step(
            Add,
            f"grad_{name}",
            value,
            title=title + ": each shared head sums its query heads",
            formula=f"d{name} = " + " + ".join(names),
            latex=rf"d{name}",
            symbol=f"d{name}",
            rows=rows,
            parts=tuple(parts),
            part_names=names,
            explain=f"With {groups} key/value head{'s' if groups > 1 else ''} for {H} query heads, each key/value "
            f"head served {s} query heads: its gradient is the sum of theirs.",
        )
    )
    return value


def _colsum(chain: Chain, step_id: str, M: np.ndarray, symbol: str, of: str, title: str) -> Sum:
    """A bias's gradient: the column sums of its output's gradient (the bias is added to every row)."""
    value = chain.finish(step_id, np.sum(M, axis=0) if not is_exact(M) else _exact_colsum(M))
    return Sum(
        id=step_id,
        title=title,
        formula=f"{symbol} = Σ_i (row i of {of})",
        latex=rf"{symbol} = \sum_i {of}_i",
        symbol=symbol,
        value=value,
        arg=M.T,
        explain="The bias is added to every token's row, so its gradient adds up every row's.",
    )


def _exact_colsum(M: np.ndarray) -> np.ndarray:
    out = np.empty(M.shape[1], dtype=object)
    for c in range(M.shape[1]):
        total = 0
        for r in range(M.shape[0]):
            total = total + M[r, c]
        out[c] = total
    return out


def header(p: Problem) -> list[str]:
    d = p.payload(AttentionBackward)
    mh = d.mh
    bits = [p.kind, f"{mh.heads} head{'s' if mh.heads > 1 else ''} of d_k = {mh.d_k}"]
    if mh.kv_heads != mh.heads:
        bits.append(f"{mh.kv_heads} key/value head{'s' if mh.kv_heads > 1 else ''} (grouped-query)")
    if mh.allowed is not None:
        bits.append("masked")
    bits.append(f"{p.score} score")
    of = "output" if "W_O" in mh.W else ("head's output" if mh.heads == 1 else "concatenated heads")
    bits.append(f"upstream gradient of the {of}")
    return bits
