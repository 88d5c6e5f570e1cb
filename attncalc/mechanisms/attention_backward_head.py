"""The backward pass of one head of kind attention-backward: from its output's gradient dO_j to dQ_j,
dK_j and dV_j, through the values, the weights, the softmax (its Jacobian written out with
``settings.jacobian``, then the row dot D and the shortcut A ∘ (dA − D)) and the 1/√d_k."""

from __future__ import annotations

import math

import numpy as np

from ..derivation import Add, Arrange, Combine, Map, Product, Step
from ..derivation.arith import Chain, MistakeNotApplicable, exact_sqrt, holds_objects, is_exact
from ..parse import Problem
from ..parse.attention_backward import AttentionBackward


def head_steps(
    p: Problem, chain: Chain, steps: list[Step], j: int, fwd: dict[str, np.ndarray], dC: np.ndarray, intro: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Head j's backward steps (appended to ``steps``); its (dQ_j, dK_j, dV_j)."""
    d = p.payload(AttentionBackward)
    mh = d.mh
    n = mh.X.shape[0]
    tok = p.tokens or tuple(f"x{i + 1}" for i in range(n))
    keys = mh.key_labels
    H, d_k, d_v = mh.heads, mh.d_k, mh.d_v
    h = f"head.{j}"
    Qj, Kj, Vj, A = (fwd[f"{h}.{x}"] for x in ("Q", "K", "V", "weights"))
    source = "the upstream gradient" if H == 1 and "W_O" not in mh.W else f"columns {_cols(j, d_v)} of dC"
    steps.append(
        chain.step(
            Arrange,
            f"{h}.grad_output",
            dC[:, (j - 1) * d_v : j * d_v],
            title=f"Head {j}: gradient of its output",
            formula=f"dO_{j} = {source}",
            latex=rf"dO_{j}",
            symbol=f"dO_{j}",
            rows=tok,
            source=source,
            explain="A head's output fills its own block of the concatenation, so its gradient is that block.",
            intro=intro if j == 1 else "",
        )
    )
    dOj = steps[-1].value
    A, dOj, Vj, Qj, Kj = chain.coerce(A, dOj, Vj, Qj, Kj)
    left = A if chain.mistake == "grad_V_no_transpose" else A.T
    if chain.mistake == "grad_V_no_transpose" and np.array_equal(_f(A), _f(A).T):
        raise MistakeNotApplicable
    steps.append(
        chain.step(
            Product,
            f"{h}.grad_V",
            chain.matmul(left, dOj),
            title=f"Head {j}: gradient of its values",
            formula=f"dV_{j} = A_{j}ᵀ dO_{j}  (row k: Σ_i A_ik dO_i)",
            latex=rf"dV_{j} = A_{j}^\top dO_{j}",
            symbol=f"dV_{j}",
            rows=keys,
            left=left,
            right=dOj,
            explain="O = A V: value row k was used by every query i with weight A_ik, so its gradient "
            "collects those queries' gradients with the same weights (Aᵀ, not A).",
        )
    )
    dVj = steps[-1].value
    steps.append(
        chain.step(
            Product,
            f"{h}.grad_weights",
            chain.matmul(dOj, Vj.T),
            title=f"Head {j}: gradient of the attention weights",
            formula=f"dA_{j} = dO_{j} V_{j}ᵀ  (dA_ik = dO_i · v_k)",
            latex=rf"dA_{j} = dO_{j} V_{j}^\top",
            symbol=f"dA_{j}",
            rows=tok,
            cols=keys,
            left=dOj,
            right=Vj.T,
            explain="Entry (i, k) is how the loss changes with the weight query i gives key k (masked "
            "entries too: their weight is 0, and the softmax's backward multiplies by it).",
        )
    )
    dA = steps[-1].value
    A, dA = chain.coerce(A, dA)
    late_diag = chain.mistake == "jacobian_diagonal_only"
    if d.jacobian:
        for i in range(n):
            a = A[i]
            diag, outer = np.diag(a), np.outer(a, a)  # (object arrays in exact mode: sympy forms, 0 off the diagonal)
            steps.append(
                chain.step(
                    Add,
                    f"{h}.jacobian.{i + 1}",
                    diag if late_diag else diag - outer,  # the slip keeps J's diagonal only, here as at dS'
                    title=f"Head {j}: softmax Jacobian of query row {i + 1} ({tok[i]})",
                    formula="J_kl = ∂a_k/∂s_l = a_k (δ_kl − a_l):  J = diag(a) − a aᵀ",
                    latex=r"J = \mathrm{diag}(a) - a a^\top",
                    symbol="J",
                    rows=keys,
                    cols=keys,
                    parts=(diag, outer),
                    part_names=("diag(a)", "a aᵀ"),
                    signs=(1, -1),
                    explain="Raising one score raises its own weight by a_k(1 − a_k) and lowers every other "
                    "weight by a_k a_l: the off-diagonal terms are not zero.",
                )
            )
    masked = mh.allowed is not None and not bool(np.all(mh.allowed))
    steps.append(
        chain.step(
            Combine,
            f"{h}.rowdot",
            _rowdot(A, dA),
            title=f"Head {j}: row dot D",
            formula="D_i = Σ_k A_ik dA_ik  (= rowsum(dO ∘ O))",
            latex=r"D_i = \sum_k A_{ik}\, dA_{ik}",
            symbol="D",
            rows=tok,
            terms=tuple((A[:, k], dA[:, k]) for k in range(A.shape[1])),
            complement=tuple((False, False) for _ in range(A.shape[1])),
            explain="The weighted average of a row's weight gradients: the Jacobian's a aᵀ term gives it.",
        )
    )
    D = steps[-1].value
    A, dA, D = chain.coerce(A, dA, D)
    diff = dA - D[:, None]
    dSp = A * dA if chain.mistake == "jacobian_diagonal_only" else A * diff  # the slip: J's diagonal only
    if mh.allowed is not None:
        zero = 0 if is_exact(dSp) else 0.0
        dSp = np.where(mh.allowed, dSp, zero)
        if chain.mistake == "masked_given_gradient":
            if not masked:
                raise MistakeNotApplicable
            dSp = np.where(mh.allowed, dSp, dA)
    elif chain.mistake == "masked_given_gradient":
        raise MistakeNotApplicable
    if is_exact(dSp):
        dSp = np.asarray(dSp, dtype=object)
    sym = "S'" if p.score == "scaled-dot" else "S"
    steps.append(
        chain.step(
            Combine,
            f"{h}.grad_scaled_scores",
            dSp,
            title=f"Head {j}: gradient of the "
            + ("scaled scores" if p.score == "scaled-dot" else "scores")
            + " (softmax backward)",
            formula=f"d{sym}_ik = A_ik (dA_ik − D_i)" + ("; 0 where masked" if mh.allowed is not None else ""),
            latex=rf"d{sym}_{{ik}} = A_{{ik}} (dA_{{ik}} - D_i)",
            symbol=f"d{sym}",
            rows=tok,
            cols=keys,
            terms=((A, diff),),
            complement=((False, False),),
            explain="Row i of the Jacobian times row i of dA, shortened with D: "
            "Σ_l a_k(δ_kl − a_l) dA_l = a_k (dA_k − D)."
            + (" A masked score's weight is 0, so it gets no gradient." if mh.allowed is not None else ""),
        )
    )
    dSp = steps[-1].value
    if p.score == "scaled-dot":
        # √d_k itself, not chain.sqrt_dk: the forward's scale slips (no_scale, dk_not_sqrt,
        # sqrt_d_model) speak of the forward scores; the backward's own are grad_no_scale and
        # grad_scale_twice. Else a dS = dS' recomputed from the answerer's own dS' would be named
        # no_scale here, and the steps after it, right from that dS, named again (issue 29).
        root = chain.const(lambda: exact_sqrt(d_k), math.sqrt(d_k))
        if chain.mistake == "grad_no_scale":
            root = 1
        elif chain.mistake == "grad_scale_twice":
            root = root * root
        steps.append(
            chain.step(
                Map,
                f"{h}.grad_scores",
                dSp / root,
                title=f"Head {j}: gradient of the scores",
                formula=f"dS = dS' / √d_k, d_k = {d_k}",
                latex=rf"dS = \frac{{dS'}}{{\sqrt{{d_k}}}},\ d_k = {d_k}",
                symbol="dS",
                rows=tok,
                cols=keys,
                fn="divide",
                arg=dSp,
                param=np.asarray(root),
                param_text=f"√{d_k}",
                explain="S' = S / √d_k, so the gradient is divided by √d_k once on the way back.",
            )
        )
        dS = steps[-1].value
    else:
        for slip in ("grad_no_scale", "grad_scale_twice"):
            if chain.mistake == slip:
                raise MistakeNotApplicable
        steps.append(
            chain.step(
                Arrange,
                f"{h}.grad_scores",
                dSp,
                title=f"Head {j}: gradient of the scores",
                formula="dS = the softmax's gradient above (the dot score is not scaled)",
                latex="dS",
                symbol="dS",
                rows=tok,
                cols=keys,
                source="the gradient of the scores above: nothing to undo",
                explain="With the dot score the softmax reads the scores themselves.",
            )
        )
        dS = steps[-1].value
    dS, Qj, Kj = chain.coerce(dS, Qj, Kj)
    steps.append(
        chain.step(
            Product,
            f"{h}.grad_Q",
            chain.matmul(dS, Kj),
            title=f"Head {j}: gradient of its queries",
            formula=f"dQ_{j} = dS K_{j}  (row i: Σ_k dS_ik k_k)",
            latex=rf"dQ_{j} = dS\, K_{j}",
            symbol=f"dQ_{j}",
            rows=tok,
            left=dS,
            right=Kj,
            explain="S = Q Kᵀ: query i met key k in score (i, k), so it collects dS_ik times that key.",
        )
    )
    dQj = steps[-1].value
    if chain.mistake == "grad_K_no_transpose":
        if np.array_equal(_f(dS), _f(dS).T):
            raise MistakeNotApplicable
        left = dS
    else:
        left = dS.T
    steps.append(
        chain.step(
            Product,
            f"{h}.grad_K",
            chain.matmul(left, Qj),
            title=f"Head {j}: gradient of its keys",
            formula=f"dK_{j} = dSᵀ Q_{j}  (row k: Σ_i dS_ik q_i)",
            latex=rf"dK_{j} = dS^\top Q_{j}",
            symbol=f"dK_{j}",
            rows=keys,
            left=left,
            right=Qj,
            explain="Key k met every query i in column k of the scores: it collects dS_ik times that "
            "query (dSᵀ, not dS).",
        )
    )
    dKj = steps[-1].value
    return dQj, dKj, dVj


def _rowdot(A: np.ndarray, dA: np.ndarray) -> np.ndarray:
    if not holds_objects(A):
        return np.asarray(np.sum(np.asarray(A, dtype=float) * np.asarray(dA, dtype=float), axis=1), dtype=float)
    out = np.empty(A.shape[0], dtype=object)
    for i in range(A.shape[0]):
        total = 0
        for k in range(A.shape[1]):
            total = total + A[i, k] * dA[i, k]
        out[i] = total
    return out


def _f(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=float)


def _cols(j: int, width: int) -> str:
    a, b = (j - 1) * width + 1, j * width
    return f"{a}–{b}" if b > a else f"{a}"
