"""The attention of one seq2seq decoder step (Bahdanau or Luong): scores (dot, general or
additive), weights and the context vector, every product written out."""

from __future__ import annotations

import numpy as np

from ..derivation import Map, Product, Step
from ..derivation.arith import Chain
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
            query_name = f"(W_aᵀ {q_name})"
            steps.append(
                chain.step(
                    Product,
                    pre + "projected_query",
                    chain.matmul(Wa.T, q_),
                    title="Query through W_a",
                    formula=f"W_aᵀ {q_name}  (a vector of length d_enc)",
                    latex="",
                    symbol=f"W_aᵀ {q_name}",
                    left=Wa.T,
                    right=q_,
                    explain=f"{q_name} · (W_a h_i) = (W_aᵀ {q_name}) · h_i: W_a is applied once, to the query.",
                )
            )
            query = steps[-1].value
        H_, query_ = chain.coerce(H, query)
        steps.append(
            chain.step(
                Product,
                pre + "scores",
                chain.matmul(H_, query_),
                title="Attention scores" + (" (general)" if score == "general" else ""),
                formula=f"e_{t},i = {query_name} · h_i",
                latex="",
                symbol=f"e_{t}",
                rows=labels,
                left=H_,
                right=query_,
                first="right",
                explain=f"Each encoder state is scored by its dot product with {query_name}.",
            )
        )
        e = steps[-1].value
    else:
        Wq = chain.given(scorer.W_q)
        v = chain.given(scorer.v)
        Wq, q_ = chain.coerce(Wq, q)
        steps.append(
            chain.step(
                Product,
                pre + "projected_query",
                chain.matmul(Wq, q_),
                title="Projected query",
                formula=f"W_q {q_name}  (one number per row of W_q)",
                latex="",
                symbol=f"W_q {q_name}",
                left=Wq,
                right=q_,
            )
        )
        qp = steps[-1].value
        assert Kp is not None
        Kp_, qp_ = chain.coerce(Kp, qp)
        steps.append(
            chain.step(
                Map,
                pre + "hidden",
                chain.tanh(Kp_ + qp_[None, :]),
                title="Hidden layer of the score",
                formula=f"u_{t} = tanh(W_q {q_name} + W_k h_i), one row per source position i",
                latex="",
                symbol=f"u_{t}",
                rows=labels,
                fn="tanh",
                arg=Kp_ + qp_[None, :],
                explain="Bahdanau's additive score: a one-layer network over the query and each key.",
            )
        )
        hidden = steps[-1].value
        hid, v_ = chain.coerce(hidden, v)
        steps.append(
            chain.step(
                Product,
                pre + "scores",
                chain.matmul(hid, v_),
                title="Attention scores (additive)",
                formula=f"e_{t},i = v · tanh(W_q {q_name} + W_k h_i)",
                latex="",
                symbol=f"e_{t}",
                rows=labels,
                left=hid,
                right=v_,
                first="right",
            )
        )
        e = steps[-1].value
    w = softmax_inline(chain, e, pre + "weights", "Attention weights", f"e_{t}", f"α_{t}", shift_mode, labels)
    steps.append(_retitle(w))
    alpha = np.asarray(w.value)
    alpha_, H_ = chain.coerce(alpha, H)
    steps.append(
        chain.step(
            Product,
            pre + "context",
            chain.matmul(alpha_, H_),
            title="Context vector",
            formula=f"c_{t} = Σ_i α_{t},i h_i",
            latex="",
            symbol=f"c_{t}",
            left=alpha_,
            right=H_,
            explain="The context is the attention-weighted average of the encoder states.",
        )
    )
    ctx: np.ndarray = steps[-1].value
    return ctx


def _retitle(step: Step) -> Step:
    import dataclasses

    return dataclasses.replace(step, explain="Softmax turns the scores into weights that sum to 1.")
