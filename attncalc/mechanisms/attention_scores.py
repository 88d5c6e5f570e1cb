"""Kind ``attention``'s feed-forward scores: additive (Bahdanau, v · tanh(W_q s + W_k h_i + b)) and
concat (Luong, v · tanh(W [s; h_i])), each step written out, in either convention."""

from __future__ import annotations

import numpy as np

from ..derivation import Add, Map, Product, Step
from ..derivation.arith import Chain
from ..parse import Problem


def feedforward_scores(p: Problem, chain: Chain, q: np.ndarray, K: np.ndarray, steps: list[Step]) -> np.ndarray:
    """Additive (Bahdanau) and concat (Luong) scores: v_a · tanh(...)."""
    g, row, tok = p.given, p.row_convention, p.tokens
    n = K.shape[0]
    if p.score == "additive":
        W_q, W_k = chain.weight(g["W_q"]), chain.weight(g["W_k"])
        steps.append(
            chain.step(
                Product,
                "projected_query",
                chain.matmul(q, W_q) if row else chain.matmul(W_q, q),
                title="Projected query",
                formula="s W_q" if row else "W_q s",
                latex="s W_q" if row else "W_q s",
                symbol="s W_q" if row else "W_q s",
                left=q if row else W_q,
                right=W_q if row else q,
                first="left",
                explain="The decoder state, projected into the attention space.",
            )
        )
        pq = steps[-1].value
        Wk = W_k if row else W_k.T
        steps.append(
            chain.step(
                Product,
                "projected_keys",
                chain.matmul(K, Wk),
                title="Projected keys",
                formula="h_i W_k" if row else "W_k h_i",
                latex="h_i W_k" if row else "W_k h_i",
                symbol="W_k h",
                rows=tok,
                left=K,
                right=Wk,
                first="left" if row else "right",
                explain="Every encoder state, projected into the same space.",
            )
        )
        pk = steps[-1].value
        parts = [np.array([pq] * n, dtype=pq.dtype), pk]
        names = ["W_q s", "W_k h_i"] if not row else ["s W_q", "h_i W_k"]
        if "b" in g:
            b = chain.given(g["b"])
            parts.append(np.array([b] * n, dtype=b.dtype))
            names.append("b")
        parts = chain.coerce(*parts)
        steps.append(
            chain.step(
                Add,
                "pre_activation",
                sum(parts[1:], parts[0]),
                title="Pre-activation",
                formula=" + ".join(names),
                latex=" + ".join(names),
                symbol="a",
                rows=tok,
                parts=tuple(parts),
                part_names=tuple(names),
                explain="The projected query and the projected key are added, key by key.",
            )
        )
        pre = steps[-1].value
    else:
        W = chain.weight(g["W"])
        Qrep = np.array([q] * n, dtype=q.dtype)
        qk, Kc = chain.coerce(Qrep, K)
        halves = [Kc, qk] if chain.mistake == "concat_swapped" else [qk, Kc]
        C = np.concatenate(halves, axis=1)  # (n, d_q + d_k): [s; h_i] per row
        Wm = W if row else W.T
        steps.append(
            chain.step(
                Product,
                "pre_activation",
                chain.matmul(C, Wm),
                title="Pre-activation",
                formula="[s; h_i] W" if row else "W [s; h_i]",
                latex=r"[s; h_i]\, W" if row else r"W [s; h_i]",
                symbol="a",
                rows=tok,
                left=C,
                right=Wm,
                first="left" if row else "right",
                explain="The decoder state and each encoder state are stacked into one vector and multiplied by W.",
            )
        )
        pre = steps[-1].value
    steps.append(
        chain.step(
            Map,
            "hidden",
            chain.tanh(pre),
            title="Hidden layer",
            formula="tanh(a_i)",
            latex=r"\tanh(a_i)",
            symbol="tanh(a)",
            rows=tok,
            fn="tanh",
            arg=pre,
            explain="tanh squashes every entry into (−1, 1).",
        )
    )
    hidden = steps[-1].value
    v = chain.given(g["v"])
    steps.append(
        chain.step(
            Product,
            "scores",
            chain.matmul(hidden, v),
            title="Alignment scores",
            formula="e_i = v_a · tanh(a_i)",
            latex=r"e_i = v_a^\top \tanh(a_i)",
            symbol="e",
            rows=tok,
            left=hidden,
            right=v,
            first="right",
            explain="The scoring vector v_a reads one number off each hidden vector.",
        )
    )
    e: np.ndarray = steps[-1].value
    return e
