"""The attention of one seq2seq decoder step (Bahdanau or Luong): scores (dot, general or
additive), weights and the context vector, every product written out."""

from __future__ import annotations

import numpy as np

from ..arith import Chain
from ..derivation import Map, Product, Step
from ..parse.types import AdditiveScore, GeneralScore, Seq2Seq
from .common import softmax_inline


def attend(
    chain: Chain,
    s: Seq2Seq,
    steps: list[Step],
    pre: str,
    t: int,
    q: np.ndarray,
    q_name: str,
    H: np.ndarray,
    Kp: np.ndarray | None,
    labels: tuple[str, ...],
    shift_mode: str,
) -> np.ndarray:
    """scores, weights and context of one decoder step; returns the context."""
    score, scorer = s.score, s.scorer
    if not isinstance(scorer, AdditiveScore):  # dot, general
        query, query_name = q, q_name
        if isinstance(scorer, GeneralScore):
            Wa, q_ = chain.coerce(chain.given(scorer.W_a), q)
            query = chain.finish(pre + "projected_query", chain.matmul(Wa.T, q_))
            query_name = f"(W_aᵀ {q_name})"
            steps.append(
                Product(
                    id=pre + "projected_query",
                    title="Query through W_a",
                    formula=f"W_aᵀ {q_name}  (a vector of length d_enc)",
                    latex="",
                    symbol=f"W_aᵀ {q_name}",
                    value=query,
                    left=Wa.T,
                    right=q_,
                    explain=f"{q_name} · (W_a h_i) = (W_aᵀ {q_name}) · h_i: W_a is applied once, to the query.",
                )
            )
        H_, query_ = chain.coerce(H, query)
        e = chain.finish(pre + "scores", chain.matmul(H_, query_))
        steps.append(
            Product(
                id=pre + "scores",
                title="Attention scores" + (" (general)" if score == "general" else ""),
                formula=f"e_{t},i = {query_name} · h_i",
                latex="",
                symbol=f"e_{t}",
                value=e,
                rows=labels,
                left=H_,
                right=query_,
                first="right",
                explain=f"Each encoder state is scored by its dot product with {query_name}.",
            )
        )
    else:
        Wq = chain.given(scorer.W_q)
        v = chain.given(scorer.v)
        Wq, q_ = chain.coerce(Wq, q)
        qp = chain.finish(pre + "projected_query", chain.matmul(Wq, q_))
        steps.append(
            Product(
                id=pre + "projected_query",
                title="Projected query",
                formula=f"W_q {q_name}  (one number per row of W_q)",
                latex="",
                symbol=f"W_q {q_name}",
                value=qp,
                left=Wq,
                right=q_,
            )
        )
        assert Kp is not None
        Kp_, qp_ = chain.coerce(Kp, qp)
        hidden = chain.finish(pre + "hidden", chain.tanh(Kp_ + qp_[None, :]))
        steps.append(
            Map(
                id=pre + "hidden",
                title="Hidden layer of the score",
                formula=f"u_{t} = tanh(W_q {q_name} + W_k h_i), one row per source position i",
                latex="",
                symbol=f"u_{t}",
                value=hidden,
                rows=labels,
                fn="tanh",
                arg=Kp_ + qp_[None, :],
                explain="Bahdanau's additive score: a one-layer network over the query and each key.",
            )
        )
        hid, v_ = chain.coerce(hidden, v)
        e = chain.finish(pre + "scores", chain.matmul(hid, v_))
        steps.append(
            Product(
                id=pre + "scores",
                title="Attention scores (additive)",
                formula=f"e_{t},i = v · tanh(W_q {q_name} + W_k h_i)",
                latex="",
                symbol=f"e_{t}",
                value=e,
                rows=labels,
                left=hid,
                right=v_,
                first="right",
            )
        )
    w = softmax_inline(chain, e, pre + "weights", "Attention weights", f"e_{t}", f"α_{t}", shift_mode, labels)
    steps.append(_retitle(w))
    alpha = np.asarray(w.value)
    alpha_, H_ = chain.coerce(alpha, H)
    ctx = chain.finish(pre + "context", chain.matmul(alpha_, H_))
    steps.append(
        Product(
            id=pre + "context",
            title="Context vector",
            formula=f"c_{t} = Σ_i α_{t},i h_i",
            latex="",
            symbol=f"c_{t}",
            value=ctx,
            left=alpha_,
            right=H_,
            explain="The context is the attention-weighted average of the encoder states.",
        )
    )
    return ctx


def _retitle(step: Step) -> Step:
    import dataclasses

    return dataclasses.replace(step, explain="Softmax turns the scores into weights that sum to 1.")
